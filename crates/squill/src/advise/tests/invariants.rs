//! What holds for every design, checked on every example and mix. Each
//! step names an index its collection has, and no two indexes of a collection
//! serve the same queries (issue 19: `sensor_1_hour_-1` and `sensor_1_hour_1`
//! were both proposed, though either serves both reads). A document at its
//! maximum is no smaller than a typical one (issue 19: user-address had 138 B
//! at most, 145 B typically).

use super::golden::{example, example_names as examples};
use crate::advise::advise;
use crate::settings::Settings;

/// Every example's design for every mix, with the example's name and mix
/// (advised once for all the tests that read them).
pub(crate) fn designs() -> &'static [(String, Option<String>, crate::design::Design)] {
    static DESIGNS: std::sync::OnceLock<Vec<(String, Option<String>, crate::design::Design)>> =
        std::sync::OnceLock::new();
    DESIGNS.get_or_init(advise_every_example)
}

fn advise_every_example() -> Vec<(String, Option<String>, crate::design::Design)> {
    let mut out = Vec::new();
    for name in examples() {
        let model = example(&name);
        for mix in super::golden::mixes_of(&model) {
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

/// A computed field is chosen only when some operation keeps it up to date
/// (issue 19: a report said "kept up to date by " and nothing).
#[test]
fn every_computed_field_has_a_maintainer() {
    for (name, mix, d) in designs() {
        for e in &d.entities {
            if let crate::design::EntityDecision::ComputedField {
                entity,
                field,
                maintained_by,
                ..
            } = e
            {
                assert!(
                    !maintained_by.is_empty(),
                    "{name} {mix:?}: {entity}.{field} is computed but nothing maintains it"
                );
            }
        }
    }
}

/// No step only hands back what the caller passed in: a find by the `_id`
/// parameter that returns nothing but that `_id` (issue 19).
#[test]
fn no_step_returns_only_the_id_it_was_given() {
    use crate::design::{Action, ValueSource};
    for (name, mix, d) in designs() {
        for op in &d.operations {
            for (i, s) in op.steps.iter().enumerate() {
                let by_given_id = s.filter.len() == 1
                    && s.filter[0].path == "_id"
                    && s.filter[0].value_from == ValueSource::Param;
                let only_id = s.projection == ["_id"];
                assert!(
                    !(s.action == Action::Find && by_given_id && only_id),
                    "{name} {mix:?}: {} step {} only returns the _id it is given",
                    op.operation,
                    i + 1
                );
            }
        }
    }
}

/// A claim (`findOneAndUpdate`) says it claims: the first instance its
/// filter and sort find, changed in the same write. It read "update the
/// driver", as a plain update by `_id` does (audit44 O). At least one
/// example claims, so the test cannot pass on none.
#[test]
fn every_claim_says_it_claims() {
    use crate::design::{Action, Purpose};
    let mut claims = 0;
    for (name, mix, d) in designs() {
        for op in &d.operations {
            for s in op
                .steps
                .iter()
                .filter(|s| s.action == Action::FindOneAndUpdate)
            {
                claims += 1;
                assert!(
                    s.purpose.iter().any(|p| matches!(p, Purpose::Claim { .. }))
                        && !s
                            .purpose
                            .iter()
                            .any(|p| matches!(p, Purpose::Update { .. })),
                    "{name} {mix:?}: {}: {:?}",
                    op.operation,
                    s.purpose
                );
            }
        }
    }
    assert!(claims > 0, "no example claims");
}

/// No collection needs more indexes than MongoDB holds, and none is a
/// prefix of another (the longer one serves its queries).
#[test]
fn indexes_stay_within_the_limit_and_none_is_a_prefix_of_another() {
    for (name, mix, d) in designs() {
        for c in &d.collections {
            assert!(
                c.indexes.len() <= 64,
                "{name} {mix:?}: {} has {}",
                c.name,
                c.indexes.len()
            );
            for a in &c.indexes {
                for b in &c.indexes {
                    // A unique index stays: the longer one does not enforce it.
                    let prefix = a.name != "_id_"
                        && !a.unique
                        && a.keys.len() < b.keys.len()
                        && a.keys.iter().zip(&b.keys).all(|(x, y)| x.0 == y.0);
                    assert!(
                        !prefix,
                        "{name} {mix:?}: {} has {} and {}, a prefix of it",
                        c.name, b.name, a.name
                    );
                }
            }
        }
    }
}

/// The numbers before `/s` in a text, as written (`1,200`, `0.0001`).
fn quoted_rates(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("/s") {
        let start = text[..at]
            .rfind(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
            .map_or(0, |i| i + 1);
        let number = text[start..at].trim_end_matches('.');
        if number.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            out.push((start, number.to_string()));
        }
    }
    out
}

/// Every rate a reason quotes is the model's (issue 19: rates double
/// counted, or 0.0001/s shown as 0/s): an operation named with its rate
/// quotes that operation's rate, and no figure exceeds the whole mix.
#[test]
fn every_rate_in_a_reason_is_the_models() {
    let mut checked = 0;
    for (name, mix, d) in designs() {
        let total: f64 = d.operations.iter().map(|o| o.rate).sum();
        let mut texts: Vec<String> = Vec::new();
        for r in &d.relationships {
            texts.extend(r.rules.iter().map(|h| h.reason.words()));
            for a in &r.alternatives {
                match &a.verdict {
                    crate::design::Verdict::Rejected { reason, .. } => texts.push(reason.words()),
                    crate::design::Verdict::Costlier { explanation, .. }
                    | crate::design::Verdict::Cheaper { explanation, .. } => {
                        texts.push(explanation.clone())
                    }
                }
            }
        }
        for e in &d.entities {
            let rules = e.rules();
            texts.extend(rules.iter().map(|h| h.reason.words()));
        }
        texts.extend(d.findings.iter().map(|f| f.message.clone()));
        for text in &texts {
            for (start, number) in quoted_rates(text) {
                let value: f64 = number.replace(',', "").parse().unwrap();
                // The total as words round it (107.6 reads "108").
                let shown: f64 = crate::words::num(total).replace(',', "").parse().unwrap();
                assert!(
                    value <= shown.max(total) * 1.0001 + 1e-9,
                    "{name} {mix:?}: {number}/s is more than the whole mix ({total}/s): {text}"
                );
                // `op_name (R/s)`: R is that operation's rate, as words write it.
                if let Some(before) = text[..start].strip_suffix('(') {
                    let op = before.trim_end().rsplit(' ').next().unwrap_or("");
                    if let Some(o) = d.operations.iter().find(|o| o.operation == op) {
                        assert_eq!(
                            number,
                            crate::words::num(o.rate),
                            "{name} {mix:?}: {op} runs {}/s, the text says {number}/s: {text}",
                            o.rate
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} quoted operation rates");
}

#[test]
fn quoted_rates_are_found() {
    assert_eq!(
        quoted_rates("my_stars (500/s): + 1; reads 1,200/s and 0.0001/s."),
        [
            (10, "500".to_string()),
            (29, "1,200".to_string()),
            (41, "0.0001".to_string())
        ]
    );
}

/// Whether `path` (`messages.user.name`) names a field of `shape`, through
/// objects and arrays of objects.
fn resolves(shape: &crate::design::Shape, path: &str) -> bool {
    use crate::design::ShapeType;
    let mut fields = &shape.fields;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let Some(f) = fields.iter().find(|f| f.name == part) else {
            return false;
        };
        let mut ty = &f.ty;
        while let ShapeType::Array { items, .. } = ty {
            ty = items;
        }
        match ty {
            ShapeType::Object { shape } => fields = &shape.fields,
            // A scalar (or an array of them) ends the path.
            ShapeType::Scalar { .. } | ShapeType::Array { .. } => return parts.peek().is_none(),
        }
    }
    true
}

/// Every field a find returns is in its collection's documents: a plan
/// that returns what the design does not keep (the author of a message
/// from a subset of messages whose items copy only the messages' own
/// fields) prices a read that cannot be written.
#[test]
fn every_field_a_step_returns_is_in_its_collection() {
    use crate::design::Action;
    for (name, mix, d) in designs() {
        for op in &d.operations {
            for (i, s) in op.steps.iter().enumerate() {
                let Some(c) = d.collections.iter().find(|c| c.name == s.collection) else {
                    continue;
                };
                if s.action != Action::Find {
                    continue;
                }
                for p in &s.projection {
                    assert!(
                        resolves(&c.shape, p),
                        "{name} {mix:?}: {} step {} returns `{p}`, which {} does not keep",
                        op.operation,
                        i + 1,
                        c.name
                    );
                }
            }
        }
    }
}

/// No find matches the documents an earlier step read by two different
/// fields at once: children that keep their parent's id under different
/// names (a folder's subfolders under `parent`, its files under `folder`)
/// are no one query, and the two conditions together match nothing.
#[test]
fn no_step_matches_one_steps_ids_on_two_fields() {
    use crate::design::{Action, ValueSource};
    for (name, mix, d) in designs() {
        for op in &d.operations {
            for (i, s) in op.steps.iter().enumerate() {
                if s.action != Action::Find {
                    continue;
                }
                let from: Vec<(usize, &str)> = s
                    .filter
                    .iter()
                    .flat_map(|f| match &f.value_from {
                        ValueSource::FromStep { step } => vec![(*step, f.path.as_str())],
                        ValueSource::FromSteps { steps } => {
                            steps.iter().map(|s| (*s, f.path.as_str())).collect()
                        }
                        _ => Vec::new(),
                    })
                    .collect();
                for (a, (sa, pa)) in from.iter().enumerate() {
                    assert!(
                        !from[a + 1..].iter().any(|(sb, pb)| sb == sa && pb != pa),
                        "{name} {mix:?}: {} step {} matches the documents of step {sa} on `{pa}` and on another field",
                        op.operation,
                        i + 1
                    );
                }
            }
        }
    }
}

/// No cost figure is below zero: on every example, and on the outlier
/// scenario with bounds so wide that its rare rest is scanned rather than
/// indexed (a step run once in N was once swapped to a scan unscaled,
/// which priced S5's event page at -775 documents examined).
#[test]
fn no_cost_is_below_zero() {
    let wide = crate::settings::parse(
        std::path::Path::new("squill.toml"),
        "[cardinality]\nembed-max = 12000\nreference-array-max = 20000\n",
    )
    .unwrap();
    let s05 = crate::advise::advise(
        &super::golden::example("scenarios/s05-attendees"),
        &wide,
        None,
    )
    .unwrap();
    let every = designs().iter().map(|(n, _, d)| (n.as_str(), d));
    for (name, d) in every.chain([("s05 with wide bounds", &s05)]) {
        for p in &d.operations {
            let c = &p.cost;
            for (what, v) in [
                ("round trips", c.round_trips),
                ("documents examined", c.documents_examined),
                ("index keys examined", c.index_keys_examined),
                ("bytes read", c.bytes_read),
                ("bytes written", c.bytes_written),
                ("documents written", c.documents_written),
            ] {
                assert!(v >= 0.0, "{name}: {}: {what} {v}", p.operation);
            }
        }
    }
}

/// Every design that keeps a timeline (fan-out on write) pushes each new
/// item of its feed into it: each insert of the items that links them to a
/// parent has a push step (issue 41, audit T: leaderboard.yaml kept a
/// timeline whose inserts pushed nothing, and won because its pushes were
/// not priced). Over every example and fixture.
#[test]
fn every_timeline_is_pushed_by_each_insert_of_its_items() {
    use crate::design::{EntityDecision, Purpose};
    use crate::model::OperationKind;
    let fixtures = crate::fixtures::all();
    let designs = designs()
        .iter()
        .map(|(name, _, d)| (name.as_str(), example(name), d))
        .chain(fixtures.iter().map(|(name, m, d)| (*name, m.clone(), d)));
    let mut timelines = 0;
    for (name, model, d) in designs {
        for decision in &d.entities {
            let EntityDecision::Timeline { items, .. } = decision else {
                continue;
            };
            timelines += 1;
            for op in &model.workload.operations {
                let OperationKind::Insert { entity, links, .. } = &op.kind else {
                    continue;
                };
                let linked = links
                    .iter()
                    .any(|r| model.relationship(*r).child == *entity);
                if model.entity(*entity).name != *items || !linked {
                    continue;
                }
                let plan = d.operations.iter().find(|p| p.operation == op.name);
                let pushes = plan.is_some_and(|p| {
                    p.steps.iter().any(|s| {
                        s.purpose
                            .iter()
                            .any(|x| matches!(x, Purpose::PushToTimelines { .. }))
                    })
                });
                assert!(
                    pushes,
                    "{name}: {} inserts {items} but pushes nothing into the timeline",
                    op.name
                );
            }
        }
    }
    assert!(
        timelines > 0,
        "no design keeps a timeline: the test checks nothing"
    );
}

/// The model of the audit (a leaderboard's friend feed, with the
/// followers embedded in the followed player as outliers): no timeline
/// kept without its pushes.
#[test]
fn a_leaderboard_feed_keeps_no_timeline_it_cannot_push_into() {
    use crate::design::{EntityDecision, Purpose};
    let text = include_str!("leaderboard-feed.yaml");
    let model = crate::inputs::model_file::parse("leaderboard-feed.yaml", text).unwrap();
    let d = advise(&model, &Settings::default(), None).unwrap();
    let timeline = d
        .entities
        .iter()
        .any(|e| matches!(e, EntityDecision::Timeline { .. }));
    let record = d
        .operations
        .iter()
        .find(|p| p.operation == "record_result")
        .unwrap();
    let pushes = record.steps.iter().any(|s| {
        s.purpose
            .iter()
            .any(|x| matches!(x, Purpose::PushToTimelines { .. }))
    });
    assert_eq!(
        timeline, pushes,
        "a timeline is kept exactly when the insert pushes into it"
    );
}
