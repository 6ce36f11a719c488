//! What a run of `generate data` is asked for: the scale, the seed, the
//! formats, and the handles it is stopped and watched through. Both the
//! estimate made before a run and the run itself read it.

/// Which files `generate data` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    Ejson,
    Dump,
    Both,
}

impl DataFormat {
    pub fn ejson(self) -> bool {
        matches!(self, DataFormat::Ejson | DataFormat::Both)
    }
    pub fn dump(self) -> bool {
        matches!(self, DataFormat::Dump | DataFormat::Both)
    }
}

/// What data to generate.
#[derive(Debug, Clone)]
pub struct DataOptions {
    /// Instances of every entity that is nobody's child.
    pub scale: u64,
    pub seed: u64,
    /// Cut children per parent at this many (`None`: the model's cardinality).
    pub max_children: Option<u64>,
    pub format: DataFormat,
    /// Overwrite existing files.
    pub force: bool,
    /// When the data is taken to be loaded, in milliseconds since the
    /// Unix epoch: the dates of a field an expiry counts from lie in the
    /// newest half of its life before it (`values::live_date`), so a TTL
    /// index keeps them for at least half their life after it. The CLI
    /// gives the clock or `--now`; the same value gives the same bytes.
    pub now_ms: i64,
    /// Threads that build documents (0: one per core). The output does not
    /// depend on it.
    pub threads: usize,
    /// Set from elsewhere (a signal handler) to stop: `write` returns
    /// `Interrupted` at the next batch, and the files being written are
    /// removed.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Counts what has been written so far, for a progress bar.
    pub progress: Option<std::sync::Arc<Progress>>,
}

/// What `write` has written so far: the counters scan's progress bar reads.
pub use crate::scan::driver::Progress;

impl DataOptions {
    pub fn new(scale: u64, seed: u64) -> Self {
        DataOptions {
            scale,
            seed,
            max_children: None,
            format: DataFormat::Both,
            force: false,
            now_ms: super::values::EPOCH_2024_MS,
            threads: 0,
            cancel: None,
            progress: None,
        }
    }
}

/// `--now`: an ISO 8601 time (`2026-11-30T09:00:00Z`, or with an offset),
/// in milliseconds since the Unix epoch; `None` when it is not one.
pub fn parse_now(text: &str) -> Option<i64> {
    crate::inputs::ejson::date::parse_iso(text.trim())
}

/// The fields whose dates `now_ms` places (`values::live_date`), as
/// `entity.field` with the expiry's seconds: what a run tells its user
/// along with the `--now` that reproduces it.
pub fn expiring_fields(model: &crate::model::Model) -> Vec<(String, u64)> {
    model
        .entities
        .iter()
        .filter_map(|e| {
            let x = e.expires.as_ref()?;
            Some((format!("{}.{}", e.name, x.field), x.seconds))
        })
        .collect()
}
