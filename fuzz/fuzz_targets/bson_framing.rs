//! Concatenated BSON with lengths that lie: framing, resynchronization, walk.
#![no_main]
use libfuzzer_sys::fuzz_target;
use squill::inputs::dump::{InputFormat, fuzzing::read_bytes};

fuzz_target!(|data: &[u8]| {
    let _ = read_bytes(data, InputFormat::Bson);
});
