//! The profiler's documents as mongodump writes them: `dump/DB/system.profile.bson`
//! (`.bson.gz` under `--gzip`), a sequence of BSON documents. The file is told
//! by its first bytes, not its name: a little-endian length a document can
//! have, a type byte, the terminating NUL (the first four bytes of any text
//! log read as a length over 16 MiB). Each document is rendered as canonical
//! Extended JSON and read by `profile::from_value`, so it becomes the same
//! entry as the same document exported as JSON. Documents are cut by the
//! dump reader's framer, which does not trust the lengths: a damaged or
//! truncated document is reported with its byte offset (counted in the
//! uncompressed bytes) and the documents before it, and any it can resync
//! to after it, are read.

use super::collect::Collector;
use super::entry::Op;
use super::legacy_line::Line;
use super::problem::Reason;
use super::report::FileSummary;
use super::{Options, profile};
use crate::inputs::bson::{ElementType, MAX_DOCUMENT_BYTES, to_canonical_extjson};
use crate::inputs::dump::framing::{Frame, Framer};
use std::io::Read;

/// Whether `head`, the first bytes of a file (at least five), starts a BSON
/// document.
pub(super) fn looks_like(head: &[u8]) -> bool {
    let Some(&[a, b, c, d]) = head.first_chunk::<4>() else {
        return false;
    };
    let declared = i32::from_le_bytes([a, b, c, d]);
    let Ok(len) = usize::try_from(declared) else {
        return false;
    };
    if !(5..=MAX_DOCUMENT_BYTES).contains(&len) {
        return false;
    }
    // The first element's type byte, or the empty document's NUL.
    let first_ok = match head.get(4) {
        Some(0) => len == 5,
        Some(&t) => ElementType::from_byte(t).is_some(),
        None => false,
    };
    // The terminator, when the whole document is at hand.
    first_ok && head.get(len - 1).is_none_or(|&last| last == 0)
}

/// Reads every document of one file into the collector; `lines` in the
/// summary counts documents.
pub(super) fn read<R: Read>(
    reader: R,
    name: &str,
    gzip: bool,
    options: &Options,
    out: &mut Collector,
) -> FileSummary {
    let mut summary = FileSummary {
        path: name.to_string(),
        gzip,
        format: "bson",
        lines: 0,
        operations: 0,
        unreadable: 0,
    };
    let mut framer = Framer::new(reader, 0);
    loop {
        let frame = framer.next_frame();
        summary.lines += 1;
        let (offset, reason) = match frame {
            Ok(None) => {
                summary.lines -= 1;
                break;
            }
            Ok(Some(Frame::Document { offset, bytes })) => match to_canonical_extjson(bytes) {
                Ok(value) => match profile::from_value(&value, options.show_values) {
                    Line::Operation(entry) => {
                        summary.operations += 1;
                        out.add(Box::new(Op::new(*entry)));
                        continue;
                    }
                    Line::Other => continue,
                    Line::Unreadable(reason) => (offset, reason),
                },
                Err(e) => (offset + e.offset as u64, Reason::Corrupt),
            },
            Ok(Some(Frame::Damage {
                offset, cut_short, ..
            })) => {
                let reason = if cut_short {
                    Reason::CutShort
                } else {
                    Reason::Corrupt
                };
                (offset, reason)
            }
            Err(_) => {
                let reason = if gzip {
                    Reason::TruncatedGzip
                } else {
                    Reason::ReadError
                };
                summary.unreadable += 1;
                out.problem_at(name, framer.offset(), reason);
                break;
            }
        };
        summary.unreadable += 1;
        out.problem_at(name, offset, reason);
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::looks_like;

    #[test]
    fn told_by_content() {
        // {"a": 1}
        let doc = [12, 0, 0, 0, 0x10, b'a', 0, 1, 0, 0, 0, 0];
        assert!(looks_like(&doc));
        assert!(looks_like(&doc[..6]), "the start of a longer document");
        assert!(looks_like(&[5, 0, 0, 0, 0]));
        let mut unterminated = doc;
        unterminated[11] = 1;
        assert!(!looks_like(&unterminated));
        let mut unknown_type = doc;
        unknown_type[4] = 0x42;
        assert!(!looks_like(&unknown_type));
        for text in [
            &b"{\"t\":{\"$date\":\"2024-01-01\"}}"[..],
            b"2019-06-18T12:02:00.506+0100 I COMMAND",
            b"Wed Mar  5 17:14:57.407 [conn4]",
            b"\n\n\0\0",
            b"abc",
            b"",
        ] {
            assert!(!looks_like(text), "{text:?}");
        }
    }
}
