//! Snapshots of the script for small models, one per transition, and the
//! refusals. Each model is an example with a `current:` section and, where
//! the workload alone would not choose the layout under test, the
//! relationship pinned to it (`layout:`).

use super::*;
use crate::design::Side;
use crate::settings::Settings;

/// product-reviews (examples/product-reviews.yaml), with `layout` and `current`.
fn reviews(layout: Option<&str>, current: &str) -> String {
    let pin = layout
        .map(|l| format!("    layout: {l}\n"))
        .unwrap_or_default();
    format!(
        "name: product-reviews
entities:
  product:
    count: 200000
    fields: {{name: string(24), price: double, description: string(600)}}
  review:
    count: 40000000
    fields:
      user: {{type: string(12), distinct: 2000000}}
      rating: {{type: int, distinct: 5}}
      text: string(300)
      date: date
relationships:
  reviews:
    parent: product
    child: review
    children: {{min: 0, typical: 200, max: unbounded, growth_per_day: 0.5}}
    child_field: product_id
    standalone: true
{pin}operations:
  product_page:
    read: product
    rate: 500
    filter: {{_id: eq}}
    include:
      reviews: {{sort: -date, limit: 10, fields: [user, rating, text, date]}}
    aggregates: [count(reviews)]
  all_reviews:
    read: review
    rate: 20
    filter: {{product_id: eq}}
    sort: -date
    limit: 20
  write_review:
    insert: review
    links: [reviews]
    rate: 1.2
current:
  reviews: {current}
"
    )
}

/// order-customer (examples/order-customer.yaml), with `layout` and `current`.
fn orders(layout: &str, current: &str) -> String {
    format!(
        "name: order-customer
entities:
  customer:
    count: 1000000
    fields: {{name: string(18), email: string(24), address: string(60), phone: string(14), loyalty_points: int}}
  order:
    count: 30000000
    fields: {{total: double, placed_at: date}}
relationships:
  orders:
    parent: customer
    child: order
    children: {{min: 0, typical: 30, max: unbounded, growth_per_day: 0.01}}
    child_field: customer
    standalone: true
    layout: {layout}
operations:
  order_page:
    read: order
    rate: 300
    filter: {{_id: eq}}
    include:
      customer: {{fields: [name, email]}}
  place_order:
    insert: order
    links: [orders]
    rate: 4
  edit_contact:
    update: customer
    filter: {{_id: eq}}
    changes: [name, email]
    rate: 0.01
current:
  orders: {current}
"
    )
}

/// The intermediate design of a migration through a parent reference, as
/// the CLI makes it.
fn through(
    model: &Model,
) -> impl Fn(&[(String, crate::design::Layout)]) -> Result<Design, String> + '_ {
    move |layouts: &[(String, crate::design::Layout)]| {
        crate::advise::through_design(model, &Settings::default(), None, layouts)
            .map_err(|e| e.to_string())
    }
}

fn designs(yaml: &str) -> (Model, Design, Design) {
    let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("the model loads");
    let settings = Settings::default();
    let (_, recommended) =
        crate::advise::advise_with_model(&model, &settings, None).expect("advise");
    let (_, today) = crate::advise::today_design(&model, &settings, None)
        .expect("advise today")
        .expect("a current: section");
    (model, today, recommended)
}

fn script(yaml: &str) -> String {
    let (model, today, recommended) = designs(yaml);
    migration(&model, &today, &recommended, 500, &through(&model))
        .unwrap_or_else(|e| panic!("{e}"))
        .script
}

/// The script of a model whose layouts change: it has steps.
/// A script for a snapshot: its fixed runtime (`runtime::RUNTIME`, the
/// same 133 lines in every script) folded to one line, which must stand
/// where the runtime stood, once. The runtime has a snapshot of its own.
fn folded(text: &str) -> String {
    // The index helpers, the same text wherever indexes are created.
    let text = &text.replace(
        crate::catalog::indexes::ENSURE_INDEXES,
        "// ⟨ensureIndexes: catalog/ensure_indexes.js⟩\n",
    );
    if !text.contains("runStep(") {
        return text.to_string();
    }
    assert_eq!(
        text.matches(super::runtime::RUNTIME).count(),
        1,
        "the runtime, once, in:\n{text}"
    );
    text.replace(
        super::runtime::RUNTIME,
        "// ⟨the runtime: snapshot runtime_is_one_text_in_every_script⟩\n",
    )
}

#[test]
fn runtime_is_one_text_in_every_script() {
    insta::assert_snapshot!(super::runtime::RUNTIME);
}

fn moving(yaml: &str) -> String {
    let text = script(yaml);
    assert!(text.contains("runStep("), "no step:\n{text}");
    text
}

fn refused(yaml: &str) -> String {
    let (model, today, recommended) = designs(yaml);
    match migration(&model, &today, &recommended, 500, &through(&model)) {
        Ok(m) => panic!("a script was written:\n{}", m.script),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parent_reference_to_embed() {
    insta::assert_snapshot!(folded(&moving(&reviews(Some("embed"), "parent-reference"))));
}

#[test]
fn parent_reference_to_child_references() {
    insta::assert_snapshot!(folded(&moving(&reviews(
        Some("child-references"),
        "parent-reference"
    ))));
}

#[test]
fn parent_reference_to_subset() {
    insta::assert_snapshot!(folded(&moving(&reviews(None, "parent-reference"))));
}

#[test]
fn parent_reference_to_extended_reference_into_the_child() {
    insta::assert_snapshot!(folded(&moving(&orders(
        "extended-reference",
        "parent-reference"
    ))));
}

#[test]
fn embed_to_parent_reference_with_a_computed_count() {
    insta::assert_snapshot!(folded(&moving(&reviews(Some("parent-reference"), "embed"))));
}

#[test]
fn child_references_to_parent_reference() {
    insta::assert_snapshot!(folded(&moving(&reviews(
        Some("parent-reference"),
        "child-references"
    ))));
}

#[test]
fn already_best_moves_no_data() {
    let text = script(&reviews(None, "subset"));
    assert!(text.contains("already the best"), "{text}");
    assert!(!text.contains("runStep("), "{text}");
    insta::assert_snapshot!(folded(&text));
}

/// Layouts already the best, but the deployment may lack the recommended
/// design's indexes (the model does not list those of today): the script
/// still asks for them, here the TTL index of an entity's `expires` and a
/// place search's 2dsphere index. Before, it did nothing, and a scanned
/// deployment without its TTL index kept its sessions forever.
#[test]
fn already_best_still_asks_for_ttl_and_2dsphere_indexes() {
    let text = script(
        "name: sessions
entities:
  session:
    count: 3000
    fields: {last_used: date}
    expires: {from: last_used, after: 30 minutes}
  shop:
    count: 500
    density: {typical: 20, max: 200}
    fields: {open: bool, location: point}
operations:
  lookup:
    read: session
    filter: {_id: eq}
    rate: 100
  nearby:
    read: shop
    filter: {open: eq, location: near(2 km)}
    limit: 10
    rate: 10
current:
  without: {archive: all}
",
    );
    assert!(text.contains("already the best"), "{text}");
    assert!(!text.contains("runStep("), "{text}");
    assert!(
        text.contains(r#"{"key":{"last_used":1},"name":"last_used_1","expireAfterSeconds":1800}"#),
        "{text}"
    );
    assert!(text.contains(r#""location":"2dsphere""#), "{text}");
}

#[test]
fn unsupported_transition_is_refused() {
    // No step goes from the subset to the embedded parent, and through a
    // parent reference the second half is refused (the embedded product
    // would hold its review count, which no step copies): the reason
    // names both halves.
    let text = refused(&reviews(Some("embed-parent-in-child"), "subset"));
    assert!(
        text.contains(
            "nor through a parent reference (`reviews`: subset → parent-reference: written; `reviews`: parent-reference → embed-parent-in-child: "
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn embed_parent_in_child_to_extended_reference_through_a_parent_reference() {
    // Two stages in one script: the parents out of the orders into their
    // own collection, each order's reference a bare id (checked once,
    // before the second stage reads it); then the copies into each order.
    let text = moving(&orders("extended-reference", "embed-parent-in-child"));
    assert!(
        text.contains("orders: embed-parent-in-child → parent-reference → extended-reference"),
        "{text}"
    );
    assert!(
        text.contains(r#"if (squillProgress().findOne({ _id: "50-first-stage" }) === null) {"#)
            && text.contains(r#"const before2 = squillBeforeStage("50-before-2", () => ["#),
        "{text}"
    );
    // The index of today on `customer._id` is the recommended design's
    // too: the final step keeps it.
    assert!(!text.contains(r#".dropIndex("customer._id_1")"#), "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn parent_reference_to_embed_parent_in_child() {
    let text = moving(&orders("embed-parent-in-child", "parent-reference"));
    // The parent's own fields into the child, in place; its collection
    // goes once each parent is held by a child.
    assert!(
        text.contains(r#""customer":{"_id":"$customer","name":"$__squill.name""#),
        "{text}"
    );
    assert!(
        text.contains(r#"squillHeld("order", "customer._id", "customer")"#),
        "{text}"
    );
    assert!(
        text.contains(r#"db.getCollection("customer").drop();"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn embed_parent_in_child_to_parent_reference() {
    let text = moving(&orders("parent-reference", "embed-parent-in-child"));
    // One customer per distinct embedded customer, the newest order's copy,
    // before the orders keep only its id (in place, last).
    let parents = text
        .find(r#"{"$group":{"_id":"$customer._id","name":{"$last":"$customer.name"}"#)
        .expect("the parents from the children");
    let ids = text.find("-ids-orders-customer").expect("the ids step");
    assert!(parents < ids, "{text}");
    // The rollback puts the copies back from the customers before it drops them.
    let back = text
        .find(r#"//   db.getCollection("order").aggregate("#)
        .expect("copies back");
    let drop = text
        .find(r#"//   db.getCollection("customer").drop();"#)
        .expect("drop");
    assert!(back < drop, "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn embed_parent_in_child_with_a_computed_count_to_parent_reference() {
    // Each embedded product holds its review count too: the products'
    // collection takes their own fields from the newest review's copy, the
    // count recomputed from the reviews (by the embedded id), and the
    // rollback puts the copies back, the count with them.
    let text = moving(&reviews(Some("parent-reference"), "embed-parent-in-child"));
    assert!(
        text.contains(r#"{"$lookup":{"from":"review","localField":"_id","foreignField":"product_id._id","as":"__squill"}}"#),
        "{text}"
    );
    assert!(
        text.contains(r#""reviews_count":"$__squill.reviews_count""#),
        "{text}"
    );
    assert!(
        !text.contains(
            r#"db.getCollection("review").updateMany({}, { $unset: { "product_id": "" } });"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn embed_parent_in_child_with_a_computed_count_to_subset_through_a_parent_reference() {
    let text = moving(&reviews(None, "embed-parent-in-child"));
    assert!(
        text.contains("reviews: embed-parent-in-child → parent-reference → subset"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// Products and their parts (examples/parts-name-denormalized.yaml), a
/// part's number copied into the product's array today (an extended
/// reference into the parent); `shared` parts have several products.
fn parts(layout: &str, shared: bool) -> String {
    let parents = if shared {
        "{min: 1, typical: 3, max: 40}\n    shared: true"
    } else {
        "{min: 1, typical: 1, max: 1}"
    };
    format!(
        "name: parts
entities:
  product:
    count: 50000
    fields: {{name: string(30), catalog_number: {{type: int, distinct: 50000}}}}
  part:
    count: 2000000
    fields: {{partno: {{type: string(11), distinct: 2000000}}, name: string(20), qty: int}}
relationships:
  parts:
    parent: product
    child: part
    children: {{min: 1, typical: 300, max: 2000}}
    parents: {parents}
    standalone: true
    layout: {layout}
operations:
  product_page:
    read: product
    rate: 1000
    filter: {{catalog_number: eq}}
    include:
      parts: {{fields: [partno]}}
  stock_change:
    update: part
    filter: {{_id: eq}}
    changes: [qty]
    rate: 200
current:
  parts: {{layout: extended-reference, copies: [partno]}}
"
    )
}

/// books-authors (examples/books-authors.yaml), with `layout` and `current`.
fn authors(layout: &str, current: &str) -> String {
    format!(
        "name: books-authors
entities:
  book:
    count: 1000000
    fields: {{title: string(40)}}
  author:
    count: 300000
    fields: {{name: string(18)}}
relationships:
  authors:
    kind: many-to-many
    parent: book
    child: author
    children: {{min: 1, typical: 1, max: 5}}
    parents: {{min: 1, typical: 3, max: 20}}
    child_field: books
    standalone: true
    shared: true
    layout: {layout}
operations:
  book_with_authors:
    read: book
    rate: 200
    filter: {{_id: eq}}
    include:
      authors: {{fields: [name]}}
  author_with_books:
    read: author
    rate: 60
    filter: {{_id: eq}}
    include:
      books: {{fields: [title]}}
current:
  authors: {current}
"
    )
}

/// book-tags (advise/tests/book-tags.yaml): a link with an attribute.
fn tags(layout: &str, current: &str) -> String {
    let model = include_str!("../../advise/tests/book-tags.yaml").replacen(
        "    standalone: true\n",
        &format!("    standalone: true\n    layout: {layout}\n"),
        1,
    );
    format!("{model}\ncurrent:\n  tags: {current}\n")
}

#[test]
fn extended_reference_into_the_child_to_parent_reference_in_place() {
    let text = moving(&orders(
        "parent-reference",
        "{layout: extended-reference, copies: [name, email]}",
    ));
    // The id back in place, and the rollback puts the copies back.
    assert!(
        text.contains(r#"{"$project":{"customer":"$customer._id"}}"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn extended_reference_into_the_parent_to_child_references_in_place() {
    insta::assert_snapshot!(folded(&moving(&parts("child-references", true))));
}

#[test]
fn extended_reference_into_the_parent_to_parent_reference() {
    insta::assert_snapshot!(folded(&moving(&parts("parent-reference", false))));
}

#[test]
fn many_to_many_one_way_to_two_way() {
    insta::assert_snapshot!(folded(&moving(&authors(
        "many-to-many-two-way",
        "many-to-many-one-way"
    ))));
}

#[test]
fn many_to_many_two_way_to_one_way() {
    let text = script(&authors("many-to-many-one-way", "many-to-many-two-way"));
    // Nothing to build: the array of the side that no longer keeps one
    // goes in the final step.
    assert!(!text.contains("runStep(\"01"), "{text}");
    assert!(
        text.contains(r#"db.getCollection("book").updateMany({}, { $unset: { "authors": "" } });"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn many_to_many_one_way_to_edge_collection() {
    insta::assert_snapshot!(folded(&moving(&tags(
        "edge-collection",
        "many-to-many-one-way"
    ))));
}

#[test]
fn edge_collection_to_many_to_many_one_way() {
    insta::assert_snapshot!(folded(&moving(&tags(
        "many-to-many-one-way",
        "edge-collection"
    ))));
}

#[test]
fn many_to_many_one_way_to_two_way_extended_reference() {
    let text = moving(&authors(
        "two-way-extended-reference",
        "many-to-many-one-way",
    ));
    // The authors list their books today: the books' new array is built
    // from those ids before the authors' array gains its copies in place
    // (the last step).
    let holders = text.find("runStep(\"01-build-authors-authors\"");
    let in_place = text.find("runStep(\"02-items-authors-books\"");
    assert!(holders.is_some() && holders < in_place, "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn two_way_extended_reference_to_many_to_many_two_way() {
    insta::assert_snapshot!(folded(&moving(&authors(
        "many-to-many-two-way",
        "{layout: two-way-extended-reference, copies: [name, title]}"
    ))));
}

#[test]
fn two_way_extended_reference_to_many_to_many_one_way() {
    let text = moving(&authors(
        "many-to-many-one-way",
        "{layout: two-way-extended-reference, copies: [name, title]}",
    ));
    assert!(
        text.contains(r#"db.getCollection("book").updateMany({}, { $unset: { "authors": "" } });"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// Users following users: a many-to-many of an entity with itself, both
/// sides' arrays in one collection.
fn follows(layout: &str, current: &str) -> String {
    format!(
        "name: follows
entities:
  user:
    count: 100000
    fields: {{name: string(18)}}
relationships:
  follows:
    kind: many-to-many
    parent: user
    child: user
    children: {{min: 0, typical: 5, max: 50}}
    parents: {{min: 0, typical: 5, max: 50}}
    child_field: followers
    standalone: true
    shared: true
    layout: {layout}
operations:
  user_page:
    read: user
    rate: 200
    filter: {{_id: eq}}
    include:
      follows: {{fields: [name]}}
current:
  follows: {current}
"
    )
}

#[test]
fn self_many_to_many_one_way_to_two_way() {
    let text = moving(&follows("many-to-many-two-way", "many-to-many-one-way"));
    // The followers of a user: the users whose `follows` lists it.
    assert!(
        text.contains(r#""from":"user","localField":"_id","foreignField":"follows""#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn self_many_to_many_two_way_to_one_way() {
    let text = script(&follows("many-to-many-one-way", "many-to-many-two-way"));
    assert!(!text.contains("runStep(\"01"), "{text}");
    assert!(
        text.contains(
            r#"db.getCollection("user").updateMany({}, { $unset: { "followers": "" } });"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// `design` with the two sides' arrays of each collection's relationship
/// of an entity with itself in the other order.
fn sides_swapped(mut design: Design) -> Design {
    for c in &mut design.collections {
        let at: Vec<usize> = (0..c.shape.fields.len())
            .filter(|&i| super::source::side_of(&c.shape.fields[i]).is_some())
            .collect();
        if let [a, b] = at[..] {
            c.shape.fields.swap(a, b);
        }
    }
    design
}

/// Followers and follows share one document: the design marks each
/// array's side, and the migration reads the side, not the order.
#[test]
fn self_many_to_many_sides_are_told_apart_by_the_design_not_the_order() {
    for (layout, current) in [
        ("many-to-many-two-way", "many-to-many-one-way"),
        ("many-to-many-one-way", "many-to-many-two-way"),
        ("two-way-extended-reference", "many-to-many-two-way"),
    ] {
        let (model, today, recommended) = designs(&follows(layout, current));
        let user = source::collection_of(&recommended, "user").expect("users");
        let sides: Vec<(&str, Option<Side>)> = source::link_fields(user, "follows")
            .map(|f| (f.name.as_str(), source::side_of(f)))
            .collect();
        assert!(
            sides.contains(&("follows", Some(Side::Parent))),
            "{sides:?}"
        );
        if layout != "many-to-many-one-way" {
            assert!(
                sides.contains(&("followers", Some(Side::Child))),
                "{sides:?}"
            );
        }
        // The validators list the fields in the shape's order: the rest
        // of the script must not change.
        let text = |t: &Design, r: &Design| {
            let script = migration(&model, t, r, 500, &through(&model))
                .unwrap_or_else(|e| panic!("{e}"))
                .script;
            script
                .lines()
                .filter(|l| !l.starts_with("ensureCollection("))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let swapped = text(
            &sides_swapped(today.clone()),
            &sides_swapped(recommended.clone()),
        );
        assert_eq!(
            swapped,
            text(&today, &recommended),
            "{layout} from {current}"
        );
    }
}

/// Arrays of an entity's relationship with itself whose sides the design
/// does not mark (a design not made by advise): refused, never guessed.
#[test]
fn self_many_to_many_without_sides_is_refused() {
    let (model, today, mut recommended) =
        designs(&follows("many-to-many-two-way", "many-to-many-one-way"));
    for c in &mut recommended.collections {
        for f in &mut c.shape.fields {
            if let crate::design::FieldOrigin::Reference { side, .. } = &mut f.origin {
                *side = None;
            }
        }
    }
    let Err(e) = migration(&model, &today, &recommended, 500, &through(&model)) else {
        panic!("a script was written");
    };
    assert!(
        e.to_string().contains(
            "arrays of an entity's relationship with itself whose sides the design does not mark"
        ),
        "{e}"
    );
}

#[test]
fn many_to_many_one_way_with_attributes_to_two_way_extended_reference() {
    let text = moving(&tags("two-way-extended-reference", "many-to-many-one-way"));
    // The book's items gain the tag's name and keep the link's attribute.
    assert!(
        text.contains(r#""in":{"_id":{"$cond":[{"$eq":[{"$type":"$$i"},"object"]},"$$i._id","$$i"]},"name":"$$o.name","added_at":"$$i.added_at"}"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn edge_collection_to_two_way_extended_reference() {
    insta::assert_snapshot!(folded(&moving(&tags(
        "two-way-extended-reference",
        "edge-collection"
    ))));
}

#[test]
fn many_to_many_one_way_to_two_way_with_the_links_attributes() {
    // A tag's page shows its books with the link's attribute too: the
    // tags' new array takes it from the book's item that names the tag.
    let model = tags("many-to-many-two-way", "many-to-many-one-way").replacen(
        "\ncurrent:",
        "  tag_page:\n    read: tag\n    rate: 50\n    filter: {_id: eq}\n    include:\n      books: {fields: [title, added_at]}\n\ncurrent:",
        1,
    );
    let text = moving(&model);
    assert!(
        text.contains(r#""cond":{"$eq":["$$this._id","$_id"]}"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn the_links_attributes_move_to_the_other_sides_array() {
    // Only the tag's page shows the link's attribute: today's two-way keeps
    // it in the tags' arrays; advise's extended reference keeps the books'
    // array alone, each item with the tag's name and the attribute, taken
    // from the item of the tag's array that names the book.
    let model = include_str!("../../advise/tests/book-tags.yaml").replacen(
        "      tags: {fields: [name, added_at]}\n",
        "      tags: {fields: [name]}\n",
        1,
    );
    let model = format!(
        "{model}  tag_page:\n    read: tag\n    rate: 50\n    filter: {{_id: eq}}\n    include:\n      books: {{fields: [title, added_at]}}\ncurrent:\n  tags: many-to-many-two-way\n"
    );
    let text = moving(&model);
    assert!(
        text.contains(r#"{"$ifNull":["$$o.books",[]]}"#)
            && text.contains(r#"squillFilled("tag", "books", ["added_at"])"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// books-authors read from the authors' side only (the book's page left
/// out): an extended reference keeps the books' titles in the authors'
/// arrays, the child's array of `{_id, copies…}` of its parents.
fn authors_from_authors(layout: &str, current: &str) -> String {
    let page = "  book_with_authors:\n    read: book\n    rate: 200\n    filter: {_id: eq}\n    include:\n      authors: {fields: [name]}\n";
    let model = authors(layout, current);
    assert!(model.contains(page), "{model}");
    model.replacen(page, "", 1)
}

#[test]
fn many_to_many_one_way_to_extended_reference_in_the_childs_array() {
    let text = moving(&authors_from_authors(
        "extended-reference",
        "many-to-many-one-way",
    ));
    assert!(text.contains(r#""title":"$$o.title""#), "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn extended_reference_in_the_childs_array_to_many_to_many_two_way() {
    let text = moving(&authors_from_authors(
        "many-to-many-two-way",
        "{layout: extended-reference, copies: [title]}",
    ));
    // The books' new array is read from the authors' items by their `_id`,
    // through an index made for the step and dropped after it.
    assert!(
        text.contains(r#"squillLookupIndex("01-build-authors-authors", "author", "books._id")"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn shared_childs_extended_reference_to_child_references() {
    // Parts shared by products, each part's products with their names
    // today; the products list their parts' ids in the recommended design.
    let model = "name: parts
entities:
  product:
    count: 50000
    fields: {name: string(30), catalog_number: {type: int, distinct: 50000}}
  part:
    count: 2000000
    fields: {partno: {type: string(11), distinct: 2000000}, label: string(20), qty: int}
relationships:
  parts:
    parent: product
    child: part
    children: {min: 1, typical: 300, max: 2000}
    parents: {min: 1, typical: 3, max: 40}
    shared: true
    child_field: products
    standalone: true
    layout: child-references
operations:
  part_page:
    read: part
    rate: 1000
    filter: {_id: eq}
    include:
      products: {fields: [catalog_number]}
  stock_change:
    update: part
    filter: {_id: eq}
    changes: [qty]
    rate: 200
current:
  parts: {layout: extended-reference, copies: [name]}
";
    let text = moving(model);
    assert!(
        text.contains(
            r#"db.getCollection("part").updateMany({}, { $unset: { "products": "" } });"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn two_way_extended_reference_to_edge_collection() {
    // The links are read from the book's array: its copies stay behind,
    // the edge's own copies are looked up in the tags.
    insta::assert_snapshot!(folded(&moving(&tags(
        "edge-collection",
        "{layout: two-way-extended-reference, copies: [name]}"
    ))));
}

#[test]
fn self_many_to_many_one_way_to_two_way_extended_reference() {
    // The copies of a followed user are read from the users themselves.
    let text = moving(&follows(
        "two-way-extended-reference",
        "many-to-many-one-way",
    ));
    assert!(
        text.contains(r#"{"$lookup":{"from":"user","localField":"__squill","foreignField":"_id","as":"__squill"}}"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// sensor-readings (tests/fixtures), readings bucketed per sensor and hour
/// (or pinned to `layout`), with `current`.
fn readings(layout: &str, current: &str) -> String {
    let model = include_str!("../../../tests/fixtures/sensor-readings.yaml").replacen(
        "    layout: bucket\n",
        &format!("    layout: {layout}\n"),
        1,
    );
    format!("{model}\ncurrent:\n  readings: {current}\n")
}

/// blog-comments-pages (examples/blog-comments-pages.yaml): comments read
/// 50 at a time in posting order, with `layout` and `current`.
fn comments(layout: Option<&str>, current: &str) -> String {
    let pin = layout
        .map(|l| format!("    layout: {l}\n"))
        .unwrap_or_default();
    format!(
        "name: blog-comments-pages
entities:
  post:
    count: 100000
    fields: {{title: string(40), url: {{type: string(40), distinct: 100000}}, text: string(3000)}}
  comment:
    count: 30000000
    fields: {{name: string(14), created_on: date, comment: string(200)}}
relationships:
  comments:
    parent: post
    child: comment
    children: {{min: 0, typical: 300, max: 20000, growth_per_day: 5}}
    child_field: post
{pin}operations:
  read_post:
    read: post
    rate: 200
    filter: {{url: eq}}
    fields: [title, text]
  comment_page:
    read: post
    rate: 300
    filter: {{_id: eq}}
    fields: [_id]
    include:
      comments: {{sort: created_on, limit: 50}}
  add_comment:
    insert: comment
    links: [comments]
    rate: 6
current:
  comments: {current}
"
    )
}

#[test]
fn parent_reference_to_bucket_by_time() {
    let text = moving(&readings("bucket", "parent-reference"));
    // Grouped per sensor and hour, cut at 60, each bucket with the id of
    // its first reading.
    assert!(
        text.contains(r#"{"$mod":[{"$toLong":"$time"},3600000]}"#),
        "{text}"
    );
    assert!(text.contains(r#"{"$slice":["$c","$$i",60]}"#), "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn parent_reference_to_bucket_by_count() {
    insta::assert_snapshot!(folded(&moving(&comments(None, "parent-reference"))));
}

#[test]
fn bucket_to_parent_reference() {
    let text = moving(&readings("parent-reference", "bucket"));
    // No id in the buckets' items: a batch first removes what an
    // interrupted run of it wrote.
    assert!(
        text.contains(r#"db.getCollection("reading").deleteMany({ "sensor": { $in: ids } });"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// sensor-readings with at most 5,000 readings a sensor, so that today's
/// design can embed them (an unbounded array it could not).
fn bounded_readings(layout: &str, current: &str) -> String {
    let text = readings(layout, current);
    let unbounded = "typical: 525600, max: unbounded, growth_per_day: 1440}";
    assert!(text.contains(unbounded), "the fixture's readings");
    text.replacen(unbounded, "typical: 500, max: 5000}", 1)
}

#[test]
fn embed_to_bucket() {
    let text = moving(&bounded_readings("bucket", "embed"));
    // The sensor's array unwound, each reading with its place in it, then
    // grouped as from a collection: ordered by time, then place.
    assert!(
        text.contains(
            r#"{"$unwind":{"path":"$__squill_chunk","includeArrayIndex":"__squill_index"}}"#
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"{"$sort":{"__squill_parent":1,"time":1,"__squill_index":1}}"#)
            || text.contains(r#"{"$sort":{"__squill_parent":1,"__squill_index":1}}"#),
        "{text}"
    );
    // No id in the embedded readings: each bucket's from its sensor's and
    // its place; the array goes in the final step only.
    assert!(
        text.contains("squillLinkId(b._id.p, [b._id.k, b._id.n])"),
        "{text}"
    );
    assert!(
        text.contains(
            r#"db.getCollection("sensor").updateMany({}, { $unset: { "readings": "" } });"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn bucket_to_embed() {
    let text = moving(&bounded_readings("embed", "bucket"));
    // The sensor's buckets in their order, their items concatenated.
    assert!(
        text.contains(r#""pipeline":[{"$sort":{"hour":1,"_id":1}}]"#)
            || text.contains(r#""pipeline":[{"$sort":{"page":1,"_id":1}}]"#),
        "{text}"
    );
    assert!(text.contains(r#""$concatArrays":["$$value","#), "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn embed_to_bucket_by_time() {
    // Still growing by 1,440 a day: bucketed by hour.
    let text = readings("bucket", "embed").replacen(
        "typical: 525600, max: unbounded, growth_per_day: 1440}",
        "typical: 500, max: 5000, growth_per_day: 1440}",
        1,
    );
    let text = moving(&text);
    // Each reading's hour from its own time once unwound; ordered by time,
    // then its place in the array.
    assert!(
        text.contains(r#"{"$mod":[{"$toLong":"$time"},3600000]}"#),
        "{text}"
    );
    assert!(
        text.contains(r#"{"$sort":{"__squill_parent":1,"time":1,"__squill_index":1}}"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// Event attendees (examples/scenarios/s05-attendees.yaml), `attendees`
/// pinned to `layout`, with `current`.
fn attendees(layout: &str, current: &str) -> String {
    format!(
        "name: s05-attendees
entities:
  event:
    count: 10000000
    fields: {{title: string(60), starts_at: date, venue: string(40)}}
  attendee:
    count: 400000000
    fields: {{name: string(24), registered_at: date}}
relationships:
  attendees:
    parent: event
    child: attendee
    children: {{min: 0, typical: 30, p99: 400, max: 2000000}}
    child_field: event
    layout: {layout}
operations:
  event_page:
    read: event
    rate: 5000
    filter: {{_id: eq}}
    include:
      attendees: {{fields: [name]}}
  register:
    insert: attendee
    links: [attendees]
    rate: 500
current:
  attendees: {current}
"
    )
}

#[test]
fn parent_reference_to_outlier() {
    let text = moving(&attendees("outlier", "parent-reference"));
    // The first children by `_id`, as many as the threshold; the final
    // step takes them out of the child collection.
    assert!(
        text.contains(r#""pipeline":[{"$sort":{"_id":1}},{"$limit":1133}]"#),
        "{text}"
    );
    assert!(
        text.contains(r#"db.getCollection("attendee").deleteMany({ _id: { $in: ids } })"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn embed_to_outlier() {
    let text = moving(&attendees("outlier", "embed"));
    // Each item given an `_id` and the event's id in place; those past
    // the threshold upserted into the attendees under it; the array cut
    // and the event's validator set by the final step only.
    assert!(
        text.contains("const items = old.map((x) => Object.assign({ _id: x._id === undefined ? new ObjectId() : x._id }, x, { \"event\": d._id }));"),
        "{text}"
    );
    assert!(text.contains("const past = items.slice(1133);"), "{text}");
    assert!(
        text.contains("db.getCollection(\"event\").find({}, { \"attendees\": 1 }).forEach((d) => squillOverflow_attendees(d, true));"),
        "{text}"
    );
    assert!(
        text.contains("// The validator of event is set by the final step"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn embed_to_subset() {
    // The subset's array has the name of today's: every review given an
    // `_id` in place and written to the review collection under it; the
    // array cut to the newest 10 by date, checked, and the product's
    // validator set, by the final step only.
    let text = moving(&reviews(None, "embed"));
    assert!(text.contains("const past = items;"), "{text}");
    assert!(
        text.contains(r#"items.slice().sort((a, b) => (a["date"] < b["date"] ? 1 : a["date"] > b["date"] ? -1 : 0)).slice(0, 10)"#),
        "{text}"
    );
    let last = text.find("function squillDropOld()").unwrap_or(usize::MAX);
    let cut = text.find(r#"forEach((d) => squillOverflow_reviews(d, true));"#);
    let checked = text.find("const squillWrong_reviews = squillMatching(");
    let validator = text.rfind(r#"ensureCollection("product""#);
    assert!(
        cut > Some(last) && checked > cut && validator > checked,
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn embed_to_subset_without_a_sort_field_keeps_the_last_children() {
    // Attendees shown two at a time, in no order: the subset is the last
    // two of the array, the order they arrived in, newest first; the
    // final step's check reads them back newest `_id` first.
    let text = moving(&paged_attendees("subset", "embed"));
    assert!(
        text.contains("const now = items.slice(-2).reverse()"),
        "{text}"
    );
    assert!(
        text.contains(r#""pipeline":[{"$sort":{"_id":-1}}]"#),
        "{text}"
    );
}

#[test]
fn subset_to_embed_builds_the_array_in_the_final_step() {
    // Today's application reads the newest 10 copies until the final step:
    // every review is embedded by it, checked, then the reviews go; no step
    // before it writes the array, and the product's validator waits.
    let text = moving(&reviews(Some("embed"), "subset"));
    let last = text.find("function squillDropOld()");
    let build = text.find(r#"runStep("91-build-reviews-reviews""#);
    let dropped = text.find(r#"db.getCollection("review").drop();"#);
    assert!(last.is_some() && last < build && build < dropped, "{text}");
    assert!(!text.contains(r#"runStep("01-"#), "{text}");
    assert!(
        text.contains("// The validator of product is set by the final step"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn outlier_to_embed() {
    let text = moving(&attendees("embed", "outlier"));
    // The attendee documents not in the array yet appended (by `_id`), the
    // items reshaped and the collection dropped by the final step only.
    assert!(
        text.contains(".filter((x) => !held.has(EJSON.stringify(x._id)));"),
        "{text}"
    );
    assert!(
        text.contains("db.getCollection(\"attendee\").drop();\n  db.getCollection(\"event\").find({}, { \"attendees\": 1 }).forEach((d) => squillGather_attendees(d, true));"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// Attendees read two at a time on the event's page: a bucket of two is a
/// candidate beside the outlier.
fn paged_attendees(layout: &str, current: &str) -> String {
    let text = attendees(layout, current);
    let all = "attendees: {fields: [name]}";
    assert!(text.contains(all), "the attendees' page");
    text.replacen(all, "attendees: {fields: [name], limit: 2}", 1)
}

#[test]
fn bucket_to_outlier_through_a_parent_reference() {
    // The buckets unwound into the attendee collection, then the first
    // attendees of each event up to the threshold into its array; the
    // final step drops the buckets and takes the embedded attendees out.
    let text = moving(&paged_attendees("outlier", "bucket"));
    let unbucket = text.find("runStep(\"01-unbucket-attendees-attendee\"");
    let first = text.find("runStep(\"02-build-attendees-attendees\"");
    assert!(unbucket.is_some() && unbucket < first, "{text}");
    assert!(
        text.contains("db.getCollection(\"event_attendees\").drop();"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn outlier_to_bucket_through_a_parent_reference() {
    insta::assert_snapshot!(folded(&moving(&paged_attendees("bucket", "outlier"))));
}

#[test]
fn through_a_parent_reference_never_reshapes_a_collection_the_recommended_design_drops() {
    // embed-parent-in-child → embed taken in two stages (it has a direct
    // step, so the stages are composed here by hand): the first would make
    // each order's customer a bare id in place, against the order's
    // validator of today, and the orders go in the final step: refused.
    let (model, today, recommended) = designs(&orders("embed", "embed-parent-in-child"));
    let rels = vec!["orders".to_string()];
    let layouts = [("orders".to_string(), crate::design::Layout::ParentReference)];
    let design = through(&model)(&layouts).expect("the intermediate design");
    let first = plan::plan(&model, &today, &design);
    let second = plan::plan(&model, &design, &recommended);
    assert!(first.refused.is_empty() && second.refused.is_empty());
    let via = plan_value::Via::ParentReference;
    let why =
        through::compose(first, second, design, rels, via, &recommended).expect_err("refused");
    assert!(
        why.contains("the first stage reshapes `order` in place"),
        "{why}"
    );
}

#[test]
fn embed_parent_in_child_to_embed() {
    let text = moving(&orders("embed", "embed-parent-in-child"));
    // Directly, not through a parent reference: the orders are never
    // reshaped in place.
    assert!(
        text.contains("//   orders: embed-parent-in-child → embed\n"),
        "{text}"
    );
    // The customers from the newest order's copy, then each customer's
    // orders into its array by the id of the customer they embed; per
    // customer, its array as long as its orders.
    let parents = text
        .find(r#"{"$group":{"_id":"$customer._id","name":{"$last":"$customer.name"}"#)
        .expect("the parents from the children");
    let array = text
        .find(r#""foreignField":"customer._id""#)
        .expect("the orders by their customer's id");
    assert!(parents < array, "{text}");
    assert!(
        text.contains(
            "customer: the documents whose orders holds other than their order documents"
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"db.getCollection("order").drop();"#),
        "{text}"
    );
    assert!(
        text.contains(r#"//   db.getCollection("customer").drop();"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn path_reference_to_embed_through_a_parent_reference_drops_the_products_whole() {
    // The first stage would unset the path in the final step, against the
    // product's validator of today; the second drops the products whole.
    let text = moving(&categories(
        "parent-reference",
        "embed",
        &["products: path-reference"],
    ));
    assert!(
        text.contains(r#"db.getCollection("product").drop();"#),
        "{text}"
    );
    assert!(
        !text.contains(r#"db.getCollection("product").updateMany({}, { $unset"#),
        "{text}"
    );
}

#[test]
fn through_a_parent_reference_never_overwrites_a_field_of_today() {
    // child-references → outlier: the second stage would write the
    // outlier's items over the array of ids of today (the same field)
    // before the final step; the final step builds it instead, after
    // giving the attendees added since their event's id, and checks it
    // before its removals; the event's validator (an array of
    // sub-documents) and the attendee's (the event's id required) wait
    // for it. The rollback leaves the array alone.
    let text = moving(&attendees("outlier", "child-references"));
    let last = text.find("function squillDropOld()");
    let again = text.find(r#"runStep("91-reference-attendees-event""#);
    let measured = text.find(r#"squillBeforeStage("90-before-final""#);
    let build = text.find(r#"runStep("92-build-attendees-attendees""#);
    let removed = text.find(r#"db.getCollection("attendee").deleteMany({ _id: { $in: ids } })"#);
    assert!(
        last.is_some() && last < again && again < measured && measured < build && build < removed,
        "{text}"
    );
    assert!(!text.contains("runStep(\"02-build"), "{text}");
    let rollback = &text[text.find("// ---- Rollback").unwrap_or(0)..];
    assert!(!rollback.contains(r#"$unset: { "attendees""#), "{rollback}");
    for c in ["event", "attendee"] {
        assert!(
            text.contains(&format!("// The validator of {c} is set by the final step")),
            "{text}"
        );
    }
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn outlier_to_child_references_through_a_parent_reference() {
    // The embedded attendees unwound beside those past the threshold; the
    // final step unwinds again (those added since), builds the array of
    // ids in place, then takes the event's id out of the attendees.
    insta::assert_snapshot!(folded(&moving(&attendees("child-references", "outlier"))));
}

#[test]
fn outlier_to_parent_reference() {
    insta::assert_snapshot!(folded(&moving(&attendees("parent-reference", "outlier"))));
}

/// club-feed (tests/fixtures): a timeline per member today; with `posts`
/// pinned to `layout` instead of parent-reference, and `current`.
fn club(layout: &str, current: &str) -> String {
    let model = include_str!("../../../tests/fixtures/club-feed.yaml");
    let at = "    child_field: author\n    layout: parent-reference\n";
    assert!(model.contains(at), "the fixture pins posts");
    let model = model.replacen(
        at,
        &format!("    child_field: author\n    layout: {layout}\n"),
        1,
    );
    format!("{model}\ncurrent:\n  posts: {current}\n")
}

#[test]
fn a_timeline_the_recommended_design_has_not_goes_in_the_final_step() {
    // Posts embedded in their author: the feed is read on demand, and the
    // timelines of today go with the post collection.
    let text = moving(&club("embed", "parent-reference"));
    assert!(
        text.contains("  db.getCollection(\"member_timeline\").drop();\n"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn a_timeline_the_recommended_design_adds_is_built_after_the_posts_are_unwound() {
    // Posts embedded in their author today: unwound first, then each
    // member's timeline is built from the follows and the posts' new
    // collection, its outliers measured once per run.
    let text = moving(&club("parent-reference", "embed"));
    let unwind = text.find("runStep(\"01-unwind-posts-post\"");
    let timeline = text.find("runStep(\"02-timeline-posts-member_timeline\"");
    assert!(unwind.is_some() && unwind < timeline, "{text}");
    assert!(
        text.contains("const outliers2 = squillOutliers(\"follow\", \"followee\", 2000);"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn a_timeline_of_today_whose_copies_change_is_built_beside_it_and_rebuilt_in_place() {
    // Posts as their author's array of ids today: the timeline of today is
    // kept by name, but its copies gain the post's author. The step builds
    // the new shape beside it (today's application reads today's until the
    // final step), checked there; the final step rebuilds it in place, then
    // sets its validator.
    let text = moving(&club("parent-reference", "child-references"));
    let step = text
        .find("runStep(\"02-timeline-posts-member_timeline\"")
        .expect("the step");
    assert!(
        text[step..].contains("\"into\":\"squill_migration_member_timeline\""),
        "{text}"
    );
    let last = text.find("function squillDropOld()").expect("a final step");
    let rebuild = text[last..]
        .find("runStep(\"99-rebuild-member_timeline\"")
        .expect("the rebuild");
    let validator = text[last..]
        .find("ensureCollection(\"member_timeline\"")
        .expect("the deferred validator");
    assert!(rebuild < validator, "{text}");
    insta::assert_snapshot!(folded(&text));
}

/// category-paths (tests/fixtures/category-paths.yaml): a tree of
/// categories and their products, `subcategories` and `products` pinned,
/// with `current` (entries, one a line).
fn categories(tree: &str, products: &str, current: &[&str]) -> String {
    let text = include_str!("../../../tests/fixtures/category-paths.yaml")
        .replacen(
            "    layout: tree-path\n",
            &format!("    layout: {tree}\n"),
            1,
        )
        .replacen(
            "    layout: path-reference\n",
            &format!("    layout: {products}\n"),
            1,
        );
    let lines: Vec<String> = current.iter().map(|c| format!("  {c}\n")).collect();
    format!("{text}\ncurrent:\n{}", lines.concat())
}

#[test]
fn parent_reference_to_tree_path() {
    let text = moving(&categories(
        "tree-path",
        "parent-reference",
        &["subcategories: parent-reference"],
    ));
    // The walk up the parent ids, and the path's items with the copies.
    assert!(
        text.contains(
            r#"{"$graphLookup":{"from":"category","startWith":"$_id","connectFromField":"parent""#
        ),
        "{text}"
    );
    assert!(
        text.contains(r#""in":{"_id":"$$a._id","name":"$$a.name"}"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn parent_reference_to_path_reference() {
    let text = moving(&categories(
        "parent-reference",
        "path-reference",
        &["products: parent-reference"],
    ));
    assert!(text.contains(r#"{"$graphLookup":{"from":"category","startWith":"$category","connectFromField":"parent""#), "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn tree_path_to_parent_reference() {
    let text = script(&categories(
        "parent-reference",
        "parent-reference",
        &["subcategories: tree-path"],
    ));
    // Nothing to build: the parent ids stay, checked against the paths
    // that go in the final step.
    assert!(!text.contains("runStep(\"01"), "{text}");
    assert!(
        text.contains(r#"squillDepths("category", "_id", "category", "parent")"#),
        "{text}"
    );
    assert!(
        text.contains(
            r#"db.getCollection("category").updateMany({}, { $unset: { "path": "" } });"#
        ),
        "{text}"
    );
    // The index of today on the path goes with it, before the `$unset`
    // (which would otherwise update it), and the rollback rebuilds it.
    let drop = text
        .find(r#"db.getCollection("category").dropIndex("path._id_1");"#)
        .expect("the index on the path is dropped");
    assert!(
        drop < text.find(r#"$unset: { "path": "" }"#).unwrap(),
        "{text}"
    );
    assert!(
        text.contains(
            r#"createIndexes: "category", indexes: [{"key":{"path._id":1},"name":"path._id_1"}] }"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// An index on a field the final step removes stays when the recommended
/// design keeps it, under its name or another.
#[test]
fn the_final_step_keeps_the_indexes_the_recommended_design_has() {
    fn category(d: &mut Design) -> &mut crate::design::Collection {
        d.collections
            .iter_mut()
            .find(|c| c.name == "category")
            .expect("category")
    }
    let yaml = categories(
        "parent-reference",
        "parent-reference",
        &["subcategories: tree-path"],
    );
    let (model, mut today, mut recommended) = designs(&yaml);
    let drops = |today: &Design, recommended: &Design| -> Vec<String> {
        plan::plan(&model, today, recommended)
            .cleanup
            .iter()
            .filter_map(|c| match c {
                action::Cleanup::DropIndex { index, .. } => Some(index.name.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(drops(&today, &recommended), ["path._id_1"]);
    let stale = category(&mut today)
        .indexes
        .iter()
        .find(|i| i.name == "path._id_1")
        .cloned()
        .expect("today's index on the path");
    let mut renamed = stale.clone();
    renamed.name = "by_path".into();
    category(&mut recommended).indexes.push(renamed);
    assert!(drops(&today, &recommended).is_empty());
}

#[test]
fn a_trees_parent_reference_to_child_references() {
    // A tree's nodes keep both sides' fields in one document: the array of
    // children is the parent's side, the parent id the child's, told apart
    // by the design's marks.
    let text = moving(&categories(
        "child-references",
        "parent-reference",
        &["subcategories: parent-reference"],
    ));
    assert!(
        text.contains(
            r#"{"$lookup":{"from":"category","localField":"_id","foreignField":"parent","#
        ),
        "{text}"
    );
    assert!(
        text.contains(
            r#"db.getCollection("category").updateMany({}, { $unset: { "parent": "" } });"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn a_trees_child_references_to_parent_reference() {
    let text = moving(&categories(
        "parent-reference",
        "parent-reference",
        &["subcategories: child-references"],
    ));
    assert!(
        text.contains(r#"{"$project":{"_id":"$__squill","parent":"$_id"}}"#),
        "{text}"
    );
    assert!(
        text.contains(
            r#"db.getCollection("category").updateMany({}, { $unset: { "subcategories": "" } });"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn tree_path_to_child_references_through_a_parent_reference() {
    // The path goes in the final step; the children's ids from the parent
    // ids, which today's tree path keeps without an index: one is made for
    // the step.
    let text = moving(&categories(
        "child-references",
        "parent-reference",
        &["subcategories: tree-path"],
    ));
    assert!(
        text.contains("subcategories: tree-path → parent-reference → child-references"),
        "{text}"
    );
    assert!(
        text.contains(
            r#"squillLookupIndex("01-build-subcategories-subcategories", "category", "parent")"#
        ),
        "{text}"
    );
    // The intermediate design's index on the parent ids was never built:
    // the final step has none to drop, the rollback none to rebuild.
    assert!(!text.contains(r#"dropIndex("parent_1")"#), "{text}");
    assert!(!text.contains(r#""name":"parent_1""#), "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn child_references_to_tree_path_through_a_parent_reference() {
    let text = moving(&categories(
        "tree-path",
        "parent-reference",
        &["subcategories: child-references"],
    ));
    assert!(
        text.contains("subcategories: child-references → parent-reference → tree-path"),
        "{text}"
    );
    let parents = text
        .find(r#"{"$project":{"_id":"$__squill","parent":"$_id"}}"#)
        .expect("the parent ids from the arrays");
    let path = text.find(r#"{"$graphLookup":"#).expect("the path");
    assert!(parents < path, "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn path_reference_to_parent_reference() {
    let text = script(&categories(
        "parent-reference",
        "parent-reference",
        &["products: path-reference"],
    ));
    assert!(
        text.contains(
            r#"db.getCollection("product").updateMany({}, { $unset: { "category_path": "" } });"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// product-reviews whose product page also shows the average and the
/// latest rating (kept as computed fields by the recommended design).
fn rated(layout: &str, current: &str) -> String {
    reviews(Some(layout), current).replacen(
        "aggregates: [count(reviews)]",
        "aggregates: [count(reviews), avg(reviews.rating), last(reviews.rating)]",
        1,
    )
}

#[test]
fn embed_to_parent_reference_with_a_computed_average_and_last() {
    let text = moving(&rated("parent-reference", "embed"));
    // Over the embedded array, in its order; the average kept as its sum
    // (and the count it is over).
    assert!(
        text.contains(r#"{"reviews_sum_rating":{"$toDouble":{"$sum":{"$map":{"input":{"$ifNull":["$reviews",[]]}"#),
        "{text}"
    );
    assert!(!text.contains("reviews_avg_rating"), "{text}");
    insta::assert_snapshot!(folded(&text));
}

/// A first value over children in a collection of their own, looked up in
/// the order they arrived (no model makes advise keep one outside a bucket,
/// so the step is built by hand here).
#[test]
fn a_computed_first_value_reads_the_children_in_the_order_they_arrived() {
    let step = action::Action::Computed {
        relationship: "reviews".into(),
        parent: "product".into(),
        field: "reviews_first_rating".into(),
        function: crate::model::AggregateFn::First,
        of: Some("rating".into()),
        bson_type: "double".into(),
        children: step_parts::ChildrenAt::Collection {
            child: "review".into(),
            ref_path: "product_id".into(),
        },
        once: false,
    };
    let stages: Vec<String> = pipeline::pipeline(&step)
        .iter()
        .map(ToString::to_string)
        .collect();
    insta::assert_snapshot!(stages.join("\n"));
}

/// The check of a computed last value over children in a collection of
/// their own: each parent's value against the last child by `_id` that has
/// the field, recomputed with `$group` (not the step's `$map`).
#[test]
fn a_computed_last_value_is_checked_against_the_children_recomputed() {
    let stages = recompute::differing(
        "reviews_last_rating",
        crate::model::AggregateFn::Last,
        "rating",
        "double",
        &step_parts::ChildrenAt::Collection {
            child: "review".into(),
            ref_path: "product_id".into(),
        },
    );
    let stages: Vec<String> = stages
        .as_array()
        .expect("stages")
        .iter()
        .map(ToString::to_string)
        .collect();
    insta::assert_snapshot!(stages.join("\n"));
}

/// The user-profile scenario (examples/scenarios/s13-user-profile.yaml),
/// `user_settings` pinned to `layout`, and `current`.
fn settings(layout: &str, current: &str) -> String {
    let text = include_str!("../../../../../examples/scenarios/s13-user-profile.yaml");
    let at = "    child_field: user\n";
    assert!(text.contains(at));
    text.replacen(at, &format!("{at}    layout: {layout}\n"), 1)
        + &format!("current:\n  user_settings: {current}\n")
}

#[test]
fn shared_id_to_parent_reference() {
    let text = moving(&settings("parent-reference", "shared-id"));
    // The reference from the child's own `_id`, which stays; the rollback
    // unsets it.
    assert!(text.contains(r#"{"$project":{"user":"$_id"}}"#), "{text}");
    assert!(
        text.contains(
            r#"db.getCollection("settings").updateMany({}, { $unset: { "user": "" } });"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// Each child under its parent's id into the parent's sub-document, by its
/// `_id`; the child's collection goes in the final step.
#[test]
fn one_to_one_parent_reference_to_child_references() {
    // The parent's reference to its one child is a plain id, not an array.
    let text = moving(&settings("child-references", "parent-reference"));
    assert!(
        text.contains(r#"{"$project":{"user_settings":{"$arrayElemAt":[{"$map":{"input":"$__squill","as":"c","in":"$$c._id"}},0]}}}"#),
        "{text}"
    );
    assert!(
        text.contains(r#"squillCount("user", {"user_settings":{"$ne":null}})"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn one_to_one_child_references_to_parent_reference() {
    let text = moving(&settings("parent-reference", "child-references"));
    // The one id as an array of one (of none when unset), then as for an
    // array; the source counts the parents that hold one.
    assert!(
        text.contains(r#"{"$project":{"__squill":{"$cond":[{"$eq":[{"$ifNull":["$user_settings",null]},null]},[],["$user_settings"]]}}}"#),
        "{text}"
    );
    assert!(
        text.contains(r#"squillCount("user", {"user_settings":{"$ne":null}})"#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn shared_id_to_child_references_through_a_parent_reference() {
    let text = moving(&settings("child-references", "shared-id"));
    assert!(
        text.contains("user_settings: shared-id → parent-reference → child-references"),
        "{text}"
    );
    // The reference the first stage adds has no index today: one is made
    // for the second stage's lookup.
    assert!(
        text.contains(
            r#"squillLookupIndex("02-build-user_settings-user_settings", "settings", "user")"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn child_references_to_shared_id_through_a_parent_reference() {
    let text = moving(&settings("shared-id", "child-references"));
    assert!(
        text.contains("user_settings: child-references → parent-reference → shared-id"),
        "{text}"
    );
    assert!(
        text.contains(r#"db.getCollection("settings").deleteMany"#)
            || text.contains(r#""settings").deleteMany("#),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn shared_id_to_embed() {
    let text = moving(&settings("embed", "shared-id"));
    insta::assert_snapshot!(folded(&text));
}

/// Each child written again under its parent's id beside the documents of
/// today (the same collection), which the final step deletes.
#[test]
fn parent_reference_to_shared_id() {
    let text = moving(&settings("shared-id", "parent-reference"));
    assert!(
        text.contains(r#"{"$set":{"_id":"$user"}}"#)
            && text.contains(r#"{"$merge":{"into":"settings","on":"_id","whenMatched":"replace","whenNotMatched":"insert"}}"#),
        "{text}"
    );
    // Deleted in the final step: the documents of today; in the rollback:
    // the new ones.
    assert!(
        text.contains(r#"db.getCollection("settings").deleteMany({ "user": { $exists: true } });"#)
            && text.contains(
                r#"//   db.getCollection("settings").deleteMany({ "user": { $exists: false } });"#
            ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// Orders archived by age (examples/scenarios/s11-orders.yaml), all in
/// one collection today.
fn archived_orders() -> String {
    "name: s11-orders
entities:
  customer:
    count: 40000000
    fields: {name: string(24), email: string(30)}
  order:
    count: 2000000000
    fields:
      placed_at: date
      status: {type: string(10), enum: [placed, paid, shipped, delivered, returned]}
      total: decimal
      lines: object[3]
relationships:
  orders:
    parent: customer
    child: order
    children: {min: 0, typical: 50, max: 20000, growth_per_day: 0.025}
    standalone: true
    child_field: customer
operations:
  recent_orders:
    read: order
    rate: 5000
    filter: {customer: eq, placed_at: since(90 days)}
    sort: -placed_at
    limit: 20
  old_orders:
    read: order
    rate: 0.1
    filter: {customer: eq, placed_at: before(90 days)}
    sort: -placed_at
    limit: 20
  place_order:
    insert: order
    links: [orders]
    rate: 11.6
  ship_order:
    update: order
    rate: 10
    filter: {_id: eq, placed_at: since(7 days)}
    changes: [status]
current:
  orders: parent-reference
  without: {archive: [order]}
"
    .to_string()
}

#[test]
fn an_archive_added_copies_the_old_documents_and_deletes_them_in_the_final_step() {
    let text = moving(&archived_orders());
    assert!(
        text.contains("//   order: order alone → order and order_archive (older than 90 days)"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// The same designs the other way: the archive of today dropped.
#[test]
fn an_archive_dropped_moves_its_documents_back() {
    let (model, today, recommended) = designs(&archived_orders());
    let text = migration(&model, &recommended, &today, 500, &through(&model))
        .unwrap_or_else(|e| panic!("{e}"))
        .script;
    assert!(
        text.contains("runStep(\"01-unarchive-order-order\""),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// The same, the recent orders shown with their customer's name: the live
/// orders copy it (an extended reference), the archived ones do not.
fn archived_orders_with_names() -> String {
    let text = archived_orders();
    let at = "    filter: {customer: eq, placed_at: since(90 days)}\n    sort: -placed_at\n    limit: 20\n";
    assert!(text.contains(at));
    text.replacen(
        at,
        &format!("{at}    include:\n      customer: {{fields: [name]}}\n"),
        1,
    )
}

#[test]
fn an_archive_in_todays_shape_is_copied_before_the_live_collection_is_reshaped() {
    // The archive keeps the customer's id as today; the live orders' ids
    // become `{_id, name}` in place: the old orders are copied first.
    let text = moving(&archived_orders_with_names());
    let archive = text.find("runStep(\"01-archive-order-order_archive\"");
    let copy = text.find("runStep(\"02-copy-orders-customer\"");
    assert!(archive.is_some() && archive < copy, "{text}");
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn an_archive_whose_live_documents_are_embedded_is_refused() {
    // A million customers of 200 orders, 30 days of them live: the live
    // orders are embedded in the customer (its page shows the latest),
    // the archived ones in their own collection, the latest 5 of them in
    // the customer too. No step embeds by age: refused, saying where.
    let text = refused(
        "name: s11-small
entities:
  customer:
    count: 1000000
    fields: {name: string(24), email: string(30)}
  order:
    count: 200000000
    fields:
      placed_at: date
      status: {type: string(10), enum: [placed, paid, shipped, delivered, returned]}
      total: decimal
relationships:
  orders:
    parent: customer
    child: order
    children: {min: 0, typical: 200, max: 2000}
    standalone: true
    child_field: customer
operations:
  recent_orders:
    read: order
    rate: 5000
    filter: {customer: eq, placed_at: since(30 days)}
    sort: -placed_at
    limit: 20
  customer_page:
    read: customer
    rate: 3000
    filter: {_id: eq}
    include:
      orders: {fields: [placed_at, total], limit: 5, sort: -placed_at}
  place_order:
    insert: order
    links: [orders]
    rate: 5
current:
  orders: parent-reference
  without: {archive: [order]}
",
    );
    assert!(text.contains("(in `customer.orders`)"), "{text}");
    insta::assert_snapshot!(folded(&text));
}

/// Listings of three kinds (examples/scenarios/s04-marketplace-kinds.yaml),
/// each kind in a collection of its own today.
fn listings() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/scenarios/s04-marketplace-kinds.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    format!("{text}current:\n  without: {{polymorphic: all}}\n")
}

#[test]
fn a_polymorphic_collection_added_merges_the_kinds_collections() {
    let text = moving(&listings());
    assert!(
        text.contains("{ $set: { \"kind\": \"car_listing\" } }"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// The same designs the other way: the polymorphic collection of today
/// split by its discriminator.
#[test]
fn a_polymorphic_collection_dropped_is_split_by_kind() {
    let (model, today, recommended) = designs(&listings());
    let text = migration(&model, &recommended, &today, 500, &through(&model))
        .unwrap_or_else(|e| panic!("{e}"))
        .script;
    assert!(
        text.contains("runStep(\"01-unkind-car_listing-car_listing\""),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// A model with `current:` naming each of `rels` a parent reference: the
/// design of a team coming from SQL tables.
fn normalized(text: &str, rels: &[&str]) -> String {
    let mut model = format!("{text}\ncurrent:\n");
    for r in rels {
        model.push_str(&format!("  {r}: parent-reference\n"));
    }
    model
}

#[test]
fn embedded_items_look_up_their_other_parents_copies() {
    // Lines embedded in their invoice, each naming its product with the
    // name and price of the sale: looked up by the line's product id.
    let text = include_str!("../../../../../examples/scenarios/s07-invoices.yaml");
    let script = moving(&normalized(text, &["invoices", "lines", "sold"]));
    assert!(script.contains(r#""localField":"product","foreignField":"_id""#));
    insta::assert_snapshot!(folded(&script));
}

#[test]
fn embedded_items_look_up_their_own_children() {
    // Orders embedded in their customer, each listing its tickets with
    // copies of their seats: looked up by the tickets' order id.
    let text = include_str!("../../../tests/fixtures/event-tickets.yaml");
    let script = moving(&normalized(text, &["hosts", "seats", "orders", "bought"]));
    assert!(script.contains(r#""from":"ticket","localField":"_id","foreignField":"order""#));
    insta::assert_snapshot!(folded(&script));
}

#[test]
fn an_embedded_item_whose_reference_no_step_builds_is_refused() {
    // The tickets embedded in their order, itself embedded in its
    // customer: a step gathers one level of children, not two.
    let text = include_str!("../../../tests/fixtures/event-tickets.yaml")
        .replacen("  bought:\n", "  bought:\n    layout: embed\n", 1)
        .replacen("  orders:\n", "  orders:\n    layout: embed\n", 1);
    let why = refused(&normalized(&text, &["hosts", "seats", "orders", "bought"]));
    assert!(why.contains("customer.orders"), "{why}");
}

#[test]
fn a_copy_of_the_parents_reference_to_its_own_parent_is_read_from_it() {
    // A reservation keeps its room's number and the room's hotel: the
    // room holds that as its reference, not as a field of its own.
    let text = include_str!("../../../../../examples/hotel-bookings.yaml");
    let script = moving(&normalized(
        text,
        &["rooms", "bookings", "stays", "reviews"],
    ));
    assert!(script.contains(r#""hotel":"$__squill.hotel""#), "{script}");
}

#[test]
fn bucket_items_look_up_their_other_parents_copies() {
    // An issue's comments grouped into buckets, each comment naming its
    // author with the author's name: looked up before the grouping.
    let text = include_str!("../../../tests/fixtures/issue-tracker.yaml");
    let rels = [
        "users", "projects", "issues", "assigned", "reported", "comments", "wrote",
    ];
    let script = moving(&normalized(text, &rels));
    assert!(
        script.contains(r#"{"$lookup":{"from":"user","localField":"author","foreignField":"_id","as":"__squill_ref0"}}"#),
        "{script}"
    );
    assert!(script.contains("issue_comments.comments.author: items with the user they name"));
}

#[test]
fn a_trees_two_way_references_to_parent_reference() {
    // The node's parent id is the child's side; its children's ids, the
    // parent's, go in the final step.
    let text = script(&categories(
        "parent-reference",
        "parent-reference",
        &["subcategories: two-way-references"],
    ));
    assert!(
        text.contains(
            r#"db.getCollection("category").updateMany({}, { $unset: { "subcategories": "" } });"#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn a_trees_two_way_references_to_tree_path() {
    let text = moving(&categories(
        "tree-path",
        "parent-reference",
        &["subcategories: two-way-references"],
    ));
    assert!(
        text.contains(
            r#"{"$graphLookup":{"from":"category","startWith":"$_id","connectFromField":"parent""#
        ),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

/// Listings whose searches show their seller's name: each kind copies it
/// (an extended reference), in its own collection and in the shared one.
fn listings_with_sellers(current: &str) -> String {
    let mut text = listings();
    for op in ["search_cars", "search_phones", "search_flats"] {
        let at = text.find(&format!("  {op}:\n")).expect("the search");
        let end = at + text[at..].find("    limit: 24\n").expect("its limit") + 14;
        text.insert_str(end, "    include:\n      seller: {fields: [name]}\n");
    }
    text + current
}

#[test]
fn kinds_with_the_same_copies_merge_into_a_polymorphic_collection() {
    // Each kind's `seller` is `{_id, name}` in both designs: the same data,
    // though each copy comes from the kind's own relationship.
    let text = moving(&listings_with_sellers(""));
    assert!(
        text.contains("runStep(\"01-kind-car_listing-listing\""),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn kinds_that_change_layout_change_it_first_in_their_collections_then_merge() {
    // The sellers' ids today, copies recommended: the kinds' documents move
    // as they are, so each kind's reference becomes `{_id, name}` in its
    // collection of today first (past today's validator), checked, then
    // the kinds merge.
    let text = moving(&listings_with_sellers(
        "  cars: parent-reference\n  phones: parent-reference\n  flats: parent-reference\n",
    ));
    let copy = text.find("runStep(\"01-copy-cars-seller\"");
    let stage = text.find(
        "// ---- Verification of the first stage (cars, phones, flats on their recommended layouts",
    );
    let kind = text.find("runStep(\"04-kind-car_listing-listing\"");
    assert!(copy.is_some() && copy < stage && stage < kind, "{text}");
    assert!(
        text.contains("], { bypassDocumentValidation: true }).toArray();"),
        "{text}"
    );
    insta::assert_snapshot!(folded(&text));
}

#[test]
fn items_that_lose_an_attribute_take_it_back_from_the_other_side_on_rollback() {
    // A user's teams of today carry the membership's date; the recommended
    // items drop it (the team's members keep it). The rollback puts it
    // back from the team's new array, so before that array is undone.
    let text = include_str!("../../../../../examples/scenarios/s09-teams.yaml");
    let script = moving(&format!(
        "{text}\ncurrent:\n  memberships: many-to-many-one-way\n"
    ));
    let rollback = &script[script.find("// ---- Rollback ----").expect("a rollback")..];
    let back = rollback
        .find(r#"db.getCollection("user").aggregate("#)
        .expect("items back");
    let unset = rollback
        .find(r#"db.getCollection("team").updateMany({}, { $unset: { "members": "" } });"#)
        .expect("the new array undone");
    assert!(back < unset, "{rollback}");
    assert!(rollback[back..unset].contains(r#""joined_at":{"$ifNull":["$$i.joined_at""#));
}

/// `yaml` with each of `words` (as whole words) replaced by a name that
/// ends a line comment (a line feed, U+2028), a string (quotes, a
/// backslash) and a template literal (a backquote, `${`), written as a YAML
/// double-quoted string.
/// The first line (the model's name) stays.
fn hostile(yaml: &str, words: &[&str]) -> String {
    let (first, yaml) = yaml.split_once('\n').unwrap_or(("", yaml));
    let mut out = format!("{first}\n");
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if words.contains(&word.as_str()) {
            out.push_str(&format!("\"{word}\\n'`${{x}}\\u2028\\\"\\\\ -/\""));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in yaml.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Issue 40, item 2: the migration script of models whose entity,
/// relationship and field names hold line feeds, U+2028, quotes,
/// backslashes and backquotes parses (`node --check`): no name ends a
/// comment, a string or a template literal. Without node the test passes
/// with a NOTICE, and fails under CI=true.
#[test]
fn hostile_names_end_no_comment_or_string_in_the_script() {
    let node = std::process::Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "node is missing and CI=true: run the tests through scripts/test"
        );
        eprintln!("NOTICE: skipping: node is missing (scripts/test installs it)");
        return;
    }
    let attendees_names = ["event", "attendee", "attendees", "title", "venue"];
    let orders_names = ["customer", "order", "orders", "email", "total"];
    let models = [
        hostile(&attendees("outlier", "parent-reference"), &attendees_names),
        hostile(&attendees("outlier", "embed"), &attendees_names),
        hostile(&attendees("embed", "outlier"), &attendees_names),
        hostile(&attendees("outlier", "child-references"), &attendees_names),
        hostile(
            &orders("extended-reference", "parent-reference"),
            &orders_names,
        ),
        hostile(
            &orders("parent-reference", "extended-reference"),
            &orders_names,
        ),
    ];
    let dir = std::env::temp_dir().join(format!("squill-migration-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, yaml) in models.iter().enumerate() {
        let text = moving(yaml);
        let path = dir.join(format!("migration-{i}.js"));
        std::fs::write(&path, format!("if (globalThis.__never) {{\n{text}\n}}\n")).unwrap();
        let out = std::process::Command::new("node")
            .arg("--check")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "model {i}:\n{yaml}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Audit45 gap 1: a migration under a tenant whose visits gain their
/// clinic's id (carried from the patient) is refused while no step fills
/// it: the recommended reads filter on the clinic and would find none of
/// today's visits. Listed under `current:` (today's documents hold it),
/// that reason is gone.
#[test]
fn a_tenant_id_carried_down_is_not_left_empty_by_a_migration() {
    let model = include_str!("../../../tests/fixtures/tenant-depth.yaml");
    let today = format!("{model}current:\n  visits: parent-reference\n");
    let text = refused(&today);
    assert!(
        text.contains("`clinic_of_visit`: each visit of the recommended design holds its tenant's id in `clinic`, copied from its patient"),
        "{text}"
    );
    assert!(text.contains("`clinic_of_slot`"), "{text}");
    let filled = format!(
        "{model}current:\n  visits: parent-reference\n  clinic_of_visit: parent-reference\n  clinic_of_slot: parent-reference\n"
    );
    let (m, today, recommended) = designs(&filled);
    if let Err(e) = migration(&m, &today, &recommended, 500, &through(&m)) {
        assert!(!e.to_string().contains("clinic_of_"), "{e}");
    }
}

/// review46 item 5: under a tenant, buckets of a parent within it hold the
/// tenant's id at their top level (`Model::bucket_tenant`), which the
/// validator requires. The step that builds the buckets from today's
/// children fills it from each bucket's first child's reference of today
/// (every child of one bucket shares its parent, so its tenant). Before,
/// no step built it and the migration was refused.
#[test]
fn buckets_built_under_a_tenant_hold_its_id() {
    let model = include_str!("../../../tests/fixtures/bucket-tenant.yaml");
    let today = format!(
        "{model}current:\n  ticks: parent-reference\n  org_of_tick: parent-reference\n  comments: parent-reference\n  org_of_comment: parent-reference\n"
    );
    let text = script(&today);
    assert!(
        text.contains(r#""org":{"$arrayElemAt":[{"$map":{"input":"$__squill_chunk.c","as":"c","in":"$$c.org"}},0]}"#),
        "{text}"
    );
    assert_eq!(
        text.matches(r#""in":"$$c.org"}},0]}"#).count(),
        2,
        "both buckets, of ticks and of comments"
    );
}

/// A figure over a subset of the children kept by the recommended design
/// and not today's: the migration's steps compute over every child, so
/// it refuses it rather than write the wrong figure (filtagg48).
#[test]
fn a_figure_over_a_subset_is_refused_not_computed_over_every_child() {
    let yaml = format!(
        "{}current:\n  tickets: embed\n",
        include_str!("../../../tests/fixtures/subset-figures.yaml")
    );
    let text = refused(&yaml);
    assert!(
        text.contains("`queue.tickets_count_status_open` is a figure over a subset"),
        "{text}"
    );
}
