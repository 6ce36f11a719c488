//! Extended JSON → BSON: whatever is accepted must be valid BSON that renders.
#![no_main]
use libfuzzer_sys::fuzz_target;
use squill::inputs::bson::to_canonical_extjson;
use squill::inputs::ejson::{Options, transcode_document};

fuzz_target!(|data: &[u8]| {
    for legacy in [true, false] {
        let mut out = Vec::new();
        if let Ok(n) = transcode_document(data, &mut out, Options { legacy }) {
            assert!(n <= data.len());
            if let Err(e) = to_canonical_extjson(&out) {
                panic!("transcoder produced invalid BSON: {e}");
            }
        }
    }
});
