//! Documents into a collection profile: a rejected document, however
//! malformed, leaves the profile as if it had never been offered.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    squill::scan::fuzzing::rejected_documents_count_nowhere(data);
});
