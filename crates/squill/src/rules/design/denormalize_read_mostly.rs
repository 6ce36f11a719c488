//! `denormalize-read-mostly`: Copy a field into the other side only when it is read far more often than it is updated, and never a fast-changing field.

crate::rules::declare_rule! {
    id: "denormalize-read-mostly",
    summary: "Copy a field into the other side only when it is read far more often than it is updated, and never a fast-changing field",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt", "004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 40, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Side};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A copied field that changes too often for its reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RewrittenTooOften {
    /// The entity the field belongs to.
    pub entity: String,
    pub field: String,
    /// How often the field changes.
    pub updates: Figure,
    /// How often reads take the copy through the relationship.
    pub reads: Figure,
    pub relationship: String,
    /// `design.read-mostly-ratio`: the reads a copy needs per update.
    pub ratio: Figure,
}

explain!(RewrittenTooOften, |w| format!(
    "{}.{} changes {}/s against {}/s reads through {}: a copy would be rewritten too often (needs {}x more reads than updates)",
    w.entity,
    w.field,
    words::num(w.updates.value),
    words::num(w.reads.value),
    w.relationship,
    w.ratio.value
));

/// Read-mostly copies, one entry per side that holds them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadMostly {
    pub copies: Vec<Copies>,
}

/// The copies one side holds of the other's fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Copies {
    /// The entity the fields belong to.
    pub entity: String,
    pub fields: Vec<String>,
    /// How often reads take them through the relationship.
    pub reads: Figure,
    pub relationship: String,
    /// How often the fields change, together.
    pub updates: Figure,
}

explain!(ReadMostly, |w| {
    let each: Vec<String> = w
        .copies
        .iter()
        .map(|c| {
            format!(
                "{} of {} {} read {}/s through {} and updated {}/s",
                c.fields.join(", "),
                c.entity,
                if c.fields.len() == 1 { "is" } else { "are" },
                words::num(c.reads.value),
                c.relationship,
                words::num(c.updates.value)
            )
        })
        .collect();
    let worth = if each.len() == 1 {
        "worth a copy"
    } else {
        "worth copies"
    };
    format!("{}: read-mostly, {worth}", each.join("; "))
});

/// Forbids copying a fast-changing field (updated more than once per
/// `design.read-mostly-ratio` reads through the relationship); supports copies
/// of read-mostly fields.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let f = cx.facts;
    let rel = cx.rel();
    let ratio = f.settings.design.read_mostly_ratio;
    // Each side that holds copies: the other side's fields, against the
    // reads that take them from this side.
    let mut copies = Vec::new();
    for side in [Side::Parent, Side::Child] {
        // A snapshot (`snapshot: [price]`) is copied once, when the child
        // is written, and never refreshed: it is copied because the child
        // must keep the value it had then (`snapshot-copy` says so), not
        // because it is read more than updated (audit46 D9: "read 0/s …
        // updated 0/s: read-mostly, worth a copy").
        let fields: Vec<String> = cx
            .layout
            .copies_in(side)
            .iter()
            .filter(|x| !(side == Side::Child && rel.snapshot.contains(x)))
            .cloned()
            .collect();
        if fields.is_empty() {
            continue;
        }
        let (source, reads) = match side {
            Side::Parent => (rel.child, &cx.rf().child_fields_read),
            Side::Child => (rel.parent, &cx.rf().parent_fields_read),
        };
        let read_rate: f64 = reads.iter().map(|(_, r)| r).sum();
        let source_name = &f.model.entity(source).name;
        for field in &fields {
            let updates = f.field_update_rate(source, field);
            if updates * ratio > read_rate {
                return Some(Judgement::forbid(RewrittenTooOften {
                    entity: source_name.clone(),
                    field: field.clone(),
                    updates: Figure::per_second(updates),
                    reads: Figure::per_second(read_rate),
                    relationship: rel.name.clone(),
                    ratio: Figure::ratio(ratio),
                }));
            }
        }
        let updates: f64 = fields.iter().map(|x| f.field_update_rate(source, x)).sum();
        copies.push(Copies {
            entity: source_name.clone(),
            fields,
            reads: Figure::per_second(read_rate),
            relationship: rel.name.clone(),
            updates: Figure::per_second(updates),
        });
    }
    (!copies.is_empty()).then(|| Judgement::support(ReadMostly { copies }))
}

#[cfg(test)]
mod tests {
    use super::{Copies, RULE, ReadMostly};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<ReadMostly>(&RULE, &example("host-ip-in-logs.yaml"), "messages", "extended-reference"),
            ReadMostly {
                copies: vec![Copies {
                    entity: "host".into(),
                    fields: vec!["ipaddr".into()],
                    reads: Figure::per_second(20.0),
                    relationship: "messages".into(),
                    updates: Figure::per_second(0.00001),
                }]
            }
        );
    }

    /// Near miss: the same copy of the host's address, rewritten at 2/s
    /// against 20 reads/s: exactly the read-mostly ratio (10), not past it,
    /// so still supported; a little faster and it is forbidden.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("host-ip-in-logs.yaml").replace("rate: 0.00001", "rate: 2");
        let got = judge(&RULE, &model, "messages", "extended-reference");
        assert!(got.starts_with("support: "), "{got}");
        let over = example("host-ip-in-logs.yaml").replace("rate: 0.00001", "rate: 2.1");
        let got = judge(&RULE, &over, "messages", "extended-reference");
        assert!(got.starts_with("forbid: "), "{got}");
    }

    /// audit46 D9: a snapshot is copied because the child must keep the
    /// value it had when written, not because it is read more than
    /// updated. S7's lines copy the product's name and price as snapshots:
    /// no read-mostly reason (it read "updated 5/s: read-mostly, worth a
    /// copy"); its invoices copy the customer's name (read-mostly) beside
    /// the billing address (a snapshot): the reason names the name alone.
    #[test]
    fn a_snapshot_is_no_read_mostly_copy() {
        let s07 = example("scenarios/s07-invoices.yaml");
        assert_eq!(judge(&RULE, &s07, "sold", "extended-reference"), "-");
        let got: ReadMostly = support(&RULE, &s07, "invoices", "extended-reference");
        assert_eq!(got.copies.len(), 1, "{got:?}");
        assert_eq!(got.copies[0].fields, vec!["name".to_string()]);
    }
}
