//! Reading one log file: plain or gzip (told apart by the magic bytes, not
//! the name), line by line with a cap on a line's length, so memory does not
//! follow the size of the file or of its longest line.

use super::collect::Collector;
use super::legacy_line::{self, Line};
use super::problem::Reason;
use super::report::FileSummary;
use super::{Options, json_line, profile};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// mongod caps a logged line at about 10 KB by default (`maxLogSizeKB`);
/// 16 MiB leaves room for raised limits and still bounds memory.
const MAX_LINE: usize = 16 << 20;

/// Reads one file into the collector. Open errors are the file's error; a
/// damaged gzip stream or a read error ends the file as an unreadable line.
pub fn read_file(path: &Path, options: &Options, out: &mut Collector) {
    let name = path.display().to_string();
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            out.error(&name, format!("cannot open {name}: {e}"));
            return;
        }
    };
    if path.is_dir() {
        out.error(&name, format!("{name} is a directory, not a log file"));
        return;
    }
    let mut plain = BufReader::with_capacity(1 << 18, file);
    let gzip = match plain.fill_buf() {
        Ok(head) => head.starts_with(&[0x1f, 0x8b]),
        Err(e) => {
            out.error(&name, format!("cannot read {name}: {e}"));
            return;
        }
    };
    let summary = if gzip {
        let decoder = flate2::bufread::MultiGzDecoder::new(plain);
        read_lines(
            BufReader::with_capacity(1 << 18, decoder),
            &name,
            true,
            options,
            out,
        )
    } else {
        read_lines(plain, &name, false, options, out)
    };
    out.file(summary);
}

/// Lines parsed together on the worker threads, at most (and their bytes):
/// parsing is most of the work, the collector's bookkeeping stays in line
/// order on this thread, so the report is the same as one line at a time.
const BATCH_LINES: usize = 8192;
const BATCH_BYTES: usize = 8 << 20;

/// One line of a batch: where its bytes are, and whether it was cut.
struct Pending {
    start: usize,
    end: usize,
    too_long: bool,
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

/// Reads from any source of bytes; `name` is what problems cite.
pub fn read_lines<R: Read>(
    mut reader: BufReader<R>,
    name: &str,
    gzip: bool,
    options: &Options,
    out: &mut Collector,
) -> FileSummary {
    use rayon::prelude::*;
    let mut summary = FileSummary {
        path: name.to_string(),
        gzip,
        format: "none",
        lines: 0,
        operations: 0,
        unreadable: 0,
    };
    let (mut json, mut text) = (false, false);
    let mut bytes: Vec<u8> = Vec::with_capacity(BATCH_BYTES + 4096);
    let mut batch: Vec<Pending> = Vec::with_capacity(BATCH_LINES);
    loop {
        // Fill a batch of whole lines.
        bytes.clear();
        batch.clear();
        let mut failed = false;
        let mut ended = false;
        while batch.len() < BATCH_LINES && bytes.len() < BATCH_BYTES {
            let start = bytes.len();
            match next_line(&mut reader, &mut bytes, start) {
                Ok((end, too_long)) => {
                    if end && bytes.len() == start {
                        ended = true;
                        break;
                    }
                    batch.push(Pending {
                        start,
                        end: bytes.len(),
                        too_long,
                    });
                    if end {
                        ended = true;
                        break;
                    }
                }
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
        let parsed: Vec<Parsed> = batch
            .par_iter()
            .map(|p| parse(&bytes[p.start..p.end], p.too_long, options))
            .collect();
        for p in parsed {
            summary.lines += 1;
            let (is_json, ctime, result) = match p {
                Parsed::Blank => continue,
                Parsed::TooLong => {
                    summary.unreadable += 1;
                    out.problem(name, summary.lines, Reason::TooLong);
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
                    summary.operations += 1;
                    if ctime {
                        out.saw_ctime();
                    }
                    out.add(*entry);
                }
                Line::Other => {}
                Line::Unreadable(reason) => {
                    summary.unreadable += 1;
                    out.problem(name, summary.lines, reason);
                    if reason == Reason::NotALogLine {
                        continue;
                    }
                }
            }
            if is_json {
                json = true;
            } else {
                text = true;
            }
        }
        if failed {
            summary.lines += 1;
            summary.unreadable += 1;
            let reason = if gzip {
                Reason::TruncatedGzip
            } else {
                Reason::ReadError
            };
            out.problem(name, summary.lines, reason);
            break;
        }
        if ended {
            break;
        }
    }
    summary.format = match (json, text) {
        (true, true) => "mixed",
        (true, false) => "json",
        (false, true) => "text",
        (false, false) => "none",
    };
    summary
}

/// Appends the next line (with its newline) to `buf`, where it starts at
/// `start`, keeping at most `MAX_LINE` bytes of it. Returns whether the input ended and whether the
/// line was longer than the cap (the rest of it is skipped).
fn next_line<R: Read>(
    reader: &mut BufReader<R>,
    buf: &mut Vec<u8>,
    start: usize,
) -> std::io::Result<(bool, bool)> {
    let mut too_long = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok((true, too_long));
        }
        let (chunk, found) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let n = chunk.len();
        if buf.len() - start + n <= MAX_LINE {
            buf.extend_from_slice(chunk);
        } else {
            too_long = true;
        }
        reader.consume(n);
        if found {
            return Ok((false, too_long));
        }
    }
}
