//! A batch insert's cookbook code (issue 41, fixture `batch-buckets`): the
//! children of one batch pushed with `$each` of their list, into buckets a
//! chunk at a time, and every figure moved by the whole batch, taken from
//! its children rather than asked of the caller. The code once pushed one
//! child (`$each: [new_comments_item]`) and counted one.

use super::code::{Expr, OpCode, Update};
use super::render;

fn op(name: &str) -> OpCode {
    let (_, d) = crate::fixtures::load("batch-buckets");
    super::op_codes(&d)
        .into_iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no operation {name}"))
}

/// Comments in count buckets of 50: one upsert per chunk of the list,
/// `$push $each` of the chunk, the bucket's figures by the chunk, the
/// room for the whole chunk in the filter; the post's by the whole list.
#[test]
fn a_batch_into_count_buckets_pushes_each_chunk_and_counts_it() {
    let add = op("add_comments");
    let bucket = &add.steps[0];
    let chunks = bucket.chunks.as_ref().expect("the batch goes in chunks");
    assert_eq!(
        (chunks.list.as_str(), chunks.per, chunks.close.as_deref()),
        ("new_comments_list", 50, Some("arrived"))
    );
    assert!(
        bucket.filter.contains(&(
            "arrived".to_string(),
            Expr::RoomFor {
                max: 50,
                list: "chunk".to_string()
            }
        )),
        "{:?}",
        bucket.filter
    );
    let py = render::python(&add);
    for part in [
        "_into_buckets(new_comments_list, 50, page, lambda chunk, page_at: _next_free_page(page_at, lambda page_tried: ",
        r#""arrived": {"$lte": 50 - len(chunk)}"#,
        r#"{"$push": {"comments": {"$each": chunk}}, "$inc": {"count": len(chunk), "sum_votes": float(sum(d.get("votes", 0) for d in chunk)), "arrived": len(chunk)}, "$min": {"min_votes": min(d["votes"] for d in chunk)}, "$max": {"max_votes": max(d["votes"] for d in chunk)}, "$set": {"last_votes": chunk[-1]["votes"]}, "$setOnInsert": {"page": page_tried}}"#,
        r#"lambda opened: _result(db["post_comments"].update_many({"post": post_id, "arrived": {"$lt": 50}, "_id": {"$ne": opened}}, {"$max": {"arrived": 50}}))"#,
        r#""$inc": {"comments_count": len(new_comments_list), "comments_sum_votes": float(sum(d.get("votes", 0) for d in new_comments_list))}"#,
        r#""$set": {"comments_last_votes": new_comments_list[-1]["votes"]}"#,
    ] {
        assert!(py.contains(part), "{part}\nin\n{py}");
    }
    assert!(
        !py.contains("new_comments_item") && !py.contains("add_sum"),
        "{py}"
    );
    for (text, parts) in [
        (
            render::mongosh(&add),
            [
                "intoBuckets(new_comments_list, 50, page, (chunk, page_at) => nextFreePage(page_at, ",
                r#""$inc": {"count": chunk.length, "sum_votes": Double(chunk.reduce((s, d) => s + (d["votes"] ?? 0), 0)), "arrived": chunk.length}"#,
            ],
        ),
        (
            render::node(&add),
            [
                "await intoBuckets(new_comments_list, 50, page, (chunk, page_at) => nextFreePage(page_at, ",
                r#""$min": {"min_votes": chunk.map((d) => d["votes"]).reduce((a, b) => (b < a ? b : a))}"#,
            ],
        ),
    ] {
        for part in parts {
            assert!(text.contains(part), "{part}\nin\n{text}");
        }
    }
}

/// Readings in hour buckets: chunks of the bucket's bound, no page and no
/// close (the hour is the bucket's key).
#[test]
fn a_batch_into_time_buckets_pushes_each_chunk() {
    let record = op("record");
    let chunks = record.steps[0].chunks.as_ref().expect("chunks");
    assert_eq!((chunks.per, chunks.close.as_deref()), (60, None));
    let py = render::python(&record);
    assert!(
        py.contains(r#"_into_buckets(new_readings_list, 60, None, lambda chunk, page_at: _result(db["sensor_readings"].update_one({"sensor": sensor_id, "hour": time_hour, "count": {"$lte": 60 - len(chunk)}}, {"$push": {"readings": {"$each": chunk}}, "$inc": {"count": len(chunk)}}, upsert=True)), None)"#),
        "{py}"
    );
}

/// Lines embedded in their order: one `$push $each` of the list, while
/// the array has room for all of it.
#[test]
fn a_batch_into_its_hosts_array_is_one_push_of_the_list() {
    let add = op("add_lines");
    let push = add.steps[0].updates.iter().find_map(|u| match u {
        Update::Push { item, .. } => Some(item),
        _ => None,
    });
    assert_eq!(push, Some(&Expr::Items("new_lines_list".to_string())));
    let py = render::python(&add);
    assert!(
        py.contains(r#"update_one({"_id": order_id, "$expr": {"$lte": [{"$size": {"$ifNull": ["$lines", []]}}, 20 - len(new_lines_list)]}}, {"$push": {"lines": {"$each": new_lines_list}}})"#),
        "{py}"
    );
    assert!(
        render::node(&add).contains("20 - new_lines_list.length]}}"),
        "{}",
        render::node(&add)
    );
}

/// Views inserted ten at a time as documents of their own (fixture
/// `batch-count` with a sum kept too): the article's sum moves by the
/// views' own seconds added up from the list, not by an amount the caller
/// passes beside it.
#[test]
fn a_sum_after_an_insert_many_is_taken_from_the_list() {
    let text = include_str!("../../../tests/fixtures/batch-count.yaml")
        .replace("      at: date\n", "      at: date\n      seconds: int\n")
        .replace(
            "aggregates: [count(views)]",
            "aggregates: [count(views), sum(views.seconds)]",
        );
    let model = crate::inputs::model_file::parse("batch-count.yaml", &text).expect("model");
    let d =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("design");
    let ops = super::op_codes(&d);
    let count = ops
        .iter()
        .find(|o| o.name == "count_views")
        .expect("count_views");
    let py = render::python(count);
    assert!(
        py.contains(r#""views_count": len(new_view_list)"#)
            && py.contains(r#"sum(d.get("seconds", 0) for d in new_view_list)"#)
            && !py.contains("add_views_sum_seconds"),
        "{py}"
    );
}
