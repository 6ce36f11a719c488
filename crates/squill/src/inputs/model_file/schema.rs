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

    /// Every base type the parser reads is named in the schema's field
    /// descriptions, short form and long form, so an editor's hover lists
    /// it (issue 41: `point` and `polygon` were read but not named).
    #[test]
    fn every_field_type_is_named_in_the_schema() {
        let schema: serde_json::Value = serde_json::from_str(&super::schema_json()).unwrap();
        let defs = &schema["$defs"];
        let short = defs["Field"]["description"].as_str().unwrap_or_default();
        let long = defs["FieldLong"]["properties"]["type"]["description"]
            .as_str()
            .unwrap_or_default();
        for name in super::super::compact::TYPE_NAMES {
            assert!(short.contains(&format!("`{name}")), "Field: {name}");
            assert!(long.contains(name), "FieldLong.type: {name}");
        }
    }

    /// audit46 D11: the schema's pattern for a duration (`expires.after`)
    /// accepts what the parser reads and refuses what it refuses, on one
    /// list of samples; the schema once took any string, `2 fortnights`
    /// included, which squill refuses at its line and column.
    #[test]
    fn the_duration_pattern_agrees_with_the_parser() {
        let schema: serde_json::Value = serde_json::from_str(&super::schema_json()).unwrap();
        let after = &schema["$defs"]["Expiry"]["properties"]["after"];
        assert!(after["pattern"].is_string(), "{after}");
        let validator = jsonschema::validator_for(after).expect("a valid schema");
        let samples = [
            "30 minutes",
            "7 days",
            "0 seconds",
            "1800 s",
            "1 h",
            "1.5 hours",
            "2 weeks",
            "3 months",
            "1 year",
            "10 mins",
            "5 sec",
            "2d",
            " 7 days ",
            ".5 h",
            "1. d",
            "2 fortnights",
            "2 fortnight",
            "7",
            "days",
            "-3 days",
            "3 dayz",
            "1.2.3 days",
            "3 Days",
            "",
            "thirty minutes",
            "3 days ago",
            "1e3 s",
        ];
        for sample in samples {
            let parsed = super::super::conditional::seconds(sample).is_some();
            let valid = validator.is_valid(&serde_json::json!(sample));
            assert_eq!(valid, parsed, "`{sample}`: schema {valid}, parser {parsed}");
        }
        // The one difference, stated: the server's bound on
        // `expireAfterSeconds` is the parser's, not the pattern's.
        assert!(validator.is_valid(&serde_json::json!("3000000000 s")));
        assert!(super::super::conditional::seconds("3000000000 s").is_none());
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
