//! A log's lines on every core. One thread reads the file in blocks of
//! whole lines (about 1 MiB, cut after the last newline, the rest carried
//! into the next block); workers parse the blocks, each line into an
//! operation whose shape they work out, or a problem; this thread hands the
//! blocks' results to the collector in the order of the file. So the
//! collector sees the same operations in the same order as one line at a
//! time, and its pairing of a write's two entries, which can straddle a cut
//! between blocks, is the same. Blocks travel in a fixed set of buffers: the
//! reader waits for one to come back before it reads on, so memory follows
//! the number of buffers, not the size of the file.

use super::Options;
use super::collect::Collector;
use super::entry::Op;
use super::legacy_line::{self, Line};
use super::problem::Reason;
use super::report::FileSummary;
use super::{json_line, profile};
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};

/// How the lines are cut.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Bytes read at a time; a block holds the whole lines among them.
    pub block: usize,
    /// A longer line (with its newline) is counted as too long, its bytes
    /// skipped. mongod caps a logged line at about 10 KB by default
    /// (`maxLogSizeKB`); 16 MiB leaves room for raised limits and still
    /// bounds memory.
    pub max_line: usize,
}

pub(super) const LIMITS: Limits = Limits {
    block: 1 << 20,
    max_line: 16 << 20,
};

/// What ends a block, after its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// More blocks follow, or the input ended cleanly.
    More,
    /// One line longer than `max_line` follows (its bytes are dropped).
    TooLong,
    /// The input failed here (damaged gzip, read error).
    Failed,
}

struct Work {
    seq: u64,
    bytes: Vec<u8>,
    end: End,
}

/// What a worker found in a block.
struct Done {
    seq: u64,
    bytes: Vec<u8>,
    end: End,
    lines: u64,
    /// By line number in the block (1-based), in order.
    events: Vec<(u64, Event)>,
    json: bool,
    text: bool,
}

enum Event {
    Operation { op: Box<Op>, ctime: bool },
    Problem(Reason),
}

/// Reads every line of `reader` into `out`; `name` is what problems cite.
pub(super) fn read<R: Read + Send>(
    reader: R,
    name: &str,
    gzip: bool,
    options: &Options,
    limits: Limits,
    out: &mut Collector,
) -> FileSummary {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(1, 8));
    // Enough buffers that the reader and every worker are busy while the
    // collector takes the oldest block.
    let buffers = 2 * workers + 2;
    let mut summary = FileSummary {
        path: name.to_string(),
        gzip,
        format: "none",
        lines: 0,
        operations: 0,
        unreadable: 0,
    };
    let (free_tx, free_rx) = sync_channel::<Vec<u8>>(buffers);
    for _ in 0..buffers {
        let _ = free_tx.send(Vec::new());
    }
    let (work_tx, work_rx) = sync_channel::<Work>(buffers);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = channel::<Done>();
    let (mut json, mut text) = (false, false);
    std::thread::scope(|scope| {
        scope.spawn(move || produce(reader, limits, &free_rx, &work_tx));
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            let work_rx = &work_rx;
            scope.spawn(move || {
                while let Some(work) = next_work(work_rx) {
                    let done = parse_block(work, options, limits.max_line);
                    if done_tx.send(done).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        // Blocks come back in any order and are counted in the file's.
        let mut waiting: BTreeMap<u64, Done> = BTreeMap::new();
        let mut next = 0u64;
        for done in done_rx {
            waiting.insert(done.seq, done);
            while let Some(done) = waiting.remove(&next) {
                next += 1;
                json |= done.json;
                text |= done.text;
                let mut bytes = apply(done, name, gzip, &mut summary, out);
                // A buffer grown for a long line is not kept.
                if bytes.capacity() > 4 * limits.block {
                    bytes = Vec::new();
                }
                let _ = free_tx.send(bytes);
            }
        }
    });
    summary.format = match (json, text) {
        (true, true) => "mixed",
        (true, false) => "json",
        (false, true) => "text",
        (false, false) => "none",
    };
    summary
}

fn next_work(work_rx: &Mutex<Receiver<Work>>) -> Option<Work> {
    let rx = work_rx.lock().ok()?;
    rx.recv().ok()
}

/// Counts one block's lines and hands its operations to the collector;
/// gives the buffer back.
fn apply(
    done: Done,
    name: &str,
    gzip: bool,
    summary: &mut FileSummary,
    out: &mut Collector,
) -> Vec<u8> {
    let base = summary.lines;
    for (line, event) in done.events {
        match event {
            Event::Operation { op, ctime } => {
                summary.operations += 1;
                if ctime {
                    out.saw_ctime();
                }
                out.add(op);
            }
            Event::Problem(reason) => {
                summary.unreadable += 1;
                out.problem(name, base + line, reason);
            }
        }
    }
    summary.lines += done.lines;
    let reason = match done.end {
        End::More => None,
        End::TooLong => Some(Reason::TooLong),
        End::Failed if gzip => Some(Reason::TruncatedGzip),
        End::Failed => Some(Reason::ReadError),
    };
    if let Some(reason) = reason {
        summary.lines += 1;
        summary.unreadable += 1;
        out.problem(name, summary.lines, reason);
    }
    done.bytes
}

/// The reading thread: fills buffers with whole lines and sends them on.
fn produce<R: Read>(
    mut reader: R,
    limits: Limits,
    free: &Receiver<Vec<u8>>,
    work: &SyncSender<Work>,
) {
    let mut seq = 0u64;
    let mut send = |bytes: Vec<u8>, end: End| {
        let sent = work.send(Work { seq, bytes, end }).is_ok();
        seq += 1;
        sent
    };
    let Ok(mut buf) = free.recv() else { return };
    buf.clear();
    // Inside a line over the cap: its bytes are dropped up to its newline.
    let mut skipping = false;
    loop {
        let before = buf.len();
        let read = (&mut reader)
            .take(limits.block as u64)
            .read_to_end(&mut buf);
        let (ended, failed) = match read {
            Ok(n) => (n < limits.block, false),
            Err(_) => (true, true),
        };
        if skipping {
            match memchr::memchr(b'\n', &buf[before..]) {
                Some(i) => {
                    buf.drain(..before + i + 1);
                    skipping = false;
                }
                None => buf.truncate(before),
            }
        }
        if ended {
            if failed {
                // The line the failure cut is not read.
                let whole = memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1);
                buf.truncate(whole);
            }
            let end = if failed { End::Failed } else { End::More };
            if !buf.is_empty() || failed {
                send(buf, end);
            }
            return;
        }
        let whole = memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1);
        let partial = buf.len() - whole;
        if partial > limits.max_line {
            // The line being read is already over the cap: the lines
            // before it, then it, counted as one line too long.
            buf.truncate(whole);
            skipping = true;
            if !send(buf, End::TooLong) {
                return;
            }
            let Ok(next) = free.recv() else { return };
            buf = next;
            buf.clear();
        } else if whole > 0 {
            let Ok(mut next) = free.recv() else { return };
            next.clear();
            next.extend_from_slice(&buf[whole..]);
            buf.truncate(whole);
            if !send(buf, End::More) {
                return;
            }
            buf = next;
        }
        // Else the buffer holds part of one long line: read on into it.
    }
}

/// A worker's part: every line of a block.
fn parse_block(work: Work, options: &Options, max_line: usize) -> Done {
    let bytes = &work.bytes;
    let mut done = Done {
        seq: work.seq,
        bytes: Vec::new(),
        end: work.end,
        lines: 0,
        // Room for an operation every 512 bytes, so the list seldom grows:
        // growing it from empty, line by line, was 3 % of the samples on a
        // JSON log (`realloc` of the whole list, each time on a new block).
        events: Vec::with_capacity(bytes.len() / 512),
        json: false,
        text: false,
    };
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i + 1);
        let line = &bytes[start..end];
        start = end;
        done.lines += 1;
        let (is_json, ctime, result) = match parse(line, line.len() > max_line, options) {
            Parsed::Blank => continue,
            Parsed::TooLong => {
                done.events
                    .push((done.lines, Event::Problem(Reason::TooLong)));
                continue;
            }
            Parsed::Line {
                is_json,
                ctime,
                result,
            } => (is_json, ctime, result),
        };
        match result {
            Line::Operation(entry) => {
                let op = Box::new(Op::new(*entry));
                done.events
                    .push((done.lines, Event::Operation { op, ctime }));
            }
            Line::Other => {}
            Line::Unreadable(reason) => {
                done.events.push((done.lines, Event::Problem(reason)));
                if reason == Reason::NotALogLine {
                    continue;
                }
            }
        }
        if is_json {
            done.json = true;
        } else {
            done.text = true;
        }
    }
    done.bytes = work.bytes;
    done
}

/// What parsing one line gave.
enum Parsed {
    Blank,
    TooLong,
    Line {
        is_json: bool,
        ctime: bool,
        result: Line,
    },
}

fn parse(bytes: &[u8], too_long: bool, options: &Options) -> Parsed {
    if too_long {
        return Parsed::TooLong;
    }
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Blank;
    }
    // Valid UTF-8 (nearly every line) is checked fast; a line that is
    // not has its bad bytes replaced.
    let line = match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    let is_json = line.starts_with('{');
    let result = if is_json && profile::looks_like(&line) {
        profile::read(&line, options.show_values)
    } else if is_json {
        json_line::read(&line, options.show_values)
    } else {
        legacy_line::read(&line, options.show_values)
    };
    // mongod 2.4's ctime timestamps start with the day's name.
    let ctime = !is_json && line.as_bytes().first().is_some_and(u8::is_ascii_alphabetic);
    Parsed::Line {
        is_json,
        ctime,
        result,
    }
}
