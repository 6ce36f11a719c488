//! `link-attributes`: A many-to-many's own fields travel with its references, on the side whose reads take them.

crate::rules::declare_rule! {
    id: "link-attributes",
    summary: "Keep a many-to-many's own fields (a member's role) with the references, on each side whose reads take them",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt", "001_5782b55841006ac6.txt"],
    check: Relationship { order: 135, check },
}

use crate::design::Side;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Where a many-to-many's own fields live, next to its references.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkFields {
    /// Each side that keeps them.
    pub kept: Vec<KeptIn>,
    /// Whether both sides keep references (a link writes its fields twice).
    pub both_sides: bool,
}

/// The link's fields one side keeps with each reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeptIn {
    /// The entity holding the array, the field of the array and what it refers to.
    pub holder: String,
    pub array: String,
    pub item: String,
    pub fields: Vec<String>,
}

explain!(LinkFields, |w| {
    let parts: Vec<String> = w
        .kept
        .iter()
        .map(|k| {
            format!(
                "{} with each {} in {}'s `{}`",
                k.fields.join(", "),
                k.item,
                words::a(&k.holder),
                k.array
            )
        })
        .collect();
    let writes = if w.both_sides {
        "a link writes them on both sides"
    } else {
        "a link writes them once"
    };
    format!(
        "the link's own fields are kept next to its references: {}; {writes}",
        parts.join("; ")
    )
});

/// Supports a layout that keeps references of a many-to-many with
/// attributes by saying where each attribute lives: the relational join
/// table's extra columns have no table of their own here.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let rel = cx.rel();
    if rel.attributes.is_empty() {
        return None;
    }
    let (in_parent, in_child) = cx.layout.many_sides()?;
    let mut kept = Vec::new();
    for (side, holds, holder, item, field) in [
        (
            Side::Parent,
            in_parent.is_some(),
            cx.parent(),
            cx.child(),
            &rel.parent_field,
        ),
        (
            Side::Child,
            in_child.is_some(),
            cx.child(),
            cx.parent(),
            &rel.child_field,
        ),
    ] {
        let fields: Vec<String> = cx
            .facts
            .attributes_on(cx.r, side, cx.layout)
            .map(|a| a.name.clone())
            .collect();
        if holds && !fields.is_empty() {
            kept.push(KeptIn {
                holder,
                array: field.clone(),
                item,
                fields,
            });
        }
    }
    Some(Judgement::support(LinkFields {
        kept,
        both_sides: in_parent.is_some() && in_child.is_some(),
    }))
}

#[cfg(test)]
mod tests {
    use super::{KeptIn, LinkFields, RULE};
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<LinkFields>(&RULE, &example("scenarios/s09-teams.yaml"), "memberships", "many-to-many-two-way"),
            LinkFields {
                kept: vec![
                    KeptIn {
                        holder: "team".into(),
                        array: "members".into(),
                        item: "user".into(),
                        fields: vec!["role".into(), "joined_at".into()]
                    },
                    KeptIn {
                        holder: "user".into(),
                        array: "teams".into(),
                        item: "team".into(),
                        fields: vec!["role".into()]
                    },
                ],
                both_sides: true
            }
        );
    }

    /// Near miss: the same teams and members, ids on both sides, with the
    /// link carrying no fields of its own.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("scenarios/s09-teams.yaml")
            .replace(
                "    attributes:\n      role: {type: string(10), enum: [owner, admin, member]}\n      joined_at: date\n",
                "",
            )
            .replace("{fields: [name, role, joined_at]}", "{fields: [name]}")
            .replace("{fields: [name, role]}", "{fields: [name]}");
        assert!(!model.contains("attributes:"));
        assert_eq!(judge(&RULE, &model, "memberships", "many-to-many-two-way"), "-");
    }
}

#[cfg(test)]
mod placement_tests {
    use crate::rules::testing::{example, judge};

    /// An attribute a side's reads only test (the team page lists its
    /// admins) is kept on that side too, where the condition runs.
    #[test]
    fn an_attribute_tested_from_a_side_is_kept_there() {
        let model = example("scenarios/s09-teams.yaml").replace(
            "      memberships: {fields: [name, role, joined_at]}",
            "      memberships: {fields: [name, joined_at], filter: {role: eq}}",
        );
        let got = judge(&super::RULE, &model, "memberships", "many-to-many-two-way");
        assert_eq!(
            got,
            "support: the link's own fields are kept next to its references: role, joined_at with each user in a team's `members`; role with each team in a user's `teams`; a link writes them on both sides"
        );
        // Listed by neither side's fields but tested from the user's: on
        // the user's side (and on the team's, where no read takes it).
        let only_tested = model.replace(
            "      memberships: {fields: [name, role]}",
            "      memberships: {fields: [name], filter: {role: eq}}",
        );
        assert!(only_tested.contains("filter: {role: eq}}"));
        let got = judge(&super::RULE, &only_tested, "memberships", "many-to-many-two-way");
        assert!(got.contains("role with each team in a user's `teams`"), "{got}");
    }
}
