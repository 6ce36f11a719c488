//! The search at scale: bounded by its budget, and never building a document
//! MongoDB would refuse (issue 18).

use crate::advise::optimize::{PLAN_BUDGET, local_search_within};
use crate::candidates::facts::Facts;
use crate::candidates::placement::Placement;
use crate::model::synthetic;
use crate::settings::Settings;

/// A budget smaller than the search needs stops it where it is, with a
/// feasible state, and says so; the full budget lets it settle.
#[test]
fn the_budget_stops_the_search_with_a_feasible_state() {
    let model = synthetic::model(60, 80, 200, 3);
    let settings = Settings::default();
    let facts = Facts::new(&model, &settings, 0);
    let space = crate::rules::design::space(&facts);
    let full = local_search_within(&facts, &space, PLAN_BUDGET).unwrap();
    assert!(!full.stopped, "{} plans", full.planned);
    let cut = local_search_within(&facts, &space, full.planned / 4).unwrap();
    assert!(cut.stopped);
    assert!(cut.planned < full.planned);
    assert!(Placement::build(&facts, &space, &cut.state).is_some());
    assert!(cut.score >= full.score - 1e-9 * full.score.abs());
}

/// A chain of one-to-many relationships each fine to embed alone would nest
/// 200 levels deep embedded as a whole (and its example had 5^200 documents):
/// no document of the design is deeper than MongoDB's 100 levels.
#[test]
fn a_long_chain_never_nests_past_the_limit() {
    let model = synthetic::chain(200);
    let design = crate::advise::advise(&model, &Settings::default(), None).unwrap();
    assert!(design.collections.len() > 1);
    for c in &design.collections {
        assert!(
            c.size.nesting_depth <= 100,
            "{}: {}",
            c.name,
            c.size.nesting_depth
        );
    }
}

/// The note a stopped search leaves names the budget.
#[test]
fn a_stopped_search_is_noted() {
    let note = super::super::search::budget_note(1234);
    assert_eq!(note.rule, "design-for-workload");
    assert!(
        note.message.contains("1,234 operation plans"),
        "{}",
        note.message
    );
}

/// Issue 23: an entity whose own fields make a 17 MiB document was advised
/// with no finding (and, once designs over 16 MiB became infeasible, with no
/// design at all). It gets a design and an error finding.
#[test]
fn a_document_too_large_on_its_own_is_an_error_finding() {
    let yaml = r"
entities:
  doc: {count: 10, fields: {a: string(9000000), b: string(9000000)}}
operations:
  read: {read: doc, rate: 1}
";
    let model = crate::inputs::model_file::parse("big.yaml", yaml).unwrap();
    let design = crate::advise::advise(&model, &Settings::default(), None).unwrap();
    let f = design
        .findings
        .iter()
        .find(|f| f.rule == "document-size-limit")
        .expect("a size-limit finding");
    assert_eq!(f.severity, crate::finding::Severity::Error);
    assert!(
        f.message.contains("a document of doc takes 17.2 MiB"),
        "{}",
        f.message
    );
}

/// A chain of embedded one-to-manys, each within the limit alone, whose
/// maximums together make a document MongoDB would refuse: a warning says
/// so (the design's sizes said 267 GiB at maximum cardinality, with no
/// finding).
#[test]
fn a_document_too_large_at_every_maximum_is_a_warning() {
    let mut yaml = String::from("entities:\n");
    for i in 0..20 {
        yaml.push_str(&format!(
            "  e{i}: {{count: 1000, fields: {{name: string(20)}}}}\n"
        ));
    }
    yaml.push_str("relationships:\n");
    for i in 1..20 {
        yaml.push_str(&format!(
            "  r{i}: {{parent: e{}, child: e{i}, children: {{min: 0, typical: 5, max: 50}}, child_field: p{i}}}\n",
            i - 1
        ));
    }
    yaml.push_str(
        "operations:\n  read: {read: e0, rate: 1, filter: {_id: eq}, include: {r1: {}}}\n",
    );
    let model = crate::inputs::model_file::parse("chain.yaml", &yaml).unwrap();
    let design = crate::advise::advise(&model, &Settings::default(), None).unwrap();
    let limit = Settings::default().design.max_document_bytes;
    let over: Vec<&str> = design
        .collections
        .iter()
        .filter(|c| c.size.max_bytes.is_some_and(|m| m > limit))
        .map(|c| c.name.as_str())
        .collect();
    assert!(!over.is_empty());
    for name in over {
        let f = design
            .findings
            .iter()
            .find(|f| {
                f.rule == "document-size-limit"
                    && f.message.contains(&format!("document of {name} "))
            })
            .unwrap_or_else(|| panic!("no finding on {name}"));
        assert_eq!(f.severity, crate::finding::Severity::Warning);
    }
}

/// `repair` as it was before it changed the placement in place (issue 45):
/// a whole build per step. The reference the faster one must match.
fn repair_by_builds(
    facts: &Facts<'_>,
    space: &crate::candidates::space::Space,
    mut state: crate::candidates::space::State,
) -> Option<crate::candidates::space::State> {
    use crate::design::Layout as L;
    let embeds = |l: &L| matches!(l, L::Embed | L::EmbedParentInChild | L::Bucket { .. });
    for _ in 0..=space.rels.len() + space.entity.len() {
        if Placement::build(facts, space, &state).is_some() {
            return Some(state);
        }
        if let Some(i) = state.entity.iter().rposition(|on| *on) {
            state.entity[i] = false;
            continue;
        }
        let r = (0..space.rels.len())
            .rev()
            .find(|r| embeds(&space.rels[*r][state.rel[*r]].layout))?;
        let alt = space
            .allowed(r)
            .into_iter()
            .find(|i| !embeds(&space.rels[r][*i].layout))?;
        state.rel[r] = alt;
    }
    None
}

/// Every start of every example, and of chains and random models that need
/// hundreds of steps, repairs to the state whole builds reach.
#[test]
fn repair_in_place_reaches_the_state_builds_reach() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut models = Vec::new();
    for dir in [root.clone(), root.join("scenarios")] {
        for entry in std::fs::read_dir(&dir).expect("examples/") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let yaml = std::fs::read_to_string(&path).expect("readable");
                let name = path.display().to_string();
                models.push(crate::inputs::model_file::parse(&name, &yaml).expect("valid"));
            }
        }
    }
    assert!(models.len() > 20, "{} examples", models.len());
    models.push(synthetic::chain(300));
    models.push(synthetic::model(60, 80, 200, 3));
    let settings = Settings::default();
    let mut stepped = 0;
    for model in &models {
        let facts = Facts::new(model, &settings, 0);
        let space = crate::rules::design::space(&facts);
        for start in crate::advise::optimize::starts(&facts, &space) {
            let want = repair_by_builds(&facts, &space, start.clone());
            stepped += usize::from(want.as_ref() != Some(&start));
            let got = crate::advise::optimize::repair(&facts, &space, start);
            assert_eq!(got, want, "{}", model.name);
        }
    }
    // The comparison means something only if some starts needed repair.
    assert!(stepped > 0);
}
