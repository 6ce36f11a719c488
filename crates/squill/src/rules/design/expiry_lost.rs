//! `expiry-lost`: a layout that keeps an expiring entity (or ids or
//! copies of it) inside another entity's documents, where no TTL index can
//! delete it. An expiry the model states is a requirement, not a cost: the
//! search refuses such a layout, as it refuses an unbounded array
//! (audit44 D; audit45 gap 4: holds embedded in a night were never
//! deleted, so after its 500th hold ever the night's array was full for
//! good and refused every hold).
//!
//! Keeping the entity embedded and pulling the expired elements in each
//! write that pushes one was weighed and not taken by the search. MongoDB
//! refuses `$push` and `$pull` on one path in one update, so every such
//! write becomes an aggregation-pipeline update (`$filter` then
//! `$concatArrays`), its cap guard a `$size` of the live elements under
//! `$expr`, every read of the array a `$filter` by date, and a parent that
//! is not written again keeps its expired elements for ever. A collection
//! of its own, or buckets, where a TTL index deletes them, is one insert
//! and one index. A relationship pinned to an array gets exactly that plan
//! (expiry48: `costs/plan/insert.rs`, `pull_expired`; the reads in
//! `costs/plan/elements.rs` and `include.rs`), and this finding says what
//! it costs the application.

crate::rules::declare_rule! {
    id: "expiry-lost",
    summary: "An entity that expires is kept where no TTL index can delete it (inside another document, or as ids or copies in another document): refused",
    kind: Design,
    severity: Error,
    sources: ["MongoDB manual: Expire Data from Collections by Setting TTL"],
    check: Relationship { order: 32, check },
}

use crate::design::reason::explain;
use crate::design::{Layout, Side};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// An expiring entity that a layout keeps in another entity's documents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpiryLost {
    /// The entity that expires.
    pub entity: String,
    /// The entity whose documents would keep it.
    pub holder: String,
    /// What the holder keeps of it: `embedded` (the entity itself), `ids`
    /// (an array of its ids), `copies` (its fields copied).
    pub kept: String,
    /// The date the expiry counts from.
    pub field: String,
    pub expire_after_seconds: u64,
}

explain!(ExpiryLost, |w| {
    let plural = words::plural(&w.entity);
    let holder = words::a(&w.holder);
    // What stays behind, said of what the holder keeps: an embedded array
    // capped at its maximum fills with expired elements for good; ids and
    // copies outlive the documents the TTL index deletes.
    let what = match w.kept.as_str() {
        "embedded" => format!(
            "{plural} embedded in {holder} are never deleted: every read has to leave the expired ones out and every push drop them, or an array capped at its maximum fills with them for good"
        ),
        "ids" => format!(
            "the ids of {plural} kept in {holder} stay after the {plural} are deleted, and the array grows with them"
        ),
        _ => format!("copies of {plural} kept in {holder} outlive the {plural}"),
    };
    format!(
        "{} expires {} after its `{}`; a TTL index deletes whole documents only, so {what}",
        w.entity,
        words::duration_seconds(w.expire_after_seconds),
        w.field
    )
});

/// What `layout` keeps of one side's instances in the other side's
/// documents: of the child in the parent, or of the parent in the child.
fn kept(layout: &Layout, of: Side) -> Option<&'static str> {
    match (of, layout) {
        (Side::Child, Layout::Embed | Layout::Outlier { .. }) => Some("embedded"),
        (Side::Child, Layout::Subset { .. }) => Some("copies"),
        (Side::Parent, Layout::EmbedParentInChild) => Some("embedded"),
        (Side::Child, l) if !l.copies_in(Side::Parent).is_empty() => Some("copies"),
        (Side::Child, l) if l.parent_keeps_child_ids() => Some("ids"),
        (Side::Parent, l) if matches!(l.many_sides(), Some((_, Some(_)))) => Some("ids"),
        _ => None,
    }
}

/// Forbids a layout that keeps an expiring child in its parent's
/// documents (embedded, its ids, copies of it), or an expiring parent in
/// its children's (folded in, its ids).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let model = cx.facts.model;
    let rel = cx.rel();
    for (of, e, holder) in [
        (Side::Child, rel.child, rel.parent),
        (Side::Parent, rel.parent, rel.child),
    ] {
        let entity = model.entity(e);
        let Some(x) = &entity.expires else { continue };
        if let Some(kept) = kept(cx.layout, of) {
            return Some(Judgement::forbid(ExpiryLost {
                entity: entity.name.clone(),
                holder: model.entity(holder).name.clone(),
                kept: kept.to_string(),
                field: x.field.clone(),
                expire_after_seconds: x.seconds,
            }));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{ExpiryLost, RULE};
    use crate::rules::testing::{forbid, judge};
    use crate::settings::Settings;

    /// Sessions of a user, each deleted a day after its last use.
    const SESSIONS: &str = r"
entities:
  user:
    count: 10000
    fields: {name: string(18)}
  session:
    count: 20000
    fields: {last_used: date, token: string(40)}
    expires: {from: last_used, after: 1 day}
relationships:
  sessions:
    parent: user
    child: session
    children: {min: 0, typical: 2, max: 10}
    child_field: user
    layout: LAYOUT
operations:
  open:
    insert: session
    links: [sessions]
    rate: 0.2
  profile:
    read: user
    filter: {_id: eq}
    include: [sessions]
    rate: 20
";

    /// Embedded in the user, or as ids in the user: refused, with the
    /// entity, its holder and the life stated as evidence.
    #[test]
    fn refuses_a_layout_that_keeps_an_expiring_child_in_its_parent() {
        let yaml = SESSIONS.replace("    layout: LAYOUT\n", "");
        let embedded: ExpiryLost = forbid(&RULE, &yaml, "sessions", "embed");
        assert_eq!(
            embedded,
            ExpiryLost {
                entity: "session".into(),
                holder: "user".into(),
                kept: "embedded".into(),
                field: "last_used".into(),
                expire_after_seconds: 86_400,
            }
        );
        let ids: ExpiryLost = forbid(&RULE, &yaml, "sessions", "child-references");
        assert_eq!(ids.kept, "ids");
    }

    /// The near miss: the same sessions in a collection of their own (the
    /// parent's id in each) have their TTL index; and the same embedding
    /// of a child that does not expire is not this rule's.
    #[test]
    fn stays_quiet_where_a_ttl_index_deletes_them() {
        let yaml = SESSIONS.replace("    layout: LAYOUT\n", "");
        assert_eq!(judge(&RULE, &yaml, "sessions", "parent-reference"), "-");
        let lasting = yaml.replace("    expires: {from: last_used, after: 1 day}\n", "");
        assert_eq!(judge(&RULE, &lasting, "sessions", "embed"), "-");
    }

    /// Unpinned, the search keeps the sessions where their TTL index
    /// deletes them; pinned to `embed`, the design keeps the pin and says
    /// it breaks the rule.
    #[test]
    fn the_search_refuses_it_and_a_pin_is_reported() {
        let free = SESSIONS.replace("    layout: LAYOUT\n", "");
        let design = design_of(&free);
        let session = design
            .collections
            .iter()
            .find(|c| c.entities.iter().any(|e| e == "session"))
            .expect("a collection holds sessions");
        assert_eq!(session.name, "session");
        assert!(session.indexes.iter().any(|i| i.expire_after_seconds == Some(86_400)));
        let pinned = design_of(&SESSIONS.replace("LAYOUT", "embed"));
        let found: Vec<_> = pinned.findings.iter().filter(|f| f.rule == RULE.id).collect();
        assert_eq!(found.len(), 1, "{:?}", pinned.findings);
        assert!(found[0].message.contains("never deleted"), "{}", found[0].message);
    }

    fn design_of(yaml: &str) -> crate::design::Design {
        let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
        crate::advise::advise(&model, &Settings::default(), None).expect("a design")
    }
}
