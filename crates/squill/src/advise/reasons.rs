//! The reasons' renderer: a decision's alternatives and trade-offs in words,
//! from the typed costs and plans `build` computed (the rules word their own
//! reasons with the same helpers, `words`). Nothing here decides.

use super::priced::Priced;
use crate::candidates::facts::Facts;
use crate::costs::plan::OpPlan;
use crate::design::{Cost, Figure, Layout, Side};
use crate::model::OperationId;
use crate::words;
use serde::Serialize;

/// One operation whose cost differs with an alternative: its rate and the
/// difference per execution (the alternative's cost minus the chosen one's).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperationDifference {
    pub operation: String,
    pub rate: Figure,
    pub per_execution: Cost,
}

pub(super) fn layout_words(
    facts: &Facts<'_>,
    rel: crate::model::RelationshipId,
    l: &Layout,
) -> String {
    let model = facts.model;
    let r = model.relationship(rel);
    layout_phrase(&model.entity(r.parent).name, &model.entity(r.child).name, l)
}

/// Layout `l` of a relationship from `parent` to `child`, as a phrase
/// ("child ids in the parent").
pub(super) fn layout_phrase(parent: &str, child: &str, l: &Layout) -> String {
    // Each side in the form the sentence needs: one parent, one child, or many.
    let (parent, child) = words::sides(parent, child);
    let childs = words::plural(&child);
    match l {
        Layout::Embed => format!("embedding {childs} in the {parent}"),
        Layout::EmbedParentInChild => format!("folding the {parent} into each {child}"),
        Layout::ChildReferences => format!("{child} ids in the {parent}"),
        Layout::ParentReference => format!("the {parent}'s id in each {child}"),
        Layout::TwoWayReferences => "references both ways".to_string(),
        Layout::SharedId => format!("the {child} under the {parent}'s _id"),
        Layout::ExtendedReference {
            copies_into: Side::Parent,
            fields,
        } => {
            format!("copying {child} {} into the {parent}", fields.join(", "))
        }
        Layout::ExtendedReference {
            copies_into: Side::Child,
            fields,
        } => {
            format!("copying {parent} {} into each {child}", fields.join(", "))
        }
        Layout::Subset { k, .. } => {
            format!("{} in the {parent}", words::latest(*k, &child))
        }
        Layout::Outlier { threshold } => format!(
            "up to {} {childs} in the {parent}, the rest apart",
            words::num(*threshold as f64)
        ),
        Layout::Bucket { per_bucket, .. } => {
            format!("buckets of {} {childs}", words::int(*per_bucket))
        }
        Layout::ManyToManyOneWay {
            ids_in: Side::Parent,
        } => format!("{child} ids in each {parent} only"),
        Layout::ManyToManyOneWay {
            ids_in: Side::Child,
        } => format!("{parent} ids in each {child} only"),
        Layout::ManyToManyTwoWay => "ids on both sides".to_string(),
        Layout::EdgeCollection { collection } => {
            format!("a `{collection}` collection with one document per link")
        }
        Layout::TreePath { fields } if fields.is_empty() => {
            format!("the ids from the root to each {child} in it")
        }
        Layout::TreePath { fields } => format!(
            "the ids and {} from the root to each {child} in it",
            fields.join(", ")
        ),
        Layout::PathReference => {
            format!("the {parent}'s id and the ids above it in each {child}")
        }
        Layout::TwoWayExtendedReference {
            copies_in_parent,
            copies_in_child,
        } => {
            let mut parts = Vec::new();
            if !copies_in_parent.is_empty() {
                parts.push(format!(
                    "{child} {} in the {parent}",
                    copies_in_parent.join(", ")
                ));
            }
            if !copies_in_child.is_empty() {
                parts.push(format!(
                    "{parent} {} in each {child}",
                    copies_in_child.join(", ")
                ));
            }
            format!("ids on both sides with copies ({})", parts.join("; "))
        }
    }
}

/// "2 more round trips, 300 more documents examined" for one execution.
pub(super) fn diff_words(d: &Cost) -> String {
    let mut parts = Vec::new();
    let mut say = |x: f64, one: &str, many: &str| {
        if x.abs() < 0.005 {
            return;
        }
        // The number as shown decides: 0.9967 shows as "1", and reads "1
        // round trip", not "1 round trips".
        let n = words::num(x.abs());
        let what = if n == "1" { one } else { many };
        parts.push(format!("{} {n} {what}", if x > 0.0 { "+" } else { "-" }));
    };
    say(d.round_trips, "round trip", "round trips");
    say(
        d.documents_examined,
        "document examined",
        "documents examined",
    );
    say(d.documents_written, "document written", "documents written");
    say(d.sync_writes, "copy to update", "copies to update");
    say(d.transactions, "transaction", "transactions");
    say(d.shard_requests, "request to a shard", "requests to shards");
    if d.bytes_written.abs() >= 1.0 {
        parts.push(format!(
            "{} {} written",
            if d.bytes_written > 0.0 { "+" } else { "-" },
            words::bytes(d.bytes_written.abs())
        ));
    }
    if d.bytes_read.abs() >= 1.0 && parts.len() < 2 {
        parts.push(format!(
            "{} {} read",
            if d.bytes_read > 0.0 { "+" } else { "-" },
            words::bytes(d.bytes_read.abs())
        ));
    }
    parts.join(", ")
}

pub(super) fn explanation(
    facts: &Facts<'_>,
    pairs: &[(OperationId, &OpPlan, &OpPlan)],
    delta: f64,
    chosen_total: f64,
    layout: &str,
) -> String {
    explanation_of(layout, delta, chosen_total, &differences(facts, pairs))
}

/// The operations whose weighted cost differs between the chosen plans and
/// the alternative's (`pairs`: operation, chosen plan, alternative plan).
pub(super) fn differences(
    facts: &Facts<'_>,
    pairs: &[(OperationId, &OpPlan, &OpPlan)],
) -> Vec<OperationDifference> {
    let model = facts.model;
    pairs
        .iter()
        .filter_map(|(op, a, b)| {
            let rate = model.operation(*op).rate(facts.mix);
            let d = b.cost.minus(&a.cost);
            let weighted = d.score * rate;
            (weighted.abs() >= 1e-9 && rate > 0.0).then(|| OperationDifference {
                operation: model.operation(*op).name.clone(),
                rate: Figure::per_second(rate),
                per_execution: d,
            })
        })
        .collect()
}

/// "{layout} costs 12 more per second (112 vs 100): per execution …; it
/// would save on …", from the operations' differences.
pub(super) fn explanation_of(
    layout: &str,
    delta: f64,
    chosen_total: f64,
    differences: &[OperationDifference],
) -> String {
    let mut rows: Vec<(f64, String)> = Vec::new();
    for o in differences {
        let rate = o.rate.value;
        let weighted = o.per_execution.score * rate;
        let w = diff_words(&o.per_execution);
        if w.is_empty() {
            continue;
        }
        rows.push((
            weighted,
            format!("{} ({}/s): {w}", o.operation, words::num(rate)),
        ));
    }
    rows.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
    // A difference that rounds to nothing is "the same", never "0 more"
    // (audit48 C3).
    let by = if words::rounds_to_nothing(delta) {
        "the same".to_string()
    } else {
        format!(
            "{} {}",
            words::num(delta.abs()),
            if delta < 0.0 { "less" } else { "more" }
        )
    };
    let mut s = format!(
        "{layout} costs {by} per second ({} vs {})",
        words::num(chosen_total + delta),
        words::num(chosen_total)
    );
    let worse: Vec<&str> = rows
        .iter()
        .filter(|r| r.0 > 0.0)
        .take(2)
        .map(|r| r.1.as_str())
        .collect();
    let better: Vec<&str> = rows
        .iter()
        .filter(|r| r.0 < 0.0)
        .take(2)
        .map(|r| r.1.as_str())
        .collect();
    if !worse.is_empty() {
        s.push_str(&format!(": per execution {}", worse.join("; ")));
    }
    if !better.is_empty() {
        s.push_str(&format!("; it would save on {}", better.join("; ")));
    }
    if worse.is_empty() && delta >= 0.0 && !words::rounds_to_nothing(delta) {
        s.push_str(": the difference is the upkeep of the indexes it needs");
    }
    s
}

pub(super) fn tradeoffs(
    facts: &Facts<'_>,
    priced: &Priced,
    rel: crate::model::RelationshipId,
    layout: &Layout,
) -> Vec<String> {
    let model = facts.model;
    let r = model.relationship(rel);
    let (parent, child) = (&model.entity(r.parent).name, &model.entity(r.child).name);
    let childs = words::plural(child);
    let mut out = Vec::new();
    let mut ops: Vec<OperationId> = facts.ops_touching[r.parent.index()]
        .iter()
        .chain(&facts.ops_touching[r.child.index()])
        .copied()
        .collect();
    ops.sort();
    ops.dedup();
    // Whether some relationship of the model links entities `a` and `b`
    // (by name, either way round).
    let joined = |a: &str, b: &str| {
        model.relationships.iter().any(|x| {
            let (p, c) = (&model.entity(x.parent).name, &model.entity(x.child).name);
            (p == a && c == b) || (p == b && c == a)
        })
    };
    // A copy belongs to the relationship between its holder and its
    // source (the deal's stage in a contact: `contact_deals`); where no
    // relationship links them, to any relationship of either.
    let ours = |s: &crate::design::Step, source: &str| {
        let holder = s.purpose.iter().find_map(|p| match p {
            crate::design::Purpose::RefreshCopy { holder, .. } => Some(holder.as_str()),
            _ => None,
        });
        match holder {
            Some(h) if joined(h, source) => {
                (h == parent && source == child) || (h == child && source == parent)
            }
            _ => s.collection == *parent || s.collection == *child || source == child,
        }
    };
    for op in ops {
        let plan = &priced.plans[op.index()];
        for w in &plan.warnings {
            let t = w.text();
            if w.concerns(parent, child, joined) && !out.contains(&t) {
                out.push(t);
            }
        }
        for s in &plan.steps {
            if let Some(source) = &s.copy_of
                && ours(s, source)
            {
                let t = format!(
                    "{} ({}/s) must {}; the copies are not updated atomically with the original",
                    model.operation(op).name,
                    words::num(model.operation(op).rate(facts.mix)),
                    crate::design::Purpose::texts(&s.purpose)
                );
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
    }
    match layout {
        Layout::Embed => out.push(format!("{childs} exist only inside their {parent}: reading one means reading its {parent}")),
        Layout::Subset { k, .. } => out.push(format!("only {} {} in the {parent}; older ones take a query on the {child} collection", words::latest(*k, child), words::is_are(*k))),
        Layout::Outlier { threshold } => out.push(format!(
            "{} with more than {} {childs} is an outlier: reading all its {childs} takes a second query, and a new {child} goes to its own document once the array is full",
            words::a(parent),
            words::num(*threshold as f64)
        )),
        Layout::Bucket { .. } => out.push(format!("{childs} are stored in buckets: one is read or updated through its bucket")),
        Layout::ExtendedReference { fields, .. } => {
            // Snapshots are meant to part from their original.
            let live: Vec<&str> = fields
                .iter()
                .filter(|f| !r.snapshot.contains(f))
                .map(String::as_str)
                .collect();
            if !live.is_empty() {
                out.push(format!(
                    "the copies of {} lose atomic, isolated updates with their original",
                    live.join(", ")
                ));
            }
            if !r.snapshot.is_empty() {
                out.push(format!(
                    "{} keep the value they had when each {child} was written: a change to the {parent} does not reach them",
                    r.snapshot.join(", ")
                ));
            }
        }
        _ => {}
    }
    out
}

/// The chosen layout breaks a rule: because the model pins it, or because
/// every candidate does.
pub(super) fn breaks_a_rule(pinned: bool, reason: &str) -> String {
    let why = if pinned {
        "the model pins this layout, though it breaks a rule"
    } else {
        "every candidate breaks a rule; this one least"
    };
    format!("{why}: {reason}")
}

/// What a computed field stands for ("count of reviews", "max of bid.amount").
pub(super) fn computes(
    model: &crate::model::Model,
    rel: &crate::model::Relationship,
    function: crate::model::AggregateFn,
    field: Option<&str>,
) -> String {
    match field {
        Some(f) => format!(
            "{} of {}.{f}",
            crate::candidates::fn_name(function),
            model.entity(rel.child).name
        ),
        None => format!("count of {}", rel.parent_field),
    }
}

#[cfg(test)]
mod tests {
    use super::{diff_words, explanation_of, layout_phrase};
    use crate::design::{BucketBy, Layout};

    /// Audit48 C3: two layouts a float's noise apart cost the same, never
    /// "0 more per second (3,603 vs 3,603)".
    #[test]
    fn a_tie_costs_the_same() {
        assert_eq!(
            explanation_of("references both ways", 1e-13, 3_603.0, &[]),
            "references both ways costs the same per second (3,603 vs 3,603)"
        );
        assert_eq!(
            explanation_of("embed", -12.0, 100.0, &[]),
            "embed costs 12 less per second (88 vs 100)"
        );
    }

    /// A count in a layout's phrase is grouped as every other figure of the
    /// report (issue 41: S20's "buckets of 1268 events" beside "the 1,268 a
    /// bucket may hold").
    #[test]
    fn counts_in_a_layout_phrase_are_grouped() {
        let bucket = Layout::Bucket {
            by: BucketBy::Count,
            per_bucket: 1268,
            aggregates: Vec::new(),
        };
        assert_eq!(
            layout_phrase("device", "event", &bucket),
            "buckets of 1,268 events"
        );
        let subset = Layout::Subset {
            k: 1000,
            sort_field: None,
            fields: Vec::new(),
        };
        assert_eq!(
            layout_phrase("user", "follower", &subset),
            "the latest 1,000 followers in the user"
        );
    }

    /// A difference shown as "1" reads in the singular even when it is
    /// 0.9967 (issue 41: "- 1 round trips, - 1 documents examined").
    #[test]
    fn a_difference_shown_as_one_is_singular() {
        let d = crate::design::Cost {
            round_trips: -0.9967,
            documents_examined: 2.0,
            ..Default::default()
        };
        assert_eq!(diff_words(&d), "- 1 round trip, + 2 documents examined");
    }
}
