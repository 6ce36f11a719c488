//! Any input with detection from content, gzip included (seeded with gzip files).
#![no_main]
use libfuzzer_sys::fuzz_target;
use squill::inputs::dump::{InputFormat, fuzzing::read_bytes};

fuzz_target!(|data: &[u8]| {
    let _ = read_bytes(data, InputFormat::Auto);
});
