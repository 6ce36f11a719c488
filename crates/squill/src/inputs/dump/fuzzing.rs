//! Entry points for the cargo-fuzz targets in `fuzz/`: each reads bytes from
//! memory through the same code as a file or standard input, walks every
//! document delivered, and returns counts. Not part of the supported API.

use super::{Event, InputFormat, Inputs};
use crate::inputs::bson::{Container, Scalar, Visitor, walk};
use std::io::Cursor;

struct Nothing;

impl Visitor for Nothing {
    fn enter(&mut self, _: &str, _: Container, _: u32, _: u32) {}
    fn leave(&mut self, _: Container, _: u32, _: u32) {}
    fn scalar(&mut self, _: &str, _: Scalar<'_>, _: u32, _: u32) {}
}

/// Reads `data` as standard input would be read with `format` (gzip detected
/// from content); returns (documents that walk cleanly, errors).
pub fn read_bytes(data: &[u8], format: InputFormat) -> (u64, u64) {
    let mut inputs = Inputs::default();
    let source = match inputs.stdin_source(Box::new(Cursor::new(data.to_vec())), format) {
        Ok(Some(s)) => s,
        _ => return (0, 1),
    };
    let (mut good, mut bad) = (0, inputs.errors.len() as u64);
    let result = source.read(&mut |event| match event {
        Event::Document {
            collection, bytes, ..
        } => {
            assert!(
                collection < inputs.collections.len(),
                "collection index in range"
            );
            if walk(bytes, &mut Nothing).is_ok() {
                good += 1;
            } else {
                bad += 1;
            }
        }
        Event::Error(e) => {
            // Every message names the input.
            assert!(e.to_string().starts_with("-"), "{e}");
            bad += 1;
        }
    });
    if result.is_err() {
        bad += 1;
    }
    (good, bad)
}
