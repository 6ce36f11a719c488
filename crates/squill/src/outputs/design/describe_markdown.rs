//! `describe`'s layouts and entity decisions for a Markdown report. The
//! English is `describe`'s; the names it puts in backticks (an edge
//! collection, a discriminator, an archive's date field, a timeline's
//! `outliers`) become code spans through `words::markdown::code`, and
//! every other word literal prose through `words::markdown::text`. Escaping
//! the whole sentence instead showed the backticks as characters, and a
//! name with a backtick in it could not be told from its span.

use super::describe;
use super::medium::Medium;
use crate::design::{EntityDecision, Layout, RelationshipDecision};

const MD: Medium = Medium::Markdown;

/// `describe::decided`, for Markdown.
pub(crate) fn decided(d: &RelationshipDecision, layout: &Layout) -> String {
    match layout {
        Layout::EdgeCollection { .. } => self::layout(layout),
        other => MD.prose(&describe::decided(d, other)),
    }
}

/// `describe::layout`, for Markdown.
pub(crate) fn layout(layout: &Layout) -> String {
    match layout {
        Layout::EdgeCollection { collection } => format!(
            "{}{}{}",
            MD.prose("edge collection ("),
            MD.name(collection),
            MD.prose(": one document per link, with both references)")
        ),
        other => MD.prose(&describe::layout(other)),
    }
}

/// `describe::entity_decision`, for Markdown.
pub(crate) fn entity_decision(decision: &EntityDecision) -> String {
    match decision {
        EntityDecision::Polymorphic {
            collection,
            entities,
            discriminator,
            ..
        } => format!(
            "{}{}{}",
            MD.prose(&format!(
                "polymorphic collection {collection} holds {} (told apart by ",
                entities.join(", ")
            )),
            MD.name(discriminator),
            MD.prose(")")
        ),
        EntityDecision::Archive {
            entity,
            collection,
            archive,
            field,
            horizon_days,
            moved_per_second,
            working_set,
            without_archive,
            ..
        } => format!(
            "{}{}{}",
            MD.prose(&format!(
                "archive by age: {collection} keeps the {} of {} (by ",
                crate::words::plural(entity),
                crate::words::last_period(*horizon_days)
            )),
            MD.name(field),
            MD.prose(&format!(
                "), older ones move to {archive} ({} by a scheduled job); working set {} instead of {}",
                crate::words::rate(*moved_per_second),
                describe::working_set_words(working_set),
                describe::working_set_words(without_archive),
            ))
        ),
        EntityDecision::Timeline {
            threshold: Some(_),
            items,
            ..
        } => {
            // The sentence up to the outliers' field is describe's own.
            let whole = describe::entity_decision(decision);
            let head = whole
                .split_once(" in `outliers`")
                .map_or(whole.as_str(), |(h, _)| h);
            format!(
                "{} in {}{}",
                MD.prose(head),
                MD.name("outliers"),
                MD.prose(&format!(
                    ", whose {} the feed reads at read time",
                    crate::words::plural(items)
                ))
            )
        }
        other => MD.prose(&describe::entity_decision(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name that holds a backtick, a pipe, a tag and a newline.
    const HOSTILE: &str = "a`b|<i>c\nd";

    #[test]
    fn an_edge_collection_is_a_code_span_whatever_its_name() {
        let text = layout(&Layout::EdgeCollection {
            collection: HOSTILE.into(),
        });
        // One backtick inside: a fence of two, padded on neither side.
        assert_eq!(
            text,
            "edge collection (``a`b\\|<i>c\\nd``: one document per link, with both references)"
        );
        assert!(!text.contains("\\`"), "{text}");
    }

    #[test]
    fn a_discriminator_is_a_code_span_and_the_rest_is_prose() {
        let d = EntityDecision::Polymorphic {
            collection: "things*".into(),
            entities: vec!["a_b".into(), "<c>".into()],
            discriminator: HOSTILE.into(),
            rules: Vec::new(),
        };
        let text = entity_decision(&d);
        assert!(
            text.starts_with("polymorphic collection things\\* holds a_b, &lt;c&gt; (told apart by ``a`b\\|<i>c\\nd``"),
            "{text}"
        );
    }
}
