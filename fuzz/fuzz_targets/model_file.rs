//! Model files: any text either parses or is refused with problems, never a
//! panic; a model that parses writes back as YAML that parses to the same model.
#![no_main]
use libfuzzer_sys::fuzz_target;
use squill::inputs::model_file::{parse, to_yaml};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(model) = parse("fuzz.yaml", text) {
        let yaml = to_yaml(&model);
        match parse("fuzz.yaml", &yaml) {
            Ok(again) => assert_eq!(model, again, "round trip changed the model:\n{yaml}"),
            Err(e) => panic!("written model does not parse: {e}\n{yaml}"),
        }
    }
});
