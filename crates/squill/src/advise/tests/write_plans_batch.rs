//! Write plans of batch inserts (`count:` above 1) into buckets and
//! embedded arrays (issue 41, fixture `batch-buckets`). A batch of 20
//! comments into buckets of 50 was priced as 20 upserts, 20 documents
//! written, while the cookbook pushes the batch at once: the plan now
//! prices the chunks the cookbook upserts, one each, and the page a batch
//! opens now and then with the close of the bucket it passed over.

use crate::design::{OperationPlan, ValueSource};

fn plan<'d>(d: &'d crate::design::Design, name: &str) -> &'d OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}

fn design(count: u64) -> crate::design::Design {
    let text = include_str!("../../../tests/fixtures/batch-buckets.yaml").replace(
        "add_comments: {insert: comment, links: [comments], rate: 0.3, count: 20}",
        &format!("add_comments: {{insert: comment, links: [comments], rate: 0.3, count: {count}}}"),
    );
    let model = crate::inputs::model_file::parse("batch-buckets.yaml", &text).expect("model");
    crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("design")
}

/// 20 comments into buckets of 50: one upsert, and once in two batches
/// (a bucket takes two) a page opened and the bucket passed over closed;
/// then the post's figures, once.
#[test]
fn a_batch_within_a_count_bucket_is_one_upsert() {
    let d = design(20);
    let p = plan(&d, "add_comments");
    let up = &p.steps[0];
    assert!(up.batch, "{up:#?}");
    assert_eq!(up.documents, 1.5, "{up:#?}");
    assert!(
        up.filter
            .iter()
            .any(|f| f.path == "arrived" && f.value_from == ValueSource::RoomFor { limit: 50 }),
        "{up:#?}"
    );
    assert_eq!(
        (p.cost.round_trips, p.cost.documents_written),
        (2.5, 2.5),
        "{:#?}",
        p.cost
    );
}

/// 120 comments into buckets of 50: chunks of 50, 50 and 20, each opening
/// a page (three upserts and three closes), the next batch's first chunk
/// passing over the 20's bucket (one bucket closed a batch); the post once.
#[test]
fn a_batch_past_a_count_bucket_is_one_upsert_per_chunk() {
    let d = design(120);
    let p = plan(&d, "add_comments");
    assert_eq!(p.steps[0].documents, 4.0, "{:#?}", p.steps[0]);
    assert_eq!(
        (p.cost.round_trips, p.cost.documents_written),
        (7.0, 5.0),
        "{:#?}",
        p.cost
    );
}

/// The bytes a batch writes: its children once, and the bucket's
/// rewrites shared by the pushes that fill it, far below 20 pushes of one.
#[test]
fn a_batch_writes_its_children_once() {
    let one = design(1);
    let twenty = design(20);
    let (a, b) = (
        plan(&one, "add_comments").cost.bytes_written,
        plan(&twenty, "add_comments").cost.bytes_written,
    );
    assert!(b < 20.0 * a / 4.0, "one: {a}, a batch of 20: {b}");
}

/// 10 readings into hour buckets of 60: one upsert, no page, no close.
#[test]
fn a_batch_into_a_time_bucket_is_one_upsert() {
    let d = design(20);
    let p = plan(&d, "record");
    assert!(p.steps[0].batch, "{:#?}", p.steps[0]);
    assert_eq!(
        (p.cost.round_trips, p.cost.documents_written),
        (1.0, 1.0),
        "{:#?}",
        p.cost
    );
}

/// 5 lines into their order: one write of the order, whose `$push` takes
/// the batch.
#[test]
fn a_batch_into_its_hosts_array_is_one_write() {
    let d = design(20);
    let p = plan(&d, "add_lines");
    assert_eq!(p.steps.len(), 1, "{:#?}", p.steps);
    assert!(p.steps[0].batch, "{:#?}", p.steps[0]);
    assert_eq!(p.cost.documents_written, 1.0, "{:#?}", p.cost);
}
