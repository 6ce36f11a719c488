//! The capacity projection (`advise --horizon`): scenario C1 as a golden
//! test of its structure (which limit comes first and when, the figures
//! per collection, what to change), and the projection's parts on small
//! models, each with a near miss. Expected figures are computed here from
//! the model's own numbers, never copied from an output.

use super::golden::{example, example_text};
use crate::advise::advise;
use crate::design::capacity::{Capacity, CollectionGrowth, LimitKind, LimitReached, Remedy};
use crate::model::{Deployment, GIB, Horizon, Model};
use crate::settings::Settings;

fn projected(model: &Model, months: u32, deployment: Deployment) -> Capacity {
    let mut settings = Settings::default();
    settings.capacity.horizon = Some(Horizon { months });
    settings.capacity.command_line = deployment;
    advise(model, &settings, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .capacity
        .unwrap_or_else(|| panic!("a projection"))
}

fn c1(months: u32) -> Capacity {
    projected(
        &example("scenarios/c01-chat-capacity"),
        months,
        Deployment::default(),
    )
}

fn row<'c>(c: &'c Capacity, month: u32, collection: &str) -> &'c CollectionGrowth {
    c.months[month as usize]
        .collections
        .iter()
        .find(|r| r.collection == collection)
        .unwrap_or_else(|| panic!("{collection} in month {month}"))
}

fn reached(c: &Capacity, kind: LimitKind) -> Option<&LimitReached> {
    c.limits.iter().find(|l| l.limit == kind)
}

/// C1: the working set passes the cache before the largest channel's
/// members array reaches 16 MiB; the members array breaks its rule today;
/// the document limit is reached in the month the members' growth (8 % a
/// month, the users') takes the channel past 16 MiB.
#[test]
fn c01_chat_capacity() {
    let c = c1(36);
    assert_eq!(c.months.len(), 37);
    // The deployment of the model: 64 GiB, a cache of 31.5 GiB; 4 TiB.
    assert_eq!(c.deployment.cache_bytes, Some(63 * GIB / 2));
    assert_eq!(c.deployment.disk_bytes, Some(4096 * GIB));
    let first = &c.limits[0];
    assert_eq!(first.limit, LimitKind::WorkingSet);
    let document = reached(&c, LimitKind::DocumentSize).unwrap_or_else(|| panic!("16 MiB"));
    assert_eq!(document.collection.as_deref(), Some("channel"));
    assert_eq!(document.field.as_deref(), Some("members"));
    assert!(first.month < document.month, "{:?}", c.limits);
    // The month is the first whose largest channel passes 16 MiB.
    let m = document.month;
    let limit = 16.0 * 1024.0 * 1024.0;
    assert!(row(&c, m, "channel").max_bytes.unwrap_or(0) as f64 > limit);
    assert!(row(&c, m - 1, "channel").max_bytes.unwrap_or(u64::MAX) as f64 <= limit);
    // The members of the largest channel follow the users: 100,000 × 1.08^m.
    for month in [0, 12, m] {
        let members = row(&c, month, "channel")
            .largest_array
            .as_ref()
            .unwrap_or_else(|| panic!("members"));
        assert_eq!(members.field, "members");
        let expected = (100_000.0 * 1.08f64.powi(month as i32)).round() as u64;
        assert_eq!(members.items, expected, "month {month}");
    }
    // 100,000 ids already break the rule of a few thousand.
    let array = reached(&c, LimitKind::ArrayRule).unwrap_or_else(|| panic!("array rule"));
    assert_eq!((array.month, array.field.as_deref()), (0, Some("members")));
    // Messages: 3 B growing 12 % a month; their documents do not grow.
    for month in [0, 12, 36] {
        let messages = row(&c, month, "message");
        let expected = (3e9 * 1.12f64.powi(month as i32)).round() as u64;
        assert!(
            messages.documents.abs_diff(expected) <= 1,
            "month {month}: {} against {expected}",
            messages.documents
        );
        assert_eq!(messages.typical_bytes, row(&c, 0, "message").typical_bytes);
    }
    // The channels keep their number; the subset of 50 messages does not grow.
    assert_eq!(row(&c, 36, "channel").documents, 200_000);
    // Disk and sharding come later than the working set, each in order.
    let disk = reached(&c, LimitKind::DiskFull).unwrap_or_else(|| panic!("disk"));
    let size = reached(&c, LimitKind::ShardingSize).unwrap_or_else(|| panic!("size"));
    assert_eq!(size.collection.as_deref(), Some("message"));
    assert!(first.month <= size.month && size.month <= disk.month);
    assert!(disk.month < document.month);
    // What to change: the members' layout (advise priced it), and shards.
    assert!(c.remedies.iter().any(|r| matches!(r,
        Remedy::Layout { relationship, limit: LimitKind::DocumentSize, .. } if relationship == "members")));
    assert!(c.remedies.iter().any(|r| matches!(
        r,
        Remedy::Shard {
            limit: LimitKind::WorkingSet,
            ..
        }
    )));
}

/// Near miss: a horizon that stops a month before the document limit
/// does not reach it.
#[test]
fn c01_one_month_short_of_the_document_limit() {
    let month = reached(&c1(36), LimitKind::DocumentSize)
        .unwrap_or_else(|| panic!("16 MiB"))
        .month;
    assert!(reached(&c1(month - 1), LimitKind::DocumentSize).is_none());
    assert!(reached(&c1(month), LimitKind::DocumentSize).is_some());
}

/// The command line's figures come over the model's: with twice the RAM
/// the cache is 50 % of (128 GiB − 1 GiB); shards split the data.
#[test]
fn the_command_line_comes_over_the_model() {
    let c = projected(
        &example("scenarios/c01-chat-capacity"),
        12,
        Deployment {
            ram_bytes: Some(128 * GIB),
            shards: Some(4),
            ..Deployment::default()
        },
    );
    assert_eq!(c.deployment.cache_bytes, Some(127 * GIB / 2));
    assert_eq!(c.deployment.disk_bytes, Some(4096 * GIB));
    assert_eq!(c.deployment.shards, 4);
    // The sharding size is per shard: four shards reach it later than one.
    let one = reached(&c1(36), LimitKind::ShardingSize).map(|l| l.month);
    let four = projected(
        &example("scenarios/c01-chat-capacity"),
        36,
        Deployment {
            shards: Some(4),
            ..Deployment::default()
        },
    );
    let four = reached(&four, LimitKind::ShardingSize).map(|l| l.month);
    assert!(four > one, "{four:?} against {one:?}");
}

/// Without RAM or disk, those limits are not checked, and said so.
#[test]
fn limits_without_their_figure_are_unchecked() {
    let text = example_text("scenarios/c01-chat-capacity")
        .replace("deployment: {ram: 64GiB, disk: 4TiB}\n", "");
    let model =
        crate::inputs::model_file::parse("c1.yaml", &text).unwrap_or_else(|e| panic!("{e}"));
    let c = projected(&model, 12, Deployment::default());
    assert_eq!(
        c.unchecked,
        vec![LimitKind::WorkingSet, LimitKind::DiskFull]
    );
    assert!(reached(&c, LimitKind::WorkingSet).is_none());
    assert!(reached(&c, LimitKind::DiskFull).is_none());
    assert!(reached(&c, LimitKind::ShardingSize).is_some());
}

/// Without a horizon there is no projection: the design is as before.
#[test]
fn no_horizon_no_projection() {
    let d = advise(
        &example("scenarios/c01-chat-capacity"),
        &Settings::default(),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(d.capacity.is_none());
}

/// A model that does not grow keeps its figures; a working set that fits
/// is not a limit (the near miss of C1's: the same deployment, a model a
/// thousand times smaller).
#[test]
fn a_model_without_growth_stays_as_it_is() {
    let text = example_text("scenarios/c01-chat-capacity")
        .replace("    growth: {percent: 8, per: month}\n", "")
        .replace("    growth: {percent: 12, per: month}\n", "")
        .replace("count: 3000000000", "count: 3000000");
    let model =
        crate::inputs::model_file::parse("c1.yaml", &text).unwrap_or_else(|e| panic!("{e}"));
    let c = projected(&model, 6, Deployment::default());
    assert_eq!(c.months[0].collections, c.months[6].collections);
    assert!(
        reached(&c, LimitKind::WorkingSet).is_none(),
        "{:?}",
        c.limits
    );
    assert!(c.months[6].working_set_bytes < c.deployment.cache_bytes.unwrap_or(0));
}

/// Reads that keep to recent messages (`since`) hold only those in the
/// working set: the documents of the last 30 days, not all of them.
#[test]
fn recent_reads_hold_recent_documents() {
    let text = example_text("scenarios/c01-chat-capacity").replace(
        "filter: {channel: eq, sent_at: lt}",
        "filter: {channel: eq, sent_at: since(30 days)}",
    );
    let model =
        crate::inputs::model_file::parse("c1.yaml", &text).unwrap_or_else(|e| panic!("{e}"));
    let recent = projected(&model, 1, Deployment::default());
    let all = c1(1);
    let (r, a) = (row(&recent, 1, "message"), row(&all, 1, "message"));
    assert_eq!(a.working_set_bytes, a.index_bytes + a.data_bytes);
    assert!(r.working_set_bytes < a.working_set_bytes, "{r:?} {a:?}");
    // The messages of the last 30 days: a month of 12 % growth on 3 B
    // (whether advise keeps the older ones in an archive or not).
    let docs = (r.working_set_bytes - r.index_bytes) as f64 / r.typical_bytes as f64;
    let expected = 3e9 * 1.12 - 3e9;
    assert!(
        (docs - expected).abs() / expected < 0.01,
        "{docs} against {expected}"
    );
}

/// A timeline collection (fan-out on write, no entity its root) grows with
/// the model: a document per member, so the members' stated growth, and
/// each document's outliers with the follows. Near miss: without growth
/// it stays as it is.
#[test]
fn a_timeline_grows_with_its_readers() {
    let text = include_str!("../../../tests/fixtures/club-feed.yaml");
    let grown_text = text.replace(
        "    count: 1000000\n",
        "    count: 1000000\n    growth: {percent: 10, per: month}\n",
    );
    assert_ne!(grown_text, text, "the member's count is in the fixture");
    let parse = |t: &str| {
        crate::inputs::model_file::parse("club-feed.yaml", t).unwrap_or_else(|e| panic!("{e}"))
    };
    let model = parse(&grown_text);
    let c = projected(&model, 12, Deployment::default());
    let (today, later) = (
        row(&c, 0, "member_timeline"),
        row(&c, 12, "member_timeline"),
    );
    let member = model
        .entity_by_name("member")
        .unwrap_or_else(|| panic!("member"));
    let expected = crate::model::count_at(&model, member, 12.0 * crate::model::DAYS_A_MONTH);
    assert_eq!(today.documents, 1_000_000);
    assert_eq!(later.documents, expected.round() as u64);
    assert!(later.data_bytes > today.data_bytes, "{today:?} {later:?}");
    let flat = projected(&parse(text), 12, Deployment::default());
    assert_eq!(
        row(&flat, 0, "member_timeline"),
        row(&flat, 12, "member_timeline")
    );
}
