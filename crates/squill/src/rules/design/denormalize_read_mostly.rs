//! `denormalize-read-mostly`: Copy a field into the other side only when it is read far more often than it is updated, and never a fast-changing field.

crate::rules::declare_rule! {
    id: "denormalize-read-mostly",
    summary: "Copy a field into the other side only when it is read far more often than it is updated, and never a fast-changing field",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt", "004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 40, check },
}

use crate::design::Side;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Forbids copying a fast-changing field (updated more than once per
/// `design.read-mostly-ratio` reads through the relationship); supports copies
/// of read-mostly fields.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let f = cx.facts;
    let rel = cx.rel();
    let ratio = f.settings.design.read_mostly_ratio;
    // Each side that holds copies: the other side's fields, against the
    // reads that take them from this side.
    let mut supports = Vec::new();
    for side in [Side::Parent, Side::Child] {
        let fields = cx.layout.copies_in(side);
        if fields.is_empty() {
            continue;
        }
        let (source, reads) = match side {
            Side::Parent => (rel.child, &cx.rf().child_fields_read),
            Side::Child => (rel.parent, &cx.rf().parent_fields_read),
        };
        let read_rate: f64 = reads.iter().map(|(_, r)| r).sum();
        let source_name = &f.model.entity(source).name;
        for field in fields {
            let updates = f.field_update_rate(source, field);
            if updates * ratio > read_rate {
                return Some(Judgement::Forbid(format!(
                    "{source_name}.{field} changes {}/s against {}/s reads through {}: a copy would be rewritten too often (needs {ratio}x more reads than updates)",
                    words::num(updates),
                    words::num(read_rate),
                    rel.name
                )));
            }
        }
        let updates: f64 = fields.iter().map(|x| f.field_update_rate(source, x)).sum();
        supports.push(format!(
            "{} of {source_name} {} read {}/s through {} and updated {}/s",
            fields.join(", "),
            if fields.len() == 1 { "is" } else { "are" },
            words::num(read_rate),
            rel.name,
            words::num(updates)
        ));
    }
    if supports.is_empty() {
        return None;
    }
    let worth = if supports.len() == 1 {
        "worth a copy"
    } else {
        "worth copies"
    };
    Some(Judgement::Support(format!(
        "{}: read-mostly, {worth}",
        supports.join("; ")
    )))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("host-ip-in-logs.yaml"), "messages", "extended-reference"),
            "support: ipaddr of host is read 20/s through messages and updated 0.00001/s: read-mostly, worth a copy"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("host-ip-in-logs.yaml"), "messages", "embed"), "-");
    }
}
