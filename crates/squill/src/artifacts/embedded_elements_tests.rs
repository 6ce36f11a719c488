//! A read of children embedded in an array, by their own fields, paged,
//! or with their host's fields (audit45 gap 3): the matching elements,
//! unwound, sorted with their own `_id` breaking ties, skipped and cut,
//! priced at every document that holds a match (the sort follows the
//! unwinding). It once returned the products, each with every sale,
//! ordered by any sale's date: an ended sale came back as "live".

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;

fn plan<'d>(d: &'d crate::design::Design, name: &str) -> &'d crate::design::OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}

fn code(d: &crate::design::Design, name: &str) -> [String; 3] {
    let ops = cookbook::op_codes(d);
    let op = ops.iter().find(|o| o.name == name).expect("the op");
    [
        cookbook::mongosh_function(op),
        cookbook::node_function(op),
        cookbook::python_function(op),
    ]
}

/// The plan's steps and each language's pipeline: the sales of a state
/// unwound, newest first with the sale's `_id` after, page by page; the
/// preview of a token unwound, with its page's title beside it.
#[test]
fn a_paged_read_of_embedded_children_returns_elements() {
    let (_, d) = crate::fixtures::load("embedded-child-reads");
    let live = plan(&d, "live_sales").steps.last().expect("a step");
    assert_eq!(live.elements.as_deref(), Some("sales"));
    assert_eq!(live.sort, vec![("sales.starts_at".to_string(), -1)]);
    assert_eq!(live.limit, Some(3));
    let pipeline = r#"[{"$match": {"sales": {"$elemMatch": {"state": state}}}}, {"$unwind": "$sales"}, {"$match": {"sales.state": state}}, {"$sort": {"sales.starts_at": -1, "sales._id": -1}}, {"$skip": (page - 1) * 3}, {"$limit": 3}, {"$project": {"sales": 1}}]"#;
    for text in code(&d, "live_sales") {
        assert!(text.contains(pipeline), "{text}");
    }
    let preview = plan(&d, "preview_by_token").steps.last().expect("a step");
    assert_eq!(preview.elements.as_deref(), Some("previews"));
    assert_eq!(preview.projection, vec!["previews", "title"]);
    let pipeline = r#"[{"$match": {"previews": {"$elemMatch": {"token": token}}}}, {"$unwind": "$previews"}, {"$match": {"previews.token": token}}, {"$project": {"previews": 1, "title": 1}}]"#;
    for text in code(&d, "preview_by_token") {
        assert!(text.contains(pipeline), "{text}");
    }
}

/// A product read with its newest sale or its first (embed46): the
/// product's find returns its sales cut to one on the server, in the
/// include's order (`$sortArray` then `$firstN`, listing the product's
/// other fields) or as stored (`$slice`); the price stays the product
/// read whole.
#[test]
fn an_include_of_the_first_embedded_children_is_cut_on_the_server() {
    let (_, d) = crate::fixtures::load("embedded-child-reads");
    let newest = plan(&d, "newest_sale");
    let step = &newest.steps[0];
    assert_eq!(step.slices.len(), 1, "{step:?}");
    assert_eq!(step.slices[0].path, "sales");
    assert_eq!(step.slices[0].sort, vec![("starts_at".to_string(), -1)]);
    assert_eq!(step.slices[0].limit, Some(1));
    let by_sku = plan(&d, "by_sku");
    assert!(by_sku.steps[0].slices.is_empty(), "every sale: no cut");
    assert_eq!(newest.cost.bytes_read, by_sku.cost.bytes_read);
    let cut = r#"{"sku": 1, "sales": {"$firstN": {"input": {"$sortArray": {"input": {"$ifNull": ["$sales", []]}, "sortBy": {"starts_at": -1}}}, "n": 1}}}"#;
    for text in code(&d, "newest_sale") {
        assert!(text.contains(cut), "{text}");
    }
    for text in code(&d, "first_sale") {
        assert!(text.contains(r#"{"sales": {"$slice": 1}}"#), "{text}");
    }
}

/// Children in an array inside another array (promotions in a mall's
/// stores; embed46): both arrays are unwound, outermost first, and the
/// read is priced at every mall, not at the 3 documents of its limit.
#[test]
fn a_read_of_children_nested_two_arrays_down_unwinds_both() {
    let (_, d) = crate::fixtures::load("embedded-child-reads");
    let promos = plan(&d, "live_promos");
    let step = &promos.steps[0];
    assert_eq!(step.elements.as_deref(), Some("stores.promos"));
    assert_eq!(step.elements_within, vec!["stores".to_string()]);
    assert!(promos.cost.documents_examined > 3.0, "{:?}", promos.cost);
    let pipeline = r#"{"$unwind": "$stores"}, {"$unwind": "$stores.promos"}, {"$match": {"stores.promos.state": state}}, {"$sort": {"stores.promos.starts_at": -1}}, {"$limit": 3}"#;
    for text in code(&d, "live_promos") {
        assert!(text.contains(pipeline), "{text}");
    }
}

/// Expiring tickets pinned inside their player (expiry-lost refuses the
/// layout; the pin keeps it): nothing deletes an expired ticket from the
/// array, so the player's read leaves them out, by the date, and
/// says so (embed46).
#[test]
fn a_read_of_expiring_children_kept_in_the_parent_leaves_the_expired_out() {
    let (_, d) = crate::fixtures::load("embedded-child-reads");
    let step = &plan(&d, "my_tickets").steps[0];
    let x = step.slices.first().expect("the tickets filtered");
    let e = x.unexpired.as_ref().expect("by their date");
    assert_eq!(
        (e.field.as_str(), e.seconds, x.limit),
        ("queued_at", 120, None)
    );
    let cut = r#""tickets": {"$filter": {"input": {"$ifNull": ["$tickets", []]}, "cond": {"$gt": ["$$this.queued_at", "#;
    let [mongosh, node, python] = code(&d, "my_tickets");
    for text in [mongosh, node] {
        assert!(
            text.contains(&format!("{cut}new Date(Date.now() - 120 * 1000)]}}}}}}")),
            "{text}"
        );
    }
    assert!(
        python.contains(&format!("{cut}_alive_since(120)]}}}}}}")),
        "{python}"
    );
    let text = crate::outputs::design::text::render(&d, false);
    assert!(
        text.contains("nothing deletes them from the array, so each read leaves them out"),
        "{text}"
    );
}

/// The price: every product that holds a live sale is read (the limit
/// cuts the sorted elements, not the walk), about one product per live
/// sale; a token, distinct over the previews, finds one page through one
/// key, as its step says (audit45 gap 10: the per-run total said 2 of
/// each beside a step of 1).
#[test]
fn a_read_of_embedded_children_is_priced_at_the_documents_it_reads() {
    let (model, d) = crate::fixtures::load("embedded-child-reads");
    let live = plan(&d, "live_sales");
    let count = |n: &str| model.entities.iter().find(|e| e.name == n).expect(n).count as f64;
    // Half the sales are live (two states); each in about one product.
    let live_sales = count("sale") / 2.0;
    let products = count("product");
    let holding = products * (1.0 - (1.0 - 1.0 / products).powf(live_sales));
    assert!(
        (live.cost.documents_examined - holding).abs() <= 1.0,
        "{} documents examined, want about {holding}",
        live.cost.documents_examined
    );
    assert_eq!(live.steps[0].documents, 3.0);
    let preview = plan(&d, "preview_by_token");
    assert_eq!(preview.steps[0].documents, 1.0);
    assert_eq!(preview.cost.documents_examined, 1.0);
    assert_eq!(preview.cost.index_keys_examined, 1.0);
}

/// Unpinned, the search weighs that price: sales read by their state at
/// 500/s are kept out of their product (embedded, the read walks every
/// product with a live sale).
#[test]
fn the_search_keeps_children_read_by_their_own_fields_apart() {
    let text = crate::fixtures::FILES
        .iter()
        .find(|(n, _)| *n == "embedded-child-reads")
        .expect("the fixture")
        .1
        .replace("    layout: embed\n", "");
    let model = crate::inputs::model_file::parse("unpinned.yaml", &text).expect("parses");
    let d =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    let sales = d
        .relationships
        .iter()
        .find(|r| r.relationship == "sales")
        .expect("sales");
    assert_ne!(sales.chosen, crate::design::Layout::Embed, "{sales:?}");
}

/// Against the server, in each language
/// (scripts/testenv/check_embedded_elements.py): the live sales come 3,
/// 1 and 0 a page, newest first, a tie in `_id` order, the ended sale of
/// a product with a live one on none; a token gives its one preview and
/// the page's title, no other token.
#[test]
fn embedded_children_read_on_their_own_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("embedded-child-reads");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("embedded-child-reads", "squill_embedded_elements", false),
        ("check_embedded_elements.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} live_sales(live): pages of 3, 1 and 0 live sales",
            "ok: {lang} preview_by_token(t2): the one preview",
            "ok: {lang} newest_sale(a): product 1 with its sku and sale 12 alone",
            "ok: {lang} first_sale(a): product 1 with its sku and sale 11 alone",
            "ok: {lang} live_promos(live): the 3 live promotions of both arrays",
            "ok: {lang} my_tickets(n): the player with its live ticket alone",
        ],
    );
}
