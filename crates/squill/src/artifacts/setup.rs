//! The mongosh scripts: validators (`createCollection`, or `collMod` when the
//! collection exists) and the one setup script that creates collections,
//! validators and indexes and can be run again: `collMod` replaces a validator,
//! and `createIndexes` with an identical specification is a no-op.

use crate::catalog::{indexes, schema};
use crate::design::Design;
use crate::words::script::{comment, js_json, js_string};

const ENSURE: &str = r#"// Creates the collection with its validator, or replaces the validator of an
// existing one, so the script can run again.
function ensureCollection(name, validator) {
  const options = { validator: validator, validationLevel: "strict", validationAction: "error" };
  if (db.getCollectionNames().includes(name)) {
    db.runCommand(Object.assign({ collMod: name }, options));
  } else {
    db.createCollection(name, options);
  }
}
"#;

fn header(design: &Design, what: &str) -> String {
    format!(
        "// {what} for the design of model `{}` (mix `{}`), written by `squill generate`.\n\
         // Run against the target database: mongosh \"mongodb://host/DB\" FILE\n\n",
        comment(&design.model),
        comment(&design.mix)
    )
}

/// Validators only: one `ensureCollection` per collection.
pub fn validators_script(design: &Design) -> String {
    let mut out = header(design, "Validators");
    out.push_str(ENSURE);
    for coll in &design.collections {
        out.push_str(&format!(
            "\n// {}: {} documents expected\nensureCollection({}, {});\n",
            comment(&coll.name),
            coll.documents,
            js_string(&coll.name),
            pretty(&schema::validator(coll))
        ));
    }
    out
}

/// Indexes only.
pub fn indexes_script(design: &Design) -> String {
    let mut out = header(design, "Indexes");
    for coll in &design.collections {
        out.push('\n');
        out.push_str(&indexes::mongosh(coll));
    }
    out
}

/// Collections, validators and indexes, safe to run twice.
pub fn setup_script(design: &Design) -> String {
    let mut out = header(design, "Setup: collections, validators and indexes");
    out.push_str(ENSURE);
    for coll in &design.collections {
        out.push_str(&format!(
            "\n// ---- {} ----\nensureCollection({}, {});\n",
            comment(&coll.name),
            js_string(&coll.name),
            pretty(&schema::validator(coll))
        ));
        out.push_str(&indexes::mongosh(coll));
    }
    out.push_str("\nprint(\"squill setup: done\");\n");
    out
}

fn pretty(json: &serde_json::Value) -> String {
    js_json(&serde_json::to_string_pretty(json).unwrap_or_default())
}
