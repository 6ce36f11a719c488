//! Tests of the generators over the fixtures: every example and generated
//! document validates against its collection's validator, copies agree with
//! their originals, data is reproducible, and snapshots of the artifacts.
//! Tests that run external tools (node, python, mongosh, the server) are in
//! `external_tests`.

use super::documents::{Builder, Fanout};
use super::*;
use crate::artifacts::{Options, artifacts};
use crate::catalog::schema;
use crate::design::Design;
use crate::design::{Collection, FieldOrigin, ShapeType};
use crate::fixtures;

fn collect(model: &Model, design: &Design, scale: u64, seed: u64) -> Vec<(String, Vec<Document>)> {
    let pop = Population::new(model, design, scale, seed);
    let b = Builder::new(&pop, Fanout::Drawn);
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
            // An outlier's overflow is empty until some parent passes the
            // threshold, which a sample of 3 never reaches.
            let overflow = design.relationships.iter().any(|r| {
                matches!(r.chosen, crate::design::Layout::Outlier { .. })
                    && coll(&design, &c).entities.contains(&r.child)
            });
            assert!(overflow || !docs.is_empty(), "{name}/{c} has documents");
            let v = schema::validator(coll(&design, &c));
            for doc in &docs {
                if let Err(e) = check::check(&v, doc) {
                    panic!("{name}/{c}: {e}\n{}", doc.to_ejson_pretty());
                }
            }
        }
    }
}

/// Changes the type of the first required field with a scalar type, or of
/// the first required field (a timeline has only its arrays); where every
/// field is optional (a table imported from DDL, its columns all nullable),
/// gives the first scalar field a value of the wrong type.
fn break_shape(doc: &Document, coll: &Collection) -> Document {
    let mut out = doc.clone();
    let fields = || {
        coll.shape
            .fields
            .iter()
            .filter(|f| !matches!(f.origin, FieldOrigin::Id) && f.name != "_id")
    };
    let required = || fields().filter(|f| f.required);
    let scalar = |f: &&crate::design::ShapeField| matches!(f.ty, ShapeType::Scalar { .. });
    if let Some(target) = required().find(scalar).or_else(|| required().next()) {
        for (k, v) in &mut out.0 {
            if *k == target.name {
                *v = match v {
                    Value::String(_) => Value::Int(1),
                    _ => Value::String("not the right type".into()),
                };
            }
        }
        return out;
    }
    let target = fields().find(scalar).expect("a field besides _id");
    let wrong = match &target.ty {
        ShapeType::Scalar { bson_type, .. } if bson_type == "string" => Value::Int(1),
        _ => Value::String("not the right type".into()),
    };
    out.0.retain(|(k, _)| *k != target.name);
    out.0.push((target.name.clone(), wrong));
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
        let Some(Value::Document(copy)) = log.get("host") else {
            panic!("host sub-document")
        };
        let host = &hosts[&oid(copy.get("_id"))];
        assert_eq!(copy.get("ipaddr"), host.get("ipaddr"));
    }
}

/// A copy of the parent's own reference (RUBiS: the seller's region in each
/// item) is the id the parent's document holds.
#[test]
fn copied_references_agree_with_the_parent_document() {
    let m = crate::advise::tests::golden::example("rubis");
    let d =
        crate::advise::advise(&m, &crate::settings::Settings::default(), Some("browsing")).unwrap();
    let data = collect(&m, &d, 3, 5);
    let rows = |name: &str| &data.iter().find(|(c, _)| c == name).unwrap().1;
    let users: std::collections::HashMap<[u8; 12], Document> = rows("users")
        .iter()
        .map(|u| (oid(u.get("_id")), u.clone()))
        .collect();
    let mut checked = 0;
    for item in rows("items") {
        let Some(Value::Document(seller)) = item.get("seller") else {
            panic!("seller sub-document: {item:?}")
        };
        let user = &users[&oid(seller.get("_id"))];
        assert_eq!(seller.get("region"), user.get("region"));
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
}

/// A `unique:` combination holds in the data: one star per user and
/// repository (a second parent drawn apart), one revision number per
/// contract (a field made from the instance's number).
#[test]
fn unique_combinations_hold_in_the_data() {
    for (example, coll, keys) in [
        ("scenarios/s02-stars", "star", ["user", "repo"]),
        (
            "scenarios/s08-contracts",
            "contract_revision",
            ["contract", "revision"],
        ),
    ] {
        let m = crate::advise::tests::golden::example(example);
        let d = crate::advise::advise(&m, &crate::settings::Settings::default(), None).unwrap();
        let data = collect(&m, &d, 200, 9);
        let rows = &data.iter().find(|(c, _)| c == coll).unwrap().1;
        let mut seen = std::collections::HashSet::new();
        for doc in rows {
            let pair = format!("{:?}", keys.map(|k| doc.get(k)));
            assert!(seen.insert(pair.clone()), "{example}: {pair} twice");
        }
        assert!(seen.len() > 100, "{example}: {}", seen.len());
    }
}

/// Under a shared `_id`, each child's `_id` is its parent's (S13: the
/// settings of a user under the user's id), one child per parent.
#[test]
fn a_shared_id_is_the_parents_id() {
    let m = crate::advise::tests::golden::example("scenarios/s13-user-profile");
    let d = crate::advise::advise(&m, &crate::settings::Settings::default(), None).unwrap();
    let data = collect(&m, &d, 30, 4);
    let rows = |name: &str| &data.iter().find(|(c, _)| c == name).unwrap().1;
    let users: std::collections::HashSet<[u8; 12]> =
        rows("user").iter().map(|u| oid(u.get("_id"))).collect();
    let settings = rows("settings");
    assert!(settings.len() > 10, "{}", settings.len());
    let mut seen = std::collections::HashSet::new();
    for s in settings {
        let id = oid(s.get("_id"));
        assert!(users.contains(&id), "settings {id:?} is no user's id");
        assert!(seen.insert(id), "two settings under one user");
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
            product.get("reviews_count"),
            Some(&Value::Long(mine.len() as i64))
        );
    }

    let (m, d) = fixtures::sensor_readings();
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
        let Some(Value::Date(start)) = bucket.get("hour") else {
            panic!()
        };
        for r in readings {
            let Value::Document(r) = r else { panic!() };
            let Some(Value::Date(ts)) = r.get("time") else {
                panic!()
            };
            assert_eq!(ts / 3_600_000, start / 3_600_000);
        }
    }
}

/// The example models (examples/*.yaml and examples/scenarios/*.yaml) with
/// the design the advisor recommends for their default mix.
pub(crate) fn seed_examples() -> Vec<(String, Model, Design)> {
    let settings = crate::settings::Settings::default();
    crate::advise::tests::golden::example_names()
        .into_iter()
        .map(|name| {
            let model = crate::advise::tests::golden::example(&name);
            // The model the design was made for (a many-to-many may have
            // become an edge collection's entity).
            let (model, design) = crate::advise::advise_with_model(&model, &settings, None)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            // A name for directories and databases: `scenarios/s01` → `scenarios-s01`.
            (name.replace('/', "-"), model, design)
        })
        .collect()
}

/// Where the typical parent of a relationship has no children (most
/// languages have no film, one has all of them; most addresses are no
/// store's), the children are numbered through a relationship that gives
/// them their count, and where there is none, the children of the few
/// parents in the tail still add up to the parents × the mean.
#[test]
fn children_that_the_typical_parent_lacks_still_exist() {
    let yaml = r#"
name: tails
entities:
  language: {count: 6, fields: {name: string(10)}}
  actor: {count: 200, fields: {name: string(10)}}
  category: {count: 16, fields: {name: string(10)}}
  film: {count: 1000, fields: {title: string(10)}}
  note: {count: 100, fields: {text: string(10)}}
  address: {count: 600, fields: {street: string(10)}}
  staff: {count: 2, fields: {name: string(10)}}
  store: {count: 2, fields: {name: string(10)}}
relationships:
  films: {parent: language, child: film, child_field: language_id, standalone: true,
          children: {min: 0, typical: 0, p95: 1000, p99: 1000, max: 1000}}
  film_actor: {kind: many-to-many, parent: actor, child: film,
               children: {min: 14, typical: 27, max: 42}, parents: {min: 0, typical: 5, max: 15}}
  film_category: {kind: many-to-many, parent: category, child: film,
                  children: {min: 51, typical: 61, max: 74}, parents: {min: 1, typical: 1, max: 1}}
  notes: {parent: language, child: note, child_field: language_id, standalone: true,
          children: {min: 0, typical: 0, p95: 50, max: 100}}
  stores: {parent: address, child: store, child_field: address_id, standalone: true,
           children: {min: 0, typical: 0, p99: 0, max: 1}}
  staffs: {parent: address, child: staff, child_field: address_id, standalone: true,
           children: {min: 0, typical: 0, p99: 0, max: 1}}
  staffs_of_store: {parent: store, child: staff, child_field: store_id, standalone: true,
                    children: {min: 1, typical: 1, max: 1}}
  store_manager: {kind: one-to-one, parent: staff, child: store, child_field: manager_id,
                  standalone: true}
operations:
  read_film: {read: film, filter: {_id: eq}, rate: 10}
  read_note: {read: note, filter: {_id: eq}, rate: 10}
  read_store: {read: store, filter: {_id: eq}, rate: 10}
  read_staff: {read: staff, filter: {_id: eq}, rate: 10}
"#;
    let model = crate::inputs::model_file::parse("tails.yaml", yaml).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    let id = |name: &str| model.entity_by_name(name).unwrap();
    let rel = |name: &str| model.relationship_by_name(name).unwrap();
    for (scale, seed) in [(4, 11), (8, 1), (20, 7)] {
        let pop = Population::new(&model, &design, scale, seed);
        // Films are the actors' and the categories' (27 films each, 5
        // actors per film; 61 each, one category per film), not the few
        // languages' that have any: as many as the categories list, so
        // that no actor's or category's list comes round to its start.
        assert_eq!(pop.owner(id("film")), None);
        assert_eq!(pop.count(id("film")), scale * 61);
        assert_eq!(pop.children(rel("film_actor"), 0).len(), 27);
        assert_eq!(pop.children(rel("film_category"), scale - 1).len(), 61);
        assert_eq!(pop.parents(rel("film_category"), scale * 61 - 1).len(), 1);
        // Notes have only the languages: close to half of them have
        // notes (the quantiles above 0.55), and with 4 languages one is
        // in the top quarter.
        assert_eq!(pop.owner(id("note")), Some(rel("notes")));
        let with_notes = (0..scale)
            .filter(|i| pop.children_count(rel("notes"), *i) > 0)
            .count() as u64;
        assert!(
            with_notes > 0 && with_notes + 1 >= scale * 45 / 100,
            "{with_notes} of {scale}"
        );
        // A store and its manager number each other: the cycle is cut,
        // and each store has its own manager.
        assert_eq!(pop.owner(id("store")), Some(rel("store_manager")));
        assert_eq!(pop.owner(id("staff")), None);
        assert_eq!(pop.count(id("staff")), scale);
        assert_eq!(pop.count(id("store")), scale);
        let managers: std::collections::BTreeSet<u64> = (0..scale)
            .map(|j| pop.parent_of(rel("store_manager"), j))
            .collect();
        assert_eq!(managers.len() as u64, scale);
    }
    // Over many languages, the notes follow the mean the estimate expects.
    let pop = Population::new(&model, &design, 1000, 3);
    let mean = pop.count(id("note")) as f64 / 1000.0;
    let expected =
        super::estimate::estimate(&model, &design, &super::data::DataOptions::new(1000, 3));
    let notes = expected
        .collections
        .iter()
        .find(|c| c.name == "note")
        .map(|c| c.documents as f64 / 1000.0);
    assert!(mean > 5.0, "{mean} notes per language");
    let notes = notes.expect("notes have a collection of their own");
    assert!(
        (notes / mean - 1.0).abs() < 0.1,
        "{notes} expected, {mean} numbered"
    );
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
        let b = Builder::new(&pop, Fanout::Drawn);
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
            // An outlier's overflow is empty until some parent passes the
            // threshold, which small samples never reach.
            let overflow = design.relationships.iter().any(|r| {
                matches!(r.chosen, crate::design::Layout::Outlier { .. })
                    && c.entities.contains(&r.child)
            });
            // Nor has a child that the typical parent has none of (a
            // password-reset token: 20,000 among 30 million users), whose
            // documents a sample draws by the typical count.
            let none_typical = c.entities.iter().all(|e| {
                model
                    .relationships
                    .iter()
                    .any(|r| model.entity(r.child).name == *e && r.children.typical == 0)
            });
            assert!(
                n > 0 || overflow || none_typical,
                "{name}/{} has documents",
                c.name
            );
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
        let b = Builder::new(&pop, Fanout::Drawn);
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

/// A model whose flat collection has a step of every kind the examples do
/// not have: a string `_id`, optional own and copied fields, a design enum
/// narrower than the model's, a discriminator, an optional parent reference
/// as an int, and an extended reference to a parent with a non-ASCII name.
fn flat_kinds() -> (Model, Design) {
    use super::hand_built::*;
    use crate::design::{Layout, Side};
    let mut note = field("note", crate::model::FieldType::String);
    note.required = false;
    note.avg_size = Some(20);
    let mut nick = field("nick", crate::model::FieldType::String);
    nick.required = false;
    let m = model(
        "flat-kinds",
        vec![
            entity(
                "Küche",
                50,
                vec![field("name", crate::model::FieldType::String), nick],
            ),
            entity(
                "event",
                1_000,
                vec![
                    field("time", crate::model::FieldType::Date),
                    note,
                    enum_field("level", &["debug", "info", "warn", "error"]),
                    field("score", crate::model::FieldType::Int),
                ],
            ),
        ],
        vec![rel(
            "kitchen_events",
            crate::model::RelationshipKind::OneToMany,
            0,
            1,
            card(0, 20, Some(60)),
            crate::model::Cardinality::ONE,
        )],
        vec![],
    );
    let copy = |name: &str, ty: &str| {
        sf(
            name,
            s(ty),
            FieldOrigin::Copy {
                relationship: "kitchen_events".into(),
                entity: "Küche".into(),
                field: name.into(),
                snapshot: false,
            },
        )
    };
    let mut level = own(&m, "event", "level");
    level.ty = ShapeType::Scalar {
        bson_type: "string".into(),
        enum_values: vec!["info".into(), "warn".into()],
    };
    let mut kitchen = reference("kitchen", s("int"), "kitchen_events");
    kitchen.required = false;
    let mut optional_nick = copy("nick", "string");
    optional_nick.required = false;
    let kitchen_ref = reference(
        "kitchen_ref",
        obj(vec![
            reference("_id", s("string"), "kitchen_events"),
            copy("name", "string"),
            optional_nick,
        ]),
        "kitchen_events",
    );
    let events = collection(
        "events",
        &["event"],
        1_000,
        vec![
            sf("_id", s("string"), FieldOrigin::Id),
            own(&m, "event", "time"),
            own(&m, "event", "note"),
            level,
            own(&m, "event", "score"),
            sf("kind", s("string"), FieldOrigin::Discriminator),
            kitchen,
            kitchen_ref,
        ],
        vec![],
    );
    let kitchens = collection(
        "kitchens",
        &["Küche"],
        50,
        vec![id(), own(&m, "Küche", "name"), own(&m, "Küche", "nick")],
        vec![],
    );
    let d = design(
        &m,
        vec![kitchens, events],
        vec![decision(
            &m,
            "kitchen_events",
            Layout::ExtendedReference {
                copies_into: Side::Child,
                fields: vec!["name".into(), "nick".into()],
            },
        )],
        vec![],
    );
    (m, d)
}

/// Flat documents are encoded from steps (`flat`) rather than by the walk
/// over the shape; both must give the same bytes, and so must `RunEncoder`,
/// which the builder threads use, on runs cut in pieces. Every fixture and seed
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
    let (m, d) = flat_kinds();
    let fixtures = fixtures::all()
        .into_iter()
        .chain([("flat-kinds", m, d)])
        .map(|(n, m, d)| (n.to_string(), m, d));
    for (name, model, design) in fixtures.chain(seed_examples()) {
        // Enough parents that an optional field of theirs is absent from some.
        let scale = if name == "flat-kinds" { 60 } else { 10 };
        let pop = Population::with_max_children(&model, &design, scale, 7, Some(40));
        let b = Builder::new(&pop, Fanout::Drawn);
        let mut scratch = Scratch::default();
        for c in &design.collections {
            let plan = ShapePlan::of_collection(&pop, c);
            let mut run_encoder = RunEncoder::new(&pop, c);
            let coll = format!("{name}/{}", c.name);
            let mut lines = Vec::new();
            pop.for_each_run(c, |run| -> Result<(), String> {
                let (mut json, mut bson) = (Vec::new(), Vec::new());
                let mut encoder = Encoder::new(Some(&mut json), Some(&mut bson));
                run.for_each(|root| b.encode(&plan, root, &mut encoder, &mut scratch));
                drop(encoder);
                lines.extend(String::from_utf8_lossy(&json).lines().map(str::to_string));
                let differs = |what: &str, got: &[u8], want: &[u8]| {
                    (got != want).then(|| {
                        let (got, want) =
                            (String::from_utf8_lossy(got), String::from_utf8_lossy(want));
                        format!("{coll}: {what} wrote\n{got}\nthe walk wrote\n{want}")
                    })
                };
                // What the builder threads run, on the run cut in pieces.
                let (mut piece_json, mut piece_bson) = (Vec::new(), Vec::new());
                let mut rest = Some(run.clone());
                while let Some(piece) = rest.take() {
                    let (head, tail) = piece.split(7);
                    let (j, b2) = (Some(&mut piece_json), Some(&mut piece_bson));
                    run_encoder.encode(&b, &head, j, b2, &mut scratch);
                    rest = tail;
                }
                let mismatch = differs("RunEncoder", &piece_json, &json)
                    .or_else(|| differs("RunEncoder (BSON)", &piece_bson, &bson));
                if let Some(e) = mismatch {
                    return Err(e);
                }
                let Run::Entities {
                    entity,
                    parent,
                    indices,
                } = &run
                else {
                    walked_runs += 1;
                    return Ok(());
                };
                let Some(flat) = FlatPlan::new(&pop, &plan, *entity) else {
                    walked_runs += 1;
                    return Ok(());
                };
                flat_docs += run.len();
                flat_colls.insert(coll.clone());
                // Both formats, then one at a time (`--format ejson`, `dump`).
                let mut out = [
                    (Vec::new(), Vec::new()),
                    (Vec::new(), Vec::new()),
                    (Vec::new(), Vec::new()),
                ];
                for (i, (j, b2)) in out.iter_mut().enumerate() {
                    let (j, b2) = ((i != 2).then_some(j), (i != 1).then_some(b2));
                    b.encode_flat(&plan, &flat, *parent, indices.clone(), j, b2, &mut scratch);
                }
                let [(both_json, both_bson), (only_json, _), (_, only_bson)] = &out;
                let mismatch = differs("steps", both_json, &json)
                    .or_else(|| differs("steps (BSON)", both_bson, &bson))
                    .or_else(|| differs("steps, JSON only", only_json, &json))
                    .or_else(|| differs("steps, BSON only", only_bson, &bson));
                mismatch.map_or(Ok(()), Err)
            })
            .unwrap_or_else(|e| panic!("{e}"));
            if coll == "flat-kinds/events" {
                // Optional fields, top-level and in the extended reference,
                // are present in some documents and absent from others.
                for field in ["\"note\":", "\"kitchen\":", "\"nick\":"] {
                    let with = lines.iter().filter(|l| l.contains(field)).count();
                    assert!(
                        with > 0 && with < lines.len(),
                        "{field} in {with} of {}",
                        lines.len()
                    );
                }
                // The design's enum, narrower than the model's, wins: the
                // check that draws again is not skipped (`check_enum`).
                let levels: BTreeSet<&str> = lines
                    .iter()
                    .filter_map(|l| l.split("\"level\":\"").nth(1)?.split('"').next())
                    .collect();
                assert_eq!(levels, BTreeSet::from(["info", "warn"]), "levels");
            }
        }
    }
    // 34 at the time of writing: log messages, comments, reviews, bids…
    assert!(flat_colls.len() >= 30, "flat: {flat_colls:?}");
    // Extended references to the parent (`{_id, ipaddr}`) are flat too, and
    // so is the collection with a step of every kind.
    for flat in [
        "host-ip-in-logs/logmsg",
        "product-name-in-parts/part",
        "flat-kinds/events",
    ] {
        assert!(flat_colls.contains(flat), "{flat} is not flat");
    }
    assert!(flat_docs > 500, "{flat_docs} flat documents");
    assert!(walked_runs >= 10, "{walked_runs} walked runs");
}

/// Under an outlier layout each parent's array holds at most the threshold,
/// and exactly the children past it get documents of their own, each with
/// the id of a parent whose array is full (S5, drawn with 2,000 attendees
/// per event so that most events overflow).
#[test]
fn an_outliers_rest_is_in_documents_of_its_own() {
    let m = crate::advise::tests::golden::example("scenarios/s05-attendees");
    let d = crate::advise::advise(&m, &crate::settings::Settings::default(), None).unwrap();
    let Some(crate::design::Layout::Outlier { threshold }) = d
        .relationships
        .iter()
        .find(|r| r.relationship == "attendees")
        .map(|r| &r.chosen)
    else {
        panic!("S5 is not an outlier design");
    };
    let t = *threshold as usize;
    let mut big = m.clone();
    big.relationships[0].children.typical = 2000;
    big.relationships[0].children.min = 1500;
    let data = collect(&big, &d, 20, 3);
    let rows = |name: &str| &data.iter().find(|(c, _)| c == name).unwrap().1;
    let mut full = std::collections::HashSet::new();
    let mut beyond = 0;
    for event in rows("event") {
        let Some(Value::Array(items)) = event.get("attendees") else {
            panic!("an event without its attendees array")
        };
        let n = items.len();
        assert!(n <= t, "{n} embedded attendees, threshold {t}");
        if n == t {
            full.insert(oid(event.get("_id")));
        }
    }
    let pop = Population::new(&big, &d, 20, 3);
    let r = big.relationship_by_name("attendees").unwrap();
    for e in 0..pop.count(big.relationships[0].parent) {
        beyond += pop.owned_children(r, e).count().saturating_sub(t);
    }
    let overflow = rows("attendee");
    assert!(!overflow.is_empty() && !full.is_empty());
    assert_eq!(overflow.len(), beyond);
    for a in overflow {
        assert!(
            full.contains(&oid(a.get("event"))),
            "an overflow attendee of an event with room"
        );
    }
}

/// A tree's paths agree with its parent references: a node's path is the
/// ids from its root down to itself with the nodes' own names, and a
/// product's path of ids is that of the category it references.
#[test]
fn tree_paths_agree_with_the_parent_references() {
    let (m, d) = fixtures::load("category-paths");
    let data = collect(&m, &d, 3, 5);
    let rows = |name: &str| &data.iter().find(|(c, _)| c == name).unwrap().1;
    let nodes: std::collections::HashMap<[u8; 12], &Document> = rows("category")
        .iter()
        .map(|c| (oid(c.get("_id")), c))
        .collect();
    let chain = |mut id: [u8; 12]| {
        let mut out = vec![id];
        while let Some(p) = nodes[&id].get("parent") {
            id = oid(Some(p));
            out.push(id);
        }
        out.reverse();
        out
    };
    let mut deep = 0;
    for c in nodes.values() {
        let Some(Value::Array(path)) = c.get("path") else {
            panic!("path array: {c:?}")
        };
        let ids: Vec<[u8; 12]> = path
            .iter()
            .map(|x| match x {
                Value::Document(x) => {
                    assert_eq!(x.get("name"), nodes[&oid(x.get("_id"))].get("name"));
                    oid(x.get("_id"))
                }
                other => panic!("path item: {other:?}"),
            })
            .collect();
        assert_eq!(ids, chain(oid(c.get("_id"))));
        deep += usize::from(ids.len() >= 3);
    }
    assert!(deep > 0, "no path three levels deep");
    let mut checked = 0;
    for p in rows("product") {
        let Some(Value::Array(path)) = p.get("category_path") else {
            panic!("category_path array: {p:?}")
        };
        let ids: Vec<[u8; 12]> = path.iter().map(|x| oid(Some(x))).collect();
        assert_eq!(ids, chain(oid(p.get("category"))));
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
}

/// A tree said to be 2 levels deep is generated 2 levels deep: no path
/// longer than the validator's `maxItems`.
#[test]
fn a_shallow_tree_keeps_its_paths_within_its_levels() {
    let (mut m, _) = fixtures::load("category-paths");
    let tree = m.relationship_by_name("subcategories").unwrap();
    m.relationships[tree.index()].levels = Some(2);
    let d = crate::advise::advise(&m, &crate::settings::Settings::default(), None).unwrap();
    let data = collect(&m, &d, 3, 5);
    let rows = &data.iter().find(|(c, _)| c == "category").unwrap().1;
    let longest = rows
        .iter()
        .map(|c| match c.get("path") {
            Some(Value::Array(p)) => p.len(),
            other => panic!("path array: {other:?}"),
        })
        .max()
        .unwrap();
    assert_eq!(longest, 2);
}

/// A chain of one-to-manys multiplies at every level: 20 levels of 5
/// children each would number about 1e14 instances at scale 1. `generate`
/// refuses it at once (it numbered them for minutes, writing nothing);
/// with each parent's children cut at 2 it writes.
#[test]
fn a_population_too_large_to_number_is_refused() {
    let model = crate::model::synthetic::chain(20);
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    let refused = artifacts(&model, &design, &Options::default());
    let Err(super::GenerateError::TooMany {
        entity,
        count,
        scale,
    }) = refused
    else {
        panic!("expected a refusal: {:?}", refused.map(|a| a.len()));
    };
    assert_eq!((entity.as_str(), scale), ("e19", 1));
    assert!(count > super::estimate::MAX_INSTANCES, "{count}");
    let cut = Options {
        max_children: Some(2),
        ..Options::default()
    };
    assert!(artifacts(&model, &design, &cut).is_ok());
}

/// Issue 41 (audit43 G): the examples of a model whose single root owns
/// more children than `EXAMPLE_PARENTS` parents are numbered with the
/// children cut at `EXAMPLE_CAP` (a workspace drawn with 4 million issues
/// made advise walk every issue's comments for seconds); a model within
/// it is numbered as before, so its examples are `generate`'s.
#[test]
fn examples_of_a_wide_root_are_numbered_with_the_children_cut() {
    let text = r#"
name: wide
entities:
  workspace: {count: 10, fields: {name: string(10)}}
  issue: {count: 2000000, fields: {title: string(20)}}
  comment: {count: 8000000, fields: {text: string(20)}}
relationships:
  issues:
    parent: workspace
    child: issue
    children: {min: 200000, typical: 200000, max: 200000}
    child_field: workspace
    layout: parent-reference
  comments:
    parent: issue
    child: comment
    children: {min: 4, typical: 4, max: 4}
    child_field: issue
    layout: parent-reference
operations:
  by_workspace: {read: issue, filter: {workspace: eq}, limit: 20, rate: 10}
  by_issue: {read: comment, filter: {issue: eq}, rate: 10}
"#;
    let model = crate::inputs::model_file::parse("wide.yaml", text).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    let issue = model.entity_by_name("issue").unwrap();
    let comment = model.entity_by_name("comment").unwrap();
    let whole = Population::new(&model, &design, 1, 1);
    assert_eq!(whole.count(issue), 200_000);
    let examples = Population::for_examples(&model, &design, 1, None);
    assert_eq!(examples.count(issue), 1_000, "cut at EXAMPLE_CAP");
    assert_eq!(examples.count(comment), 4_000);
    // Within the limit: the numbering `generate --data` uses at scale 1.
    let narrow = text.replace("200000", "2000");
    let model = crate::inputs::model_file::parse("narrow.yaml", &narrow).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    let issue = model.entity_by_name("issue").unwrap();
    assert_eq!(
        Population::for_examples(&model, &design, 1, None).count(issue),
        2_000
    );
}

/// Audit50 A6: a number field with an `enum` (`stars: {type: int, enum:
/// [1, 2, 3]}`) is generated as numbers its validator's numeric `enum`
/// takes; the values were written as strings, which no `int` validator
/// takes, so no document loaded.
#[test]
fn a_number_field_s_enum_is_numbers_in_the_data_and_the_validator() {
    let model = crate::inputs::model_file::parse(
        "enum.yaml",
        "name: e
entities:
  hotel:
    count: 50
    fields:
      stars: {type: int, enum: [1, 2, 3]}
      grade: {type: double, enum: [1.5, 2]}
      floors: {type: long, enum: [10, 20]}
operations:
  by_stars:
    read: hotel
    filter: {stars: eq}
    rate: 10
",
    )
    .unwrap();
    let (_, design) =
        crate::advise::advise_with_model(&model, &crate::settings::Settings::default(), None)
            .unwrap();
    let v = schema::validator(coll(&design, "hotel"));
    let stars = &v["$jsonSchema"]["properties"]["stars"]["enum"];
    assert_eq!(stars, &serde_json::json!([1, 2, 3]), "{v}");
    let grade = &v["$jsonSchema"]["properties"]["grade"]["enum"];
    assert_eq!(grade, &serde_json::json!([1.5, 2]), "{v}");
    for (c, docs) in collect(&model, &design, 1, 3) {
        assert!(!docs.is_empty(), "{c} has documents");
        for doc in &docs {
            if let Err(e) = check::check(&v, doc) {
                panic!("{c}: {e}\n{}", doc.to_ejson_pretty());
            }
        }
    }
}
