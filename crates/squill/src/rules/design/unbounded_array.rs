//! `unbounded-array`: Arrays must not grow without bound: no embedding beyond a couple of hundred, no id array beyond a few thousand.

crate::rules::declare_rule! {
    id: "unbounded-array",
    summary: "Arrays must not grow without bound: no embedding beyond a couple of hundred, no id array beyond a few thousand",
    kind: Design,
    severity: Error,
    sources: ["004_16209cf0db7b32ff.txt", "000_34acd10fa9a500cb.txt"],
    check: Relationship { order: 30, check },
}

use crate::design::Layout;
use crate::model::Count;
use crate::design::Figure;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// An array that can outgrow its bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "array", rename_all = "snake_case")]
pub enum Unbounded {
    /// The children embedded in (or referenced from) the parent.
    Children {
        /// `embedded` or `referenced`.
        what: String,
        holder: String,
        item: String,
        /// What a count of them calls them where the relationship names
        /// them (a user's `followers`); `null`: the item's plural.
        #[serde(skip_serializing_if = "Option::is_none")]
        items: Option<String>,
        /// How many the holder can have (`null`: unbounded).
        count: Option<Figure>,
        /// `cardinality.embed-max` (scaled by the child's size) or
        /// `cardinality.reference-array-max`.
        bound: Figure,
    },
    /// An array of the children (or their ids) that one insert fills past
    /// its stated max: the
    /// operation inserts a batch of children into one parent at once, more
    /// than the parent can hold (review 41, D8: a batch of 50 lines into an
    /// order of at most 20 could never find an order with room).
    Batch {
        /// `embedded` or `referenced`.
        what: String,
        holder: String,
        item: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        items: Option<String>,
        /// The children one operation inserts (its `count`).
        batch: Figure,
        /// How many the holder can have.
        count: Option<Figure>,
    },
    /// The ids of the parents kept in each child.
    ParentIds {
        parent: String,
        child: String,
        /// What a count of them calls them where the child's field names
        /// them; `null`: the parent's plural.
        #[serde(skip_serializing_if = "Option::is_none")]
        parents: Option<String>,
        /// How many parents a child can belong to (`null`: unbounded).
        count: Option<Figure>,
        bound: Figure,
    },
}

explain!(Unbounded, |w| match w {
    Unbounded::Children {
        what,
        holder,
        item,
        items,
        count,
        bound,
    } => {
        let items = words::items(items.as_deref(), item);
        format!(
            "{} can have {} {items}; an array of {what} {items} must stay within {}",
            words::a(holder),
            words::how_many(count.map(|c| c.value)),
            words::num(bound.value)
        )
    }
    Unbounded::Batch {
        what,
        holder,
        item,
        items,
        batch,
        count,
    } => {
        let items = words::items(items.as_deref(), item);
        format!(
            "{} can have {} {items}, and one insert adds {} at once: an array of {what} {items} must take a whole batch within its max",
            words::a(holder),
            words::how_many(count.map(|c| c.value)),
            words::num(batch.value)
        )
    }
    Unbounded::ParentIds {
        parent,
        child,
        parents,
        count,
        bound,
    } => format!(
        "{} can belong to {} {}; an array of their ids must stay within {}",
        words::a(child),
        words::how_many(count.map(|c| c.value)),
        words::items(parents.as_deref(), parent),
        words::num(bound.value)
    ),
});

/// Forbids arrays that grow without bound: embedded children beyond
/// `cardinality.embed-max`, id arrays beyond `cardinality.reference-array-max`.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let s = &cx.facts.settings.cardinality;
    let rel = cx.rel();
    let (count, bound, what, holder, item) = match cx.layout {
        Layout::Embed if rel.kind != crate::model::RelationshipKind::OneToOne => (
            rel.children.max,
            cx.facts.embed_bound(cx.r),
            "embedded",
            cx.parent(),
            cx.child(),
        ),
        l if matches!(l, Layout::ChildReferences | Layout::TwoWayReferences)
            || l.many_sides().is_some_and(|(p, _)| p.is_some()) =>
        {
            (
            rel.children.max,
            s.reference_array_max,
            "referenced",
            cx.parent(),
            cx.child(),
            )
        }
        _ => (Count::Finite(0), 0, "", String::new(), String::new()),
    };
    let too_many = |c: Count, b: u64| c.finite().is_none_or(|n| n > b);
    if !what.is_empty() && too_many(count, bound) {
        return Some(Judgement::forbid(Unbounded::Children {
            what: what.to_string(),
            holder,
            item,
            items: cx.items(),
            count: Figure::max(count),
            bound: Figure::count(bound as f64),
        }));
    }
    // A batch inserted at once into one parent's array (of the children or
    // of their ids) must fit its stated max: the generated insert looks for
    // room for the whole batch, which no parent then has.
    let array = match cx.layout {
        Layout::Embed => Some("embedded"),
        l if matches!(l, Layout::ChildReferences | Layout::TwoWayReferences)
            || l.many_sides().is_some_and(|(p, _)| p.is_some()) =>
        {
            Some("referenced")
        }
        _ => None,
    };
    if let Some(what) = array
        && let Some(max) = rel.children.max.finite()
        && let Some(batch) = cx
            .rf()
            .child_insert_batches
            .iter()
            .map(|(n, _)| *n)
            .max()
            .filter(|n| *n > max)
    {
        return Some(Judgement::forbid(Unbounded::Batch {
            what: what.to_string(),
            holder: cx.parent(),
            item: cx.child(),
            items: cx.items(),
            batch: Figure::count(batch as f64),
            count: Figure::max(rel.children.max),
        }));
    }
    // Ids of the parents in each child (N:M one-way into the child, two-way).
    if cx.layout.many_sides().is_some_and(|(_, c)| c.is_some())
        && too_many(rel.parents.max, s.reference_array_max)
    {
        return Some(Judgement::forbid(Unbounded::ParentIds {
            parent: cx.parent(),
            child: cx.child(),
            parents: cx.parent_items(),
            count: Figure::max(rel.parents.max),
            bound: Figure::count(s.reference_array_max as f64),
        }));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{RULE, Unbounded};
    use crate::design::Figure;
    use crate::rules::testing::{example, forbid, judge};

    #[test]
    fn fires() {
        assert_eq!(
            forbid::<Unbounded>(&RULE, &example("page-views.yaml"), "views", "embed"),
            Unbounded::Children {
                what: "embedded".into(),
                holder: "page".into(),
                item: "view".into(),
                items: None,
                count: None,
                bound: Figure::count(1_011.0)
            }
        );
    }

    /// A count names the children by the relationship where its name is a
    /// plural of its own (issue 41: "a user can have 80,000,000 followers",
    /// not "… follows"), by the child's plural where it is not.
    #[test]
    fn counts_name_the_children_as_the_relationship_does() {
        let model = example("scenarios/s14-follow-graph.yaml");
        let Unbounded::Children { items, .. } =
            forbid::<Unbounded>(&RULE, &model, "followers", "embed")
        else {
            panic!("the followers' array is judged as children");
        };
        assert_eq!(items.as_deref(), Some("followers"));
        let Unbounded::Children { items, .. } =
            forbid::<Unbounded>(&RULE, &model, "following", "embed")
        else {
            panic!("the followed users' array is judged as children");
        };
        assert_eq!(items, None, "`following` is no plural: the count says follows");
    }

    /// The bound follows the child's size: at most 300 small invoice lines
    /// fit the budget; an unbounded number of comments never does.
    #[test]
    fn small_children_fit_more() {
        assert_eq!(judge(&RULE, &example("scenarios/s07-invoices.yaml"), "lines", "embed"), "-");
        assert!(
            judge(&RULE, &example("blog-comments-link.yaml"), "comments", "embed")
                .starts_with("forbid:")
        );
    }

    /// A batch of 50 lines into an order of at most 20 cannot be embedded
    /// nor referenced from the order (review 41, D8); near miss: a batch of
    /// 20 can.
    #[test]
    fn a_batch_above_the_max_cannot_be_embedded() {
        let model = include_str!("../../../tests/fixtures/batch-buckets.yaml")
            .replace("add_lines: {insert: line, links: [lines], rate: 1, count: 5}", "add_lines: {insert: line, links: [lines], rate: 1, count: 50}");
        assert!(model.contains("count: 50}"));
        assert_eq!(
            forbid::<Unbounded>(&RULE, &model, "lines", "embed"),
            Unbounded::Batch {
                what: "embedded".into(),
                holder: "order".into(),
                item: "line".into(),
                items: None,
                batch: Figure::count(50.0),
                count: Some(Figure::count(20.0)),
            }
        );
        // The order's array of line ids has the same max.
        assert!(judge(&RULE, &model, "lines", "child-references").starts_with("forbid:"));
        let fits = model.replace("count: 50}", "count: 20}");
        assert_eq!(judge(&RULE, &fits, "lines", "embed"), "-");
        assert_eq!(judge(&RULE, &fits, "lines", "child-references"), "-");
    }

    /// Near miss: 5,000 comments a post, what an id array may hold
    /// (`cardinality.reference-array-max`).
    #[test]
    fn stays_quiet_just_under() {
        let model = example("blog-comments-embed.yaml").replace("max: 30}", "max: 5000}");
        assert_eq!(judge(&RULE, &model, "comments", "child-references"), "-");
    }
}
