//! The mongosh scripts: validators (`createCollection`, or `collMod` when the
//! collection exists) and the one setup script that creates collections,
//! validators and indexes and can be run again: `collMod` replaces a validator,
//! and `ensureIndexes` (catalog/ensure_indexes.js) leaves an identical index
//! in place and replaces one of the same name with other keys or options.

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
    out.push_str(indexes::ENSURE_INDEXES);
    out.push_str(&indexes::unique_preflight(design));
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
    out.push_str(indexes::ENSURE_INDEXES);
    out.push_str(&indexes::unique_preflight(design));
    for coll in &design.collections {
        out.push_str(&format!(
            "\n// ---- {} ----\nensureCollection({}, {});\n",
            comment(&coll.name),
            js_string(&coll.name),
            pretty(&schema::validator(coll))
        ));
        out.push_str(&indexes::mongosh(coll));
    }
    for coll in &design.collections {
        out.push_str(&sharding(coll));
    }
    out.push_str("\nprint(\"squill setup: done\");\n");
    out
}

/// The chosen shard key of `coll` (advise's `sharding`): the index that
/// supports it when none of the design's starts with it (the server needs
/// one, MongoDB manual, Shard Keys, "Shard Key Indexes"), then
/// `sh.shardCollection` (run through mongos). A tenant larger than a
/// shard's share gets its zone, commented out: the shard's name and the
/// tenant's id are the deployment's (MongoDB manual, Manage Shard Zones).
fn sharding(coll: &crate::design::Collection) -> String {
    let Some(s) = &coll.sharding else {
        return String::new();
    };
    let Some(key) = &s.chosen else {
        return format!(
            "\n// {}: no candidate shard key can spread it (see the advise report)\n",
            comment(&coll.name)
        );
    };
    let name = js_string(&coll.name);
    let doc = js_json(&serde_json::to_string(key).unwrap_or_else(|_| "{}".into()));
    let mut out = format!(
        "\n// ---- {}: shard key (run through mongos on a sharded cluster) ----\n",
        comment(&coll.name)
    );
    let paths = key.paths();
    // `_id` has its index in every collection, listed or not.
    let supported = paths == ["_id"]
        || coll.indexes.iter().any(|i| {
            i.keys.len() >= paths.len()
                && i.keys
                    .iter()
                    .zip(&paths)
                    .all(|((k, d), p)| k == p && *d != crate::design::SPHERE_2D)
        });
    if !supported || key.is_hashed() {
        out.push_str(&format!("db.getCollection({name}).createIndex({doc});\n"));
    }
    out.push_str(&format!(
        "sh.shardCollection(db.getName() + \".\" + {name}, {doc});\n"
    ));
    for z in &s.zones {
        let zone = js_string(&format!("{}-{}", coll.name, z.relationship));
        out.push_str(&format!(
            "// The largest parent of {} fills {} shard(s) alone: give its key range a zone.\n\
             // sh.addShardToZone(\"<shard>\", {zone});\n\
             // sh.updateZoneKeyRange(db.getName() + \".\" + {name}, {{ {}: <id>, … MinKey }}, {{ {}: <id>, … MaxKey }}, {zone});\n",
            comment(&z.relationship),
            z.shards,
            comment(&z.field),
            comment(&z.field),
        ));
    }
    out
}

fn pretty(json: &serde_json::Value) -> String {
    js_json(&serde_json::to_string_pretty(json).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::setup_script;
    use crate::advise::tests::golden::example;
    use crate::settings::Settings;

    fn setup(shard: bool) -> String {
        let mut settings = Settings::default();
        settings.capacity.shard = shard;
        let model = example("scenarios/c03-stores-shard-keys");
        let design =
            crate::advise::advise(&model, &settings, None).unwrap_or_else(|e| panic!("{e}"));
        setup_script(&design)
    }

    /// The chosen keys are applied, each after the index it needs; `_id`
    /// needs none. Without sharding, no `sh` command is written.
    #[test]
    fn setup_shards_the_collections_with_their_keys() {
        let js = setup(true);
        assert!(
            js.contains(r#"db.getCollection("order").createIndex({"store":1,"_id":1});"#),
            "{js}"
        );
        assert!(
            js.contains(
                r#"sh.shardCollection(db.getName() + "." + "order", {"store":1,"_id":1});"#
            )
        );
        // {store: 1, sku: 1} is the design's unique index already.
        assert!(js.contains(
            r#"sh.shardCollection(db.getName() + "." + "product", {"store":1,"sku":1});"#
        ));
        assert!(!js.contains(r#"createIndex({"store":1,"sku":1})"#));
        assert!(!js.contains(r#"createIndex({"_id":1})"#));
        assert!(!setup(false).contains("sh."));
    }
}
