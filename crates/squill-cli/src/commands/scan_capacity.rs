//! `scan DUMP --horizon 36m`: a running deployment's capacity. Growth is
//! measured between this dump and an older one (`--since`), or from the
//! inserts the logs show (`--workload`); the projection is advise's
//! (`squill::advise::deployment_capacity`), in its words and JSON.

use anyhow::Result;
use squill::inputs::dump::InputFormat;
use squill::scan::growth::{self, Growth};
use squill::scan::{ScanReport, driver};
use std::path::PathBuf;

#[derive(Debug, Clone, clap::Args)]
pub struct CapacityArgs {
    /// Project the deployment's collections month by month this far ahead
    /// (`36m`, `3y`, `90d`) against MongoDB's limits and the deployment's
    /// (docs/capacity.md); growth from --since or from --workload's inserts.
    #[arg(long, value_name = "TIME", value_parser = super::advise::horizon,
        conflicts_with_all = ["shard_keys", "shard_key", "emit_model"])]
    pub horizon: Option<squill::model::Horizon>,

    /// An older dump of the same deployment: growth is what was added
    /// between the two, per day.
    #[arg(long, value_name = "OLD_DUMP", requires = "horizon")]
    pub since: Option<PathBuf>,

    /// The time between --since's dump and this one (`30d`, `2m`, `1y`);
    /// by default the difference of the newest ObjectId `_id` time in each.
    #[arg(long, value_name = "TIME", value_parser = days, requires = "since")]
    pub interval: Option<f64>,

    /// RAM of each member for the projection (`64GiB`).
    #[arg(long, value_name = "SIZE", value_parser = super::advise::size, requires = "horizon")]
    pub ram: Option<u64>,

    /// Disk of each member for the projection (`4TiB`).
    #[arg(long, value_name = "SIZE", value_parser = super::advise::size, requires = "horizon")]
    pub disk: Option<u64>,

    /// Shards for the projection (default 1: one replica set).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), requires = "horizon")]
    pub shards: Option<u32>,
}

/// A time in days: `30d`, `6w`, `2m` (30 days each), `1y` (365), `12h`.
fn days(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let per = match unit.trim() {
        "h" => Some(1.0 / 24.0),
        "d" => Some(1.0),
        "w" => Some(7.0),
        "m" => Some(squill::model::DAYS_A_MONTH),
        "y" => Some(365.0),
        _ => None,
    };
    match (n.parse::<f64>(), per) {
        (Ok(n), Some(per)) if n > 0.0 && n.is_finite() => Ok(n * per),
        _ => Err(format!(
            "`{text}` is not a time: a number and h, d, w, m or y, `30d`, `2m`"
        )),
    }
}

/// The growth: between the dumps, or from the logged inserts.
pub fn growth(
    report: &ScanReport,
    args: &CapacityArgs,
    paths: &[PathBuf],
    logs: &[PathBuf],
    format: InputFormat,
    settings: &squill::settings::Settings,
) -> Result<Growth> {
    if let Some(old) = &args.since {
        let old_report = driver::scan(
            squill::inputs::dump::open(std::slice::from_ref(old), format),
            settings,
            driver::Options::default(),
            &driver::Progress::default(),
        );
        if let Some(e) = old_report.errors.first() {
            anyhow::bail!("--since {}: {}", old.display(), e.message);
        }
        let (newest_old, newest_new) = if args.interval.is_some() {
            (None, None)
        } else if let Some(uri) = super::scan::live_uri(paths) {
            // A sample's newest `_id` need not be the collection's: the
            // time between the readings is not guessed from it.
            anyhow::bail!(
                "--since against a running deployment ({}) needs --interval: the time between the dump and now",
                squill::inputs::mongo_uri::without_credentials(uri)
            );
        } else {
            let (old_id, _) = growth::newest_object_id(&squill::inputs::dump::open(
                std::slice::from_ref(old),
                format,
            ));
            let (new_id, _) = growth::newest_object_id(&squill::inputs::dump::open(paths, format));
            (old_id, new_id)
        };
        let (days, interval) = growth::interval(args.interval, newest_old, newest_new)?;
        return Ok(growth::between(&old_report, report, days, interval));
    }
    if logs.is_empty() {
        anyhow::bail!(
            "--horizon on a scan needs the growth: an older dump (--since OLD_DUMP) or logs with its inserts (--workload LOG)"
        );
    }
    let workload = squill::workload::read(logs, squill::workload::Options::default());
    if let Some(e) = workload.errors.first() {
        anyhow::bail!("cannot read {}: {}", e.path, e.message);
    }
    Ok(growth::from_inserts(report, &workload)?)
}

/// The report: the scan's own, then the projection (JSON: the projection alone).
pub fn report(
    report: &ScanReport,
    growth: &Growth,
    args: &CapacityArgs,
    horizon: squill::model::Horizon,
    settings: &squill::settings::Settings,
    format: super::scan::Format,
) -> Result<String> {
    use super::scan::Format;
    let deployment = squill::model::Deployment {
        ram_bytes: args.ram,
        disk_bytes: args.disk,
        shards: args.shards,
        compression: None,
    }
    .or(settings.capacity.deployment);
    let capacity =
        squill::advise::deployment_capacity::project(report, growth, settings, horizon, deployment);
    use squill::outputs::scan::growth as out;
    Ok(match format {
        Format::Json => out::json(growth, &capacity),
        Format::Markdown => format!(
            "{}\n{}",
            squill::outputs::scan::markdown(report),
            out::markdown(growth, &capacity)
        ),
        Format::Text => format!(
            "{}\n{}",
            squill::outputs::scan::text(report),
            out::text(growth, &capacity)
        ),
        Format::Html => squill::outputs::html::scan_with_capacity(report, growth, &capacity),
        Format::Sarif => anyhow::bail!("--horizon writes text, markdown, json or html"),
    })
}
