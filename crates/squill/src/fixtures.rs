//! Designs to test the generators and reporters on: small YAML models under
//! `tests/fixtures/`, each relationship pinned (`layout:`) to the layout the
//! fixture is about, advised with the default settings. Pinning keeps every
//! layout covered whatever the advisor would choose on its own; advising
//! keeps the designs what `squill advise` really produces (no hand-built
//! copies to drift from it).
//!
//! - `host-logs`: parent reference extended with the host's ip, a
//!   recent-first read, the `updateMany` that refreshes the copies;
//! - `product-parts`: shared children referenced from the parent, their
//!   names copied into the reference array;
//! - `person-tasks`: two-way references, a re-link that moves both ids;
//! - `shop`: an embedded one-to-few, a subset of the latest reviews and a
//!   computed count;
//! - `sensor-readings`: buckets per hour with pre-computed aggregates;
//! - `category-tree`: a tree read recursively, up and down, with
//!   `$graphLookup`;
//! - `category-subtree`: `under` filters over parent references: a
//!   `$graphLookup` of the subtree, then `$in` its ids;
//! - `category-paths`: tree paths and paths of ids kept by the children:
//!   `under` on a path, renames into the paths, moves that rebase them;
//! - `club-feed`: a feed kept by fan-out on write: a timeline per member
//!   with copies of the newest posts of those it follows, pushed by each
//!   post, the members past the threshold of followers read at feed time;
//! - `order-stock`: each product's stock taken down by its own item's
//!   quantity (a `bulkWrite` of one `updateOne` per product), and a
//!   customer's orders read a page at a time from the last one seen, and
//!   by the page's number (`skip`).
//! - `bucket-count-parent-figures`: comments in buckets of a count whose
//!   post also keeps the count, sum, min, max and last of all its
//!   comments: an edit and a delete write the bucket, its figures and the
//!   post's; a delete of all a post's comments removes its buckets.
//! - `coupon-checkout`: an atomic group kept by undo with two inserts
//!   before its conditional write (a duplicate key on the second must
//!   undo the first), two operations with a parameter of one name
//!   (`status`), and a filter's equality and a condition's `!=` on one
//!   path.
//! - `join-open-teams`: a link whose condition tests the team, kept in
//!   the users only: a conditional write of the team's version guards it,
//!   in a transaction with the link.
//! - `bucket-time-parent-figures`: readings in hour buckets whose sensor
//!   keeps the count, sum, min and max of all its readings: a drop of a
//!   reading deletes its bucket when it was the last, and the sensor's
//!   figures move when the pull matched or that delete deleted (the
//!   cookbook's `or_deleted` gate).
//! - `batch-count`: views inserted ten at a time into one article that
//!   keeps their exact count: the count goes up by the batch's number.
//! - `tenant-writes`: every operation names its store, and every write of
//!   a store's documents tests it, those a plan adds included (kept
//!   counts and sums, copies and their fan-out, a line through its
//!   order's `_id`, bulk count-downs); a global brand's rename does not.
//! - `batch-buckets`: batches into count buckets (with the post's
//!   figures), into hour buckets and into an embedded array: one `$push
//!   $each` per chunk that fits a bucket, or of the list into the order,
//!   and every figure moved by the whole batch (issue 41).
//! - `feed-embedded-followers`: `club-feed` with the followers embedded in
//!   the followed member (outlier): the feed on demand reads the members'
//!   arrays and the follows apart; a timeline's push reads the author's
//!   array (feed44).
//! - `stock-take`: a take of the caller's number of units, never below 0
//!   (`{available: {$gte: quantity}}` and `$inc available by -quantity` in
//!   one write), and a group whose earlier `$inc` of the caller's amount
//!   is taken back by its opposite when the take matches nothing (audit43
//!   B).
//! - `hold-sum`: a group that inserts a hold, whose amount its account's
//!   kept sum takes, then takes the account's funds only if enough
//!   remain; the undo lowers the sum by the hold's own amount (audit48 A4).
//! - `bid-one-auction`: a group of one auction (`same: auction`) that
//!   records the caller's bid, then raises the auction's price only while
//!   it is open: a bid naming another auction is refused before any
//!   write, one naming none is recorded on the group's (audit48 A5).
//! - `stock-take-kinds`: the caller's amount taken from a long and from a
//!   decimal field, which its opposite must keep in their type; an amount
//!   not above 0 is refused (issue 41).
//! - `feed-ids-in-follower`: `club-feed` with each member keeping its
//!   follows' ids (`following`) and the follows naming only the followed
//!   member: a timeline's push finds the follows, then the members keeping
//!   their ids (feed44).
//! - `bucket-child-reads`: events in count buckets read on their own, by
//!   name in a window (paged by skip), by user, and the latest page: each
//!   returns the matching events, not their buckets (audit44 B).
//! - `bucket-keyset`: entries in count buckets read a statement page at a
//!   time by keyset, newest first: a page starts after the last entry's
//!   date, bucket and place in it (audit48 A10).
//! - `bucket-time-window`: ticks in buckets of a minute read in a window:
//!   the buckets picked by their key in the window's own bounds.
//! - `bucket-parent-reads`: readings in time buckets and comments in count
//!   buckets read by their parent and included from it: the newest
//!   children asked for, not their buckets.
//! - `bucket-tenant`: ticks in minute buckets and comments in count
//!   buckets under a tenant: the bucket holds the org at its top level,
//!   the reads and upserts test it (review46 items 1 and 5).
//! - `embedded-child-reads`: sales embedded in their product read by their
//!   state, newest first and paged by skip; preview tokens embedded in
//!   their page read by the token with the page's title: each returns the
//!   matching elements, not their documents (audit45 gap 3).
//! - `outlier-include-newest`: parcels' scans in the outlier layout, the
//!   newest 5 of a parcel included: the array's and, for a full array
//!   only, those apart, merged newest first (audit45 gap 2).

use crate::design::Design;
use crate::model::Model;
use crate::settings::Settings;

/// The fixtures, by name, as files.
pub(crate) const FILES: [(&str, &str); 42] = [
    (
        "tenant-depth",
        include_str!("../tests/fixtures/tenant-depth.yaml"),
    ),
    (
        "host-logs",
        include_str!("../tests/fixtures/host-logs.yaml"),
    ),
    (
        "product-parts",
        include_str!("../tests/fixtures/product-parts.yaml"),
    ),
    (
        "person-tasks",
        include_str!("../tests/fixtures/person-tasks.yaml"),
    ),
    ("shop", include_str!("../tests/fixtures/shop.yaml")),
    (
        "sensor-readings",
        include_str!("../tests/fixtures/sensor-readings.yaml"),
    ),
    (
        "category-tree",
        include_str!("../tests/fixtures/category-tree.yaml"),
    ),
    (
        "category-subtree",
        include_str!("../tests/fixtures/category-subtree.yaml"),
    ),
    (
        "category-paths",
        include_str!("../tests/fixtures/category-paths.yaml"),
    ),
    (
        "club-feed",
        include_str!("../tests/fixtures/club-feed.yaml"),
    ),
    (
        "order-stock",
        include_str!("../tests/fixtures/order-stock.yaml"),
    ),
    (
        "bucket-edits",
        include_str!("../tests/fixtures/bucket-edits.yaml"),
    ),
    (
        "bucket-count-parent-figures",
        include_str!("../tests/fixtures/bucket-count-parent-figures.yaml"),
    ),
    (
        "coupon-checkout",
        include_str!("../tests/fixtures/coupon-checkout.yaml"),
    ),
    (
        "join-open-teams",
        include_str!("../tests/fixtures/join-open-teams.yaml"),
    ),
    (
        "bucket-time-parent-figures",
        include_str!("../tests/fixtures/bucket-time-parent-figures.yaml"),
    ),
    (
        "subset-figures",
        include_str!("../tests/fixtures/subset-figures.yaml"),
    ),
    (
        "batch-count",
        include_str!("../tests/fixtures/batch-count.yaml"),
    ),
    (
        "tenant-writes",
        include_str!("../tests/fixtures/tenant-writes.yaml"),
    ),
    (
        "bucket-child-reads",
        include_str!("../tests/fixtures/bucket-child-reads.yaml"),
    ),
    (
        "bucket-time-window",
        include_str!("../tests/fixtures/bucket-time-window.yaml"),
    ),
    (
        "bucket-keyset",
        include_str!("../tests/fixtures/bucket-keyset.yaml"),
    ),
    (
        "bucket-parent-reads",
        include_str!("../tests/fixtures/bucket-parent-reads.yaml"),
    ),
    (
        "bucket-tenant",
        include_str!("../tests/fixtures/bucket-tenant.yaml"),
    ),
    (
        "embedded-child-reads",
        include_str!("../tests/fixtures/embedded-child-reads.yaml"),
    ),
    (
        "embedded-element-updates",
        include_str!("../tests/fixtures/embedded-element-updates.yaml"),
    ),
    (
        "outlier-include-newest",
        include_str!("../tests/fixtures/outlier-include-newest.yaml"),
    ),
    (
        "show-purchase",
        include_str!("../tests/fixtures/show-purchase.yaml"),
    ),
    (
        "batch-buckets",
        include_str!("../tests/fixtures/batch-buckets.yaml"),
    ),
    (
        "feed-embedded-followers",
        include_str!("../tests/fixtures/feed-embedded-followers.yaml"),
    ),
    (
        "stock-take",
        include_str!("../tests/fixtures/stock-take.yaml"),
    ),
    (
        "stock-take-kinds",
        include_str!("../tests/fixtures/stock-take-kinds.yaml"),
    ),
    (
        "feed-ids-in-follower",
        include_str!("../tests/fixtures/feed-ids-in-follower.yaml"),
    ),
    (
        "counts-and-finders",
        include_str!("../tests/fixtures/counts-and-finders.yaml"),
    ),
    (
        "child-counts",
        include_str!("../tests/fixtures/child-counts.yaml"),
    ),
    (
        "tenant-lines",
        include_str!("../tests/fixtures/tenant-lines.yaml"),
    ),
    (
        "embedded-figures",
        include_str!("../tests/fixtures/embedded-figures.yaml"),
    ),
    (
        "expiring-embedded",
        include_str!("../tests/fixtures/expiring-embedded.yaml"),
    ),
    ("hold-sum", include_str!("../tests/fixtures/hold-sum.yaml")),
    (
        "bid-one-auction",
        include_str!("../tests/fixtures/bid-one-auction.yaml"),
    ),
    (
        "tenant-parents",
        include_str!("../tests/fixtures/tenant-parents.yaml"),
    ),
    (
        "outlier-child-filters",
        include_str!("../tests/fixtures/outlier-child-filters.yaml"),
    ),
];

/// Fixtures left out of `all()`, loaded by name by their own tests:
/// `bucket-child-reads` is checked by its own script
/// (check_bucket_elements.py), which writes buckets whose events it knows;
/// so are `bucket-time-window` (check_bucket_window.py),
/// `bucket-parent-reads` (check_bucket_parent_reads.py),
/// `embedded-child-reads` (check_embedded_elements.py),
/// `child-counts` (check_child_counts.py), `tenant-lines`
/// (check_tenant_lines.py),
/// `embedded-element-updates` (check_element_updates.py),
/// `outlier-include-newest` (check_outlier_newest.py),
/// `outlier-child-filters` (check_outlier_filters.py), `bucket-tenant`
/// (check_bucket_tenant.py), `expiring-embedded`
/// (check_expiring_embedded.py), `embedded-figures`
/// (check_embedded_figures.py), `hold-sum` (check_amount.py),
/// `bid-one-auction` (check_same_instance.py), `tenant-parents`
/// (check_tenant_insert.py) and `bucket-keyset` (check_bucket_keyset.py),
/// which write documents whose children they know.
const ONLY_BY_NAME: [&str; 16] = [
    "embedded-figures",
    "bucket-keyset",
    "expiring-embedded",
    "bid-one-auction",
    "hold-sum",
    "tenant-parents",
    "bucket-child-reads",
    "child-counts",
    "tenant-lines",
    "bucket-time-window",
    "bucket-parent-reads",
    "bucket-tenant",
    "embedded-child-reads",
    "embedded-element-updates",
    "outlier-include-newest",
    "outlier-child-filters",
];

/// The model and its design. Panics on a fixture that does not load or
/// advise: that is a broken test input, not a case to handle.
pub fn load(name: &str) -> (Model, Design) {
    let (_, text) = FILES
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no fixture `{name}`"));
    let model = crate::inputs::model_file::parse(&format!("{name}.yaml"), text)
        .unwrap_or_else(|e| panic!("fixture {name}: {e:?}"));
    let design = crate::advise::advise(&model, &Settings::default(), None)
        .unwrap_or_else(|e| panic!("fixture {name}: {e:?}"));
    (model, design)
}

pub fn host_logs() -> (Model, Design) {
    load("host-logs")
}

pub fn product_parts() -> (Model, Design) {
    load("product-parts")
}

pub fn person_tasks() -> (Model, Design) {
    load("person-tasks")
}

pub fn shop() -> (Model, Design) {
    load("shop")
}

pub fn sensor_readings() -> (Model, Design) {
    load("sensor-readings")
}

/// A model whose names are not safe as file names or in code (slashes,
/// quotes, line feeds, U+2028), with two operations whose names differ only
/// by punctuation, and its design. Not in `all()`: the tests about names
/// load it (issue 40).
pub fn hostile_names() -> (Model, Design) {
    let text = include_str!("../tests/fixtures/hostile-names.yaml");
    let model = crate::inputs::model_file::parse("hostile-names.yaml", text)
        .unwrap_or_else(|e| panic!("fixture hostile-names: {e:?}"));
    let design = crate::advise::advise(&model, &Settings::default(), None)
        .unwrap_or_else(|e| panic!("fixture hostile-names: {e:?}"));
    (model, design)
}

/// A claim by a place (`near(3 km)`) and its design. Not in `all()`: the
/// server check of the generated claim loads it (audit43 O).
pub fn geo_claim() -> (Model, Design) {
    let text = include_str!("../tests/fixtures/geo-claim.yaml");
    let model = crate::inputs::model_file::parse("geo-claim.yaml", text)
        .unwrap_or_else(|e| panic!("fixture geo-claim: {e:?}"));
    let design = crate::advise::advise(&model, &Settings::default(), None)
        .unwrap_or_else(|e| panic!("fixture geo-claim: {e:?}"));
    (model, design)
}

/// The audit's leaderboard (`advise/tests/leaderboard-feed.yaml`) with its
/// follows pinned: each keeps its follower's id, and the followed player
/// holds its first followers (outlier). Its feed is read on demand, from
/// the players' arrays and the follows apart (feed44).
pub fn outlier_feed() -> (Model, Design) {
    let text = include_str!("advise/tests/leaderboard-feed.yaml");
    let mut model = crate::inputs::model_file::parse("leaderboard-feed.yaml", text)
        .unwrap_or_else(|e| panic!("leaderboard-feed: {e:?}"));
    for (name, kind) in [
        ("following", crate::model::LayoutKind::ParentReference),
        ("followers", crate::model::LayoutKind::Outlier),
    ] {
        let r = model.relationships.iter_mut().find(|r| r.name == name);
        r.unwrap_or_else(|| panic!("no relationship {name}")).layout = Some(kind);
    }
    let design = crate::advise::advise(&model, &Settings::default(), None)
        .unwrap_or_else(|e| panic!("leaderboard-feed: {e:?}"));
    (model, design)
}

/// Every fixture, with its name.
pub fn all() -> Vec<(&'static str, Model, Design)> {
    FILES
        .iter()
        .filter(|(name, _)| !ONLY_BY_NAME.contains(name))
        .map(|(name, _)| {
            let (m, d) = load(name);
            (*name, m, d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    /// Each fixture is advised into the layout it is pinned to: the pins
    /// hold, so the generators' tests cover every layout they name.
    #[test]
    fn every_fixture_has_its_pinned_layouts() {
        for (name, model, design) in super::all() {
            for (r, d) in model.relationships.iter().zip(&design.relationships) {
                let pin = r
                    .layout
                    .unwrap_or_else(|| panic!("{name}: {} is not pinned", r.name));
                assert_eq!(d.chosen.layout_kind(), pin, "{name}: {}", r.name);
            }
        }
    }
}
