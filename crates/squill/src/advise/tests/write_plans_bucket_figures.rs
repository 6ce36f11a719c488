//! Write plans of a child kept in buckets of a count whose parent also
//! keeps figures over all its children (issue 41, fixture
//! `bucket-count-parent-figures`: comments in buckets, each post keeping the
//! count, sum, min and max of its comments' votes). An edit and a delete of
//! a comment once read the comment's `_id` first (bucket elements have
//! none) and wrote the post through an array of ids it does not hold, and
//! the post's min or max was read again by sorting buckets on the multikey
//! `comments.votes`, whose first key in a bucket is not the bucket's least.

use crate::design::{
    Action, FilterOp, OperationPlan, PartialCondition, Purpose, Step, UpdateOp, ValueSource,
};

fn plan<'d>(d: &'d crate::design::Design, name: &str) -> &'d OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}

/// The bucket's own write: the comment set (or dropped) and the bucket's
/// figures computed again, by the caller's post and the comment's
/// `created_on`, as the design of a bucket with no parent figures writes
/// it. No step reads or tests `comments._id`.
fn assert_bucket_written_by_its_filter(p: &OperationPlan) {
    let first = &p.steps[0];
    assert_eq!(first.collection, "post_comments", "{:#?}", p.steps);
    assert_eq!(first.action, Action::UpdateOne, "{:#?}", p.steps);
    assert!(
        first
            .purpose
            .iter()
            .any(|x| matches!(x, Purpose::RecomputeBucket { .. })),
        "{:#?}",
        first
    );
    // What finds the bucket and the comment; an edit's test of the old
    // votes is checked by
    // `an_edit_of_a_bucketed_child_writes_only_while_it_holds_the_old_value`.
    let tests: Vec<(&str, &ValueSource)> = first
        .filter
        .iter()
        .filter(|t| !matches!(t.value_from, ValueSource::Old { .. }))
        .map(|t| (t.path.as_str(), &t.value_from))
        .collect();
    assert_eq!(
        tests,
        [
            ("post", &ValueSource::Param),
            ("comments.created_on", &ValueSource::Param)
        ],
        "{:#?}",
        first
    );
    for s in &p.steps {
        assert!(
            !s.filter.iter().any(|t| t.path == "comments._id")
                && !s.projection.iter().any(|x| x == "comments._id"),
            "a step still finds the comment by an _id bucket elements lack: {s:#?}"
        );
    }
}

/// Each of the post's writes names the post by the id the caller gives,
/// never by an array of its comments' ids (a post holds none).
fn assert_post_written_by_its_id(p: &OperationPlan) {
    let posts: Vec<&Step> = p.steps.iter().filter(|s| s.collection == "post").collect();
    assert!(!posts.is_empty(), "{:#?}", p.steps);
    for s in posts {
        assert!(
            s.filter.iter().any(|t| t.path == "_id"
                && t.op == FilterOp::Eq
                && t.value_from == ValueSource::Param),
            "{s:#?}"
        );
        assert!(!s.filter.iter().any(|t| t.path == "comments"), "{s:#?}");
    }
}

#[test]
fn an_edit_of_a_bucketed_child_writes_its_bucket_by_the_filter() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    let p = plan(&d, "vote");
    assert_bucket_written_by_its_filter(p);
    assert_post_written_by_its_id(p);
}

#[test]
fn a_delete_of_a_bucketed_child_counts_its_parent_down_by_the_parents_id() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    let p = plan(&d, "delete_comment");
    assert_bucket_written_by_its_filter(p);
    assert_post_written_by_its_id(p);
    // The count and the sum go down in the post.
    let down = p
        .steps
        .iter()
        .find(|s| {
            s.collection == "post"
                && s.updates
                    .iter()
                    .any(|u| matches!(u, UpdateOp::Dec { path } if path == "comments_count"))
        })
        .unwrap_or_else(|| panic!("no count taken down: {:#?}", p.steps));
    assert!(
        down.updates
            .iter()
            .any(|u| matches!(u, UpdateOp::Dec { path } if path == "comments_sum_votes")),
        "{down:#?}"
    );
    // The post needs no index but its `_id` (there was `comments_1`).
    let post = d
        .collections
        .iter()
        .find(|c| c.name == "post")
        .expect("post");
    let keys: Vec<_> = post.indexes.iter().map(|i| i.keys.clone()).collect();
    assert_eq!(keys, [vec![("_id".to_string(), 1)]], "{keys:?}");
}

/// The post's min (max) read again from its buckets' own `min_votes`
/// (`max_votes`), one key of `{post: 1, min_votes: 1}`, among the buckets
/// that hold comments (an emptied bucket of a count keeps a null figure,
/// which sorts first); then `$set` from that field.
#[test]
fn a_parents_extreme_is_read_again_from_its_buckets_figures() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    for op in ["vote", "delete_comment"] {
        let p = plan(&d, op);
        for (figure, dir, kept) in [
            ("min_votes", 1, "comments_min_votes"),
            ("max_votes", -1, "comments_max_votes"),
        ] {
            let (n, read) = p
                .steps
                .iter()
                .enumerate()
                .find(|(_, s)| {
                    s.purpose
                        .iter()
                        .any(|x| matches!(x, Purpose::RereadComputed { .. }))
                        && s.sort.iter().any(|(k, _)| k.ends_with(figure))
                })
                .unwrap_or_else(|| panic!("{op}: no read of {figure}: {:#?}", p.steps));
            assert_eq!(read.collection, "post_comments");
            assert_eq!(read.sort, [(figure.to_string(), dir)], "{op}: {read:#?}");
            assert_eq!(read.limit, Some(1));
            assert_eq!(read.projection, [figure.to_string()], "{op}: {read:#?}");
            assert!(
                read.filter
                    .iter()
                    .any(|t| t.path == "count" && t.value_from == ValueSource::Above { limit: 0 }),
                "{op}: {read:#?}"
            );
            assert_eq!(read.documents, 1.0, "{op}: {read:#?}");
            let set = p
                .steps
                .iter()
                .flat_map(|s| &s.updates)
                .find_map(|u| match u {
                    UpdateOp::SetFrom {
                        path, step, field, ..
                    } if path == kept => Some((*step, field.clone())),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{op}: no $set of {kept}"));
            assert_eq!(set, (n + 1, figure.to_string()), "{op}");
        }
    }
}

/// The post's latest comment's votes read again from its newest bucket
/// that holds comments, by the buckets' page (`sort {page: -1}`), never by
/// the buckets' own `last_votes`: the greatest last value is the last
/// comment of no bucket in particular (issue 41).
#[test]
fn a_parents_last_is_read_again_from_its_newest_bucket() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    for op in ["vote", "delete_comment"] {
        let p = plan(&d, op);
        let (n, read) = p
            .steps
            .iter()
            .enumerate()
            .find(|(_, s)| {
                s.purpose.iter().any(
                    |x| matches!(x, Purpose::RereadComputed { function, .. } if function == "last"),
                )
            })
            .unwrap_or_else(|| panic!("{op}: no read of the last: {:#?}", p.steps));
        assert_eq!(read.sort, [("page".to_string(), -1)], "{op}: {read:#?}");
        assert_eq!(
            read.projection,
            ["last_votes".to_string()],
            "{op}: {read:#?}"
        );
        assert_eq!(read.limit, Some(1));
        let set = p
            .steps
            .iter()
            .flat_map(|s| &s.updates)
            .find_map(|u| match u {
                UpdateOp::SetFrom {
                    path, step, field, ..
                } if path == "comments_last_votes" => Some((*step, field.clone())),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{op}: no $set of comments_last_votes"));
        assert_eq!(set, (n + 1, "last_votes".to_string()), "{op}");
    }
}

/// The re-reads skip the buckets a delete emptied (`count > 0`). A min's
/// or max's goes through an index over the buckets that hold comments
/// only (partial on `count > 0`): an emptied bucket is not in it, so the
/// one key and one bucket the read is priced at is what it reads, however
/// many the deletes emptied. The last's, by page, through the unique
/// `{post, page}` index, which holds every bucket.
#[test]
fn the_rereads_indexes_hold_only_buckets_with_children() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    let buckets = d
        .collections
        .iter()
        .find(|c| c.name == "post_comments")
        .expect("post_comments");
    let p = plan(&d, "delete_comment");
    let rereads: Vec<&Step> = p
        .steps
        .iter()
        .filter(|s| {
            s.purpose
                .iter()
                .any(|x| matches!(x, Purpose::RereadComputed { .. }))
        })
        .collect();
    assert_eq!(rereads.len(), 3, "{:#?}", p.steps);
    for read in rereads {
        let name = read.index.as_deref().expect("an index");
        let index = buckets
            .indexes
            .iter()
            .find(|i| i.name == name)
            .unwrap_or_else(|| panic!("{name} is not an index of post_comments"));
        // The last's read, by page, goes through the unique `{post, page}`
        // index over every bucket: a copy partial on `count > 0` beside it
        // would hold the same entries again (review finding 10). Its own
        // test still skips emptied buckets.
        if index.partial.is_empty() {
            assert!(
                index.unique && index.keys[1].0 == crate::design::PAGE,
                "{index:#?}"
            );
            assert!(
                read.filter
                    .iter()
                    .any(|t| t.path == "count" && t.value_from == ValueSource::Above { limit: 0 }),
                "{read:#?}"
            );
        } else {
            assert_eq!(
                index.partial,
                [PartialCondition::Positive {
                    path: "count".to_string()
                }],
                "{index:#?}"
            );
        }
        assert_eq!(
            (read.documents, index.keys[0].0.as_str()),
            (1.0, "post"),
            "{read:#?}"
        );
    }
    // The page read skips emptied buckets too, by the same test
    // (`a_page_of_count_buckets_skips_emptied_buckets`).
}

/// The post's counters that a comment's edit or delete moves (`$inc` of
/// its count and sum, `$min`, `$max`) take the caller's post id, not one a
/// find returned: each runs only when the bucket's write matched, so a
/// delete retried (or of a comment that is not there) leaves the count as
/// it is (issue 41). An edit's `$inc` only when the write changed the bucket: a
/// retried edit matches it again, sets what is there, and must not move
/// the post's sum by the caller's difference a second time. Its `$min`
/// and `$max` on matched: they are idempotent.
#[test]
fn a_parents_counters_follow_the_bucket_write_only_when_it_matched() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    for op in ["vote", "delete_comment"] {
        let p = plan(&d, op);
        let counters: Vec<&Step> = p
            .steps
            .iter()
            .filter(|s| {
                s.collection == "post"
                    && s.updates.iter().any(|u| {
                        matches!(
                            u,
                            UpdateOp::Inc { .. }
                                | UpdateOp::Dec { .. }
                                | UpdateOp::Min { .. }
                                | UpdateOp::Max { .. }
                        )
                    })
            })
            .collect();
        assert!(!counters.is_empty(), "{op}: {:#?}", p.steps);
        for s in counters {
            assert_eq!(s.if_matched, Some(1), "{op}: {s:#?}");
            // Only an `$inc` by the caller's difference waits on a change;
            // a `$min`/`$max` is idempotent, and a retry that matches
            // repairs it (issue 41).
            let moves = s
                .updates
                .iter()
                .any(|u| matches!(u, UpdateOp::Inc { .. } | UpdateOp::Dec { .. }));
            assert_eq!(s.if_changed, op == "vote" && moves, "{op}: {s:#?}");
        }
        if op == "vote" {
            for u in ["min", "max"] {
                assert!(
                    p.steps.iter().any(|s| s.if_matched == Some(1)
                        && !s.if_changed
                        && s.updates.iter().any(|x| matches!(
                            (u, x),
                            ("min", UpdateOp::Min { .. }) | ("max", UpdateOp::Max { .. })
                        ))),
                    "vote: no ${u} gated on matched: {:#?}",
                    p.steps
                );
            }
        }
    }
}

/// An edit of a comment whose post keeps figures of its votes writes the
/// bucket only while the comment still holds the old votes the caller's
/// difference was taken from (`comments.votes = old votes` beside its
/// key `comments.created_on`, one `$elemMatch` in the cookbook). An edit
/// retried after another edit of the same comment then matches nothing,
/// and the post's `$inc`, gated on the write changing its bucket, does
/// not move the sum a second time (issue 41). The old value checks the
/// element found; it is no key of the index the write finds it by.
#[test]
fn an_edit_of_a_bucketed_child_writes_only_while_it_holds_the_old_value() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    let p = plan(&d, "vote");
    let write = &p.steps[0];
    assert!(
        write
            .purpose
            .iter()
            .any(|x| matches!(x, Purpose::RecomputeBucket { .. })),
        "{write:#?}"
    );
    let tests: Vec<(&str, &ValueSource)> = write
        .filter
        .iter()
        .map(|t| (t.path.as_str(), &t.value_from))
        .collect();
    assert_eq!(
        tests,
        [
            ("post", &ValueSource::Param),
            ("comments.created_on", &ValueSource::Param),
            (
                "comments.votes",
                &ValueSource::Old {
                    field: "votes".to_string()
                }
            ),
        ],
        "{write:#?}"
    );
    assert_eq!(write.index.as_deref(), Some("post_1_comments.created_on_1"));
    let code = crate::artifacts::cookbook::op_code(&d, p);
    let text = crate::artifacts::cookbook::python(&d, &[code]);
    assert!(
        text.contains(r#"{"post": post_id, "comments": {"$elemMatch": {"created_on": created_on, "votes": old_votes}}}"#),
        "{text}"
    );
}

/// All the comments of a post deleted (a filter on the post alone): its
/// buckets deleted by the post (one key and one bucket each, the post's
/// 300 comments in 7 buckets of 50 thinned by deletes), then the post's figures set to those
/// of none. No step finds `comments._id` or takes the count down by one
/// per comment (300 documents read and written).
#[test]
fn a_delete_of_all_a_parents_bucketed_children_deletes_its_buckets() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    let p = plan(&d, "clear_comments");
    let actions: Vec<(&str, Action)> = p
        .steps
        .iter()
        .map(|s| (s.collection.as_str(), s.action))
        .collect();
    assert_eq!(
        actions,
        [
            ("post_comments", Action::DeleteMany),
            ("post", Action::UpdateOne)
        ],
        "{:#?}",
        p.steps
    );
    let buckets = &p.steps[0];
    let tests: Vec<(&str, FilterOp, &ValueSource)> = buckets
        .filter
        .iter()
        .map(|t| (t.path.as_str(), t.op, &t.value_from))
        .collect();
    assert_eq!(tests, [("post", FilterOp::Eq, &ValueSource::Param)]);
    // 300 comments a post, 50 a bucket, through an index led by the post
    // that holds every bucket (one key a bucket; the insert's), not a
    // multikey one of its comments. The buckets are thinned by
    // `delete_comment` (0.2/s against 6 inserts/s) and never refilled:
    // 300 / (50 × (1 − 0.2 / 6)) buckets, not the 6 full ones, counted as
    // the collection counts them (`bucket_documents_agree_…` below).
    let thinned = 300.0 / (50.0 * (1.0 - 0.2 / 6.0));
    assert!(
        (buckets.documents - thinned).abs() < 1e-9,
        "{thinned} {buckets:#?}"
    );
    assert_eq!(
        buckets.index.as_deref(),
        Some("post_1_arrived_1"),
        "{buckets:#?}"
    );
    let resets: Vec<&str> = p.steps[1]
        .updates
        .iter()
        .filter_map(|u| match u {
            UpdateOp::Reset { path, .. } => Some(path.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        resets,
        [
            "comments_count",
            "comments_sum_votes",
            "comments_min_votes",
            "comments_max_votes",
            "comments_last_votes"
        ],
        "{:#?}",
        p.steps[1]
    );
    // The buckets and the post.
    assert!(
        (p.cost.documents_examined - (thinned + 1.0)).abs() < 1e-9,
        "{:#?}",
        p.cost
    );
}

/// A comment goes into the post's bucket that has had fewer than 50
/// arrivals, never into one that holds fewer than 50: a delete thins an old
/// page, which a test of `count` refilled, and the newest comment then sat
/// before newer pages, where the page reads and the post's last read again
/// by page missed it. The upsert tests and counts `arrived` (the bucket's
/// children ever added, which no delete takes down), through an index on
/// it, and the bucket's shape requires the field (issue 41).
#[test]
fn a_count_bucket_takes_children_in_arrival_order() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    let p = plan(&d, "add_comment");
    let upsert = p
        .steps
        .iter()
        .find(|s| s.action == Action::Upsert)
        .unwrap_or_else(|| panic!("no upsert: {:#?}", p.steps));
    let tests: Vec<(&str, &ValueSource)> = upsert
        .filter
        .iter()
        .map(|t| (t.path.as_str(), &t.value_from))
        .collect();
    assert_eq!(
        tests,
        [
            ("post", &ValueSource::Param),
            (crate::design::ARRIVED, &ValueSource::Below { limit: 50 })
        ],
        "{upsert:#?}"
    );
    assert!(
        upsert
            .updates
            .iter()
            .any(|u| matches!(u, UpdateOp::Inc { path, .. } if path == crate::design::ARRIVED)),
        "{upsert:#?}"
    );
    assert_eq!(
        upsert.index.as_deref(),
        Some("post_1_arrived_1"),
        "{upsert:#?}"
    );
    let bucket = d
        .collections
        .iter()
        .find(|c| c.name == "post_comments")
        .expect("the bucket collection");
    assert!(
        bucket
            .shape
            .fields
            .iter()
            .any(|f| f.name == crate::design::ARRIVED
                && f.required
                && matches!(
                    f.origin,
                    crate::design::FieldOrigin::Bucket {
                        part: crate::design::BucketPart::Arrived,
                        ..
                    }
                )),
        "{:#?}",
        bucket.shape
    );
}

/// A parent's figure read again is `$set` only while it still holds the
/// value the test before the read matched (issue 41): a write between the
/// read and the `$set` (an insert's `$min` of a lower value) must be kept,
/// not overwritten by what the read found. So each `$set` from a re-read
/// repeats its gate's test of the figure. Every fixture (buckets of a
/// count, time buckets, children in collections of their own).
#[test]
fn a_figure_read_again_is_set_only_while_it_holds_what_the_test_matched() {
    let mut seen = 0;
    for (name, _, d) in crate::fixtures::all() {
        for p in &d.operations {
            for s in &p.steps {
                if !s
                    .updates
                    .iter()
                    .any(|u| matches!(u, UpdateOp::SetFrom { .. }))
                {
                    continue;
                }
                let Some(gate) = s.if_matched else { continue };
                let test = &p.steps[gate - 1];
                if !test
                    .purpose
                    .iter()
                    .any(|x| matches!(x, Purpose::TestHeldComputed { .. }))
                {
                    continue;
                }
                seen += 1;
                for t in test.filter.iter().filter(|t| t.path != "_id") {
                    assert!(
                        s.filter.iter().any(|x| x.path == t.path
                            && x.op == FilterOp::Eq
                            && x.value_from == t.value_from),
                        "{name}/{}: the $set does not repeat the test {t:#?}: {s:#?}",
                        p.operation
                    );
                }
            }
        }
    }
    // vote and delete_comment's min, max and last; bucket-edits' and the
    // other fixtures' extremes.
    assert!(seen >= 6, "{seen}");
}

/// A page of count buckets skips the buckets a delete emptied (issue 41):
/// a bucket of a count is never refilled (`arrived`), so an emptied page
/// stays, and a read of the newest page would return it from then on.
/// The read tests `count > 0` through an index partial on it; a model
/// that deletes no single child (blog-comments-pages) keeps its plain read.
#[test]
fn a_page_of_count_buckets_skips_emptied_buckets() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    let p = plan(&d, "comment_page");
    let read = p
        .steps
        .iter()
        .find(|s| s.collection == "post_comments")
        .unwrap_or_else(|| panic!("no bucket read: {:#?}", p.steps));
    assert!(
        read.filter
            .iter()
            .any(|t| t.path == "count" && t.value_from == ValueSource::Above { limit: 0 }),
        "{read:#?}"
    );
    let index = d
        .collections
        .iter()
        .flat_map(|c| &c.indexes)
        .find(|i| Some(&i.name) == read.index.as_ref())
        .unwrap_or_else(|| panic!("no index for the page read: {read:#?}"));
    // Through the unique `{post, page}` index over every bucket, which
    // serves the read as well as a copy partial on `count > 0` would: the
    // read's own test skips the emptied buckets (issue 41, finding 10).
    assert!(
        index.unique && index.partial.is_empty() && index.keys.len() == 2,
        "{index:#?}"
    );
    let m = crate::inputs::model_file::parse(
        "pages.yaml",
        include_str!("../../../../../examples/blog-comments-pages.yaml"),
    )
    .expect("the example parses");
    let d = crate::advise::advise(&m, &crate::settings::Settings::default(), None).expect("advise");
    for p in &d.operations {
        for s in &p.steps {
            assert!(
                !s.filter
                    .iter()
                    .any(|t| t.path == "count" && t.value_from == ValueSource::Above { limit: 0 }),
                "{}: {s:#?}",
                p.operation
            );
        }
    }
}

/// Two inserts at once that find no open bucket both upsert one: a unique
/// index on the parent and the page, over every bucket (an emptied one
/// keeps its page), makes the second fail with a duplicate key instead of
/// opening the same page again, and the insert's plan is what asks for it
/// (issue 41). On the fixture, and on a model whose buckets no delete
/// thins.
#[test]
fn count_buckets_hold_each_page_once() {
    let (_, d) = crate::fixtures::load("bucket-count-parent-figures");
    let m = crate::inputs::model_file::parse(
        "pages.yaml",
        include_str!("../../../../../examples/blog-comments-pages.yaml"),
    )
    .expect("the example parses");
    let pages =
        crate::advise::advise(&m, &crate::settings::Settings::default(), None).expect("advise");
    for (d, parent, insert) in [(&d, "post", "add_comment"), (&pages, "post", "add_comment")] {
        let bucket = d
            .collections
            .iter()
            .find(|c| c.name == "post_comments")
            .expect("the bucket collection");
        let unique: Vec<_> = bucket
            .indexes
            .iter()
            .filter(|i| {
                i.unique
                    && i.partial.is_empty()
                    && i.keys
                        == [
                            (parent.to_string(), 1),
                            (crate::design::PAGE.to_string(), 1),
                        ]
            })
            .collect();
        assert_eq!(unique.len(), 1, "{:#?}", bucket.indexes);
        assert!(
            unique[0].used_by.iter().any(|u| u == insert),
            "{:#?}",
            unique[0]
        );
    }
}

/// The collection's figures count the buckets the plans price: thinned by
/// single deletes and never refilled (`Planner::bucket_fill`), through one
/// function (`Placement::buckets_holding`). They once disagreed: 7 buckets
/// a post in `clear_comments`, 6,000 bucket documents for 1,000 posts in
/// the collection (review finding 6, issue 41). The index entries of the
/// buckets' indexes follow the collection's documents.
#[test]
fn bucket_documents_agree_with_the_buckets_the_plans_price() {
    let (m, d) = crate::fixtures::load("bucket-count-parent-figures");
    let posts = m.entity(m.entity_by_name("post").expect("post")).count as f64;
    let bucket = d
        .collections
        .iter()
        .find(|c| c.name == "post_comments")
        .expect("the bucket collection");
    let clear = plan(&d, "clear_comments");
    let per_post = clear.steps[0].documents;
    assert!(
        (bucket.documents as f64 - per_post * posts).abs() <= 1.0,
        "{} bucket documents, {per_post} deleted a post for {posts} posts",
        bucket.documents
    );
    // Thinned: more than the 300,000 comments in full buckets of 50.
    assert!(bucket.documents > 6000, "{}", bucket.documents);
}
