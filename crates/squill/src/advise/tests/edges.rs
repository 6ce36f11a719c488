//! The edge collection priced for workloads that use the many-to-many in
//! more ways than reads and links: a filter through it (books with a tag),
//! an insert that links it (a book with its tags), a side deleted (a book,
//! its links with it).

use crate::advise::advise;
use crate::design::{Action, Design, Layout, Verdict};
use crate::model::LayoutKind;
use crate::settings::Settings;

const BOOK_TAGS: &str = include_str!("book-tags.yaml");

fn design(pin: Option<LayoutKind>) -> Design {
    let mut m = crate::inputs::model_file::parse("book-tags.yaml", BOOK_TAGS).unwrap();
    m.relationships[0].layout = pin;
    advise(&m, &Settings::default(), None).unwrap()
}

#[test]
fn the_edge_collection_is_priced_against_the_arrays() {
    let d = design(None);
    let tags = &d.relationships[0];
    let edge = tags
        .alternatives
        .iter()
        .find(|a| matches!(a.layout, Layout::EdgeCollection { .. }))
        .expect("the edge collection is an alternative");
    assert!(
        matches!(edge.verdict, Verdict::Costlier { .. }),
        "{:?}",
        edge.verdict
    );
}

#[test]
fn pinned_the_edge_collection_carries_every_operation() {
    let d = design(Some(LayoutKind::EdgeCollection));
    let plan = |name: &str| {
        d.operations
            .iter()
            .find(|p| p.operation == name)
            .unwrap_or_else(|| panic!("no plan for {name}"))
    };
    // Books with a tag: the tag's links, then their books.
    let page = plan("books_with_tag");
    assert_eq!(page.steps[0].collection, "tags");
    assert!(page.steps[0].filter[0].path.starts_with("tag"));
    assert_eq!(page.steps[0].documents.round(), 100.0);
    assert_eq!(page.steps[1].collection, "book");
    assert_eq!(page.steps[1].documents.round(), 20.0);
    // A new book, then its five links in one insertMany.
    let add = plan("add_book");
    assert!(add.steps.iter().all(|s| s.collection == "book"));
    let links = plan("add_book_tags_links");
    assert_eq!(
        (links.steps[0].action, links.steps[0].documents),
        (Action::InsertMany, 5.0)
    );
    // A deleted book's links go in one deleteMany by the reference.
    let gone = plan("delete_book_tags_links");
    assert_eq!(gone.steps.len(), 1);
    assert_eq!(gone.steps[0].action, Action::DeleteMany);
    assert_eq!(gone.steps[0].filter[0].path, "book");
}
