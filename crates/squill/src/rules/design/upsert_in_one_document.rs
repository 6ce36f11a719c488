//! `upsert-in-one-document`: An entity written with `otherwise: insert` is kept where one write finds it or adds it: embedded in its parent's array, or in a collection of its own with its parent's id.

crate::rules::declare_rule! {
    id: "upsert-in-one-document",
    summary: "An entity written with `otherwise: insert` is kept where one write finds it or adds it: embedded in its parent's array, or in a collection of its own with its parent's id",
    kind: Design,
    severity: Error,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 37, check },
}

use crate::design::Layout;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A layout under which an upsert of the child would need more than one
/// document's write to add it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpsertSpread {
    pub child: String,
    /// The operation that adds the child when it finds none.
    pub operation: String,
    /// The layout refused, by its kind (`bucket`, `outlier`, …).
    pub layout: String,
}

explain!(UpsertSpread, |w| format!(
    "`{}` adds {} when it finds none (`otherwise: insert`): under {} no single write finds the {} or adds it, so two callers at once could add it twice",
    w.operation,
    words::a(&w.child),
    w.layout,
    w.child,
));

/// Forbids, for the child of a relationship that an `otherwise: insert`
/// write adds, every layout but embedding in the parent's array and a
/// reference to the parent in the child's own document. Under those two,
/// the write is one `$inc` through the positional `$` or one upsert on
/// the unique index, and its insert is one guarded write. Under the others
/// the child lives in two places (a bucket or the outlier's overflow, ids
/// or copies kept in the parent), and adding it is several writes with no
/// guard that one of them holds against a racing caller.
///
/// An expiring child is kept in its own collection only: in the parent's
/// array the upsert's `$inc` would find an expired element, its `$ne`
/// guard would refuse a live one while an expired one holds the key, and
/// its push would not drop the expired ones (review48 A4); its own
/// collection's upsert and TTL index hold.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let model = cx.facts.model;
    let child = cx.rel().child;
    let expires = model.entity(child).expires.is_some();
    match cx.layout {
        Layout::ParentReference => return None,
        Layout::Embed if !expires => return None,
        _ => {}
    }
    let op = model
        .workload
        .operations
        .iter()
        .find(|o| o.terms.upserts() && o.entity_in(model) == child)?;
    let layout = if expires && matches!(cx.layout, Layout::Embed) {
        "an array of expiring elements".to_string()
    } else {
        cx.layout.kind().to_string()
    };
    Some(Judgement::forbid(UpsertSpread {
        child: cx.child(),
        operation: op.name.clone(),
        layout,
    }))
}

#[cfg(test)]
mod tests {
    use super::{RULE, UpsertSpread};
    use crate::rules::testing::{forbid, judge};

    /// A player's stacks, one per kind, added to or added.
    const GAME: &str = r"
name: game
entities:
  player: {count: 1000, fields: {gold: long}}
  stack:
    count: 30000
    fields:
      kind: {type: string(20), distinct: 500}
      qty: int
    unique: [[player, kind]]
relationships:
  inventory: {parent: player, child: stack, children: {typical: 30, max: 2000}, child_field: player}
operations:
  grant_item:
    update: stack
    filter: {player: eq, kind: eq}
    increments: {qty: amount}
    otherwise: insert
    rate: 3000
";

    #[test]
    fn fires() {
        let got: UpsertSpread = forbid(&RULE, GAME, "inventory", "child-references");
        assert_eq!(
            (got.child.as_str(), got.operation.as_str()),
            ("stack", "grant_item")
        );
        assert_eq!(judge(&RULE, GAME, "inventory", "embed"), "-");
        assert_eq!(judge(&RULE, GAME, "inventory", "parent-reference"), "-");
    }

    /// An expiring child may not be embedded: the upsert would find or
    /// keep expired elements (review48 A4); its own collection holds.
    #[test]
    fn fires_on_an_embedded_child_that_expires() {
        let model = GAME.replace(
            "      qty: int\n",
            "      qty: int\n      granted_at: {type: date, required: false}\n    expires: {from: granted_at, after: 1 hour}\n",
        );
        assert_ne!(model, GAME);
        let got: UpsertSpread = forbid(&RULE, &model, "inventory", "embed");
        assert_eq!(got.layout, "an array of expiring elements");
        assert_eq!(judge(&RULE, &model, "inventory", "parent-reference"), "-");
    }

    /// Near miss: the same write without `otherwise: insert`.
    #[test]
    fn stays_quiet_just_under() {
        let model = GAME.replace("    otherwise: insert\n", "");
        assert_eq!(judge(&RULE, &model, "inventory", "child-references"), "-");
    }
}
