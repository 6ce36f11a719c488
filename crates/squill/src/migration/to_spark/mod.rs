//! `squill migrate postgres://… --engine spark`: the same move as
//! `from_postgres`, written as a PySpark job for a database past one
//! machine. squill does not run it: it writes `squill_migrate.py` (a fixed
//! runtime, `job.py`, with the design's plan in it) and a README beside
//! it. The job reads every table through JDBC in partitions split on the
//! key, builds the documents with Spark joins and `collect_list`, and
//! writes them per partition: to MongoDB with unordered upserts by `_id`
//! (a retried task writes nothing twice), or to Extended JSON or BSON
//! files that a retried task replaces whole.
//!
//! The plan (`plan`) types every value in the JDBC read's SQL as the native
//! builder does, so both engines write the same documents; a layout the
//! plan cannot build yet is refused by name. Why a plan walked by a fixed
//! runtime rather than generated Python per collection: every name from
//! the database then reaches the job as data inside one JSON string
//! literal (`words::script::py_string`), never as code, and the runtime is
//! one file that can be read, tested and fixed once.

pub mod plan;
mod readme;

use crate::design::Design;
use crate::inputs::postgres::{Target, catalog};
use crate::inputs::sql::map::Mapping;
use crate::migration::from_postgres::{Builder, MigrateError};
use crate::model::Model;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The fixed part of the job; `PLAN_LINE` is replaced by the plan.
const RUNTIME: &str = include_str!("job.py");
const PLAN_LINE: &str = "PLAN_JSON = \"[]\"  # replaced by squill\n";
const DEFAULTS_LINE: &str = "DEFAULTS_JSON = \"{}\"  # replaced by squill\n";

/// The job's file name, and its README's.
pub const JOB: &str = "squill_migrate.py";
pub const README: &str = "README.md";

/// What writing the job needs.
#[derive(Debug, Clone)]
pub struct SparkOptions {
    pub out: PathBuf,
    pub namespace: String,
    pub connect_timeout: Duration,
    pub statement_timeout: Duration,
}

/// The files written.
#[derive(Debug, Clone)]
pub struct Written {
    pub job: PathBuf,
    pub readme: PathBuf,
    pub collections: usize,
}

/// Reads the database's catalog, lowers the design into the job's plan and
/// writes the job and its README into `options.out`.
pub fn write(
    url: &str,
    model: &Model,
    design: &Design,
    options: &SparkOptions,
) -> Result<Written, MigrateError> {
    let target = Target::parse(url, options.connect_timeout)?;
    let mut client = target.connect(options.statement_timeout)?;
    let schema = catalog::read(&mut client, &target, &options.namespace)?;
    let mapping = Mapping::of(&schema);
    let builder = Builder::new(&schema, &mapping, model, design, &options.namespace);
    let plan = plan::plan(&schema, &builder, design, &options.namespace)
        .map_err(MigrateError::Unsupported)?;
    let collections = plan.as_array().map_or(0, Vec::len);
    let defaults = serde_json::json!({
        "jdbc_url": format!("jdbc:postgresql://{}", target.name),
        "user": target.user(),
        "database": crate::synthetic::data::database_name(design),
    });
    let job = job_text(&plan, &defaults);
    std::fs::create_dir_all(&options.out).map_err(io(&options.out))?;
    let job_path = options.out.join(JOB);
    std::fs::write(&job_path, job).map_err(io(&job_path))?;
    let readme_path = options.out.join(README);
    let text = readme::text(design, &target.name, target.user(), collections);
    std::fs::write(&readme_path, text).map_err(io(&readme_path))?;
    Ok(Written {
        job: job_path,
        readme: readme_path,
        collections,
    })
}

/// The runtime with the plan and the defaults in it, each one Python
/// string literal of JSON.
pub fn job_text(plan: &serde_json::Value, defaults: &serde_json::Value) -> String {
    use crate::words::script::py_string;
    RUNTIME
        .replacen(
            PLAN_LINE,
            &format!("PLAN_JSON = {}\n", py_string(&plan.to_string())),
            1,
        )
        .replacen(
            DEFAULTS_LINE,
            &format!("DEFAULTS_JSON = {}\n", py_string(&defaults.to_string())),
            1,
        )
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> MigrateError + '_ {
    move |e| MigrateError::Io(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
