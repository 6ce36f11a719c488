//! mongoexport JSON streams: lines and arrays, resynchronization after errors.
#![no_main]
use libfuzzer_sys::fuzz_target;
use squill::inputs::dump::{InputFormat, fuzzing::read_bytes};

fuzz_target!(|data: &[u8]| {
    let _ = read_bytes(data, InputFormat::JsonLines);
    let _ = read_bytes(data, InputFormat::JsonArray);
});
