//! How far `advise` has got, for a progress bar (issue 45): the operation
//! plans its searches have priced, and whether one stopped at its budget.
//! The command line opens a watch around the call and reads it from another
//! thread; the search, which runs on the caller's thread, adds to the
//! watch open on it. A caller that opens none (the tests, a library user)
//! pays one thread-local lookup per move priced.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What the searches under a watch have done so far.
#[derive(Debug, Default)]
pub struct Watch {
    planned: AtomicU64,
    stopped: AtomicBool,
}

impl Watch {
    /// Operation plans priced so far.
    pub fn planned(&self) -> u64 {
        self.planned.load(Ordering::Relaxed)
    }

    /// Whether a search stopped at its budget (the design is the best
    /// found, not a settled one).
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
}

thread_local! {
    static OPEN: RefCell<Option<Arc<Watch>>> = const { RefCell::new(None) };
}

/// Runs `work` with `watch` following the searches it makes on this thread.
pub fn watched<T>(watch: Arc<Watch>, work: impl FnOnce() -> T) -> T {
    within(Some(watch), work)
}

/// The watch open on this thread, for work this thread hands to others
/// (the search's parts on rayon's threads, `optimize::by_parts`).
pub(super) fn open() -> Option<Arc<Watch>> {
    OPEN.with(|open| open.borrow().clone())
}

/// Runs `work` with `watch` (from `open` on the thread that handed it
/// over) following it, or none: a rayon thread keeps no watch of the
/// work it ran before.
pub(super) fn within<T>(watch: Option<Arc<Watch>>, work: impl FnOnce() -> T) -> T {
    /// Puts back the watch open before, however `work` ends.
    struct Restore(Option<Arc<Watch>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            OPEN.with(|open| *open.borrow_mut() = before);
        }
    }
    let _restore = Restore(OPEN.with(|open| open.replace(watch)));
    work()
}

/// `n` more operation plans priced.
pub(super) fn priced(n: u64) {
    OPEN.with(|open| {
        if let Some(w) = open.borrow().as_ref() {
            w.planned.fetch_add(n, Ordering::Relaxed);
        }
    });
}

/// A search stopped at its budget.
pub(super) fn stopped() {
    OPEN.with(|open| {
        if let Some(w) = open.borrow().as_ref() {
            w.stopped.store(true, Ordering::Relaxed);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_counts_what_is_priced_under_it_and_nothing_after() {
        let watch = Arc::new(Watch::default());
        priced(5);
        watched(watch.clone(), || {
            priced(3);
            priced(4);
        });
        priced(100);
        assert_eq!(watch.planned(), 7);
        assert!(!watch.stopped());
        watched(watch.clone(), stopped);
        assert!(watch.stopped());
    }

    #[test]
    fn the_search_reports_to_the_open_watch() {
        let model = crate::model::synthetic::chain(30);
        let watch = Arc::new(Watch::default());
        let settings = crate::settings::Settings::default();
        watched(watch.clone(), || {
            crate::advise::advise(&model, &settings, None).expect("a design")
        });
        assert!(watch.planned() > 0);
    }
}
