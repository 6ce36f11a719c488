//! What holds for every design, checked on every example and mix. Each
//! step names an index its collection has, and no two indexes of a collection
//! serve the same queries (issue 19: `sensor_1_hour_-1` and `sensor_1_hour_1`
//! were both proposed, though either serves both reads). A document at its
//! maximum is no smaller than a typical one (issue 19: user-address had 138 B
//! at most, 145 B typically).

use super::golden::example;
use crate::advise::advise;
use crate::settings::Settings;

fn examples() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "yaml")
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    names
}

/// Every example's design for every mix, with the example's name and mix.
fn designs() -> Vec<(String, Option<String>, crate::design::Design)> {
    let mut out = Vec::new();
    for name in examples() {
        let model = example(&name);
        let mixes: Vec<Option<String>> = if model.workload.mixes.is_empty() {
            vec![None]
        } else {
            model
                .workload
                .mixes
                .iter()
                .map(|m| Some(m.name.clone()))
                .collect()
        };
        for mix in mixes {
            let d = advise(&model, &Settings::default(), mix.as_deref()).unwrap();
            out.push((name.clone(), mix, d));
        }
    }
    out
}

#[test]
fn a_document_at_its_maximum_is_no_smaller_than_a_typical_one() {
    for (name, mix, d) in designs() {
        for c in &d.collections {
            if let Some(max) = c.size.max_bytes {
                assert!(
                    max >= c.size.typical_bytes,
                    "{name} {mix:?}: {} is {} B typically but {max} B at most",
                    c.name,
                    c.size.typical_bytes
                );
            }
        }
    }
}

#[test]
fn every_step_uses_an_index_of_its_collection_and_none_is_proposed_twice() {
    for (name, mix, d) in designs() {
        {
            for op in &d.operations {
                for (i, s) in op.steps.iter().enumerate() {
                    let Some(index) = &s.index else { continue };
                    let coll = d.collections.iter().find(|c| c.name == s.collection);
                    assert!(
                        coll.is_some_and(|c| c.indexes.iter().any(|x| &x.name == index)),
                        "{name} {mix:?}: {} step {} uses {index}, which {} does not have",
                        op.operation,
                        i + 1,
                        s.collection
                    );
                }
            }
            for c in &d.collections {
                for (i, a) in c.indexes.iter().enumerate() {
                    for b in &c.indexes[i + 1..] {
                        let fields = |x: &crate::design::Index| {
                            x.keys.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()
                        };
                        assert_ne!(
                            fields(a),
                            fields(b),
                            "{name} {mix:?}: {} has {} and {} on the same fields",
                            c.name,
                            a.name,
                            b.name
                        );
                    }
                }
            }
        }
    }
}
