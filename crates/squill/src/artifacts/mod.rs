//! `artifacts`: turns a `Design` into what a team runs: validators, indexes,
//! a setup script, example documents and the query cookbook (mongosh, Python,
//! Node.js).
//!
//! Everything is built from the design the advisor chose (collections, shapes
//! with the origin of every field, indexes, operation plans) and the model it
//! came from (field types, enum values, cardinalities); nothing here
//! re-decides the design. Artifacts are values (`Artifact`) so they can be
//! snapshot-tested; `write_artifacts` puts them on disk atomically. The
//! example documents and the synthetic data come from `synthetic`, below.

pub mod cookbook;
pub mod setup;

#[cfg(test)]
mod external_tests;
// The CLI's end-to-end tests include this file too (for their per-thread
// server, unused here).
#[cfg(test)]
#[allow(dead_code, reason = "the per-thread server is for the CLI's tests")]
mod mongosh_server;
// The same for the Python checks.
#[cfg(test)]
mod expiry_tests;
#[cfg(test)]
mod index_upgrade_tests;
#[cfg(test)]
#[allow(dead_code, reason = "the per-thread server is for the CLI's tests")]
mod python_server;
#[cfg(test)]
mod recover_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod ttl_tests;

// Generated code run against the server (issue 41): an embedded element's
// conditional write, an atomic group's transaction.
// A parent's delete takes its owned children (audit43 Q).
#[cfg(test)]
mod bucket_elements_tests;
#[cfg(test)]
mod bucket_keyset_tests;
#[cfg(test)]
mod bucket_parent_reads_tests;
#[cfg(test)]
mod cascade_tests;
// An upsert: one instance added, whatever the race (issue 41).
#[cfg(test)]
mod elem_match_tests;
#[cfg(test)]
mod together_tests;
#[cfg(test)]
mod upsert_tests;
// An aggregate read over children apart, computed on the server (issue 41).
#[cfg(test)]
mod figures_tests;
// A read of embedded children on their own: one element each (issue 41).
#[cfg(test)]
mod child_counts_tests;
// Figures over a subset of the children kept in the parent (issue 41).
#[cfg(test)]
mod subset_figures_tests;
// Figures over children embedded in the parent, computed in its find
// (review48 A6).
#[cfg(test)]
mod embedded_figures_tests;
// Reads of lines embedded in orders under a tenant (review47 item 4).
#[cfg(test)]
mod element_updates_tests;
#[cfg(test)]
mod elements_tests;
#[cfg(test)]
mod embedded_elements_tests;
#[cfg(test)]
mod expiring_embedded_tests;
#[cfg(test)]
mod outlier_filters_tests;
#[cfg(test)]
mod outlier_newest_tests;
#[cfg(test)]
mod tenant_lines_tests;
// A parent's figures moved by the one child inserted (audit44 G).
#[cfg(test)]
mod inserted_figures_tests;
// A link's element built from the ids and the copies read (audit44 F).
#[cfg(test)]
mod link_item_tests;
#[cfg(test)]
mod tenant_insert_tests;
// An insert's parent in every layout that names it, under a tenant (review48).
#[cfg(test)]
mod tenant_parent_tests;
// A condition comparing two fields of the document, `$expr` (audit44 M).
#[cfg(test)]
mod field_compare_tests;
// Conditions on the caller's own values: a compare-and-set and a bound
// on the value the write leaves (audit45 gap 7).
#[cfg(test)]
mod caller_value_tests;
// A read through a chain of hops whose first is embedded: the hosts by
// the ids the hops beyond find (audit48 A1).
#[cfg(test)]
mod chained_tray_tests;

pub use crate::synthetic::GenerateError;

use crate::catalog::{indexes, schema};
use crate::design::Design;
use crate::model::Model;
use crate::synthetic::write;
use crate::synthetic::{DataSummary, Population, data, examples, refuse_too_many};
use crate::words::markdown as md;
use std::path::{Path, PathBuf};

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// File name inside the output directory.
    pub file: &'static str,
    /// One line for the README index.
    pub title: &'static str,
    pub content: String,
}

/// How the artifacts are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Seed of every generated value (examples and data).
    pub seed: u64,
    /// Cut the children of any one parent at this many in the examples,
    /// as `DataOptions::max_children` does in the data.
    pub max_children: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 1,
            max_children: None,
        }
    }
}

/// Every artifact of the design, README index last.
pub fn artifacts(
    model: &Model,
    design: &Design,
    options: &Options,
) -> Result<Vec<Artifact>, GenerateError> {
    if let Some(r) = indexes::redundant(design).into_iter().next() {
        return Err(GenerateError::RedundantIndex {
            collection: r.collection,
            index: r.index,
            covered_by: r.covered_by,
        });
    }
    // Examples are built at scale 1: one instance of every root entity.
    refuse_too_many(model, 1, options.max_children)?;
    let pop = Population::for_examples(model, design, options.seed, options.max_children);
    let ops = cookbook::op_codes(design);
    let validators: serde_json::Map<String, serde_json::Value> = design
        .collections
        .iter()
        .map(|c| (c.name.clone(), schema::validator(c)))
        .collect();
    let mut out = vec![
        Artifact {
            file: "validators.json",
            title: "the `$jsonSchema` validator of each collection",
            content: pretty(&serde_json::Value::Object(validators)),
        },
        Artifact {
            file: "validators.js",
            title: "mongosh: `createCollection` with the validator, or `collMod` when the collection exists",
            content: setup::validators_script(design),
        },
        Artifact {
            file: "indexes.js",
            title: "mongosh: `createIndexes` for the design's indexes, each with the operations that use it",
            content: setup::indexes_script(design),
        },
        Artifact {
            file: "setup.js",
            title: "mongosh: collections, validators and indexes in one script, safe to run twice",
            content: setup::setup_script(design),
        },
        Artifact {
            file: "examples.json",
            title: "an example document per collection at typical and at maximum cardinality (Extended JSON)",
            content: examples::render(&examples::examples(&pop)),
        },
        Artifact {
            file: "cookbook.md",
            title: "every operation explained, in mongosh, Python and Node.js",
            content: cookbook::markdown(design, &ops),
        },
        Artifact {
            file: "cookbook.mongosh.js",
            title: "the cookbook as mongosh functions",
            content: cookbook::mongosh(design, &ops),
        },
        Artifact {
            file: "cookbook.py",
            title: "the cookbook as a Python (pymongo) module",
            content: cookbook::python(design, &ops),
        },
        Artifact {
            file: "cookbook.js",
            title: "the cookbook as a Node.js (official driver) module",
            content: cookbook::node(design, &ops),
        },
    ];
    out.push(Artifact {
        file: "README.md",
        title: "this index",
        content: readme(design, &out, None),
    });
    Ok(out)
}

/// The README index again, with the synthetic data written beside the
/// artifacts (`squill generate MODEL --scale N`).
pub fn readme_with_data(design: &Design, artifacts: &[Artifact], data: &DataSummary) -> Artifact {
    let others: Vec<Artifact> = artifacts
        .iter()
        .filter(|a| a.file != "README.md")
        .cloned()
        .collect();
    Artifact {
        file: "README.md",
        title: "this index",
        content: readme(design, &others, Some(data)),
    }
}

fn pretty(json: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(json).unwrap_or_default();
    s.push('\n');
    s
}

fn readme(design: &Design, artifacts: &[Artifact], data: Option<&DataSummary>) -> String {
    let mut out = format!(
        "# Generated for model {}, mix {}\n\nWritten by `squill generate` from the design `squill advise` recommends.\n\n\
         | file | what it holds |\n|---|---|\n",
        md::code_in_prose(&design.model),
        md::code_in_prose(&design.mix)
    );
    for a in artifacts {
        out.push_str(&format!("| `{}` | {} |\n", a.file, a.title));
    }
    out.push_str("| `README.md` | this index |\n\n## Collections\n\n| collection | entities | documents | indexes |\n|---|---|---|---|\n");
    for c in &design.collections {
        let idx: Vec<String> = indexes::created(c)
            .iter()
            .map(|i| md::code(&i.name))
            .collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            md::code(&c.name),
            md::text(&c.entities.join(", ")),
            cookbook::format_count(c.documents as f64),
            if idx.is_empty() {
                "_id only".to_string()
            } else {
                idx.join(", ")
            }
        ));
    }
    if let Some(data) = data {
        let db = md::code_in_prose(&format!("dump/{}/", data::database_name(design)));
        out.push_str(&format!(
            "\n## Synthetic data\n\n{} documents: `data/COLLECTION.json` (Extended JSON lines, for mongoimport) and \
             {db} (BSON and metadata with the validator and indexes, for mongorestore).\n\n\
             | collection | documents | Extended JSON bytes | BSON bytes |\n|---|---|---|---|\n",
            cookbook::format_count(data.documents() as f64)
        ));
        for c in &data.collections {
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                md::code(&c.name),
                cookbook::format_count(c.documents as f64),
                cookbook::format_count(c.ejson_bytes as f64),
                cookbook::format_count(c.bson_bytes as f64)
            ));
        }
        if let Some(note) = live_dates_note(data, md::code_in_prose) {
            out.push('\n');
            out.push_str(&note);
            out.push('\n');
        }
    }
    out.push_str(
        "\nTo build it: `mongosh \"mongodb://HOST/DB\" setup.js` (safe to run again).\n\
         Synthetic data: `squill generate data MODEL --scale N --out DIR` writes `data/*.json`\n\
         (mongoimport) and `dump/DB/` (mongorestore).\n",
    );
    out
}

/// What the user must know to load data with expiring dates in time: the
/// fields, the time they were placed alive at (`--now`), and when the
/// first of them expires. `name` writes a field's name where it lands.
/// `None` when nothing expires.
pub fn live_dates_note(data: &DataSummary, name: fn(&str) -> String) -> Option<String> {
    if data.expiring.is_empty() {
        return None;
    }
    let fields: Vec<String> = data
        .expiring
        .iter()
        .map(|(f, life)| {
            format!(
                "{} (life {})",
                name(f),
                crate::words::duration_seconds(*life)
            )
        })
        .collect();
    // `synthetic::values::live_date`: the oldest date is half a life
    // before `now` (half a day after it for a life of 0), so the first
    // document expires half a life after `now`.
    let first_expiry_ms = data
        .expiring
        .iter()
        .map(|(_, life)| if *life == 0 { 43_200_000 } else { life * 500 })
        .min()
        .unwrap_or(0);
    Some(format!(
        "Dates an expiry counts from are placed alive at {} (`--now`, else the time of the run): {}. \
         Load the data before {}, when the first of them expires; the same `--seed` and `--now` give the same files.",
        crate::words::utc(data.now_ms),
        fields.join(", "),
        crate::words::utc(
            data.now_ms
                .saturating_add(i64::try_from(first_expiry_ms).unwrap_or(i64::MAX))
        )
    ))
}

/// Writes `artifacts` into `dir`: refuses existing files unless `force`,
/// writes each through a temporary file and a rename.
pub fn write_artifacts(
    dir: &Path,
    artifacts: &[Artifact],
    force: bool,
) -> Result<Vec<PathBuf>, GenerateError> {
    let paths: Vec<PathBuf> = artifacts.iter().map(|a| dir.join(a.file)).collect();
    write::refuse_existing(&paths, force)?;
    artifacts
        .iter()
        .map(|a| write::write_file(&dir.join(a.file), a.content.as_bytes()))
        .collect()
}
