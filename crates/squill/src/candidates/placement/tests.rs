//! `change` against `build`: every move of every example's search, from a
//! design of references and from designs the moves themselves reach, gives
//! `build`'s placement to the bit, and `revert` gives back the one before.

use super::{Change, Placement};
use crate::candidates::facts::Facts;
use crate::candidates::space::{Space, State};
use crate::design::Layout;
use crate::settings::Settings;

fn same(a: &Placement<'_>, b: &Placement<'_>, what: &str) {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let max = |v: &[Option<f64>]| v.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>();
    assert!(
        a.layouts.len() == b.layouts.len()
            && a.layouts
                .iter()
                .zip(&b.layouts)
                .all(|(x, y)| std::ptr::eq(*x, *y)),
        "{what}: layouts"
    );
    assert_eq!(a.home, b.home, "{what}: homes");
    assert_eq!(a.roots, b.roots, "{what}: roots");
    assert_eq!(bits(&a.per_root), bits(&b.per_root), "{what}: per root");
    assert_eq!(a.poly, b.poly, "{what}: polymorphic");
    assert_eq!(a.computed, b.computed, "{what}: computed");
    assert_eq!(a.timelines, b.timelines, "{what}: timelines");
    assert_eq!(bits(&a.typical), bits(&b.typical), "{what}: typical bytes");
    assert_eq!(max(&a.max), max(&b.max), "{what}: maximum bytes");
    assert_eq!(a.depth, b.depth, "{what}: depth");
}

/// Each relationship's first allowed option that embeds nothing.
fn references(space: &Space) -> State {
    State {
        rel: (0..space.rels.len())
            .map(|r| {
                let allowed = space.allowed(r);
                allowed
                    .iter()
                    .copied()
                    .find(|o| {
                        !matches!(
                            space.rels[r][*o].layout,
                            Layout::Embed | Layout::EmbedParentInChild | Layout::Bucket { .. }
                        )
                    })
                    .unwrap_or(allowed[0])
            })
            .collect(),
        entity: vec![false; space.entity.len()],
    }
}

/// Every single move from `state`, checked against `build`; the moves
/// that can exist, in the order tried.
fn check_moves(facts: &Facts<'_>, space: &Space, state: &State, what: &str) -> Vec<Change> {
    let base = Placement::build(facts, space, state).expect("a placement to start from");
    let mut p = base.clone();
    let mut possible = Vec::new();
    let mut moves: Vec<(Change, State)> = Vec::new();
    for r in 0..space.rels.len() {
        for o in space.allowed(r) {
            let mut st = state.clone();
            st.rel[r] = o;
            let change = Change {
                rels: vec![(r, o)],
                entities: Vec::new(),
            };
            moves.push((change, st));
        }
    }
    for i in 0..space.entity.len() {
        let mut st = state.clone();
        st.entity[i] = !st.entity[i];
        let change = Change {
            rels: Vec::new(),
            entities: vec![(i, st.entity[i])],
        };
        moves.push((change, st));
    }
    for (change, st) in moves {
        let what = format!("{what}, {change:?}");
        let whole = Placement::build(facts, space, &st);
        let changed = p.change(facts, space, &change);
        assert_eq!(changed, whole.is_some(), "{what}: whether it can exist");
        if let Some(whole) = whole {
            same(&p, &whole, &what);
            p.revert();
            possible.push(change);
        }
        same(&p, &base, &format!("{what}, put back"));
    }
    possible
}

fn check_model(name: &str, yaml: &str) {
    let model = crate::inputs::model_file::parse(name, yaml).expect("a valid model");
    let settings = Settings::default();
    let facts = Facts::new(&model, &settings, 0);
    let space = crate::rules::design::space(&facts);
    let mut state = references(&space);
    if Placement::build(&facts, &space, &state).is_none() {
        return;
    }
    // Walk: make every third possible move, checking each design reached.
    let mut kept = Placement::build(&facts, &space, &state).expect("checked above");
    for step in 0..4 {
        let what = format!("{name}, step {step}");
        let possible = check_moves(&facts, &space, &state, &what);
        for change in possible.iter().step_by(3) {
            let mut st = state.clone();
            for &(r, o) in &change.rels {
                st.rel[r] = o;
            }
            for &(i, on) in &change.entities {
                st.entity[i] = on;
            }
            let Some(whole) = Placement::build(&facts, &space, &st) else {
                continue;
            };
            assert!(kept.change(&facts, &space, change), "{what}: {change:?}");
            kept.keep();
            same(&kept, &whole, &format!("{what}, kept {change:?}"));
            state = st;
        }
    }
    check_pairs(&facts, &space, &state, name);
}

/// Two relationships of one entity changed at once (a guest handed from
/// one to the other), as the pricing of a repaired alternative does.
fn check_pairs(facts: &Facts<'_>, space: &Space, state: &State, what: &str) {
    let model = facts.model;
    let base = Placement::build(facts, space, state).expect("a placement to start from");
    let mut p = base.clone();
    let mut tried = 0;
    for a in 0..space.rels.len() {
        for b in a + 1..space.rels.len() {
            let (ra, rb) = (&model.relationships[a], &model.relationships[b]);
            let shared = [ra.parent, ra.child]
                .iter()
                .any(|e| *e == rb.parent || *e == rb.child);
            if !shared {
                continue;
            }
            for oa in space.allowed(a) {
                for ob in space.allowed(b) {
                    if tried > 2_000 {
                        return;
                    }
                    tried += 1;
                    let mut st = state.clone();
                    st.rel[a] = oa;
                    st.rel[b] = ob;
                    let change = Change {
                        rels: vec![(a, oa), (b, ob)],
                        entities: Vec::new(),
                    };
                    let what = format!("{what}, {change:?}");
                    let whole = Placement::build(facts, space, &st);
                    assert_eq!(
                        p.change(facts, space, &change),
                        whole.is_some(),
                        "{what}: whether it can exist"
                    );
                    if let Some(whole) = whole {
                        same(&p, &whole, &what);
                        p.revert();
                    }
                    same(&p, &base, &format!("{what}, put back"));
                }
            }
        }
    }
}

#[test]
fn a_changed_placement_is_the_one_build_gives() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("scenarios")] {
        for entry in std::fs::read_dir(&dir).expect("examples/") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "yaml") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 20, "{} examples", files.len());
    for path in files {
        let yaml = std::fs::read_to_string(&path).expect("readable");
        check_model(&path.display().to_string(), &yaml);
    }
}
