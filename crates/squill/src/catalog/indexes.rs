//! The design's indexes as `createIndexes` commands, each commented with the
//! operations that use it. Only the design's indexes: the implicit `_id` index
//! is never created, and an index that is a prefix of another (non-unique)
//! index is refused — it would cost writes and memory for nothing
//! (004_16209cf0db7b32ff.txt, unnecessary indexes).

use crate::design::{Collection, Design, Index, PartialCondition};
use crate::words::script::{comment, js_json, js_string};
use serde_json::{Map, Value as Json, json};

/// An index made redundant by another one of the same collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redundant {
    pub collection: String,
    pub index: String,
    pub covered_by: String,
}

/// Whether `a`'s keys are a prefix of `b`'s (same directions), over the
/// same documents (a partial index serves only those it holds).
pub(crate) fn is_prefix(a: &Index, b: &Index) -> bool {
    a.partial == b.partial && a.keys.len() <= b.keys.len() && b.keys[..a.keys.len()] == a.keys[..]
}

/// True for the implicit `_id` index, which MongoDB always builds.
pub(crate) fn is_id_index(index: &Index) -> bool {
    index.name == "_id_" || index.keys == [("_id".to_string(), 1)]
}

/// The indexes to create for a collection: the design's, minus `_id`.
pub(crate) fn created(coll: &Collection) -> Vec<&Index> {
    coll.indexes.iter().filter(|i| !is_id_index(i)).collect()
}

/// Every index that a longer index of its collection makes unnecessary. A
/// unique index is never redundant: its prefix-holder does not enforce it.
pub(crate) fn redundant(design: &Design) -> Vec<Redundant> {
    let mut out = Vec::new();
    for coll in &design.collections {
        let idx = created(coll);
        for (i, a) in idx.iter().enumerate() {
            if a.unique {
                continue;
            }
            if let Some(b) = idx
                .iter()
                .enumerate()
                .find(|(j, b)| *j != i && is_prefix(a, b) && (a.keys != b.keys || *j < i))
                .map(|(_, b)| b)
            {
                out.push(Redundant {
                    collection: coll.name.clone(),
                    index: a.name.clone(),
                    covered_by: b.name.clone(),
                });
            }
        }
    }
    out
}

/// The key document of an index, keys in order.
pub(crate) fn key_document(index: &Index) -> Json {
    let mut keys = Map::new();
    for (path, dir) in &index.keys {
        keys.insert(path.clone(), json!(crate::design::key_kind(*dir)));
    }
    Json::Object(keys)
}

/// One index specification as `createIndexes` wants it.
pub(crate) fn spec(index: &Index) -> Json {
    let mut spec = Map::new();
    spec.insert("key".into(), key_document(index));
    spec.insert("name".into(), json!(index.name));
    if index.unique {
        spec.insert("unique".into(), json!(true));
    }
    if !index.partial.is_empty() {
        let mut filter = Map::new();
        for c in &index.partial {
            match c {
                PartialCondition::Exists { path } => {
                    filter.insert(path.clone(), json!({"$exists": true}));
                }
                PartialCondition::Equals { path, value } => {
                    filter.insert(path.clone(), json!(value));
                }
                PartialCondition::Positive { path } => {
                    filter.insert(path.clone(), json!({"$gt": 0}));
                }
            }
        }
        spec.insert("partialFilterExpression".into(), Json::Object(filter));
    }
    // A TTL index: the server's monitor deletes expired documents.
    if let Some(secs) = index.expire_after_seconds {
        spec.insert("expireAfterSeconds".into(), json!(secs));
    }
    // A 2dsphere index states the version the server would fill in (3,
    // MongoDB's since 3.2), so that the specification a second run of the
    // setup sends equals the stored one: SecantusDB compares them with the
    // default filled in and refuses the second request otherwise (code 86).
    if index
        .keys
        .iter()
        .any(|(_, d)| *d == crate::design::SPHERE_2D)
    {
        spec.insert("2dsphereIndexVersion".into(), json!(3));
    }
    Json::Object(spec)
}

#[cfg(test)]
mod sphere_tests {
    /// A 2dsphere index names its version; a B-tree index does not.
    #[test]
    fn a_2dsphere_index_states_its_version() {
        let mut i =
            crate::synthetic::hand_built::index("open_1_x_1", &[("open", 1), ("x", 1)], &[]);
        assert!(super::spec(&i).get("2dsphereIndexVersion").is_none());
        i.keys[1].1 = crate::design::SPHERE_2D;
        assert_eq!(
            super::spec(&i)["2dsphereIndexVersion"],
            serde_json::json!(3)
        );
    }
}

#[cfg(test)]
mod ttl_tests {
    /// A TTL index carries `expireAfterSeconds`; an index without one does not.
    #[test]
    fn a_ttl_index_says_when_documents_expire() {
        let mut i = crate::synthetic::hand_built::index("last_used_1", &[("last_used", 1)], &[]);
        assert!(super::spec(&i).get("expireAfterSeconds").is_none());
        i.expire_after_seconds = Some(1_800);
        assert_eq!(
            super::spec(&i),
            serde_json::json!({"key": {"last_used": 1}, "name": "last_used_1", "expireAfterSeconds": 1800})
        );
    }
}

/// The `createIndexes` statements of a collection in mongosh, each preceded
/// by the operations that use the index.
pub(crate) fn mongosh(coll: &Collection) -> String {
    let idx = created(coll);
    if idx.is_empty() {
        return format!(
            "// {}: no index beyond _id (every operation reaches it by _id or reads it whole)\n",
            comment(&coll.name)
        );
    }
    let mut out = String::new();
    for index in &idx {
        out.push_str(&format!(
            "// {}.{}: used by {}\n",
            comment(&coll.name),
            comment(&index.name),
            if let Some(secs) = index.expire_after_seconds {
                format!(
                    "the server's TTL monitor: a document {} (eventually: it runs about every {} s)",
                    crate::words::ttl_deleted(secs, &comment(&index.keys[0].0)),
                    crate::words::MONITOR_SECONDS
                )
            } else if index.kept_by_data {
                "no operation of the workload: kept unique by the data".to_string()
            } else if index.used_by.is_empty() {
                "no operation of the workload".to_string()
            } else {
                comment(&index.used_by.join(", ")).into_owned()
            }
        ));
        if let Some(k) = &index.kept_beside {
            out.push_str(&format!("// {}\n", comment(&k.words())));
        }
    }
    let specs: Vec<String> = idx.iter().map(|i| js_json(&spec(i).to_string())).collect();
    out.push_str(&format!(
        "ensureIndexes({}, [\n  {}\n]);\n",
        js_string(&coll.name),
        specs.join(",\n  ")
    ));
    out
}

/// The mongosh functions `mongosh`'s statements call (`ensureIndexes`),
/// written once at the top of each script that creates indexes.
pub(crate) const ENSURE_INDEXES: &str = include_str!("ensure_indexes.js");

/// The check, before a script changes anything, that each unique index of
/// the design can be built over the documents there (`squillCheckUnique`
/// of [`ENSURE_INDEXES`]): nothing for a design without unique indexes.
pub(crate) fn unique_preflight(design: &Design) -> String {
    let mut out = String::new();
    for coll in &design.collections {
        let unique: Vec<String> = created(coll)
            .into_iter()
            .filter(|i| i.unique)
            .map(|i| js_json(&spec(i).to_string()))
            .collect();
        if !unique.is_empty() {
            out.push_str(&format!(
                "squillCheckUnique({}, [{}]);\n",
                js_string(&coll.name),
                unique.join(", ")
            ));
        }
    }
    if !out.is_empty() {
        out.insert_str(
            0,
            "\n// Unique indexes checked against the documents there before anything changes.\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A partial unique index carries its conditions to `createIndexes`:
    /// a key some documents lack, and the kind of a polymorphic collection.
    #[test]
    fn a_partial_index_writes_its_filter() {
        let mut index =
            crate::synthetic::hand_built::index("email_1_partial", &[("email", 1)], &["sign_up"]);
        index.unique = true;
        index.partial = vec![
            PartialCondition::Exists {
                path: "email".into(),
            },
            PartialCondition::Equals {
                path: "kind".into(),
                value: "user".into(),
            },
        ];
        assert_eq!(
            spec(&index),
            json!({
                "key": {"email": 1},
                "name": "email_1_partial",
                "unique": true,
                "partialFilterExpression": {"email": {"$exists": true}, "kind": "user"}
            })
        );
        // Not made redundant by an index of the same keys over every document.
        let mut all = index.clone();
        all.partial.clear();
        assert!(!is_prefix(&all, &index) && !is_prefix(&index, &all));
    }
}
