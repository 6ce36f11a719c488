//! Reading one log file: plain or gzip (told apart by the magic bytes, not
//! the name), line by line with a cap on a line's length, so memory does not
//! follow the size of the file or of its longest line.

use super::collect::Collector;
use super::legacy_line::{self, Line};
use super::problem::Reason;
use super::report::FileSummary;
use super::{Options, json_line};
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

/// Reads from any source of bytes; `name` is what problems cite.
pub fn read_lines<R: Read>(
    mut reader: BufReader<R>,
    name: &str,
    gzip: bool,
    options: &Options,
    out: &mut Collector,
) -> FileSummary {
    let mut summary = FileSummary {
        path: name.to_string(),
        gzip,
        format: "none",
        lines: 0,
        operations: 0,
        unreadable: 0,
    };
    let (mut json, mut text) = (false, false);
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    loop {
        buf.clear();
        let (ended, too_long) = match next_line(&mut reader, &mut buf) {
            Ok(r) => r,
            Err(_) => {
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
        };
        if ended && buf.is_empty() {
            break;
        }
        summary.lines += 1;
        if too_long {
            summary.unreadable += 1;
            out.problem(name, summary.lines, Reason::TooLong);
            continue;
        }
        let bytes = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // Valid UTF-8 (nearly every line) is checked fast; a line that is
        // not has its bad bytes replaced.
        let line = match simdutf8::basic::from_utf8(bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        let is_json = line.starts_with('{');
        let result = if is_json {
            json_line::read(&line, options.show_values)
        } else {
            legacy_line::read(&line, options.show_values)
        };
        match result {
            Line::Operation(entry) => {
                summary.operations += 1;
                if !is_json && line.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) {
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

/// Appends the next line (with its newline) to `buf`, keeping at most
/// `MAX_LINE` bytes of it. Returns whether the input ended and whether the
/// line was longer than the cap (the rest of it is skipped).
fn next_line<R: Read>(
    reader: &mut BufReader<R>,
    buf: &mut Vec<u8>,
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
        if buf.len() + n <= MAX_LINE {
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
