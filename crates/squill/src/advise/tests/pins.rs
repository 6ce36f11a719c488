//! `layout:` pins a relationship: advise keeps the layout, prices it against
//! the others and says what it costs; a pin it cannot build is an error.

use super::golden::example;
use crate::advise::verdicts::ChosenDespite;
use crate::advise::{AdviseError, advise};
use crate::design::{Layout, Verdict};
use crate::finding::Severity;
use crate::model::{LayoutKind, Model};
use crate::rules::design::design_for_workload::Pinned;
use crate::rules::design::unbounded_array::Unbounded;
use crate::settings::Settings;

fn pinned(name: &str, rel: &str, kind: LayoutKind) -> Model {
    let mut m = example(name);
    let r = m.relationships.iter_mut().find(|r| r.name == rel).unwrap();
    r.layout = Some(kind);
    m
}

#[test]
fn a_pinned_layout_is_kept_and_the_cheaper_ones_are_named() {
    // host-logs alone chooses a parent reference.
    let m = pinned("host-logs", "messages", LayoutKind::ChildReferences);
    let d = advise(&m, &Settings::default(), None).unwrap();
    let r = &d.relationships[0];
    assert_eq!(r.chosen, Layout::ChildReferences);
    let cheaper: Vec<&str> = r
        .alternatives
        .iter()
        .filter(|a| matches!(a.verdict, Verdict::Cheaper { .. }))
        .map(|a| a.layout.kind())
        .collect();
    assert!(cheaper.contains(&"parent-reference"), "{cheaper:?}");
    // Its rule still fires at its severity, worded as a pin, and the price
    // of the pin is a finding.
    let unbounded = d
        .findings
        .iter()
        .find(|f| f.rule == "unbounded-array")
        .unwrap();
    assert_eq!(unbounded.severity, Severity::Error);
    assert!(unbounded.message.contains("pins layout `child-references`"));
    let price = d
        .findings
        .iter()
        .find(|f| f.rule == "design-for-workload")
        .unwrap();
    assert!(
        price.message.contains("than `parent-reference`"),
        "{}",
        price.message
    );
    // The decision's reasons carry the pin's price and the broken rule's
    // evidence, typed.
    let pin = r
        .rules
        .iter()
        .find_map(|h| h.reason.get::<Pinned>())
        .unwrap();
    assert_eq!(pin.score.value, d.totals.score);
    assert!(pin.margin.unwrap().value < 0.0, "{pin:?}");
    let despite = r
        .rules
        .iter()
        .find_map(|h| h.reason.get::<ChosenDespite>())
        .unwrap();
    assert!(despite.pinned);
    let Some(Unbounded::Children {
        what,
        holder,
        item,
        count,
        ..
    }) = despite.broken.get::<Unbounded>()
    else {
        panic!("{despite:?}")
    };
    assert_eq!(
        (what.as_str(), holder.as_str(), item.as_str(), *count),
        ("referenced", "host", "logmsg", None)
    );
    let evidence = r
        .rules
        .iter()
        .find(|h| h.reason.get::<ChosenDespite>().is_some())
        .unwrap()
        .reason
        .evidence();
    assert_eq!(evidence["pinned"], true);
    assert_eq!(evidence["holder"], "host");
}

#[test]
fn a_pin_on_the_chosen_layout_changes_nothing_but_the_reason() {
    let free = advise(&example("product-reviews"), &Settings::default(), None).unwrap();
    let m = pinned("product-reviews", "reviews", LayoutKind::Subset);
    let d = advise(&m, &Settings::default(), None).unwrap();
    assert_eq!(d.collections, free.collections);
    assert_eq!(d.operations, free.operations);
    assert!(
        d.relationships[0]
            .alternatives
            .iter()
            .all(|a| !matches!(a.verdict, Verdict::Cheaper { .. }))
    );
    assert!(!d.findings.iter().any(|f| f.rule == "design-for-workload"));
}

#[test]
fn a_pin_that_is_not_a_candidate_is_an_error_listing_the_candidates() {
    let m = pinned("host-logs", "messages", LayoutKind::ManyToManyTwoWay);
    match advise(&m, &Settings::default(), None) {
        Err(AdviseError::PinnedLayout {
            relationship,
            layout,
            candidates,
            ..
        }) => {
            assert_eq!(relationship, "messages");
            assert_eq!(layout, "many-to-many-two-way");
            assert!(candidates.contains(&"parent-reference"));
        }
        other => panic!("{other:?}"),
    }
}

/// An outlier pin without percentiles says what the model lacks.
#[test]
fn a_pin_the_model_cannot_have_says_what_it_needs() {
    let m = pinned("host-logs", "messages", LayoutKind::Outlier);
    match advise(&m, &Settings::default(), None) {
        Err(AdviseError::PinnedLayout { needs, .. }) => {
            assert!(needs.is_some_and(|n| n.contains("p99")), "{needs:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unknown_layout_name_is_an_error_at_its_position() {
    let yaml = "name: x
entities:
  a: {count: 1, fields: {n: string}}
  b: {count: 1, fields: {n: string}}
relationships:
  bs: {parent: a, child: b, children: 3, layout: embeded}
";
    let e = crate::inputs::model_file::parse("x.yaml", yaml).unwrap_err();
    let p = &e.problems()[0];
    assert_eq!(p.message, "unknown layout `embeded`");
    assert_eq!(p.help.as_deref(), Some("did you mean `embed`?"));
    let at = p.position.as_ref().unwrap();
    assert_eq!((at.line, at.column), (6, 50));
}

/// A unique combination the design cannot keep in one document (the star's
/// user is the document that holds it) gets no index but a warning on the
/// insert; kept in the star's own documents, it is a unique index.
#[test]
fn a_unique_combination_no_index_can_enforce_is_a_warning() {
    let unchecked = |d: &crate::design::Design| {
        d.operations
            .iter()
            .find(|p| p.operation == "star")
            .unwrap()
            .warnings
            .iter()
            .any(|w| matches!(w, crate::design::Warning::UniqueUnchecked { keys, .. } if keys == &["user", "repo"]))
    };
    let d = advise(&example("scenarios/s02-stars"), &Settings::default(), None).unwrap();
    assert!(!unchecked(&d));
    let m = pinned("scenarios/s02-stars", "stars_given", LayoutKind::Embed);
    let d = advise(&m, &Settings::default(), None).unwrap();
    assert!(unchecked(&d));
    let user = d.collections.iter().find(|c| c.name == "user").unwrap();
    assert!(user.indexes.iter().all(|i| !i.unique || i.name == "_id_"));
}
