//! Tests of the generators over the fixtures: every example and generated
//! document validates against its collection's validator, copies agree with
//! their originals, data is reproducible, and snapshots of the artifacts.
//! Tests that run external tools (node, python, mongosh, the server) are in
//! `external_tests`.

use super::documents::{Builder, Fanout};
use super::fixtures;
use super::*;
use crate::design::{Collection, FieldOrigin, ShapeType};

fn collect(model: &Model, design: &Design, scale: u64, seed: u64) -> Vec<(String, Vec<Document>)> {
    let pop = Population::new(model, design, scale, seed);
    let b = Builder {
        pop: &pop,
        fanout: Fanout::Drawn,
    };
    design
        .collections
        .iter()
        .map(|c| {
            let mut docs = Vec::new();
            pop.for_each_root(c, |root| -> Result<(), ()> {
                docs.push(b.document(c, &root));
                Ok(())
            })
            .unwrap();
            (c.name.clone(), docs)
        })
        .collect()
}

fn coll<'d>(design: &'d Design, name: &str) -> &'d Collection {
    design.collections.iter().find(|c| c.name == name).unwrap()
}

#[test]
fn every_example_validates_against_its_collection() {
    for (name, model, design) in fixtures::all() {
        let pop = Population::new(&model, &design, 1, 7);
        for ex in examples::examples(&pop) {
            let v = schema::validator(coll(&design, &ex.collection));
            for doc in [&ex.typical, &ex.max] {
                if let Err(e) = check::check(&v, doc) {
                    panic!("{name}/{}: {e}\n{}", ex.collection, doc.to_ejson_pretty());
                }
            }
        }
    }
}

#[test]
fn every_generated_document_validates_against_its_collection() {
    for (name, model, design) in fixtures::all() {
        for (c, docs) in collect(&model, &design, 3, 11) {
            assert!(!docs.is_empty(), "{name}/{c} has documents");
            let v = schema::validator(coll(&design, &c));
            for doc in &docs {
                if let Err(e) = check::check(&v, doc) {
                    panic!("{name}/{c}: {e}\n{}", doc.to_ejson_pretty());
                }
            }
        }
    }
}

/// Changes the type of the first field with a scalar type, or drops it.
fn break_shape(doc: &Document, coll: &Collection) -> Document {
    let mut out = doc.clone();
    let target = coll
        .shape
        .fields
        .iter()
        .find(|f| {
            f.required
                && !matches!(f.origin, FieldOrigin::Id)
                && matches!(f.ty, ShapeType::Scalar { .. })
        })
        .expect("a required scalar field");
    for (k, v) in &mut out.0 {
        if *k == target.name {
            *v = match v {
                Value::String(_) => Value::Int(1),
                _ => Value::String("not the right type".into()),
            };
        }
    }
    out
}

#[test]
fn a_document_that_breaks_the_shape_is_rejected() {
    for (name, model, design) in fixtures::all() {
        let pop = Population::new(&model, &design, 1, 7);
        for ex in examples::examples(&pop) {
            let c = coll(&design, &ex.collection);
            let v = schema::validator(c);
            let broken = break_shape(&ex.typical, c);
            assert!(
                check::check(&v, &broken).is_err(),
                "{name}/{}",
                ex.collection
            );
            let mut missing = ex.typical.clone();
            let req = c
                .shape
                .fields
                .iter()
                .find(|f| f.required && f.name != "_id")
                .unwrap();
            missing.0.retain(|(k, _)| *k != req.name);
            assert!(
                check::check(&v, &missing).is_err(),
                "{name}/{} without {}",
                ex.collection,
                req.name
            );
        }
    }
}

#[test]
fn data_is_reproducible_from_the_seed() {
    let (m, d) = fixtures::product_parts();
    let a = collect(&m, &d, 5, 42);
    let b = collect(&m, &d, 5, 42);
    let c = collect(&m, &d, 5, 43);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

fn oid(v: Option<&Value>) -> [u8; 12] {
    match v {
        Some(Value::ObjectId(id)) => *id,
        other => panic!("not an ObjectId: {other:?}"),
    }
}

#[test]
fn copies_agree_with_their_originals() {
    let (m, d) = fixtures::product_parts();
    let data = collect(&m, &d, 20, 3);
    let parts: std::collections::HashMap<[u8; 12], Document> = data[1]
        .1
        .iter()
        .map(|p| (oid(p.get("_id")), p.clone()))
        .collect();
    let mut checked = 0;
    for product in &data[0].1 {
        let Some(Value::Array(items)) = product.get("parts") else {
            panic!("parts array")
        };
        for item in items {
            let Value::Document(item) = item else {
                panic!("item")
            };
            let part = &parts[&oid(item.get("_id"))];
            assert_eq!(item.get("name"), part.get("name"));
            checked += 1;
        }
    }
    assert!(checked > 20);

    let (m, d) = fixtures::host_logs();
    let data = collect(&m, &d, 2, 3);
    let hosts: std::collections::HashMap<[u8; 12], Document> = data[0]
        .1
        .iter()
        .map(|h| (oid(h.get("_id")), h.clone()))
        .collect();
    for log in &data[1].1 {
        let host = &hosts[&oid(log.get("host"))];
        assert_eq!(log.get("host_ipaddr"), host.get("ipaddr"));
    }
}

#[test]
fn two_way_references_agree() {
    let (m, d) = fixtures::person_tasks();
    let data = collect(&m, &d, 10, 5);
    let mut owner_of = std::collections::HashMap::new();
    for task in &data[1].1 {
        owner_of.insert(oid(task.get("_id")), oid(task.get("owner")));
    }
    let mut listed = 0;
    for person in &data[0].1 {
        let Some(Value::Array(tasks)) = person.get("tasks") else {
            panic!("tasks")
        };
        for t in tasks {
            let Value::ObjectId(t) = t else { panic!() };
            assert_eq!(owner_of[t], oid(person.get("_id")));
            listed += 1;
        }
    }
    assert_eq!(listed, owner_of.len(), "every task is listed by its owner");
}

#[test]
fn subset_holds_the_latest_children_and_buckets_their_aggregates() {
    let (m, d) = fixtures::shop();
    let data = collect(&m, &d, 5, 9);
    let reviews = &data[2].1;
    for product in &data[1].1 {
        let pid = oid(product.get("_id"));
        let mut mine: Vec<&Document> = reviews
            .iter()
            .filter(|r| oid(r.get("product")) == pid)
            .collect();
        mine.sort_by_key(|r| match r.get("at") {
            Some(Value::Date(ms)) => std::cmp::Reverse(*ms),
            _ => std::cmp::Reverse(0),
        });
        let Some(Value::Array(subset)) = product.get("reviews") else {
            panic!()
        };
        let expected: Vec<[u8; 12]> = mine.iter().take(10).map(|r| oid(r.get("_id"))).collect();
        let got: Vec<[u8; 12]> = subset
            .iter()
            .map(|s| match s {
                Value::Document(s) => oid(s.get("_id")),
                _ => panic!(),
            })
            .collect();
        assert_eq!(got, expected, "the 10 latest, newest first");
        assert_eq!(
            product.get("review_count"),
            Some(&Value::Int(mine.len() as i32))
        );
    }

    let (m, d) = fixtures::sensor_buckets();
    let data = collect(&m, &d, 3, 9);
    for bucket in &data[1].1 {
        let Some(Value::Array(readings)) = bucket.get("readings") else {
            panic!()
        };
        assert_eq!(
            bucket.get("count"),
            Some(&Value::Int(readings.len() as i32))
        );
        let values: Vec<f64> = readings
            .iter()
            .map(|r| match r {
                Value::Document(r) => match r.get("value") {
                    Some(Value::Double(x)) => *x,
                    _ => panic!(),
                },
                _ => panic!(),
            })
            .collect();
        let Some(Value::Double(sum)) = bucket.get("sum_value") else {
            panic!()
        };
        assert!((sum - values.iter().sum::<f64>()).abs() < 1e-6);
        let Some(Value::Double(max)) = bucket.get("max_value") else {
            panic!()
        };
        assert_eq!(*max, values.iter().copied().fold(f64::MIN, f64::max));
        // All readings of a bucket fall in the hour of its start.
        let Some(Value::Date(start)) = bucket.get("start") else {
            panic!()
        };
        for r in readings {
            let Value::Document(r) = r else { panic!() };
            let Some(Value::Date(ts)) = r.get("ts") else {
                panic!()
            };
            assert_eq!(ts / 3_600_000, start / 3_600_000);
        }
    }
}

#[test]
fn redundant_indexes_are_refused() {
    let (m, mut d) = fixtures::host_logs();
    d.collections[1]
        .indexes
        .push(fixtures::index("host_1", &[("host", 1)], &["recent_logs"]));
    let err = artifacts(&m, &d, &Options::default()).unwrap_err();
    assert!(err.to_string().contains("`host_1`"), "{err}");
}

#[test]
fn writing_refuses_existing_files_and_leaves_no_temporary_file() {
    let (m, d) = fixtures::host_logs();
    let dir = std::env::temp_dir().join(format!("squill-gen-write-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let arts = artifacts(&m, &d, &Options::default()).unwrap();
    write_artifacts(&dir, &arts, false).unwrap();
    let err = write_artifacts(&dir, &arts, false).unwrap_err();
    assert!(matches!(err, GenerateError::Exists { .. }));
    write_artifacts(&dir, &arts, true).unwrap();
    let summary = data::write(&m, &d, &DataOptions::new(2, 1), &dir).unwrap();
    assert!(summary.documents() > 2);
    assert!(data::write(&m, &d, &DataOptions::new(2, 1), &dir).is_err());
    let names: Vec<String> = walk(&dir);
    assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.ends_with("dump/host-logs/logmsgs.metadata.json"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn artifacts_snapshots() {
    for (name, model, design) in fixtures::all() {
        for a in artifacts(&model, &design, &Options::default()).unwrap() {
            insta::assert_snapshot!(format!("{name}__{}", a.file), a.content);
        }
    }
}

/// The example models of the seeds (examples/*.yaml) with the design the
/// advisor recommends for their default mix.
pub(super) fn seed_examples() -> Vec<(String, Model, Design)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    let settings = crate::settings::Settings::default();
    paths
        .iter()
        .map(|p| {
            let model = crate::inputs::model_file::load(p)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let design = crate::design::advise(&model, &settings, None)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                model,
                design,
            )
        })
        .collect()
}

#[test]
fn every_seed_example_generates_documents_that_validate() {
    let examples = seed_examples();
    assert!(examples.len() >= 20, "{} example models", examples.len());
    for (name, model, design) in &examples {
        artifacts(model, design, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let pop = Population::new(model, design, 1, 7);
        for ex in examples::examples(&pop) {
            let v = schema::validator(coll(design, &ex.collection));
            for doc in [&ex.typical, &ex.max] {
                if let Err(e) = check::check(&v, doc) {
                    panic!(
                        "{name}/{} example: {e}\n{}",
                        ex.collection,
                        doc.to_ejson_pretty()
                    );
                }
            }
            let broken = break_shape(&ex.typical, coll(design, &ex.collection));
            assert!(
                check::check(&v, &broken).is_err(),
                "{name}/{}: broken example accepted",
                ex.collection
            );
        }
        let pop = Population::with_max_children(model, design, 2, 11, Some(30));
        let b = Builder {
            pop: &pop,
            fanout: Fanout::Drawn,
        };
        for c in &design.collections {
            let v = schema::validator(c);
            let mut n = 0;
            pop.for_each_root(c, |root| -> Result<(), String> {
                let doc = b.document(c, &root);
                n += 1;
                check::check(&v, &doc)
                    .map_err(|e| format!("{name}/{}: {e}\n{}", c.name, doc.to_ejson_pretty()))
            })
            .unwrap_or_else(|e| panic!("{e}"));
            assert!(n > 0, "{name}/{} has documents", c.name);
        }
    }
}

/// `generate data` encodes documents straight into its buffers (`Encoder`);
/// examples and checks build `Value` trees. Both must give the same bytes.
#[test]
fn the_direct_encoder_writes_what_the_value_tree_writes() {
    use super::sink::Encoder;
    use super::values::Scratch;
    for (name, model, design) in fixtures::all() {
        let pop = Population::with_max_children(&model, &design, 2, 5, Some(40));
        let b = Builder {
            pop: &pop,
            fanout: Fanout::Drawn,
        };
        let mut scratch = Scratch::default();
        for c in &design.collections {
            let plan = ShapePlan::of_collection(&pop, c);
            pop.for_each_root(c, |root| -> Result<(), String> {
                let doc = b.document(c, &root);
                let (mut tree_json, mut tree_bson) = (String::new(), Vec::new());
                doc.write_ejson_line(&mut tree_json);
                doc.write_bson(&mut tree_bson);
                // Into bytes, as `generate data` does, and into a `String`.
                let (mut json, mut bson) = (Vec::new(), Vec::new());
                let mut encoder = Encoder::new(Some(&mut json), Some(&mut bson));
                b.encode(&plan, &root, &mut encoder, &mut scratch);
                let mut text = String::new();
                b.encode(
                    &plan,
                    &root,
                    &mut Encoder::new(Some(&mut text), None),
                    &mut scratch,
                );
                if json != tree_json.as_bytes() || bson != tree_bson || text != tree_json {
                    return Err(format!(
                        "{name}/{}: encoder wrote\n{}{text}tree wrote\n{tree_json}",
                        c.name,
                        String::from_utf8_lossy(&json)
                    ));
                }
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// Flat documents are encoded from steps (`flat`) rather than by the walk
/// over the shape; both must give the same bytes. Every fixture and seed
/// example model, with up to 40 children per parent; the test also fails if
/// few collections are flat, so that it cannot pass by comparing nothing.
#[test]
fn flat_documents_are_the_walked_documents() {
    use super::flat::FlatPlan;
    use super::roots::Run;
    use super::sink::Encoder;
    use super::values::Scratch;
    use std::collections::BTreeSet;
    let (mut flat_docs, mut flat_colls, mut walked_runs) = (0, BTreeSet::new(), 0);
    let fixtures = fixtures::all()
        .into_iter()
        .map(|(n, m, d)| (n.to_string(), m, d));
    for (name, model, design) in fixtures.chain(seed_examples()) {
        let pop = Population::with_max_children(&model, &design, 10, 7, Some(40));
        let b = Builder {
            pop: &pop,
            fanout: Fanout::Drawn,
        };
        let mut scratch = Scratch::default();
        for c in &design.collections {
            let plan = ShapePlan::of_collection(&pop, c);
            pop.for_each_run(c, |run| -> Result<(), String> {
                let Run::Entities {
                    entity,
                    parent,
                    indices,
                } = &run
                else {
                    walked_runs += 1;
                    return Ok(());
                };
                let Some(flat) = FlatPlan::new(&b, &plan, *entity) else {
                    walked_runs += 1;
                    return Ok(());
                };
                flat_docs += run.len();
                flat_colls.insert(format!("{name}/{}", c.name));
                let (mut json, mut bson) = (Vec::new(), Vec::new());
                let mut encoder = Encoder::new(Some(&mut json), Some(&mut bson));
                run.for_each(|root| b.encode(&plan, root, &mut encoder, &mut scratch));
                drop(encoder);
                let (mut flat_json, mut flat_bson) = (Vec::new(), Vec::new());
                b.encode_flat(
                    &plan,
                    &flat,
                    *parent,
                    indices.clone(),
                    Some(&mut flat_json),
                    Some(&mut flat_bson),
                    &mut scratch,
                );
                // One format at a time, as `--format ejson` and `dump` ask.
                let mut only_json = Vec::new();
                let f = &flat;
                b.encode_flat(
                    &plan,
                    f,
                    *parent,
                    indices.clone(),
                    Some(&mut only_json),
                    None,
                    &mut scratch,
                );
                let mut only_bson = Vec::new();
                b.encode_flat(
                    &plan,
                    f,
                    *parent,
                    indices.clone(),
                    None,
                    Some(&mut only_bson),
                    &mut scratch,
                );
                if flat_json != json || flat_bson != bson || only_json != json || only_bson != bson
                {
                    return Err(format!(
                        "{name}/{}: steps wrote\n{}walk wrote\n{}",
                        c.name,
                        String::from_utf8_lossy(&flat_json),
                        String::from_utf8_lossy(&json)
                    ));
                }
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    // 33 at the time of writing: log messages, comments, reviews, bids…
    assert!(flat_colls.len() >= 30, "flat: {flat_colls:?}");
    // Extended references to the parent (`{_id, ipaddr}`) are flat too.
    for extended in [
        "host-ip-in-logs/logmsg",
        "rubis/bids",
        "product-name-in-parts/part",
    ] {
        assert!(flat_colls.contains(extended), "{extended} is not flat");
    }
    assert!(flat_docs > 500, "{flat_docs} flat documents");
    assert!(walked_runs >= 10, "{walked_runs} walked runs");
}
