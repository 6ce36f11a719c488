//! A progress bar on stderr for the long commands (scan, generate data),
//! drawn from counters the work updates; nothing when stderr is not a
//! terminal, so pipes and logs get no control characters.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

/// Runs `work` while a bar follows `position()` (bytes, documents) towards
/// `total` bytes.
pub fn with_progress_bar<T: Send>(
    total: Option<u64>,
    position: impl Fn() -> (u64, u64) + Sync,
    work: impl FnOnce() -> T + Send,
) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let bar = match total {
        Some(t) => indicatif::ProgressBar::new(t),
        None => indicatif::ProgressBar::no_length(),
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {bytes}/{total_bytes} {wide_bar} {bytes_per_sec} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                let (bytes, documents) = position();
                bar.set_position(bytes);
                bar.set_message(format!("{documents} documents"));
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            bar.finish_and_clear();
        });
        let out = work();
        done.store(true, Ordering::Relaxed);
        out
    })
}

/// Runs `work` while a spinner shows `message()`, from one second on: a
/// short job draws nothing. Nothing when stderr is not a terminal.
pub fn with_spinner<T: Send>(
    message: impl Fn() -> String + Sync,
    work: impl FnOnce() -> T + Send,
) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let started = std::time::Instant::now();
            let mut spinner: Option<indicatif::ProgressBar> = None;
            while !done.load(Ordering::Relaxed) {
                if spinner.is_none() && started.elapsed() >= std::time::Duration::from_secs(1) {
                    let bar = indicatif::ProgressBar::new_spinner();
                    bar.set_style(
                        indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                    );
                    spinner = Some(bar);
                }
                if let Some(bar) = &spinner {
                    bar.set_message(message());
                    bar.tick();
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            if let Some(bar) = spinner {
                bar.finish_and_clear();
            }
        });
        let out = work();
        done.store(true, Ordering::Relaxed);
        out
    })
}
