//! Issue 44: `import sql` and `to_yaml` write scalars with one writer
//! (`model_file::scalar`): tables and columns named as YAML words, and an
//! array column whose type is written inside `{…}` (a renamed column keeps
//! its SQL name as a description), read back as written.

use super::{SqlDialect, import};
use crate::inputs::model_file::{parse, to_yaml};
use crate::model::FieldType;

const WORDS: &str = r#"
CREATE TABLE "null" (
  id int PRIMARY KEY,
  "true" int, "no" text, "on" text, "~" text, "yes" int, "nan" int, "y" int, "_" int,
  "a.b" int[]
);
CREATE TABLE "off" (id int PRIMARY KEY, "null" int REFERENCES "null"(id));
"#;

#[test]
fn yaml_words_and_array_types_read_back() {
    let imported = import("words.sql", WORDS, SqlDialect::Postgres);
    let model =
        parse("words.yaml", &imported.yaml).unwrap_or_else(|e| panic!("{e:?}\n{}", imported.yaml));
    let entities: Vec<&str> = model.entities.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(entities, ["null", "off"]);
    let fields: Vec<(&str, &FieldType)> = model.entities[0]
        .fields
        .iter()
        .map(|f| (f.name.as_str(), &f.ty))
        .collect();
    let names: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "_id", "true", "no", "on", "~", "yes", "nan", "y", "_", "a_b"
        ]
    );
    assert!(
        matches!(fields[9].1, FieldType::Array(item) if **item == FieldType::Int),
        "{:?}",
        fields[9]
    );
    assert_eq!(model.relationships[0].child_field, "null");
    // The other writer of model files reads back the same model.
    let again = parse("again.yaml", &to_yaml(&model))
        .unwrap_or_else(|e| panic!("{e:?}\n{}", to_yaml(&model)));
    assert_eq!(again.entities, model.entities);
    assert_eq!(again.relationships, model.relationships);
}
