//! Each step's heading in the script: what it builds, from what, in one
//! line (`// ---- 03-build-…: orders.items: its item documents embedded ----`).

use super::action::Action;
use super::layout_steps::Children;
use super::step_parts::ParentField;

/// What a step builds, from what: its heading in the script.
pub(super) fn what(a: &Action) -> String {
    match a {
        Action::BuildParent {
            parent,
            field,
            child,
            what,
            ..
        } => match what {
            ParentField::Ids => format!("{parent}.{field}: the ids of its {child} documents"),
            ParentField::Id => format!("{parent}.{field}: the id of its {child} document"),
            ParentField::Embedded { one: true, .. } => {
                format!("{parent}.{field}: its {child} embedded")
            }
            ParentField::Embedded { .. } => {
                format!("{parent}.{field}: its {child} documents embedded")
            }
            ParentField::FromBuckets { .. } => {
                format!("{parent}.{field}: the children of its {child} buckets embedded")
            }
            ParentField::First { k, .. } => {
                format!("{parent}.{field}: its first {k} {child} documents embedded")
            }
            ParentField::Copies {
                latest: Some(l), ..
            } => format!(
                "{parent}.{field}: {}{}, copied",
                crate::words::latest(l.k, &format!("{child} document")),
                l.sort
                    .as_ref()
                    .map(|s| format!(" by {s}"))
                    .unwrap_or_default()
            ),
            ParentField::Copies { .. } => {
                format!("{parent}.{field}: the ids of its {child} documents with copies")
            }
            ParentField::Holders { copies, attributes }
                if copies.is_empty() && attributes.is_empty() =>
            {
                format!("{parent}.{field}: the ids of the {child} documents that list it")
            }
            ParentField::Holders { copies, .. } if copies.is_empty() => format!(
                "{parent}.{field}: the ids of the {child} documents that list it, with the link's attributes"
            ),
            ParentField::Holders { .. } => format!(
                "{parent}.{field}: the ids of the {child} documents that list it, with copies"
            ),
            ParentField::FromEdges { copies, .. } if copies.is_empty() => {
                format!("{parent}.{field}: its links, from {child}")
            }
            ParentField::FromEdges { other, .. } => {
                format!("{parent}.{field}: its links, from {child}, with copies from {other}")
            }
        },
        Action::Unwind {
            parent,
            field,
            child,
            ref_field,
            ..
        } => format!("{child}: the children embedded in {parent}.{field}, each with {ref_field}"),
        Action::RefFromIds {
            parent,
            field,
            child,
            ref_field,
            ..
        } => format!("{child}.{ref_field}: the parent whose {parent}.{field} lists it"),
        Action::CopyIntoChild {
            child,
            target,
            parent,
            ..
        } => format!("{child}.{target}: its {parent}'s id with copies of its fields"),
        Action::IdFromCopy {
            child,
            ref_path,
            target,
            ..
        } => format!("{child}.{target}: the id of {child}.{ref_path}, without the copies"),
        Action::IdsFromCopies {
            parent,
            field,
            target,
            ..
        } => format!("{parent}.{target}: the ids of {parent}.{field}, without the copies"),
        Action::Edge {
            holder,
            field,
            edge,
            ..
        } => format!("{edge}: one document per link in {holder}.{field}"),
        Action::LinkItems {
            collection,
            field,
            target,
            other,
            copies,
            ..
        } if copies.is_empty() => format!(
            "{collection}.{target}: the {other} ids of {collection}.{field}, without copies"
        ),
        Action::LinkItems {
            collection,
            field,
            target,
            other,
            ..
        } => format!(
            "{collection}.{target}: the {other} ids of {collection}.{field}, with copies of their fields"
        ),
        Action::Bucket(b) => format!(
            "{}: {} grouped {}{} to a bucket",
            b.bucket,
            match &b.children {
                Children::Collection { child, .. } => {
                    format!("the {child} documents of each {}", b.parent)
                }
                Children::Embedded { field, .. } => {
                    format!("the children embedded in each {}.{field}", b.parent)
                }
            },
            if b.time.is_some() {
                "by time unit, at most "
            } else {
                ""
            },
            b.per_bucket,
        ),
        Action::Unbucket(u) => format!(
            "{}: the children in {}.{}, each with {}",
            u.child, u.bucket, u.items_field, u.ref_field
        ),
        Action::Path {
            collection,
            field,
            start,
            nodes,
            ..
        } => format!(
            "{collection}.{field}: the path from the root of {nodes} to {}",
            super::figure::node_at(start)
        ),
        Action::RefFromOwnId {
            child, ref_field, ..
        } => format!("{child}.{ref_field}: its parent's id, its own _id"),
        Action::Rekey {
            child, ref_field, ..
        } => format!("{child}: each document again under its parent's id, {child}.{ref_field}"),
        Action::ParentsFromChildren {
            child,
            field,
            parent,
            ..
        } => format!("{parent}: one document per parent embedded in {child}.{field}"),
        Action::Timeline(t) => format!(
            "{}: for each {} document, the newest {} {} documents of those it follows in {}{}",
            t.written(),
            t.readers,
            t.limit,
            t.items,
            t.follows.edges,
            t.beside.as_ref().map_or(String::new(), |_| format!(
                ", beside today's {} (rebuilt in place by the final step)",
                t.collection
            ))
        ),
        Action::Archive(a) => a.what(),
        Action::Overflow(o) => o.what(),
        Action::Gather(g) => g.what(),
        Action::Kind(k) => k.what(),
        Action::Computed {
            parent,
            field,
            function,
            relationship,
            ..
        } => format!(
            "{parent}.{field}: the {} over {relationship}",
            function.name()
        ),
    }
}
