//! The JSON Schema of the model file, generated from the `raw` types so it
//! cannot drift from the parser. schema/squill-model.schema.json is this text,
//! committed for editors; a test fails when it is out of date
//! (`UPDATE_SCHEMA=1 cargo test -p squill schema` rewrites it).

/// The schema as pretty-printed JSON, ending with a newline.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(super::raw::RawModel);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    fn committed_path() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schema/squill-model.schema.json")
    }

    #[test]
    fn committed_schema_is_up_to_date() {
        let fresh = super::schema_json();
        let path = committed_path();
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &fresh).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == fresh,
            "{} is out of date: run `UPDATE_SCHEMA=1 cargo test -p squill schema`",
            path.display()
        );
    }
}
