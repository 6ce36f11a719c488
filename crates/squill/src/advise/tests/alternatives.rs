//! Every decision shows what it beat: at least one alternative per relationship,
//! each with a reason (a rule that rejects it, or a priced explanation).
//! Regression: shared one-to-many relationships (product → parts) once listed
//! none, because embedding and the child-side id arrays were never enumerated.

use super::golden::example;
use crate::advise::advise;
use crate::design::Verdict;
use crate::settings::Settings;

#[test]
fn every_relationship_of_every_example_lists_reasoned_alternatives() {
    let dir = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".yaml").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 20, "examples missing: {names:?}");
    for name in names {
        let model = example(&name);
        for mix in &model.workload.mixes {
            let design = advise(&model, &Settings::default(), Some(&mix.name)).unwrap();
            for r in &design.relationships {
                assert!(
                    !r.alternatives.is_empty(),
                    "{name} ({}): {} lists no alternative to {}",
                    mix.name,
                    r.relationship,
                    r.chosen.kind()
                );
                for a in &r.alternatives {
                    let reason = match &a.verdict {
                        Verdict::Rejected { reason, .. } => reason.words(),
                        Verdict::Costlier { explanation, .. }
                        | Verdict::Cheaper { explanation, .. } => explanation.clone(),
                    };
                    assert!(
                        !reason.trim().is_empty(),
                        "{name}: {} has an empty reason",
                        r.relationship
                    );
                }
            }
        }
    }
}
