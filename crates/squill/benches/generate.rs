//! Data generation throughput: `squill generate data` on the host → log
//! messages design (000_34acd10fa9a500cb.txt), sized to about
//! SQUILL_BENCH_BYTES of output (default 1 GB, EJSON + BSON together) in
//! SQUILL_BENCH_DIR (default target/bench-generate), against the disk itself.
//!
//!     cargo bench -p squill --features fixtures --bench generate
//!
//! First, building and encoding alone on one thread (nothing written): what
//! one core can do. Then SQUILL_BENCH_ROUNDS rounds (default 3) of four steps,
//! each step going first in turn:
//! - `data::write` with one builder thread per core;
//! - the same number of bytes of generated text written straight to a file
//!   the way the data writer does (1 MiB writes, write-back asked for every
//!   32 MiB on a second thread, an fsync at the end): the disk;
//! - `data::write` with one builder thread, through the page cache;
//! - `data::write` with one builder per core into SQUILL_BENCH_RAM_DIR
//!   (default /dev/shm when it exists, a RAM file system).
//!
//! Generation is disk-bound when its time is close to that of the plain
//! write that goes the same way to the disk, in the same round; the medians
//! and the per-round ratios say how close. Each step's CPU time (user and
//! system, every thread of the process, from /proc/self/stat) over its wall
//! time and the cores says how busy the CPU was: near 100%, the CPU sets the
//! pace whatever the disk could do. The disk's busy time over the step's wall
//! time (`io_ticks` of /proc/diskstats, the time the disk under
//! SQUILL_BENCH_DIR had requests in flight) says it the other way round:
//! near the plain write's, generation never left the disk waiting.
//!
//! SQUILL_BENCH_STEPS (default: all) picks steps by key, comma-separated:
//! `gen`, `plain`, `gen-1`, `ram`.

use squill::fixtures;
use squill::synthetic::{
    Builder, DataOptions, Fanout, Population, RunEncoder, data,
    values::Scratch,
    write::{AtomicFile, RESERVE_AHEAD},
};
use std::path::Path;
use std::time::Instant;

fn main() {
    // `cargo test --all-targets` runs benches without `--bench`: writing a
    // gigabyte is no test (generate's own tests cover the writer).
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!(
            "generate bench: run with `cargo bench -p squill --features fixtures --bench generate`"
        );
        return;
    }
    let target: u64 = env("SQUILL_BENCH_BYTES", 1_000_000_000);
    let rounds = env("SQUILL_BENCH_ROUNDS", 3).max(1) as usize;
    let dir = std::env::var("SQUILL_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from("target/bench-generate"));
    let (model, design) = fixtures::host_logs();

    // Size one host's worth of output, then scale to the target.
    let probe = dir.join("probe");
    let _ = std::fs::remove_dir_all(&probe);
    let small = data::write(&model, &design, &DataOptions::new(4, 1), &probe).expect("probe");
    // The log messages: the biggest collection.
    let sample = std::fs::read_dir(probe.join("data"))
        .expect("probe output")
        .flatten()
        .max_by_key(|e| e.metadata().map_or(0, |m| m.len()))
        .and_then(|e| std::fs::read(e.path()).ok())
        .expect("probe output");
    let _ = std::fs::remove_dir_all(&probe);
    let per_host = small.bytes() / 4;
    let scale = (target / per_host.max(1)).max(1);

    // CPU only: build and encode every document on this thread, write nothing.
    let pop = Population::new(&model, &design, scale, 1);
    let builder = Builder::new(&pop, Fanout::Drawn);
    let started = Instant::now();
    let (mut docs, mut bytes) = (0u64, 0u64);
    let (mut text, mut bin) = (Vec::new(), Vec::new());
    let mut scratch = Scratch::default();
    for coll in &design.collections {
        // The same code as the builder threads: `RunEncoder`.
        let mut encoder = RunEncoder::new(&pop, coll);
        pop.for_each_run(coll, |run| -> Result<(), ()> {
            // In pieces, as batches are, so that the buffers stay small.
            let mut rest = Some(run);
            while let Some(run) = rest.take() {
                let (head, tail) = run.split(4096);
                let (j, b) = (Some(&mut text), Some(&mut bin));
                encoder.encode(&builder, &head, j, b, &mut scratch);
                docs += head.len();
                bytes += (text.len() + bin.len()) as u64;
                text.clear();
                bin.clear();
                rest = tail;
            }
            Ok(())
        })
        .expect("build");
    }
    let cpu = started.elapsed().as_secs_f64();
    println!(
        "build+encode only, 1 thread: {docs} documents, {bytes} bytes in {cpu:.2} s: {:.0} documents/s, {:.1} MB/s",
        docs as f64 / cpu,
        bytes as f64 / cpu / 1e6
    );

    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let ram_dir = std::env::var("SQUILL_BENCH_RAM_DIR")
        .map(std::path::PathBuf::from)
        .ok()
        .or_else(|| Some(std::path::PathBuf::from("/dev/shm")).filter(|d| d.is_dir()))
        .map(|d| d.join(format!("squill-bench-{}", std::process::id())));
    let chosen = std::env::var("SQUILL_BENCH_STEPS").ok();
    let chosen = |step: Step| {
        chosen
            .as_deref()
            .is_none_or(|keys| keys.split(',').any(|k| k.trim() == step.labels().0))
    };
    // Seconds and CPU seconds per step and round.
    let mut times: [Vec<f64>; STEPS.len()] = Default::default();
    let mut cpu_times: [Vec<f64>; STEPS.len()] = Default::default();
    let mut disk_times: [Vec<f64>; STEPS.len()] = Default::default();
    let mut bytes_written = 0;
    let mut documents = Vec::new();
    for round in 1..=rounds {
        // Each step goes first in turn, so that what one leaves the next to
        // pay for (write-back, the freeing of the files it removed, memory
        // to reclaim) falls on all of them alike: with a fixed order, the
        // plain write, always third, came out slower than generating.
        let mut line = format!("round {round}:");
        for step in (0..STEPS.len()).map(|i| (i + round) % STEPS.len()) {
            if !chosen(STEPS[step]) {
                continue;
            }
            let out = dir.join("out");
            let timed = match STEPS[step] {
                Step::Generate { threads } => {
                    let threads = threads.unwrap_or(cores);
                    let (timed, n, docs) = generate(&model, &design, scale, threads, &out);
                    bytes_written = n;
                    if threads == cores {
                        documents.push(docs as f64 / timed.secs);
                    }
                    Some(timed)
                }
                Step::Plain => Some(write_plain(&dir.join("plain"), &sample, bytes)),
                Step::Ram => ram_dir
                    .as_ref()
                    .map(|rd| generate(&model, &design, scale, cores, rd).0),
            };
            if let Some(Timed { secs, cpu, disk }) = timed {
                line += &format!(" {} {secs:.2} s;", STEPS[step].name());
                times[step].push(secs);
                cpu_times[step].extend(cpu);
                disk_times[step].extend(disk);
            }
        }
        println!("{line}");
    }

    // The same bytes in every run: the output does not depend on the threads.
    let n = bytes_written;
    println!("medians over {rounds} rounds, {n} bytes ({cores} cores):");
    for (((step, t), c), d) in STEPS.iter().zip(&times).zip(&cpu_times).zip(&disk_times) {
        if !t.is_empty() {
            // CPU busy: CPU seconds over what the cores could give in the
            // step's wall time; disk busy: the disk's busy seconds over it.
            let share = |busy: &[f64], of: f64| -> Vec<f64> {
                busy.iter()
                    .zip(t)
                    .map(|(b, t)| 100.0 * b / (t * of))
                    .collect()
            };
            let (cpu, disk) = (share(c, cores as f64), share(d, 1.0));
            let mut busy = String::new();
            if !cpu.is_empty() {
                busy += &format!("  CPU busy {:.0}%", median(&cpu));
            }
            if !disk.is_empty() {
                busy += &format!("  disk busy {:.0}%", median(&disk));
            }
            let (fastest, slowest) = span(t);
            println!(
                "  {:<38} {:>7.1} MB/s  ({fastest:.2}-{slowest:.2} s){busy}",
                step.name(),
                mb(n, median(t)),
            );
        }
    }
    if !documents.is_empty() {
        println!(
            "  documents/s, generating through the page cache: {:.0}",
            median(&documents)
        );
    }
    // Per-round ratio: generation against the plain write of the same bytes
    // (near 1: the disk sets the pace).
    for (g, p) in [(0, 1)] {
        if times[g].is_empty() || times[p].is_empty() {
            continue;
        }
        let r: Vec<f64> = times[g].iter().zip(&times[p]).map(|(a, b)| a / b).collect();
        let (low, high) = span(&r);
        println!(
            "  {} / {}: median {:.2} ({low:.2}-{high:.2}) per round",
            STEPS[g].name(),
            STEPS[p].name(),
            median(&r),
        );
    }
}

/// What a round times.
#[derive(Clone, Copy)]
enum Step {
    /// `data::write` with this many builder threads (`None`: one per core).
    Generate { threads: Option<usize> },
    /// The same bytes written with no generating, the same way.
    Plain,
    /// `data::write` into RAM (tmpfs), one builder per core.
    Ram,
}

/// The steps, in the order of the summary; the per-round ratio pairs the
/// first with the second.
const STEPS: [Step; 4] = [
    Step::Generate { threads: None },
    Step::Plain,
    Step::Generate { threads: Some(1) },
    Step::Ram,
];

impl Step {
    /// What SQUILL_BENCH_STEPS calls the step, and its name in the summary.
    fn labels(self) -> (&'static str, &'static str) {
        match self {
            Step::Generate { threads: None } => ("gen", "generate"),
            Step::Generate { threads: Some(_) } => ("gen-1", "generate, 1 builder"),
            Step::Plain => ("plain", "plain write"),
            Step::Ram => ("ram", "generate into RAM (tmpfs)"),
        }
    }

    fn name(self) -> &'static str {
        self.labels().1
    }
}

/// Lets the disk finish what the last step left it (write-back, the freeing
/// of the files it removed) before the next one is timed: `sync`, where
/// there is one. Without it, the step after a large removal paid for it.
fn settle() {
    let _ = std::process::Command::new("sync").status();
}

/// A step's wall time and, where /proc says, the CPU time of every thread
/// of this process over the same window.
struct Timed {
    secs: f64,
    cpu: Option<f64>,
    /// Seconds the disk had writes (or reads) in flight.
    disk: Option<f64>,
}

/// Started where a step's timing starts (after its `settle`), stopped where
/// it ends (before its removals).
struct Clock<'d> {
    wall: Instant,
    cpu: Option<f64>,
    /// The directory whose disk is watched, and its busy milliseconds.
    dir: &'d Path,
    disk: Option<u64>,
}

impl<'d> Clock<'d> {
    fn start(dir: &'d Path) -> Clock<'d> {
        Clock {
            cpu: cpu_seconds(),
            disk: disk_busy_ms(dir),
            dir,
            wall: Instant::now(),
        }
    }

    fn stop(&self) -> Timed {
        let secs = self.wall.elapsed().as_secs_f64();
        Timed {
            secs,
            cpu: self.cpu.zip(cpu_seconds()).map(|(a, b)| b - a),
            disk: self
                .disk
                .zip(disk_busy_ms(self.dir))
                .map(|(a, b)| b.saturating_sub(a) as f64 / 1000.0),
        }
    }
}

/// Milliseconds the disk under `dir` has had requests in flight since boot
/// (`io_ticks` of /proc/diskstats, for the device `dir` is on), where Linux
/// says; not for a RAM file system, which has no line there. Near the step's
/// wall time, the disk was never left waiting: it set the pace.
#[cfg(target_os = "linux")]
fn disk_busy_ms(dir: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir).ok()?.dev();
    let (major, minor) = (rustix::fs::major(dev), rustix::fs::minor(dev));
    let stats = std::fs::read_to_string("/proc/diskstats").ok()?;
    stats.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let this =
            f.first()?.parse::<u32>().ok()? == major && f.get(1)?.parse::<u32>().ok()? == minor;
        // Fields: major, minor, name, then io_ticks is the tenth statistic.
        if this { f.get(12)?.parse().ok() } else { None }
    })
}

#[cfg(not(target_os = "linux"))]
fn disk_busy_ms(_: &Path) -> Option<u64> {
    None
}

/// User and system CPU seconds of this process so far, every thread
/// (finished ones included), where /proc says.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses: utime and
    // stime are the 12th and 13th, in clock ticks (100 a second on Linux).
    let mut fields = stat.get(stat.rfind(')')? + 2..)?.split(' ');
    let utime: f64 = fields.nth(11)?.parse().ok()?;
    let stime: f64 = fields.next()?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn mb(bytes: u64, secs: f64) -> f64 {
    bytes as f64 / secs / 1e6
}

/// The smallest and the largest of `xs`.
fn span(xs: &[f64]) -> (f64, f64) {
    xs.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
        (lo.min(x), hi.max(x))
    })
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Time, bytes and documents of `generate data` with `threads` builders.
fn generate(
    model: &squill::model::Model,
    design: &squill::design::Design,
    scale: u64,
    threads: usize,
    out: &Path,
) -> (Timed, u64, u64) {
    let _ = std::fs::remove_dir_all(out);
    settle();
    let options = DataOptions {
        threads,
        ..DataOptions::new(scale, 1)
    };
    let clock = Clock::start(out.parent().unwrap_or(out));
    let summary = data::write(model, design, &options, out).expect("write");
    let timed = clock.stop();
    let _ = std::fs::remove_dir_all(out);
    (timed, summary.bytes(), summary.documents())
}

/// The time to write `bytes` bytes of `sample` (repeated) to one new file in
/// 1 MiB writes, as `data::write`'s writer does without any generating: the
/// same `AtomicFile` (disk space reserved ahead of the writes), a second
/// thread `fdatasync`ing the file every 32 MiB so the disk works during the
/// writes, and the fsync and rename at the end. The best this disk does with
/// the page cache in the way, to compare generation with.
fn write_plain(dir: &Path, sample: &[u8], bytes: u64) -> Timed {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("bench dir");
    let block: Vec<u8> = if sample.is_empty() {
        vec![b'x'; 1 << 20]
    } else {
        sample.iter().copied().cycle().take(1 << 20).collect()
    };
    let path = dir.join("plain.bin");
    settle();
    let clock = Clock::start(dir);
    let mut file = AtomicFile::create(&path).expect("plain file");
    file.reserve_ahead(RESERVE_AHEAD);
    let (ask, asked) = std::sync::mpsc::sync_channel::<()>(2);
    let syncer = {
        let path = file.temporary_path().to_path_buf();
        std::thread::spawn(move || {
            for () in asked {
                if let Ok(f) = std::fs::File::open(&path) {
                    let _ = f.sync_data();
                }
            }
        })
    };
    let (mut left, mut unsynced) = (bytes, 0u64);
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        file.write_all(&block[..n]).expect("write");
        left -= n as u64;
        unsynced += n as u64;
        if unsynced >= 32 << 20 {
            file.flush().expect("write");
            let _ = ask.try_send(());
            unsynced = 0;
        }
    }
    drop(ask);
    let _ = syncer.join();
    file.commit().expect("fsync and rename");
    let timed = clock.stop();
    let _ = std::fs::remove_dir_all(dir);
    timed
}
