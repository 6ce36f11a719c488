//! Reading one file: plain or gzip (told apart by the magic bytes, not the
//! name), then a profiler dump's `.bson` (told by its first bytes too) or
//! a log's lines (`lines`).

use super::collect::Collector;
use super::report::FileSummary;
use super::{Options, lines, profile_dump};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Reads one file into the collector. Open errors are the file's error; a
/// damaged gzip stream or a read error ends the file as an unreadable line.
pub(super) fn read_file(path: &Path, options: &Options, out: &mut Collector) {
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
    // The lines' reader asks for 8 KiB and more at a time (`read_to_end`
    // doubles its reads from 8 KiB), which a buffer no larger than that
    // passes straight to the file: with 256 KiB, the first quarter of each
    // block was copied through the buffer once more. The gzip decoder gets
    // its large buffer below.
    match read_any(BufReader::new(file), &name, options, out) {
        Ok(summary) => out.file(summary),
        Err(e) => out.error(&name, format!("cannot read {name}: {e}")),
    }
}

/// Reads a log or a profiler dump from any source of bytes, plain or gzip;
/// `name` is what problems cite. Fails only when not one byte can be read.
pub(super) fn read_any<R: Read + Send>(
    mut plain: BufReader<R>,
    name: &str,
    options: &Options,
    out: &mut Collector,
) -> std::io::Result<FileSummary> {
    let gzip = plain.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    Ok(if gzip {
        let decoder =
            flate2::bufread::MultiGzDecoder::new(BufReader::with_capacity(1 << 18, plain));
        read_plain(
            BufReader::with_capacity(1 << 18, decoder),
            name,
            true,
            options,
            out,
        )
    } else {
        read_plain(plain, name, false, options, out)
    })
}

/// Lines of a log, or the BSON documents of a dump's `system.profile.bson`
/// (told by the first bytes).
fn read_plain<R: Read + Send>(
    mut reader: BufReader<R>,
    name: &str,
    gzip: bool,
    options: &Options,
    out: &mut Collector,
) -> FileSummary {
    let bson = reader.fill_buf().is_ok_and(profile_dump::looks_like);
    if bson {
        profile_dump::read(reader, name, gzip, options, out)
    } else {
        lines::read(reader, name, gzip, options, lines::LIMITS, out)
    }
}
