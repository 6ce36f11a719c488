//! The indexes of a design, on every example and mix: each step names an
//! index its collection has, and no two indexes of a collection serve the
//! same queries (issue 19: `sensor_1_hour_-1` and `sensor_1_hour_1` were both
//! proposed, though either serves both reads).

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

#[test]
fn every_step_uses_an_index_of_its_collection_and_none_is_proposed_twice() {
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
