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
            threads: 0,
            cancel: None,
            progress: None,
        }
    }
}
