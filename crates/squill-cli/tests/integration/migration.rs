//! `squill generate --migration` end to end on the SecantusDB server that
//! `scripts/test` starts: the design of today's data (generated from the
//! model with each relationship pinned to its layout of today) is loaded
//! under its validators, migration.js runs twice (the second run must change
//! nothing), then the recommended design's cookbook runs against the result
//! (check_generated.py --no-load), and the counts and fan-out are compared
//! with the source, independently of the script's own verification. Without
//! the servers the test skips with a NOTICE, and fails under CI=true.

use crate::support::{TempDir, Test};
use crate::support::{mongo, run_tool, with_db};
use std::path::Path;
use std::process::Command;

/// The model in `path` (under the repository) with relationship `rel`
/// pinned to `layout` (after the line `after`) and, when given, a
/// `current:` section.
fn from_file(
    path: &str,
    after: &str,
    rel: &str,
    layout: Option<&str>,
    current: Option<&str>,
) -> String {
    let text = std::fs::read_to_string(crate::support::repo_root().join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    pinned(&text, after, rel, layout, current)
}

/// product-reviews, `reviews` pinned.
fn reviews(layout: Option<&str>, current: Option<&str>) -> String {
    let at = "    child_field: product_id\n";
    from_file(
        "examples/product-reviews.yaml",
        at,
        "reviews",
        layout,
        current,
    )
}

/// product-reviews whose product page also shows the average and the
/// latest rating, `reviews` pinned.
fn rated(layout: Option<&str>, current: Option<&str>) -> String {
    let text = reviews(layout, current);
    let (from, to) = (
        "aggregates: [count(reviews)]",
        "aggregates: [count(reviews), avg(reviews.rating), last(reviews.rating)]",
    );
    assert!(text.contains(from));
    text.replacen(from, to, 1)
}

/// product-reviews whose product page shows the latest 3 reviews (today's
/// products, up to 6 reviews each, have more than a subset keeps),
/// `reviews` pinned.
fn latest_reviews(layout: Option<&str>, current: Option<&str>) -> String {
    let text = reviews(layout, current);
    let page = "reviews: {sort: -date, limit: 10,";
    assert!(text.contains(page), "the example's product page");
    text.replacen(page, "reviews: {sort: -date, limit: 3,", 1)
}

/// Each product's reviews rotated by two (up to 6, in the order written):
/// its newest three are then neither the first nor the last three of its
/// array, so a subset cut by position instead of by date is told.
const ROTATED_REVIEWS: &str = r#"db.product.find({}).forEach((p) => {
                  const r = p.reviews || [];
                  db.product.updateOne({ _id: p._id }, { $set: { reviews: r.slice(2).concat(r.slice(0, 2)) } });
                })"#;

/// Two products' first reviews under one `_id` (a copy and paste of
/// today's application): moved to their own collection, they would be one
/// review.
const SHARED_REVIEW_ID: &str = r#"const id = new ObjectId();
                db.product.find({ "reviews.0": { $exists: true } }).limit(2).forEach((p) => {
                  db.product.updateOne({ _id: p._id }, { $set: { "reviews.0._id": id } });
                })"#;

/// order-customer, `orders` pinned.
fn orders(layout: Option<&str>, current: Option<&str>) -> String {
    let at = "    child_field: customer\n";
    from_file(
        "examples/order-customer.yaml",
        at,
        "orders",
        layout,
        current,
    )
}

/// books-authors, `authors` pinned.
fn authors(layout: Option<&str>, current: Option<&str>) -> String {
    let at = "    shared: true\n";
    from_file(
        "examples/books-authors.yaml",
        at,
        "authors",
        layout,
        current,
    )
}

/// sensor-readings (readings bucketed per sensor and hour), `readings`
/// pinned.
fn readings(layout: Option<&str>, current: Option<&str>) -> String {
    let at = "    child_field: sensor\n";
    from_file(
        "examples/sensor-readings.yaml",
        at,
        "readings",
        layout,
        current,
    )
}

/// sensor-readings with at most 5,000 readings a sensor (today's design can
/// embed them) read 4 at a time, so that a bucket holds 4 and a sensor of
/// today's data (up to 6 readings) fills more than one.
fn bounded_readings(layout: Option<&str>, current: Option<&str>) -> String {
    let text = readings(layout, current);
    let (children, limit) = (
        "typical: 525600, max: unbounded, growth_per_day: 1440}",
        "limit: 60}",
    );
    assert!(
        text.contains(children) && text.contains(limit),
        "the example's readings"
    );
    text.replacen(children, "typical: 500, max: 5000}", 1)
        .replacen(limit, "limit: 4}", 1)
}

/// sensor-readings with at most 5,000 readings a sensor, still growing by
/// 1,440 a day: advise buckets them by hour, and today's design can embed
/// them.
fn growing_readings(layout: Option<&str>, current: Option<&str>) -> String {
    let text = readings(layout, current);
    let children = "typical: 525600, max: unbounded, growth_per_day: 1440}";
    assert!(text.contains(children), "the example's readings");
    text.replacen(
        children,
        "typical: 500, max: 5000, growth_per_day: 1440}",
        1,
    )
}

/// The user-profile scenario, `user_settings` pinned.
fn settings(layout: Option<&str>, current: Option<&str>) -> String {
    let path = "examples/scenarios/s13-user-profile.yaml";
    from_file(
        path,
        "    child_field: user\n",
        "user_settings",
        layout,
        current,
    )
}

/// blog-comments-pages (comments bucketed 50 to a page), `comments` pinned.
fn comments(layout: Option<&str>, current: Option<&str>) -> String {
    let at = "    child_field: post\n";
    from_file(
        "examples/blog-comments-pages.yaml",
        at,
        "comments",
        layout,
        current,
    )
}

/// blog-comments-pages whose comments carry int votes, and whose page shows
/// their sum, least and greatest: each bucket keeps them over its comments
/// (issue 41: the least and greatest an int as the votes are).
fn voted_comments(layout: Option<&str>, current: Option<&str>) -> String {
    let text = comments(layout, current);
    let (fields, include) = (
        "      comment: string(200)\n",
        "      comments: {sort: created_on, limit: 50}\n",
    );
    assert!(
        text.contains(fields) && text.contains(include),
        "the example's comments"
    );
    text.replacen(
        fields,
        "      comment: string(200)\n      votes: {type: int, distinct: 100}\n",
        1,
    )
    .replacen(
        include,
        "      comments: {sort: created_on, limit: 50}\n    aggregates: [sum(comments.votes), min(comments.votes), max(comments.votes)]\n",
        1,
    )
}

/// Event attendees (examples/scenarios/s05-attendees.yaml), `attendees`
/// pinned, with a typical event of 2 and a p99 of 3, so that under
/// `SMALL_ARRAYS` the outlier's threshold is 3 and events past it (up to
/// `--max-children 6`) keep the rest in the attendee collection.
fn attendees(layout: Option<&str>, current: Option<&str>) -> String {
    let text = from_file(
        "examples/scenarios/s05-attendees.yaml",
        "    child_field: event\n",
        "attendees",
        layout,
        current,
    );
    let usual = "children: {min: 0, typical: 30, p99: 400, max: 2000000}";
    assert!(text.contains(usual), "the example's attendees");
    text.replacen(
        usual,
        "children: {min: 0, typical: 2, p99: 3, max: 2000000}",
        1,
    )
}

/// The same, the event's page showing two attendees at a time: a bucket of
/// two is a candidate beside the outlier (the way from one to the other
/// goes through a parent reference).
fn paged_attendees(layout: Option<&str>, current: Option<&str>) -> String {
    let text = attendees(layout, current);
    let all = "attendees: {fields: [name]}";
    assert!(text.contains(all), "the example's event page");
    text.replacen(all, "attendees: {fields: [name], limit: 2}", 1)
}

/// Attendees' model text with every event of today's data holding 4 to 6
/// of them: past the outlier's threshold of 3, and more than a subset of 2
/// keeps.
fn crowded(model: String) -> String {
    let usual = "children: {min: 0, typical: 2, p99: 3, max: 2000000}";
    assert!(model.contains(usual), "the attendees' children");
    model.replacen(usual, "children: {min: 4, typical: 5, max: 6}", 1)
}

/// Orders archived by age (examples/scenarios/s11-orders.yaml), `orders`
/// pinned; `current` adds the archive of today's (`without:` or not).
fn archived_orders(layout: Option<&str>, current: Option<&str>) -> String {
    from_file(
        "examples/scenarios/s11-orders.yaml",
        "    child_field: customer\n",
        "orders",
        layout,
        current,
    )
}

/// The same, without the reads by age that make advise split the orders:
/// the design of today's data, all orders in one collection.
fn orders_in_one_collection() -> String {
    let text = archived_orders(Some("parent-reference"), None);
    let aged = ["since(90 days)", "before(90 days)", "since(7 days)"];
    assert!(aged.iter().all(|a| text.contains(a)), "s11 reads by age");
    aged.iter().fold(text, |t, a| t.replace(a, "range"))
}

/// s11-orders with the recent orders shown with their customer's name: the
/// live orders copy it (an extended reference), the archived ones keep the
/// customer's id as today.
fn archived_orders_with_names(layout: Option<&str>, current: Option<&str>) -> String {
    let text = archived_orders(layout, current);
    let at = "    sort: -placed_at\n    limit: 20\n  old_orders:\n";
    assert!(text.contains(at), "s11 reads the recent orders");
    text.replacen(
        at,
        "    sort: -placed_at\n    limit: 20\n    include:\n      customer: {fields: [name]}\n  old_orders:\n",
        1,
    )
}

/// Listings of three kinds (examples/scenarios/s04-marketplace-kinds.yaml),
/// each kind in a collection of its own today (`without: {polymorphic:
/// all}`).
fn listings() -> String {
    from_file(
        "examples/scenarios/s04-marketplace-kinds.yaml",
        "    child_field: seller\n",
        "without",
        None,
        Some("{polymorphic: all}"),
    )
}

/// The same without the search across kinds that makes advise keep them
/// in one collection: the design of today's data.
fn listings_apart() -> String {
    let text = std::fs::read_to_string(
        crate::support::repo_root().join("examples/scenarios/s04-marketplace-kinds.yaml"),
    )
    .unwrap();
    let across = "  search_by_city:\n    description: every kind in a city, in a price range\n    read: [car_listing, phone_listing, flat_listing]\n    rate: 1000\n    filter: {city: eq, price: range(0.2)}\n    sort: price\n    limit: 24\n    fields: [title, price]\n";
    assert!(text.contains(across), "s04 searches across kinds");
    text.replacen(across, "", 1)
}

/// Listings (`listings` or `listings_apart`) whose searches show their
/// seller's name: each kind copies it (an extended reference), in its own
/// collection today and in the shared one.
fn with_sellers(mut text: String) -> String {
    for op in ["search_cars", "search_phones", "search_flats"] {
        let at = text.find(&format!("  {op}:\n")).expect("the search");
        let end = at + text[at..].find("    limit: 24\n").expect("its limit") + 14;
        text.insert_str(end, "    include:\n      seller: {fields: [name]}\n");
    }
    text
}

/// The orders of today with no archive.
const NO_ARCHIVE: &str = "parent-reference\n  without: {archive: [order]}";

/// All orders in one collection today, half of them placed today, the rest
/// in 2024, past the archive's 90 days, and `model` recommending an
/// archive: every order of today once after the final step, the recent
/// ones still in `order`, the old ones in `order_archive` (a document in
/// both, or in neither, changes the count or the digest; one side empty
/// fails too).
fn archived(name: &'static str, model: String) -> Case {
    Case {
        name,
        model,
        today: orders_in_one_collection(),
        prepare: Some(HALF_PLACED_TODAY),
        split: Some((
            "order|_id|customer",
            "order|_id|customer+order_archive|_id|customer",
        )),
        ..Case::default()
    }
}

/// Listings whose kinds keep their seller's id today: pinned to a parent
/// reference (`pin`, the data of today), or so in `current:`.
fn sellers_of_today(text: String, pin: bool) -> String {
    if pin {
        let at = "    child_field: seller\n";
        assert_eq!(text.matches(at).count(), 3, "the kinds' sellers");
        return text.replace(at, &format!("{at}    layout: parent-reference\n"));
    }
    assert!(text.contains("\ncurrent:\n"), "the listings' current:");
    text + "  cars: parent-reference\n  phones: parent-reference\n  flats: parent-reference\n"
}

/// The sellers of the listings of today, in the kinds' collections.
const SELLERS: &str = "car_listing|_id|seller+phone_listing|_id|seller+flat_listing|_id|seller";

/// The listings' kinds merged into `listing` (`moved`: the links of today
/// and where they must be after), each kind's collection dropped in the
/// final step.
fn kinds_merged(
    name: &'static str,
    model: String,
    today: String,
    moved: Vec<(&'static str, &'static str)>,
) -> Case {
    Case {
        name,
        model,
        today,
        moved,
        kinds: Some((
            "listing",
            "kind",
            &["car_listing", "phone_listing", "flat_listing"],
        )),
        dropped: vec![
            "car_listing|_id|seller",
            "phone_listing|_id|seller",
            "flat_listing|_id|seller",
        ],
        // The checker samples each parameter from the first document that
        // has its path: the kind from the first listing, a car, so the
        // phones' and flats' searches look for cars with a phone's brand
        // (generate's own data passes only because it writes every kind's
        // fields into every document).
        expect_fail: vec!["search_phones", "search_flats"],
        ..Case::default()
    }
}

/// The `_id`s of each kind's collection against those of the polymorphic
/// collection with that kind, measured by pymongo: `shared`,
/// `discriminator`, then the kinds (each its collection's name).
const KINDS: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
shared, disc = sys.argv[3], sys.argv[4]
out = {}
for kind in sys.argv[5:]:
    own = sorted(str(d["_id"]) for d in db[kind].find({}, {"_id": 1}))
    merged = sorted(str(d["_id"]) for d in db[shared].find({disc: kind}, {"_id": 1}))
    out[kind] = {"n": len(own), "same": own == merged}
print(json.dumps(out))
"#;

/// Today's outlier layout as registering attendees would leave it: each
/// event's array filled to the threshold of 3, and two attendees past it in
/// the attendee collection.
const OUTLIERS_OF_TODAY: &str = r#"db.event.find({}).forEach((e) => {
                  const a = e.attendees || [];
                  while (a.length < 3) a.push({ _id: new ObjectId(), name: `in ${a.length}`, registered_at: new Date(Date.UTC(2024, 0, 2)), event: e._id });
                  db.event.updateOne({ _id: e._id }, { $set: { attendees: a } });
                  db.attendee.insertMany([1, 2].map((n) => ({ _id: new ObjectId(), name: `past ${n}`, registered_at: new Date(Date.UTC(2024, 0, 3, n)), event: e._id })));
                })"#;

/// Half of today's orders (the first by `_id`) placed today, the rest in
/// 2024 as generated: past an archive's horizon of 90 days.
const HALF_PLACED_TODAY: &str = "const ids = db.order.find({}, { _id: 1 }).sort({ _id: 1 }).toArray().map((d) => d._id); \
     db.order.updateMany({ _id: { $in: ids.slice(0, Math.floor(ids.length / 2)) } }, { $set: { placed_at: new Date() } })";

/// Settings under which an embedded array holds at most 3 items (the
/// outlier's threshold).
const SMALL_ARRAYS: &str = "[cardinality]\nembed-max = 3\nreference-array-max = 3\n";

/// club-feed (the generators' fixture: a timeline per member, fan-out on
/// write), `posts` pinned to `layout` instead of parent-reference.
fn club(layout: &str, current: Option<&str>) -> String {
    let path = "crates/squill/tests/fixtures/club-feed.yaml";
    let text = std::fs::read_to_string(crate::support::repo_root().join(path)).unwrap();
    let at = "    child_field: author\n    layout: parent-reference\n";
    assert!(text.contains(at), "the fixture pins posts");
    let text = text.replacen(
        at,
        &format!("    child_field: author\n    layout: {layout}\n"),
        1,
    );
    pinned(&text, "    child_field: author\n", "posts", None, current)
}

/// club-feed with a feed of 5 posts and a followers' p99 of 5 (the
/// timeline's threshold): at `--scale 10`, each member follows 5 or 6
/// others (of 6 posts each at most), so every timeline is cut at the
/// limit and the members with 6 followers are outliers.
fn small_club(layout: &str, current: Option<&str>) -> String {
    let text = club(layout, current);
    let (followers, limit) = (
        "children: {min: 0, typical: 100, p99: 2000, max: 500000}",
        "    limit: 30\n",
    );
    assert!(
        text.contains(followers) && text.contains(limit),
        "the fixture's followers and feed"
    );
    text.replacen(
        followers,
        "children: {min: 0, typical: 3, p99: 5, max: 500000}",
        1,
    )
    .replacen(limit, "    limit: 5\n", 1)
}

/// book-tags (the advise tests' model: a many-to-many whose links carry
/// an attribute, `added_at`), `tags` pinned.
fn tags(layout: Option<&str>, current: Option<&str>) -> String {
    let path = "crates/squill/src/advise/tests/book-tags.yaml";
    from_file(path, "    standalone: true\n", "tags", layout, current)
}

/// category-paths (the generators' fixture: a tree of categories whose
/// breadcrumbs and subtrees are read, and products listed under a category)
/// with the tree `subcategories` and `products` pinned, and `current`
/// (entries, one a line).
fn categories(tree: &str, products: &str, current: &[&str]) -> String {
    let path = "crates/squill/tests/fixtures/category-paths.yaml";
    let text = std::fs::read_to_string(crate::support::repo_root().join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let (tree_at, products_at) = ("    layout: tree-path\n", "    layout: path-reference\n");
    assert!(text.contains(tree_at) && text.contains(products_at));
    let mut out = text
        .replacen(tree_at, &format!("    layout: {tree}\n"), 1)
        .replacen(products_at, &format!("    layout: {products}\n"), 1);
    if !current.is_empty() {
        out.push_str("\ncurrent:\n");
        for c in current {
            out.push_str(&format!("  {c}\n"));
        }
    }
    out
}

/// The cookbook functions of category-paths the checker cannot check on a
/// tree of child references: it recomputes a subtree from parent ids,
/// which that tree does not keep (they fail alike on the design's freshly
/// generated data, without a migration).
fn subtrees_unchecked() -> Vec<&'static str> {
    vec!["category_page", "category_subtree"]
}

/// Products and their parts, each part's number copied into the product's
/// array (an extended reference into the parent) today; `shared` parts
/// belong to several products.
fn parts(layout: &str, shared: bool, current: Option<&str>) -> String {
    let parents = if shared {
        "{min: 1, typical: 3, max: 40}\n    shared: true"
    } else {
        "{min: 1, typical: 1, max: 1}"
    };
    let text = format!(
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
"
    );
    pinned(
        &text,
        "    standalone: true\n",
        "parts",
        Some(layout),
        current,
    )
}

/// books-authors read from the authors' side only: an author's books with
/// their titles (the book's page, which shows its authors, left out).
fn authors_from_authors(layout: &str, current: Option<&str>) -> String {
    let path = "examples/books-authors.yaml";
    let text = std::fs::read_to_string(crate::support::repo_root().join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let page = "  book_with_authors:\n    read: book\n    rate: 200\n    filter: {_id: eq}\n    include:\n      authors: {fields: [name]}\n";
    assert!(text.contains(page), "books-authors has the book's page");
    pinned(
        &text.replacen(page, "", 1),
        "    shared: true\n",
        "authors",
        Some(layout),
        current,
    )
}

/// book-tags with a tag's page that shows its books with the link's
/// attribute: a tag's array of books takes `added_at` too.
fn tags_read_both_ways(layout: &str, current: Option<&str>) -> String {
    let path = "crates/squill/src/advise/tests/book-tags.yaml";
    let text = std::fs::read_to_string(crate::support::repo_root().join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = format!(
        "{}  tag_page:\n    read: tag\n    rate: 50\n    filter: {{_id: eq}}\n    include:\n      books: {{fields: [title, added_at]}}\n",
        text.trim_end_matches('\n').to_string() + "\n"
    );
    pinned(
        &text,
        "    standalone: true\n",
        "tags",
        Some(layout),
        current,
    )
}

/// book-tags whose link's attribute only the tag's page shows (the book's
/// page shows its tags' names): today's two-way keeps it in the tags'
/// arrays, advise's extended reference in the books'.
fn tags_read_from_tags(layout: Option<&str>, current: Option<&str>) -> String {
    let text = tags_read_both_ways("many-to-many-two-way", None);
    let (pin, page) = (
        "    layout: many-to-many-two-way\n",
        "      tags: {fields: [name, added_at]}\n",
    );
    assert!(
        text.contains(pin) && text.contains(page),
        "book-tags' pages"
    );
    let text = text
        .replacen(pin, "", 1)
        .replacen(page, "      tags: {fields: [name]}\n", 1);
    pinned(&text, "    standalone: true\n", "tags", layout, current)
}

/// Users following users (a many-to-many of an entity with itself): the
/// parent's array lists whom a user follows, the child's its followers.
fn follows(layout: &str, current: Option<&str>) -> String {
    let text = "name: follows
entities:
  user:
    count: 100000
    fields: {name: string(18)}
relationships:
  follows:
    kind: many-to-many
    parent: user
    child: user
    children: {min: 0, typical: 5, max: 50}
    parents: {min: 0, typical: 5, max: 50}
    child_field: followers
    standalone: true
    shared: true
operations:
  user_page:
    read: user
    rate: 200
    filter: {_id: eq}
    include:
      follows: {fields: [name]}
";
    pinned(
        text,
        "    standalone: true\n",
        "follows",
        Some(layout),
        current,
    )
}

/// The model in `path` with `current:` naming each of `rels` as a parent
/// reference, and the same with each pinned to one (the data of today):
/// the design a team coming from SQL tables has.
fn normalized(path: &str, rels: &[&str]) -> (String, String) {
    let text = std::fs::read_to_string(crate::support::repo_root().join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut model = text.clone();
    model.push_str("\ncurrent:\n");
    let mut today = text;
    for rel in rels {
        model.push_str(&format!("  {rel}: parent-reference\n"));
        let key = format!("\n  {rel}:\n");
        assert!(today.contains(&key), "{path} has no relationship {rel}");
        today = today.replacen(&key, &format!("{key}    layout: parent-reference\n"), 1);
    }
    (model, today)
}

fn pinned(
    text: &str,
    after: &str,
    rel: &str,
    layout: Option<&str>,
    current: Option<&str>,
) -> String {
    assert!(text.contains(after), "the example names its child_field");
    let mut out = match layout {
        Some(l) => text.replacen(after, &format!("{after}    layout: {l}\n"), 1),
        None => text.to_string(),
    };
    if let Some(c) = current {
        out.push_str(&format!("\ncurrent:\n  {rel}: {c}\n"));
    }
    out
}

/// Counts per collection and the children a parent's field holds, measured
/// by pymongo (not by the script under test).
const MEASURE: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
out = {"count": {c: db[c].count_documents({}) for c in db.list_collection_names() if c != "squill_migration"}}
coll, field = sys.argv[3], sys.argv[4]
if coll:
    n = 0
    for d in db[coll].find({}, {field: 1}):
        v = d.get(field)
        n += len(v) if isinstance(v, list) else (1 if isinstance(v, dict) else 0)
    out["held"] = n
print(json.dumps(out))
"#;

/// The links a relationship's documents hold, measured by pymongo: for each
/// spec `collection|a|b`, the pairs (a, b) of every document, each path
/// read through arrays and a sub-document standing for its `_id` (specs
/// joined by `+` are one set of pairs, from both places); their
/// number, how many of the b values are bare ids (not sub-documents), and a
/// digest of the sorted pairs (so links moved to the other side, or into an
/// edge collection, compare equal when none is lost, added or changed).
/// A `b` ending in `#` pairs each value with its position (a path's order);
/// `b^nodes.parent` (optionally `:field`) stands for the walk up a tree from
/// the id at `b` through the parent ids of `nodes`, from the root down, each
/// node with its position (its `field` instead of its id): the path a tree
/// layout must hold, computed here from the parent ids alone. `b@other.field`
/// stands for the `field` of the document of `other` each id at `b` names
/// (child references read as the children's own values).
const LINKS: &str = r##"
import hashlib, json, sys
from bson import json_util
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
def vals(v, path):
    if v is None:
        return []
    if isinstance(v, list):
        return [x for i in v for x in vals(i, path)]
    if not path:
        return [("obj", v.get("_id"))] if isinstance(v, dict) else [("id", v)]
    if isinstance(v, dict):
        k, _, rest = path.partition(".")
        return vals(v.get(k), rest)
    return []
cache = {}
def walk(nodes, parent, start, show):
    if nodes not in cache:
        cache[nodes] = {d["_id"]: d for d in db[nodes].find({})}
    docs = cache[nodes]
    chain = []
    while start in docs and len(chain) <= len(docs):
        chain.append(("id", docs[start].get(show) if show else start))
        start = docs[start].get(parent)
    return chain[::-1]
out = {}
for spec in sys.argv[3:]:
    pairs, ids = [], 0
    for part in spec.split("+"):
        coll, a, b = part.split("|")
        up = None
        if "^" in b:
            b, up = b.split("^")
            up, _, show = up.partition(":")
            up = up.split(".", 1) + [show]
        ordered = b.endswith("#")
        b = b.rstrip("#")
        named = None
        if "@" in b:
            b, named = b.split("@")
            named = named.split(".", 1)
            named.append({o["_id"]: o for o in db[named[0]].find({})})
        for d in db[coll].find({}):
            for _, x in vals(d, a):
                ys = vals(d, b)
                if named:
                    ys = [("obj", named[2].get(y, {}).get(named[1])) for _, y in ys]
                if up:
                    ys = [y for _, s in ys for y in walk(up[0], up[1], s, up[2])]
                for i, (kind, y) in enumerate(ys):
                    pairs.append(json_util.dumps([x, i, y] if ordered or up else [x, y]))
                    ids += kind == "id"
    pairs.sort()
    out[spec] = {"n": len(pairs), "ids": ids, "digest": hashlib.md5("\n".join(pairs).encode()).hexdigest()}
print(json.dumps(out))
"##;

/// Computed fields measured by pymongo: for `collection array field source`,
/// each document's figures over the `field` of the children embedded in its
/// `array` (in the array's order), as `name:function` asks (avg, first,
/// last, min, max, sum; 0 without children); for `collection - - kept`, the
/// values of the fields `name` it keeps.
const COMPUTED: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
coll, arr, of, mode = sys.argv[3:7]
specs = [s.split(":") for s in sys.argv[7:]]
def figure(xs, fn):
    if not xs:
        return 0
    return {"avg": sum(xs) / len(xs), "count": len(xs), "first": xs[0], "last": xs[-1], "min": min(xs), "max": max(xs), "sum": sum(xs)}[fn]
out = {}
for d in db[coll].find({}):
    if mode == "source":
        xs = [c[of] for c in (d.get(arr) or []) if isinstance(c, dict) and c.get(of) is not None]
        vals = [figure(xs, fn) for _, fn in specs]
    else:
        vals = [d.get(name) for name, _ in specs]
    out[str(d["_id"])] = [None if v is None else round(float(v), 6) for v in vals]
print(json.dumps(out, sort_keys=True))
"#;

/// A subset measured by pymongo: for spec `parent|array|child|ref|sort|k`,
/// the parents, those with more than `k` children in `child` (by `ref`),
/// and those whose array is not `k` of their newest children by `sort`
/// (the sort values of the children its items name, newest first, against
/// those of the first `k`: a tie at the cut may go either way), or whose
/// items' copies differ from the child documents they name.
const NEWEST: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
parent, array, child, ref, sort, k = sys.argv[3].split("|")
k = int(k)
kids = {}
for c in db[child].find({}):
    kids.setdefault(c.get(ref), []).append(c)
n, cut, bad = 0, 0, []
for d in db[parent].find({}):
    n += 1
    mine = sorted(kids.get(d["_id"], []), key=lambda c: c[sort], reverse=True)
    cut += len(mine) > k
    items = d.get(array) or []
    by_id = {c["_id"]: c for c in mine}
    named = [by_id.get(i.get("_id")) for i in items]
    ok = None not in named and len(items) == min(k, len(mine))
    ok = ok and sorted((c[sort] for c in named), reverse=True) == [c[sort] for c in mine[:k]]
    ok = ok and all(all(c.get(f) == v for f, v in i.items()) for i, c in zip(items, named))
    if not ok:
        bad.append(str(d["_id"]))
print(json.dumps({"parents": n, "cut": cut, "bad": bad}))
"#;

/// The documents of each collection that has a validator which do not
/// match it, by pymongo (the migration sets the recommended design's
/// validators after the data, and a server checks only later writes).
const INVALID: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
out = {}
for info in db.list_collections():
    v = info.get("options", {}).get("validator")
    if v:
        out[info["name"]] = db[info["name"]].count_documents({"$nor": [v]})
print(json.dumps(out))
"#;

/// The indexes of each collection (but `_id`), by pymongo: `{collection:
/// {name: [key paths]}}`.
const INDEXES: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
out = {}
for c in db.list_collection_names():
    out[c] = {i["name"]: list(i["key"].keys()) for i in db[c].list_indexes() if i["name"] != "_id_"}
print(json.dumps(out))
"#;

/// The copies a relationship's arrays hold, measured by pymongo: for each
/// spec `collection|array|copy|other|field`, the items of every document's
/// array, and how many of them do not carry, at `copy`, the `field` of the
/// `other` document their `_id` names (a copy missing, stale or taken from
/// the wrong document).
const COPIES: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
out = {}
for spec in sys.argv[3:]:
    coll, array, copy, other, field = spec.split("|")
    docs = {d["_id"]: d for d in db[other].find({})}
    n, wrong = 0, 0
    outer, _, inner = array.partition(".")
    for d in db[coll].find({}, {outer: 1}):
        items = d.get(outer) or []
        if isinstance(items, dict):
            items = [items]
        if inner:
            # A reference inside each embedded item (`lines.product`).
            items = [x.get(inner) for x in items if isinstance(x, dict)]
            items = [y for x in items for y in (x if isinstance(x, list) else [x])]
        for i in items:
            n += 1
            o = docs.get(i.get("_id")) if isinstance(i, dict) else None
            wrong += o is None or copy not in i or i[copy] != o.get(field)
    out[spec] = {"n": n, "wrong": wrong}
print(json.dumps(out))
"#;

/// The link's attributes a side's array holds, measured by pymongo: for
/// each spec `collection|array|attribute|other|other_array`, the items of
/// every document's array, and how many of them do not carry the
/// attribute of the item of the `other` document's array that names the
/// document back (the same link, read from its other side).
const ATTRIBUTES: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
out = {}
for spec in sys.argv[3:]:
    coll, array, attr, other, back = spec.split("|")
    docs = {d["_id"]: d for d in db[other].find({})}
    n, wrong = 0, 0
    for d in db[coll].find({}, {array: 1}):
        for i in d.get(array) or []:
            n += 1
            o = docs.get(i.get("_id")) if isinstance(i, dict) else None
            j = [x for x in (o or {}).get(back) or [] if isinstance(x, dict) and x.get("_id") == d["_id"]]
            wrong += len(j) != 1 or attr not in i or i[attr] != j[0].get(attr)
    out[spec] = {"n": n, "wrong": wrong}
print(json.dumps(out))
"#;

/// Each reader's timeline recomputed from the data of today, by pymongo:
/// `expect` writes, for spec `timeline|edges|follower|followed|parents|
/// array|ref|sort|limit|threshold[|items]`, each reader's expected items
/// (the newest `limit` posts embedded in the followed parents with at most
/// `threshold` followers, or with `items` the documents of that collection
/// whose ids the parents' arrays list, each with its parent's id at `ref`,
/// by `sort` descending, then `_id`) and outliers to a file; `compare`
/// reads the timelines after the migration and reports those that differ,
/// item by item.
const TIMELINES: &str = r#"
import functools, sys
from bson import json_util
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
mode, path = sys.argv[3], sys.argv[4]
timeline, edges, follower, followed, parents, array, ref, sort, limit, threshold, *listed = sys.argv[5].split("|")
limit, threshold = int(limit), int(threshold)
docs = {d["_id"]: d for d in db[listed[0]].find({})} if listed else None
if mode == "expect":
    counts, follows = {}, {}
    for e in db[edges].find({}):
        counts[e[followed]] = counts.get(e[followed], 0) + 1
        follows.setdefault(e[follower], set()).add(e[followed])
    items = {p["_id"]: [dict(docs[i] if listed else i, **{ref: p["_id"]}) for i in p.get(array) or []] for p in db[parents].find({})}
    def cmp(a, b):
        if a[sort] != b[sort]:
            return -1 if a[sort] > b[sort] else 1
        return -1 if a["_id"] < b["_id"] else (a["_id"] > b["_id"])
    want = {}
    for r in db[parents].find({}, {"_id": 1}):
        mine = follows.get(r["_id"], set())
        outliers = sorted(p for p in mine if counts[p] > threshold)
        posts = [i for p in mine if counts[p] <= threshold for i in items.get(p, [])]
        posts.sort(key=functools.cmp_to_key(cmp))
        want[str(r["_id"])] = {"items": posts[:limit], "outliers": outliers}
    open(path, "w").write(json_util.dumps(want))
else:
    want = json_util.loads(open(path).read())
    got = {str(t["_id"]): t for t in db[timeline].find({})}
    bad = [r for r, w in want.items() if r not in got or got[r].get("items") != w["items"] or got[r].get("outliers") != w["outliers"]]
    full = sum(len(w["items"]) == limit for w in want.values())
    print(json_util.dumps({"readers": len(want), "timelines": len(got), "bad": bad, "full": full,
        "outliers": sum(len(w["outliers"]) for w in want.values()), "items": sum(len(w["items"]) for w in want.values())}))
"#;

/// Loads data/*.json into the database (mongoimport is not installed).
const LOAD: &str = r#"
import glob, os, sys
from bson import json_util
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
opts = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL, tz_aware=False)
for p in sorted(glob.glob(os.path.join(sys.argv[3], "data", "*.json"))):
    docs = [json_util.loads(l, json_options=opts) for l in open(p, encoding="utf-8") if l.strip()]
    if docs:
        db[os.path.basename(p)[:-5]].insert_many(docs, ordered=True)
    print(os.path.basename(p), len(docs))
"#;

/// A migration to run end to end; what a field leaves empty (`None`, no
/// specs) is not checked beyond what every case checks.
#[derive(Default)]
struct Case {
    name: &'static str,
    /// The model advised for the recommended design, with `current:`.
    model: String,
    /// The same with every relationship pinned to its layout of today.
    today: String,
    /// A field the migration builds from children: (collection, field,
    /// child collection of today whose documents it must hold, each once,
    /// or at most `cap` per parent).
    held: Option<(&'static str, &'static str, &'static str, Option<usize>)>,
    /// A collection of today that stays until the final step, though the
    /// recommended design has none.
    kept: Option<&'static str>,
    /// Children embedded today (parent collection, field) that become the
    /// documents of a new collection.
    unwound: Option<(&'static str, &'static str, &'static str)>,
    /// Links of today and where the migration puts them: the pairs of the
    /// first spec before (`LINKS`) equal those of the second after.
    moved: Vec<(&'static str, &'static str)>,
    /// Specs whose values must be bare ids after the migration (copies
    /// taken out of references) and were sub-documents before.
    bare: Vec<&'static str>,
    /// Specs whose values must be bare ids after the migration, as today's
    /// are (a shape kept while another collection's changes).
    kept_ids: Vec<&'static str>,
    /// Specs that hold links until the final step and none after it (run
    /// with DROP_OLD = true, then the cookbook again).
    dropped: Vec<&'static str>,
    /// Bucket documents (collection, array of children, count field): each
    /// bucket's count is the number of children it holds; with a time key
    /// (start field, the items' time field, the unit in hours), each
    /// child's time falls in its bucket's unit.
    bucketed: Option<(&'static str, &'static str, &'static str)>,
    time_key: Option<(&'static str, &'static str, &'static str)>,
    /// The aggregates of the buckets of `bucketed`, `field:function:of`
    /// (sum, min, max of the items' `of`): each bucket's against pymongo's
    /// figure over its own items.
    bucket_figures: Vec<&'static str>,
    /// Links whose first spec today equals the second after the final step
    /// (run with DROP_OLD = true): an outlier's children, split between the
    /// parent's array and the child collection, each holding some; or
    /// children re-keyed under their parent's id, which hold the same
    /// after the final step as the documents of today did.
    split: Option<(&'static str, &'static str)>,
    /// A collection of today that gains documents (the children it did not
    /// hold: an outlier's embedded ones).
    grown: Option<&'static str>,
    /// The settings file (`--config`) both designs are advised with.
    config: Option<&'static str>,
    /// Computed fields the migration builds from children embedded today:
    /// (parent collection, array, child's field, `name:function` of each
    /// field), each value compared with pymongo's figure over the array.
    computed: Option<(
        &'static str,
        &'static str,
        &'static str,
        &'static [&'static str],
    )>,
    /// Indexes of today (collection, name) on a field the final step
    /// removes, or inside a reference made a bare id: there until the
    /// final step (run with DROP_OLD = true), gone after it.
    stale: Vec<(&'static str, &'static str)>,
    /// Cookbook functions expected to fail on the migrated data, each for a
    /// reason the case gives (`check_generated.py --expect-fail`).
    expect_fail: Vec<&'static str>,
    /// Arrays whose items must carry the other side's copies after the
    /// migration (`COPIES` specs).
    copies: Vec<&'static str>,
    /// Arrays whose items must carry the link's attributes as the other
    /// side's array holds them (`ATTRIBUTES` specs).
    attributes: Vec<&'static str>,
    /// A timeline the migration builds: a `TIMELINES` spec, each reader's
    /// timeline recomputed from the data of today and compared after.
    timeline: Option<&'static str>,
    /// The collection the migration builds that timeline in, beside
    /// today's (which it must leave as it is), until the final step
    /// rebuilds the timeline in place: compared there before the final
    /// step, and in the timeline's own collection after it.
    beside: Option<&'static str>,
    /// Instances per top entity in the data of today (4 unless given): a
    /// case whose links would all be there at 4 (everyone following
    /// everyone) needs more to tell the sides apart.
    scale: Option<&'static str>,
    /// A mongosh script run on the data of today once loaded (what the
    /// generator cannot make: orders placed today, its dates all being in
    /// 2024).
    prepare: Option<&'static str>,
    /// A polymorphic collection built from the kinds' collections
    /// (collection, discriminator, kinds): each kind's documents, by
    /// `_id`, are those with its discriminator (`KINDS`).
    kinds: Option<(&'static str, &'static str, &'static [&'static str])>,
    /// A subset the final step cuts (`NEWEST` spec): after it, each
    /// parent's array its newest children, the copies theirs, and some
    /// parent with more children than the subset keeps.
    newest: Option<&'static str>,
    /// The data of today (after `prepare`) breaks what the migration
    /// relies on: the script must stop at its verification with this
    /// check FAILED, every document of today still there; nothing else
    /// is run.
    fails: Option<&'static str>,
}

fn cases() -> Vec<Case> {
    let (invoices, invoices_today) = normalized(
        "examples/scenarios/s07-invoices.yaml",
        &["invoices", "lines", "sold"],
    );
    let (loans, loans_today) = normalized(
        "examples/scenarios/s12-library-loans.yaml",
        &["active_loans", "loans", "active_book", "loaned_book"],
    );
    let (hotels, hotels_today) = normalized(
        "examples/hotel-bookings.yaml",
        &["rooms", "bookings", "stays", "reviews"],
    );
    let (tracker, tracker_today) = normalized(
        "crates/squill/tests/fixtures/issue-tracker.yaml",
        &[
            "users", "projects", "issues", "assigned", "reported", "comments", "wrote",
        ],
    );
    let (tickets, tickets_today) = normalized(
        "crates/squill/tests/fixtures/event-tickets.yaml",
        &["hosts", "seats", "orders", "bought"],
    );
    vec![
        Case {
            // Orders embedded in their customer, each listing its tickets
            // with copies of their seat: the tickets looked up by their
            // order's id while the orders are gathered.
            name: "normalized-tickets",
            model: tickets,
            today: tickets_today,
            held: Some(("customer", "orders", "order", None)),
            kept: Some("order"),
            // A ticket has two parents (its event's seat, its order): the
            // generator spreads the tickets over the orders without the
            // order's bound of 10, which the validator of an embedded order
            // then holds it to. Tickets past an order's tenth go (today's
            // validator wants each ticket's order).
            prepare: Some(
                "db.ticket.aggregate([{ $match: { order: { $ne: null } } }, { $sort: { _id: 1 } }, { $group: { _id: '$order', ids: { $push: '$_id' } } }]).toArray() \
                 .forEach((g) => db.ticket.deleteMany({ _id: { $in: g.ids.slice(10) } }))",
            ),
            copies: vec![
                "customer|orders.bought|seat|ticket|seat",
                "customer|orders.bought|price|ticket|price",
            ],
            ..Case::default()
        },
        Case {
            // An issue's comments grouped 50 to a bucket, each naming its
            // author with a copy of the author's name.
            name: "normalized-tracker",
            model: tracker,
            today: tracker_today,
            kept: Some("comment"),
            moved: vec![(
                "comment|issue|author",
                "issue_comments|issue|comments.author",
            )],
            copies: vec!["issue_comments|comments.author|name|user|name"],
            ..Case::default()
        },
        Case {
            // A user's teams, with the membership's role and date, become
            // both sides' arrays with copies of the other's name; the
            // users' items lose the date, which the teams' items keep.
            name: "one-way-with-attributes-to-two-way-extended",
            model: from_file(
                "examples/scenarios/s09-teams.yaml",
                "    child_field: teams\n",
                "memberships",
                None,
                Some("many-to-many-one-way"),
            ),
            today: from_file(
                "examples/scenarios/s09-teams.yaml",
                "    child_field: teams\n",
                "memberships",
                Some("many-to-many-one-way"),
                None,
            ),
            moved: vec![
                ("user|_id|teams", "user|_id|teams"),
                ("user|_id|teams", "team|members|_id"),
            ],
            copies: vec!["user|teams|name|team|name", "team|members|name|user|name"],
            attributes: vec!["team|members|role|user|teams"],
            ..Case::default()
        },
        Case {
            // A reservation's room with copies of its number and of the
            // room's own reference to its hotel.
            name: "normalized-hotels",
            model: hotels,
            today: hotels_today,
            copies: vec![
                "reservation|room|hotel|room|hotel",
                "reservation|room|number|room|number",
            ],
            ..Case::default()
        },
        Case {
            // Lines embedded in their invoice, each naming its product
            // with a copy of its name and price: the product looked up by
            // the line's id of it while the lines are gathered.
            name: "normalized-invoices",
            model: invoices,
            today: invoices_today,
            held: Some(("invoice", "lines", "line", None)),
            kept: Some("line"),
            moved: vec![("line|invoice|product", "invoice|_id|lines.product")],
            copies: vec![
                "invoice|lines.product|name|product|name",
                "invoice|lines.product|price|product|price",
            ],
            ..Case::default()
        },
        Case {
            // A patron's active loans embedded, each with its book's copies.
            name: "normalized-loans",
            model: loans,
            today: loans_today,
            held: Some(("patron", "active_loans", "active_loan", None)),
            kept: Some("active_loan"),
            moved: vec![("active_loan|patron|book", "patron|_id|active_loans.book")],
            copies: vec!["patron|active_loans.book|title|book|title"],
            ..Case::default()
        },
        Case {
            name: "subset",
            model: reviews(None, Some("parent-reference")),
            today: reviews(Some("parent-reference"), None),
            held: Some(("product", "reviews", "review", Some(10))),
            ..Case::default()
        },
        Case {
            name: "embed",
            model: reviews(Some("embed"), Some("parent-reference")),
            today: reviews(Some("parent-reference"), None),
            held: Some(("product", "reviews", "review", None)),
            kept: Some("review"),
            ..Case::default()
        },
        Case {
            name: "unwind",
            model: reviews(Some("parent-reference"), Some("embed")),
            today: reviews(Some("embed"), None),
            unwound: Some(("product", "reviews", "review")),
            ..Case::default()
        },
        Case {
            name: "subset-to-embed",
            model: reviews(Some("embed"), Some("subset")),
            today: reviews(Some("subset"), None),
            // Today's subset untouched until the final step (its items'
            // ids as they were), which embeds every review (without an
            // `_id`) and drops their collection.
            moved: vec![("product|_id|reviews._id", "product|_id|reviews._id")],
            dropped: vec!["product|_id|reviews._id"],
            split: Some(("review|product_id|text", "product|_id|reviews.text")),
            kept: Some("review"),
            ..Case::default()
        },
        Case {
            name: "subset-to-child-references",
            model: reviews(Some("child-references"), Some("subset")),
            today: reviews(Some("subset"), None),
            // Today's subset untouched until the final step, which lists
            // every review by id in its product.
            moved: vec![("product|_id|reviews._id", "product|_id|reviews._id")],
            dropped: vec!["product|_id|reviews._id", "review|product_id|text"],
            split: Some(("review|product_id|text", "product|_id|reviews@review.text")),
            ..Case::default()
        },
        Case {
            name: "extended-reference",
            model: orders(Some("extended-reference"), Some("parent-reference")),
            today: orders(Some("parent-reference"), None),
            ..Case::default()
        },
        Case {
            name: "extended-to-parent-reference",
            model: orders(
                Some("parent-reference"),
                Some("{layout: extended-reference, copies: [name, email]}"),
            ),
            today: orders(Some("extended-reference"), None),
            moved: vec![("order|_id|customer", "order|_id|customer")],
            bare: vec!["order|_id|customer"],
            // The reference is the id in place: the index inside it goes.
            stale: vec![("order", "customer._id_1")],
            ..Case::default()
        },
        Case {
            name: "extended-in-parent-to-child-references",
            model: parts(
                "child-references",
                true,
                Some("{layout: extended-reference, copies: [partno]}"),
            ),
            today: parts("extended-reference", true, None),
            moved: vec![("product|_id|parts", "product|_id|parts")],
            bare: vec!["product|_id|parts"],
            ..Case::default()
        },
        Case {
            name: "extended-in-parent-to-parent-reference",
            model: parts(
                "parent-reference",
                false,
                Some("{layout: extended-reference, copies: [partno]}"),
            ),
            today: parts("extended-reference", false, None),
            moved: vec![("product|_id|parts", "part|product|_id")],
            bare: vec!["part|product|_id"],
            dropped: vec!["product|_id|parts"],
            ..Case::default()
        },
        Case {
            name: "one-way-to-two-way",
            model: authors(Some("many-to-many-two-way"), Some("many-to-many-one-way")),
            today: authors(Some("many-to-many-one-way"), None),
            // The books list their authors today; the authors list their
            // books after, the same links.
            moved: vec![
                ("book|_id|authors", "book|_id|authors"),
                ("book|_id|authors", "author|books|_id"),
            ],
            ..Case::default()
        },
        Case {
            name: "two-way-to-one-way",
            model: authors(Some("many-to-many-one-way"), Some("many-to-many-two-way")),
            today: authors(Some("many-to-many-two-way"), None),
            moved: vec![
                ("book|_id|authors", "author|books|_id"),
                ("book|_id|authors", "book|_id|authors"),
            ],
            dropped: vec!["author|books|_id"],
            ..Case::default()
        },
        Case {
            name: "one-way-to-two-way-extended",
            // advise's own choice for books-authors: each side's ids with
            // a copy of what the other side's page shows.
            model: authors(None, Some("many-to-many-one-way")),
            today: authors(Some("many-to-many-one-way"), None),
            moved: vec![
                ("book|_id|authors", "book|_id|authors"),
                ("book|_id|authors", "author|books|_id"),
            ],
            copies: vec![
                "book|authors|name|author|name",
                "author|books|title|book|title",
            ],
            ..Case::default()
        },
        Case {
            name: "two-way-extended-to-two-way",
            model: authors(
                Some("many-to-many-two-way"),
                Some("{layout: two-way-extended-reference, copies: [name, title]}"),
            ),
            today: authors(Some("two-way-extended-reference"), None),
            moved: vec![
                ("book|_id|authors", "book|_id|authors"),
                ("author|_id|books", "author|_id|books"),
            ],
            bare: vec!["book|_id|authors", "author|_id|books"],
            ..Case::default()
        },
        Case {
            name: "two-way-extended-to-one-way",
            model: authors(
                Some("many-to-many-one-way"),
                Some("{layout: two-way-extended-reference, copies: [name, title]}"),
            ),
            today: authors(Some("two-way-extended-reference"), None),
            moved: vec![
                ("author|books|_id", "book|_id|authors"),
                ("book|_id|authors", "book|_id|authors"),
            ],
            bare: vec!["book|_id|authors"],
            dropped: vec!["author|books|_id"],
            ..Case::default()
        },
        Case {
            name: "tags-one-way-to-two-way-extended",
            model: tags(
                Some("two-way-extended-reference"),
                Some("many-to-many-one-way"),
            ),
            today: tags(Some("many-to-many-one-way"), None),
            // The books' items gain the tags' names and keep the link's
            // attribute; the tags list their books.
            moved: vec![
                ("book|_id|tags", "book|_id|tags"),
                ("book|_id|tags.added_at", "book|_id|tags.added_at"),
                ("book|_id|tags", "tag|books|_id"),
            ],
            copies: vec!["book|tags|name|tag|name"],
            // Books with several tags: a copy taken from the wrong tag shows.
            scale: Some("40"),
            ..Case::default()
        },
        Case {
            name: "edges-to-two-way-extended",
            model: tags(Some("two-way-extended-reference"), Some("edge-collection")),
            today: tags(Some("edge-collection"), None),
            moved: vec![
                ("tags|book|tag", "book|_id|tags"),
                ("tags|book|added_at", "book|_id|tags.added_at"),
                ("tags|book|tag", "tag|books|_id"),
            ],
            copies: vec!["book|tags|name|tag|name"],
            dropped: vec!["tags|book|tag"],
            scale: Some("40"),
            ..Case::default()
        },
        Case {
            name: "tags-one-way-to-two-way-with-attributes",
            // Both pages show the link's attribute: the tags' new array
            // takes it from the item of the book's array that names the tag.
            model: tags_read_both_ways("many-to-many-two-way", Some("many-to-many-one-way")),
            today: tags_read_both_ways("many-to-many-one-way", None),
            moved: vec![
                ("book|_id|tags", "book|_id|tags"),
                ("book|_id|tags", "tag|books|_id"),
            ],
            attributes: vec!["tag|books|added_at|book|tags"],
            scale: Some("40"),
            ..Case::default()
        },
        Case {
            name: "attributes-move-to-the-other-array",
            // Both sides keep an array today, the link's attribute in the
            // tags'; advise's extended reference keeps the books' only,
            // each item with the tag's name and the attribute, taken from
            // the item of the tag's array that names the book.
            model: tags_read_from_tags(None, Some("many-to-many-two-way")),
            today: tags_read_from_tags(Some("many-to-many-two-way"), None),
            moved: vec![("book|_id|tags", "book|_id|tags")],
            copies: vec!["book|tags|name|tag|name"],
            attributes: vec!["book|tags|added_at|tag|books"],
            dropped: vec!["tag|_id|books"],
            // Books with several tags: an attribute from the wrong link shows.
            scale: Some("40"),
            ..Case::default()
        },
        Case {
            name: "one-way-to-extended-in-child-array",
            // The authors' array of book ids gains the books' titles.
            model: authors_from_authors("extended-reference", Some("many-to-many-one-way")),
            today: authors_from_authors("many-to-many-one-way", None),
            moved: vec![("author|_id|books", "author|_id|books")],
            copies: vec!["author|books|title|book|title"],
            ..Case::default()
        },
        Case {
            name: "extended-in-child-array-to-two-way",
            model: authors_from_authors(
                "many-to-many-two-way",
                Some("{layout: extended-reference, copies: [title]}"),
            ),
            today: authors_from_authors("extended-reference", None),
            // The books list their authors from the authors' arrays; the
            // authors' items lose their copies.
            moved: vec![
                ("author|_id|books", "author|_id|books"),
                ("author|_id|books", "book|authors|_id"),
            ],
            bare: vec!["author|_id|books"],
            ..Case::default()
        },
        Case {
            name: "self-one-way-to-two-way",
            model: follows("many-to-many-two-way", Some("many-to-many-one-way")),
            today: follows("many-to-many-one-way", None),
            // Each user's followers are the users whose array lists it:
            // the pairs (follower, followed) read from both arrays.
            moved: vec![
                ("user|_id|follows", "user|_id|follows"),
                ("user|_id|follows", "user|followers|_id"),
            ],
            scale: Some("20"),
            ..Case::default()
        },
        Case {
            name: "self-one-way-to-two-way-extended",
            // Whom a user follows gains their names in place, read from the
            // same collection; the followers are built as above.
            model: follows("two-way-extended-reference", Some("many-to-many-one-way")),
            today: follows("many-to-many-one-way", None),
            moved: vec![
                ("user|_id|follows", "user|_id|follows"),
                ("user|_id|follows", "user|followers|_id"),
            ],
            copies: vec!["user|follows|name|user|name"],
            scale: Some("20"),
            ..Case::default()
        },
        Case {
            name: "self-two-way-to-one-way",
            model: follows("many-to-many-one-way", Some("many-to-many-two-way")),
            today: follows("many-to-many-two-way", None),
            moved: vec![
                ("user|followers|_id", "user|_id|follows"),
                ("user|_id|follows", "user|_id|follows"),
            ],
            dropped: vec!["user|followers|_id"],
            scale: Some("20"),
            ..Case::default()
        },
        Case {
            name: "one-way-to-edges",
            model: tags(Some("edge-collection"), Some("many-to-many-one-way")),
            today: tags(Some("many-to-many-one-way"), None),
            // One link document per item of a book's array, its attribute
            // with it.
            moved: vec![
                ("book|_id|tags", "tags|book|tag"),
                ("book|_id|tags.added_at", "tags|book|added_at"),
            ],
            dropped: vec!["book|_id|tags"],
            stale: vec![("book", "tags._id_1")],
            ..Case::default()
        },
        Case {
            name: "two-way-extended-to-edges",
            model: tags(
                Some("edge-collection"),
                Some("{layout: two-way-extended-reference, copies: [name]}"),
            ),
            today: tags(Some("two-way-extended-reference"), None),
            // One link document per item of a book's array, its copies
            // left behind, its attribute with it.
            moved: vec![
                ("book|_id|tags", "tags|book|tag"),
                ("book|_id|tags.added_at", "tags|book|added_at"),
            ],
            dropped: vec!["book|_id|tags", "tag|_id|books"],
            ..Case::default()
        },
        Case {
            name: "edges-to-one-way",
            model: tags(Some("many-to-many-one-way"), Some("edge-collection")),
            today: tags(Some("edge-collection"), None),
            moved: vec![
                ("tags|book|tag", "book|_id|tags"),
                ("tags|book|added_at", "book|_id|tags.added_at"),
            ],
            dropped: vec!["tags|book|tag"],
            ..Case::default()
        },
        Case {
            name: "bucket-by-time",
            model: readings(None, Some("parent-reference")),
            today: readings(Some("parent-reference"), None),
            held: Some(("sensor_readings", "readings", "reading", None)),
            // Each reading of today in a bucket of its own sensor, with its
            // time and value.
            moved: vec![
                (
                    "reading|sensor|time",
                    "sensor_readings|sensor|readings.time",
                ),
                (
                    "reading|sensor|value",
                    "sensor_readings|sensor|readings.value",
                ),
            ],
            bucketed: Some(("sensor_readings", "readings", "count")),
            time_key: Some(("hour", "time", "1")),
            dropped: vec!["reading|sensor|time"],
            ..Case::default()
        },
        Case {
            name: "unbucket",
            model: readings(Some("parent-reference"), Some("bucket")),
            today: readings(Some("bucket"), None),
            unwound: Some(("sensor_readings", "readings", "reading")),
            // Each reading of a sensor's buckets a document with the
            // sensor's id, its time and value.
            moved: vec![
                (
                    "sensor_readings|sensor|readings.time",
                    "reading|sensor|time",
                ),
                (
                    "sensor_readings|sensor|readings.value",
                    "reading|sensor|value",
                ),
            ],
            dropped: vec!["sensor_readings|sensor|readings.time"],
            ..Case::default()
        },
        Case {
            name: "outlier",
            model: attendees(Some("outlier"), Some("parent-reference")),
            // Today's events have 4 to 6 attendees: each one past the
            // threshold stays in the attendee collection.
            today: attendees(Some("parent-reference"), None).replacen(
                "children: {min: 0, typical: 2, p99: 3, max: 2000000}",
                "children: {min: 4, typical: 5, max: 6}",
                1,
            ),
            held: Some(("event", "attendees", "attendee", Some(3))),
            // After the final step, each attendee once: in its event's
            // array or, past the first three, in the attendee collection.
            split: Some((
                "attendee|event|_id",
                "event|_id|attendees._id+attendee|event|_id",
            )),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "outlier-to-parent-reference",
            model: attendees(Some("parent-reference"), Some("outlier")),
            today: attendees(Some("outlier"), None),
            moved: vec![(
                "event|_id|attendees._id+attendee|event|_id",
                "attendee|event|_id",
            )],
            dropped: vec!["event|_id|attendees._id"],
            grown: Some("attendee"),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "timeline-dropped",
            // Posts embedded in their author: the feed is read on demand.
            model: club("embed", Some("parent-reference")),
            today: club("parent-reference", None),
            held: Some(("member", "posts", "post", None)),
            // Today's timelines stay until the final step, and go with it.
            kept: Some("member_timeline"),
            dropped: vec!["member_timeline|_id|items._id"],
            // home_feed filters on the followers of a post's author: it
            // once queried a `followers` field no member has, and failed
            // here as a known flaw (audit48 A1, fixed by fixa48).
            ..Case::default()
        },
        Case {
            name: "timeline-built",
            // Posts embedded in their author today; referenced, with a
            // timeline per member, in the recommended design: the posts
            // are unwound, then the timelines built from them.
            model: small_club("parent-reference", Some("embed")),
            today: small_club("embed", None),
            unwound: Some(("member", "posts", "post")),
            moved: vec![("member|_id|posts._id", "post|author|_id")],
            dropped: vec!["member|_id|posts._id"],
            timeline: Some(
                "member_timeline|follow|follower|followee|member|posts|author|created_at|5|5",
            ),
            scale: Some("10"),
            ..Case::default()
        },
        Case {
            name: "timeline-reshaped",
            // Posts listed by id in their author today, referenced by the
            // author's id in the recommended design: the timelines' copies
            // gain the author. Built beside today's (left as they are until
            // the final step: the items of today's timelines compared),
            // rebuilt in place by the final step.
            model: small_club("parent-reference", Some("child-references")),
            today: small_club("child-references", None),
            moved: vec![
                ("member|_id|posts", "post|author|_id"),
                (
                    "member_timeline|_id|items._id",
                    "member_timeline|_id|items._id",
                ),
            ],
            dropped: vec!["member|_id|posts"],
            timeline: Some(
                "member_timeline|follow|follower|followee|member|posts|author|created_at|5|5|post",
            ),
            beside: Some("squill_migration_member_timeline"),
            scale: Some("10"),
            ..Case::default()
        },
        archived("archive-added", archived_orders(None, Some(NO_ARCHIVE))),
        Case {
            // The archived ones with the bare id of today.
            kept_ids: vec!["order_archive|_id|customer"],
            // As archive-added, the live orders' reference becoming
            // `{_id, name}` in place: the archive keeps today's id, so the
            // old orders are copied first (copied after, they would hold
            // the name against the archive's validator).
            ..archived(
                "archive-in-todays-shape",
                archived_orders_with_names(None, Some(NO_ARCHIVE)),
            )
        },
        // Every listing's seller, from the three collections into one.
        kinds_merged(
            "polymorphic-added",
            listings(),
            listings_apart(),
            vec![(SELLERS, "listing|_id|seller")],
        ),
        // Each kind's seller `{_id, name}` in its collection today and in
        // the shared one: the same data (each copy's origin its own kind's
        // relationship), merged as it is.
        kinds_merged(
            "polymorphic-added-with-copies",
            with_sellers(listings()),
            with_sellers(listings_apart()),
            vec![
                (SELLERS, "listing|_id|seller"),
                (
                    "car_listing|_id|seller.name+phone_listing|_id|seller.name+flat_listing|_id|seller.name",
                    "listing|_id|seller.name",
                ),
            ],
        ),
        // The sellers' ids today, their names copied in the shared
        // collection: each kind's reference made `{_id, name}` in its own
        // collection first, then the kinds merged; every listing with its
        // seller's id and, walked from today's id, its name.
        kinds_merged(
            "polymorphic-added-layouts-first",
            sellers_of_today(with_sellers(listings()), false),
            sellers_of_today(with_sellers(listings_apart()), true),
            vec![
                (SELLERS, "listing|_id|seller"),
                (
                    "car_listing|_id|seller^seller.-:name+phone_listing|_id|seller^seller.-:name+flat_listing|_id|seller^seller.-:name",
                    "listing|_id|seller.name#",
                ),
            ],
        ),
        Case {
            name: "bucket-by-count",
            model: comments(None, Some("parent-reference")),
            today: comments(Some("parent-reference"), None),
            held: Some(("post_comments", "comments", "comment", None)),
            kept: Some("comment"),
            moved: vec![(
                "comment|post|created_on",
                "post_comments|post|comments.created_on",
            )],
            bucketed: Some(("post_comments", "comments", "count")),
            ..Case::default()
        },
        Case {
            name: "bucket-by-count-int-figures",
            model: voted_comments(None, Some("parent-reference")),
            today: voted_comments(Some("parent-reference"), None),
            held: Some(("post_comments", "comments", "comment", None)),
            kept: Some("comment"),
            moved: vec![("comment|post|votes", "post_comments|post|comments.votes")],
            bucketed: Some(("post_comments", "comments", "count")),
            // Each bucket's figures over its int votes: the least and
            // greatest an int (the validator's type, which the cookbook's
            // `$min`, `$max` and pipelines store), the sum a double.
            bucket_figures: vec![
                "sum_votes:sum:votes",
                "min_votes:min:votes",
                "max_votes:max:votes",
            ],
            ..Case::default()
        },
        Case {
            name: "embed-parent-in-child",
            model: orders(Some("embed-parent-in-child"), Some("parent-reference")),
            today: orders(Some("parent-reference"), None),
            // Each order holds its customer, with the customer's name of
            // today (a walk of one step from the reference).
            moved: vec![
                ("order|_id|customer", "order|_id|customer"),
                (
                    "order|_id|customer^customer.-:name",
                    "order|_id|customer.name#",
                ),
            ],
            kept: Some("customer"),
            dropped: vec!["customer|_id|name"],
            ..Case::default()
        },
        Case {
            name: "embed-parent-in-child-to-parent-reference",
            model: orders(Some("parent-reference"), Some("embed-parent-in-child")),
            today: orders(Some("embed-parent-in-child"), None),
            // Each order keeps its customer's id, and the customer's
            // collection holds the name each order held (a walk of one
            // step from the reference).
            moved: vec![
                ("order|_id|customer._id", "order|_id|customer"),
                (
                    "order|_id|customer.name#",
                    "order|_id|customer^customer.-:name",
                ),
            ],
            bare: vec!["order|_id|customer"],
            stale: vec![("order", "customer._id_1")],
            ..Case::default()
        },
        Case {
            name: "embed-parent-in-child-to-embed",
            model: orders(Some("embed"), Some("embed-parent-in-child")),
            today: orders(Some("embed-parent-in-child"), None),
            // Directly: each order under the customer it embeds, that
            // customer's fields from the orders' copies, each order's own
            // fields with it (paired with its customer: the totals of the
            // wrong customer's orders change the digest).
            moved: vec![
                ("order|_id|customer._id", "customer|orders._id|_id"),
                ("order|_id|customer.name", "customer|orders._id|name"),
                ("order|customer._id|total", "customer|_id|orders.total"),
            ],
            held: Some(("customer", "orders", "order", None)),
            kept: Some("order"),
            dropped: vec!["order|_id|customer._id"],
            ..Case::default()
        },
        Case {
            name: "shared-id-to-parent-reference",
            model: settings(Some("parent-reference"), Some("shared-id")),
            today: settings(Some("shared-id"), None),
            // Each settings document keeps its _id and holds it again as
            // its user's id.
            moved: vec![("settings|_id|_id", "settings|_id|user")],
            ..Case::default()
        },
        Case {
            name: "parent-reference-to-shared-id",
            model: settings(Some("shared-id"), Some("parent-reference")),
            today: settings(Some("parent-reference"), None),
            // Each settings document again under its user's id, beside
            // those of today until the final step, which deletes these
            // (and the index on their reference): after it, each user's
            // id holds that user's settings (its layouts) as today.
            grown: Some("settings"),
            split: Some(("settings|user|layouts", "settings|_id|layouts")),
            stale: vec![("settings", "user_1")],
            ..Case::default()
        },
        Case {
            name: "parent-reference-to-shared-id-two-settings",
            model: settings(Some("shared-id"), Some("parent-reference")),
            today: settings(Some("parent-reference"), None),
            // A user with two settings documents: not one-to-one, so not
            // one document per settings under a user's id.
            prepare: Some(
                "const s = db.settings.find().sort({ _id: 1 }).toArray(); \
                 db.settings.updateOne({ _id: s[1]._id }, { $set: { user: s[0].user } });",
            ),
            fails: Some("settings: a document for each settings of today"),
            // (Compared only with themselves after the failed run.)
            moved: vec![("settings|user|layouts", "settings|user|layouts")],
            ..Case::default()
        },
        Case {
            name: "embed-parent-with-a-count-to-reference",
            model: reviews(Some("parent-reference"), Some("embed-parent-in-child")),
            today: reviews(Some("embed-parent-in-child"), None),
            // Each embedded product holds its review count: the products'
            // collection gets its own fields from the copies and the count
            // from the reviews; each review keeps its product's id, and
            // the product's name it held (a walk of one step from it).
            moved: vec![
                ("review|_id|product_id._id", "review|_id|product_id"),
                (
                    "review|_id|product_id.name#",
                    "review|_id|product_id^product.-:name",
                ),
            ],
            bare: vec!["review|_id|product_id"],
            ..Case::default()
        },
        Case {
            name: "embed-parent-with-a-count-to-subset",
            model: reviews(None, Some("embed-parent-in-child")),
            today: reviews(Some("embed-parent-in-child"), None),
            // Through a parent reference: the products from the reviews'
            // copies, then each product's latest 10 reviews: all of them,
            // as no product has more than 6 today.
            held: Some(("product", "reviews", "review", None)),
            moved: vec![("review|_id|product_id._id", "review|_id|product_id")],
            ..Case::default()
        },
        Case {
            name: "shared-id-to-child-references",
            model: settings(Some("child-references"), Some("shared-id")),
            today: settings(Some("shared-id"), None),
            // Through a parent reference: each user's id of its settings
            // (the settings keep their _id, the user's): the pairs
            // (settings, user) as today's shared ids pair them.
            moved: vec![("settings|_id|_id", "user|user_settings|_id")],
            dropped: vec!["settings|_id|user"],
            ..Case::default()
        },
        Case {
            name: "child-references-to-shared-id",
            model: settings(Some("shared-id"), Some("child-references")),
            today: settings(Some("child-references"), None),
            // Through a parent reference: each settings document again
            // under the id of the user whose reference names it, beside
            // those of today until the final step, which deletes these;
            // after it, each user's id holds that user's layouts as today.
            grown: Some("settings"),
            split: Some((
                "user|_id|user_settings^settings.-:layouts",
                "settings|_id|_id^settings.-:layouts",
            )),
            dropped: vec!["user|_id|user_settings"],
            ..Case::default()
        },
        Case {
            name: "one-to-one-to-child-references",
            model: settings(Some("child-references"), Some("parent-reference")),
            today: settings(Some("parent-reference"), None),
            // Each user's id of its settings, a plain value.
            moved: vec![("settings|_id|user", "user|user_settings|_id")],
            dropped: vec!["settings|_id|user"],
            stale: vec![("settings", "user_1")],
            ..Case::default()
        },
        Case {
            name: "one-to-one-to-parent-reference",
            model: settings(Some("parent-reference"), Some("child-references")),
            today: settings(Some("child-references"), None),
            // Each settings gets the id of the user that names it.
            moved: vec![("user|user_settings|_id", "settings|_id|user")],
            dropped: vec!["user|_id|user_settings"],
            ..Case::default()
        },
        Case {
            name: "shared-id-to-embed",
            model: settings(Some("embed"), Some("shared-id")),
            today: settings(Some("shared-id"), None),
            // Each user's settings (by the shared `_id`) into its
            // sub-document: the pairs (user, layouts) as today.
            held: Some(("user", "user_settings", "settings", None)),
            kept: Some("settings"),
            moved: vec![("settings|_id|layouts", "user|_id|user_settings.layouts")],
            ..Case::default()
        },
        Case {
            name: "computed",
            model: rated(Some("parent-reference"), Some("embed")),
            today: rated(Some("embed"), None),
            unwound: Some(("product", "reviews", "review")),
            computed: Some((
                "product",
                "reviews",
                "rating",
                // The average kept as its sum and the count it is over.
                &[
                    "reviews_sum_rating:sum",
                    "reviews_count:count",
                    "reviews_last_rating:last",
                ],
            )),
            ..Case::default()
        },
        Case {
            name: "tree-path",
            model: categories(
                "tree-path",
                "parent-reference",
                &["subcategories: parent-reference"],
            ),
            today: categories("parent-reference", "parent-reference", &[]),
            // Each node's path: the walk up the parent ids of today, from
            // the root down, with the nodes' names.
            moved: vec![
                ("category|_id|_id^category.parent", "category|_id|path._id#"),
                (
                    "category|_id|_id^category.parent:name",
                    "category|_id|path.name#",
                ),
            ],
            ..Case::default()
        },
        Case {
            name: "path-reference",
            model: categories(
                "parent-reference",
                "path-reference",
                &["products: parent-reference"],
            ),
            today: categories("parent-reference", "parent-reference", &[]),
            moved: vec![(
                "product|_id|category^category.parent",
                "product|_id|category_path#",
            )],
            ..Case::default()
        },
        Case {
            // The fixture's own design: both at once, the products' paths
            // read from the parent ids while the categories get theirs.
            name: "tree-path-and-path-reference",
            model: categories(
                "tree-path",
                "path-reference",
                &[
                    "subcategories: parent-reference",
                    "products: parent-reference",
                ],
            ),
            today: categories("parent-reference", "parent-reference", &[]),
            moved: vec![
                ("category|_id|_id^category.parent", "category|_id|path._id#"),
                (
                    "product|_id|category^category.parent",
                    "product|_id|category_path#",
                ),
            ],
            ..Case::default()
        },
        Case {
            name: "tree-path-to-parent-reference",
            model: categories(
                "parent-reference",
                "parent-reference",
                &["subcategories: tree-path"],
            ),
            today: categories("tree-path", "parent-reference", &[]),
            // The parent ids stay and walk up the paths of today.
            moved: vec![("category|_id|path._id#", "category|_id|_id^category.parent")],
            dropped: vec!["category|_id|path._id"],
            stale: vec![("category", "path._id_1")],
            ..Case::default()
        },
        Case {
            // A tree's nodes keep both sides in one document: the array of
            // children is built beside the parent ids, which go in the
            // final step.
            name: "tree-parent-reference-to-child-references",
            model: categories(
                "child-references",
                "parent-reference",
                &["subcategories: parent-reference"],
            ),
            today: categories("parent-reference", "parent-reference", &[]),
            // Each node listed once, in its parent's array.
            moved: vec![("category|_id|parent", "category|subcategories|_id")],
            dropped: vec!["category|_id|parent"],
            stale: vec![("category", "parent_1")],
            expect_fail: subtrees_unchecked(),
            ..Case::default()
        },
        Case {
            name: "tree-child-references-to-parent-reference",
            model: categories(
                "parent-reference",
                "parent-reference",
                &["subcategories: child-references"],
            ),
            today: categories("child-references", "parent-reference", &[]),
            // Each node gets the id of the parent whose array lists it.
            moved: vec![("category|subcategories|_id", "category|_id|parent")],
            dropped: vec!["category|_id|subcategories"],
            stale: vec![("category", "subcategories_1")],
            ..Case::default()
        },
        Case {
            name: "tree-path-to-child-references",
            model: categories(
                "child-references",
                "parent-reference",
                &["subcategories: tree-path"],
            ),
            today: categories("tree-path", "parent-reference", &[]),
            // Through a parent reference: each node in its parent's array
            // (the first stage checks the parent ids against the paths of
            // today), the path and the parent ids gone in the final step.
            moved: vec![("category|_id|parent", "category|subcategories|_id")],
            dropped: vec!["category|_id|path._id", "category|_id|parent"],
            stale: vec![("category", "path._id_1")],
            expect_fail: subtrees_unchecked(),
            ..Case::default()
        },
        Case {
            name: "child-references-to-tree-path",
            model: categories(
                "tree-path",
                "parent-reference",
                &["subcategories: child-references"],
            ),
            today: categories("child-references", "parent-reference", &[]),
            // Through a parent reference: each node gets the id of the
            // parent whose array lists it, then its path from the root.
            moved: vec![("category|subcategories|_id", "category|_id|parent")],
            dropped: vec!["category|_id|subcategories"],
            stale: vec![("category", "subcategories_1")],
            ..Case::default()
        },
        Case {
            // Two-way references of a tree: the node's parent id is the
            // child's side, its children's ids the parent's, which go in
            // the final step; through a parent reference, the path from
            // the parent ids of today.
            name: "tree-two-way-to-tree-path",
            model: categories(
                "tree-path",
                "parent-reference",
                &["subcategories: two-way-references"],
            ),
            today: categories("two-way-references", "parent-reference", &[]),
            moved: vec![
                ("category|subcategories|_id", "category|_id|parent"),
                ("category|_id|_id^category.parent", "category|_id|path._id#"),
            ],
            dropped: vec!["category|_id|subcategories"],
            ..Case::default()
        },
        Case {
            name: "path-reference-to-parent-reference",
            model: categories(
                "parent-reference",
                "parent-reference",
                &["products: path-reference"],
            ),
            today: categories("parent-reference", "path-reference", &[]),
            moved: vec![(
                "product|_id|category_path#",
                "product|_id|category^category.parent",
            )],
            dropped: vec!["product|_id|category_path"],
            stale: vec![("product", "category_path_1_price_1")],
            ..Case::default()
        },
        Case {
            name: "embed-to-bucket",
            model: bounded_readings(Some("bucket"), Some("embed")),
            today: bounded_readings(Some("embed"), None),
            // Each reading embedded in a sensor today in a bucket of that
            // sensor, with its time and value (no reading lost, none twice).
            moved: vec![
                (
                    "sensor|_id|readings.time",
                    "sensor_readings|sensor|readings.time",
                ),
                (
                    "sensor|_id|readings.value",
                    "sensor_readings|sensor|readings.value",
                ),
            ],
            bucketed: Some(("sensor_readings", "readings", "count")),
            bucket_figures: vec![
                "sum_value:sum:value",
                "min_value:min:value",
                "max_value:max:value",
            ],
            // The array stays until the final step, and goes with it.
            dropped: vec!["sensor|_id|readings.time"],
            ..Case::default()
        },
        Case {
            name: "bucket-to-embed",
            model: bounded_readings(Some("embed"), Some("bucket")),
            today: bounded_readings(Some("bucket"), None),
            // Each reading of a sensor's buckets in the sensor's array, with
            // its time and value; the buckets go in the final step.
            moved: vec![
                (
                    "sensor_readings|sensor|readings.time",
                    "sensor|_id|readings.time",
                ),
                (
                    "sensor_readings|sensor|readings.value",
                    "sensor|_id|readings.value",
                ),
            ],
            dropped: vec!["sensor_readings|sensor|readings.time"],
            ..Case::default()
        },
        Case {
            name: "outlier-to-embed",
            model: attendees(Some("embed"), Some("outlier")),
            today: attendees(Some("outlier"), None),
            // The generator keeps today's events within the threshold of
            // 3: each array filled to it, and two attendees past it in the
            // attendee collection, as registering them today would.
            prepare: Some(OUTLIERS_OF_TODAY),
            // Each attendee of today (in its event's array or past the
            // threshold in the attendee collection) in its event's array,
            // by its `_id` until the final step, by its name after it.
            moved: vec![(
                "event|_id|attendees._id+attendee|event|_id",
                "event|_id|attendees._id",
            )],
            dropped: vec!["event|_id|attendees._id"],
            split: Some((
                "event|_id|attendees.name+attendee|event|name",
                "event|_id|attendees.name",
            )),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "embed-to-bucket-by-time",
            model: growing_readings(None, Some("embed")),
            today: growing_readings(Some("embed"), None),
            moved: vec![
                (
                    "sensor|_id|readings.time",
                    "sensor_readings|sensor|readings.time",
                ),
                (
                    "sensor|_id|readings.value",
                    "sensor_readings|sensor|readings.value",
                ),
            ],
            // Each reading in the bucket of its sensor's hour.
            bucketed: Some(("sensor_readings", "readings", "count")),
            time_key: Some(("hour", "time", "1")),
            bucket_figures: vec![
                "sum_value:sum:value",
                "min_value:min:value",
                "max_value:max:value",
            ],
            ..Case::default()
        },
        Case {
            name: "embed-to-subset",
            model: latest_reviews(None, Some("embed")),
            today: latest_reviews(Some("embed"), None),
            // Every review of today in the review collection, once, with
            // its product's id: after the step, and after the final step
            // (which cuts the arrays to the newest 3, checked by `newest`).
            prepare: Some(ROTATED_REVIEWS),
            unwound: Some(("product", "reviews", "review")),
            moved: vec![("product|_id|reviews.text", "review|product_id|text")],
            split: Some(("product|_id|reviews.text", "review|product_id|text")),
            newest: Some("product|reviews|review|product_id|date|3"),
            ..Case::default()
        },
        Case {
            name: "embed-to-subset-shared-id",
            model: latest_reviews(None, Some("embed")),
            today: latest_reviews(Some("embed"), None),
            // Two products' reviews under one `_id` would be one review
            // document: the step's count of them falls short.
            prepare: Some(SHARED_REVIEW_ID),
            fails: Some("review: one document per child of product.reviews"),
            ..Case::default()
        },
        Case {
            name: "child-references-to-outlier",
            model: attendees(Some("outlier"), Some("child-references")),
            // Today's events list 4 to 6 attendees by id: those past the
            // threshold of 3 stay in the attendee collection.
            today: crowded(attendees(Some("child-references"), None)),
            // Each attendee given its event's id by the step (the array of
            // ids untouched, today's application reads it); after the final
            // step, each attendee once: in its event's array or in the
            // attendee collection.
            moved: vec![("event|_id|attendees", "attendee|event|_id")],
            split: Some((
                "event|_id|attendees",
                "event|_id|attendees._id+attendee|event|_id",
            )),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "child-references-to-subset",
            model: paged_attendees(Some("subset"), Some("child-references")),
            today: crowded(paged_attendees(Some("child-references"), None)),
            // Each attendee given its event's id by the step, and still
            // there after the final step, which makes each event's array
            // its newest two (by `_id`: no sort field) with their names.
            moved: vec![("event|_id|attendees", "attendee|event|_id")],
            split: Some(("event|_id|attendees", "attendee|event|_id")),
            newest: Some("event|attendees|attendee|event|_id|2"),
            ..Case::default()
        },
        Case {
            name: "outlier-to-subset",
            model: paged_attendees(Some("subset"), Some("outlier")),
            today: paged_attendees(Some("outlier"), None),
            prepare: Some(OUTLIERS_OF_TODAY),
            moved: vec![(
                "event|_id|attendees._id+attendee|event|_id",
                "attendee|event|_id",
            )],
            split: Some((
                "event|_id|attendees._id+attendee|event|_id",
                "attendee|event|_id",
            )),
            newest: Some("event|attendees|attendee|event|_id|2"),
            grown: Some("attendee"),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "child-references-to-embed",
            model: attendees(Some("embed"), Some("child-references")),
            today: attendees(Some("child-references"), None),
            // Each attendee given its event's id by the step; after the
            // final step, each attendee's name in its event's array.
            moved: vec![("event|_id|attendees", "attendee|event|_id")],
            split: Some((
                "event|_id|attendees@attendee.name",
                "event|_id|attendees.name",
            )),
            dropped: vec!["attendee|event|_id"],
            ..Case::default()
        },
        Case {
            name: "child-references-to-extended-reference",
            model: attendees(Some("extended-reference"), Some("child-references")),
            today: attendees(Some("child-references"), None),
            // After the final step, each attendee's id with its name in its
            // event's array.
            moved: vec![("event|_id|attendees", "attendee|event|_id")],
            split: Some((
                "event|_id|attendees@attendee.name",
                "event|_id|attendees.name",
            )),
            dropped: vec!["attendee|event|_id"],
            ..Case::default()
        },
        Case {
            name: "embed-to-child-references",
            model: attendees(Some("child-references"), Some("embed")),
            today: attendees(Some("embed"), None),
            // Each attendee of today a document of its own with its event's
            // id by the step (the array untouched); after the final step,
            // named by id in its event's array.
            moved: vec![("event|_id|attendees.name", "attendee|event|name")],
            split: Some((
                "event|_id|attendees.name",
                "event|_id|attendees@attendee.name",
            )),
            dropped: vec!["attendee|event|name"],
            ..Case::default()
        },
        Case {
            name: "extended-reference-to-outlier",
            model: attendees(Some("outlier"), Some("extended-reference")),
            today: crowded(attendees(Some("extended-reference"), None)),
            moved: vec![("event|_id|attendees._id", "attendee|event|_id")],
            split: Some((
                "event|_id|attendees._id",
                "event|_id|attendees._id+attendee|event|_id",
            )),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "extended-reference-to-subset",
            model: paged_attendees(Some("subset"), Some("extended-reference")),
            today: crowded(paged_attendees(Some("extended-reference"), None)),
            moved: vec![("event|_id|attendees._id", "attendee|event|_id")],
            split: Some(("event|_id|attendees._id", "attendee|event|_id")),
            newest: Some("event|attendees|attendee|event|_id|2"),
            ..Case::default()
        },
        Case {
            name: "extended-reference-to-embed",
            model: attendees(Some("embed"), Some("extended-reference")),
            today: attendees(Some("extended-reference"), None),
            moved: vec![("event|_id|attendees._id", "attendee|event|_id")],
            split: Some((
                "event|_id|attendees@attendee.name",
                "event|_id|attendees.name",
            )),
            dropped: vec!["attendee|event|_id"],
            ..Case::default()
        },
        Case {
            name: "embed-to-extended-reference",
            model: attendees(Some("extended-reference"), Some("embed")),
            today: attendees(Some("embed"), None),
            moved: vec![("event|_id|attendees.name", "attendee|event|name")],
            split: Some((
                "event|_id|attendees.name",
                "event|_id|attendees@attendee.name",
            )),
            dropped: vec!["attendee|event|name"],
            ..Case::default()
        },
        Case {
            name: "outlier-to-extended-reference",
            model: attendees(Some("extended-reference"), Some("outlier")),
            today: attendees(Some("outlier"), None),
            prepare: Some(OUTLIERS_OF_TODAY),
            moved: vec![(
                "event|_id|attendees._id+attendee|event|_id",
                "attendee|event|_id",
            )],
            split: Some((
                "event|_id|attendees._id+attendee|event|_id",
                "event|_id|attendees._id",
            )),
            dropped: vec!["attendee|event|_id"],
            grown: Some("attendee"),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "subset-to-outlier",
            model: paged_attendees(Some("outlier"), Some("subset")),
            today: crowded(paged_attendees(Some("subset"), None)),
            // Today's subset untouched until the final step, which embeds
            // each event's first three attendees and takes them out of the
            // attendee collection: each attendee once, in one place.
            moved: vec![("event|_id|attendees._id", "event|_id|attendees._id")],
            split: Some((
                "attendee|event|_id",
                "event|_id|attendees._id+attendee|event|_id",
            )),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "outlier-to-child-references",
            model: attendees(Some("child-references"), Some("outlier")),
            today: attendees(Some("outlier"), None),
            prepare: Some(OUTLIERS_OF_TODAY),
            // Each attendee of today (in its event's array or past it) a
            // document with its event's id after the step, the array
            // untouched; after the final step, each in its event's array
            // of ids.
            moved: vec![(
                "event|_id|attendees._id+attendee|event|_id",
                "attendee|event|_id",
            )],
            split: Some((
                "event|_id|attendees._id+attendee|event|_id",
                "event|_id|attendees",
            )),
            // The attendees' reference to their event goes with the final
            // step (child references have none).
            dropped: vec!["attendee|event|_id"],
            grown: Some("attendee"),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "embed-to-outlier",
            model: attendees(Some("outlier"), Some("embed")),
            // Today's events embed 4 to 6 attendees (without an `_id`):
            // those past the threshold of 3 move to the attendee collection.
            today: attendees(Some("embed"), None).replacen(
                "children: {min: 0, typical: 2, p99: 3, max: 2000000}",
                "children: {min: 4, typical: 5, max: 6}",
                1,
            ),
            // After the final step, each attendee once: in its event's
            // array or, past the first three, in the attendee collection,
            // with its name and registration time of today.
            split: Some((
                "event|_id|attendees.name",
                "event|_id|attendees.name+attendee|event|name",
            )),
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "bucket-to-outlier",
            model: paged_attendees(Some("outlier"), Some("bucket")),
            // Today's events have 4 to 6 attendees, two to a bucket.
            today: paged_attendees(Some("bucket"), None).replacen(
                "children: {min: 0, typical: 2, p99: 3, max: 2000000}",
                "children: {min: 4, typical: 5, max: 6}",
                1,
            ),
            // Through a parent reference: until the final step, every
            // attendee of the buckets in the attendee collection with its
            // event's id (the first stage's result), the buckets kept.
            moved: vec![(
                "event_attendees|event|attendees.name",
                "attendee|event|name",
            )],
            // After it, each attendee once: in its event's array or, past
            // the first three, in the attendee collection; no bucket left.
            split: Some((
                "event_attendees|event|attendees.name",
                "event|_id|attendees.name+attendee|event|name",
            )),
            dropped: vec!["event_attendees|event|attendees.name"],
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "bucket-to-outlier-miscounted",
            model: paged_attendees(Some("outlier"), Some("bucket")),
            today: paged_attendees(Some("bucket"), None).replacen(
                "children: {min: 0, typical: 2, p99: 3, max: 2000000}",
                "children: {min: 4, typical: 5, max: 6}",
                1,
            ),
            // A bucket that counts one attendee more than it holds: the
            // first stage's check stops the script before the second
            // stage writes anything into the events.
            prepare: Some("db.event_attendees.updateOne({}, { $inc: { count: 1 } })"),
            fails: Some("attendee: one document per child counted in event_attendees"),
            moved: vec![(
                "event_attendees|event|attendees.name",
                "event_attendees|event|attendees.name",
            )],
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "outlier-to-bucket",
            model: paged_attendees(Some("bucket"), Some("outlier")),
            today: paged_attendees(Some("outlier"), None),
            // Each array filled to the threshold of 3 and two attendees
            // past it in the attendee collection, as registering them
            // today would.
            prepare: Some(OUTLIERS_OF_TODAY),
            // Each attendee of today (in its event's array or in the
            // attendee collection) once in a bucket of its event, and, until
            // the final step, in the attendee collection (the first
            // stage's result).
            moved: vec![
                (
                    "event|_id|attendees._id+attendee|event|_id",
                    "attendee|event|_id",
                ),
                (
                    "event|_id|attendees.name+attendee|event|name",
                    "event_attendees|event|attendees.name",
                ),
            ],
            bucketed: Some(("event_attendees", "attendees", "count")),
            grown: Some("attendee"),
            // The array and the attendee collection go in the final step.
            dropped: vec!["event|_id|attendees._id", "attendee|event|_id"],
            config: Some(SMALL_ARRAYS),
            ..Case::default()
        },
        Case {
            name: "embed-to-shared-id",
            model: settings(Some("shared-id"), Some("embed")),
            today: settings(Some("embed"), None),
            // Until the final step, each user's settings a document with
            // the user's id (the first stage's result) beside its copy
            // under the user's id; after it, the copies only, each user's
            // layouts under its id.
            moved: vec![("user|_id|user_settings.layouts", "settings|user|layouts")],
            split: Some(("user|_id|user_settings.layouts", "settings|_id|layouts")),
            dropped: vec!["user|_id|user_settings.layouts", "settings|user|layouts"],
            ..Case::default()
        },
        Case {
            name: "embed-parent-in-child-to-extended-reference",
            model: orders(Some("extended-reference"), Some("embed-parent-in-child")),
            today: orders(Some("embed-parent-in-child"), None),
            // Through a parent reference: each order keeps its customer's
            // id, with the name it held today; the customer's collection
            // holds the name each order held (a walk of one step from the
            // reference).
            moved: vec![
                ("order|_id|customer._id", "order|_id|customer._id"),
                ("order|_id|customer.name", "order|_id|customer.name"),
                (
                    "order|_id|customer.name#",
                    "order|_id|customer^customer.-:name",
                ),
            ],
            ..Case::default()
        },
        Case {
            name: "child-references-to-path-reference",
            model: categories(
                "parent-reference",
                "path-reference",
                &["products: child-references"],
            ),
            today: categories("parent-reference", "child-references", &[]),
            // Through a parent reference: each product gets its category's
            // id from the category's array, then its path from the root.
            moved: vec![
                ("category|_id|products", "product|category|_id"),
                (
                    "category|products|_id^category.parent",
                    "product|_id|category_path#",
                ),
            ],
            dropped: vec!["category|_id|products"],
            ..Case::default()
        },
        Case {
            name: "path-reference-to-embed",
            model: categories("parent-reference", "embed", &["products: path-reference"]),
            today: categories("parent-reference", "path-reference", &[]),
            // Through a parent reference (the path kept until the final
            // step): each product into its category's array.
            moved: vec![("product|category|_id", "category|_id|products._id")],
            kept: Some("product"),
            dropped: vec!["product|_id|category_path"],
            // The checker's sampled parameters match nothing in this design
            // ("the check would be empty"): parent-reference → embed of
            // this model, written directly, fails it alike.
            expect_fail: vec!["category_page"],
            ..Case::default()
        },
    ]
}

/// Buckets whose count is not the number of children they hold, or (by
/// time, when a start field, the items' time field and the unit's hours
/// are given) whose start is not each child's time truncated to the unit,
/// and the buckets in all, measured by pymongo.
const BUCKETS: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
coll, items, count = sys.argv[3:6]
docs = list(db[coll].find({}))
bad = [str(d["_id"]) for d in docs if d.get(count) != len(d.get(items) or [])]
if len(sys.argv) > 6:
    start, time, hours = sys.argv[6], sys.argv[7], int(sys.argv[8])
    def unit(t):
        return t.replace(minute=0, second=0, microsecond=0, hour=t.hour - t.hour % hours)
    bad += [str(d["_id"]) for d in docs if any(unit(c[time]) != d[start] for c in d[items])]
print(json.dumps({"buckets": len(docs), "bad": bad}))
"#;

/// The buckets whose aggregates are not pymongo's figures over their own
/// items: for `collection items field:function:of…`, the buckets checked
/// and the `_id`s of those that differ (relative 1e-9).
const BUCKET_FIGURES: &str = r#"
import json, sys
from pymongo import MongoClient
db = MongoClient(sys.argv[1])[sys.argv[2]]
coll, items = sys.argv[3:5]
specs = [s.split(":") for s in sys.argv[5:]]
fns = {"sum": sum, "min": min, "max": max}
n, bad = 0, []
for d in db[coll].find({}):
    n += 1
    for name, fn, of in specs:
        xs = [c[of] for c in d.get(items) or [] if c.get(of) is not None]
        want, got = fns[fn](xs), d.get(name)
        if got is None or abs(got - want) > 1e-9 * max(1, abs(want)):
            bad.append(str(d["_id"]))
        # The type too: a least or greatest is one of the items' values, in
        # their type; a sum of ints or doubles is a double.
        elif type(got) is not (float if fn == "sum" else type(want)):
            bad.append(f"{d['_id']}: {name} is {type(got).__name__}")
print(json.dumps({"buckets": n, "bad": bad}))
"#;

/// Every reader's timeline (spec `TIMELINES`) as recomputed from the data
/// of today into `expected`, item by item; and the check means something:
/// some readers follow outliers, and timelines are cut at the limit.
fn timeline_as_expected(
    python: &str,
    uri: &str,
    db: &str,
    expected: &Path,
    spec: &str,
    case: &str,
) {
    let text = run_tool(
        Command::new(python)
            .args(["-c", TIMELINES, uri, db, "compare"])
            .arg(expected)
            .arg(spec),
    );
    let seen: serde_json::Value = serde_json::from_str(text.trim()).expect("JSON");
    assert!(
        seen["bad"] == serde_json::json!([])
            && seen["readers"] == seen["timelines"]
            && seen["outliers"].as_u64() > Some(0)
            && seen["full"].as_u64() > Some(0),
        "{case}: {spec}: {seen}"
    );
}

/// Whether the database has no collection `name`.
fn gone_collection(python: &str, uri: &str, db: &str, name: &str) -> bool {
    !measure(python, uri, db, None)["count"]
        .as_object()
        .unwrap()
        .contains_key(name)
}

fn measure(python: &str, uri: &str, db: &str, held: Option<(&str, &str)>) -> serde_json::Value {
    let (c, f) = held.unwrap_or(("", ""));
    let text = run_tool(Command::new(python).args(["-c", MEASURE, uri, db, c, f]));
    serde_json::from_str(text.trim()).expect("JSON from the measure")
}

fn computed(
    python: &str,
    uri: &str,
    db: &str,
    (coll, array, of, specs): (&str, &str, &str, &[&str]),
    mode: &str,
) -> serde_json::Value {
    let text = run_tool(
        Command::new(python)
            .args(["-c", COMPUTED, uri, db, coll, array, of, mode])
            .args(specs),
    );
    serde_json::from_str(text.trim()).expect("JSON from the computed figures")
}

fn indexes(python: &str, uri: &str, db: &str) -> serde_json::Value {
    let text = run_tool(Command::new(python).args(["-c", INDEXES, uri, db]));
    serde_json::from_str(text.trim()).expect("JSON from the indexes")
}

/// The indexes (collection, name) a setup.js creates, read from its
/// `createIndexes` statements.
fn created_indexes(setup: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(setup).unwrap();
    let mut out = Vec::new();
    for block in text.split("createIndexes: \"").skip(1) {
        let coll = block.split('"').next().unwrap().to_string();
        let specs = &block[..block.find("] });").unwrap()];
        for name in specs.split("\"name\":\"").skip(1) {
            out.push((coll.clone(), name.split('"').next().unwrap().to_string()));
        }
    }
    out
}

fn links(python: &str, uri: &str, db: &str, specs: &[&str]) -> serde_json::Value {
    let text = run_tool(
        Command::new(python)
            .args(["-c", LINKS, uri, db])
            .args(specs),
    );
    serde_json::from_str(text.trim()).expect("JSON from the links")
}

/// `squill generate` with `more`, which must succeed with `stderr` (a
/// pattern of `Test::stderr_matching`) on standard error; its standard
/// output, for the caller to check.
fn squill_generate(
    config: Option<&Path>,
    model: &Path,
    out: &Path,
    more: &[&str],
    stderr: &str,
) -> String {
    let config: Vec<&std::ffi::OsStr> = config
        .map(|c| vec!["--config".as_ref(), c.as_os_str()])
        .unwrap_or_default();
    Test::new()
        .args(config)
        .args(["generate"])
        .args([model])
        .args(["--out"])
        .args([out])
        .args(more)
        .stdout_any()
        .stderr_matching(stderr)
        .check()
        .stdout
}

/// The cases are split over this many tests (every `SHARDS`th case each),
/// so that they run side by side, each case in a database of its own on the
/// one server: a case is mostly waiting on mongosh, Python and the server,
/// and the largest shard bounds the suite's time (issue 47).
const SHARDS: usize = 12;

/// One test per shard, named `…_K_of_12`.
macro_rules! shards {
    ($($name:ident = $shard:expr;)*) => {
        $(
            #[test]
            fn $name() {
                run_cases($shard);
            }
        )*
        #[test]
        fn every_case_is_in_a_shard() {
            let shards = [$($shard),*];
            assert_eq!(shards.len(), SHARDS);
            assert!(shards.iter().enumerate().all(|(i, s)| i == *s));
        }
    };
}

shards! {
    migration_runs_twice_and_the_cookbook_works_on_the_result_1_of_12 = 0;
    migration_runs_twice_and_the_cookbook_works_on_the_result_2_of_12 = 1;
    migration_runs_twice_and_the_cookbook_works_on_the_result_3_of_12 = 2;
    migration_runs_twice_and_the_cookbook_works_on_the_result_4_of_12 = 3;
    migration_runs_twice_and_the_cookbook_works_on_the_result_5_of_12 = 4;
    migration_runs_twice_and_the_cookbook_works_on_the_result_6_of_12 = 5;
    migration_runs_twice_and_the_cookbook_works_on_the_result_7_of_12 = 6;
    migration_runs_twice_and_the_cookbook_works_on_the_result_8_of_12 = 7;
    migration_runs_twice_and_the_cookbook_works_on_the_result_9_of_12 = 8;
    migration_runs_twice_and_the_cookbook_works_on_the_result_10_of_12 = 9;
    migration_runs_twice_and_the_cookbook_works_on_the_result_11_of_12 = 10;
    migration_runs_twice_and_the_cookbook_works_on_the_result_12_of_12 = 11;
}

/// The cases of shard `shard` (of `SHARDS`), each in a database of its own.
/// `SQUILL_TEST_CASES=a,b` runs only those cases (while debugging).
fn run_cases(shard: usize) {
    let Some((uri, python, mongosh)) = mongo() else {
        return;
    };
    let only = std::env::var("SQUILL_TEST_CASES")
        .ok()
        .filter(|s| !s.is_empty());
    let wanted = |name: &str| {
        only.as_ref()
            .is_none_or(|o| o.split(',').any(|x| x == name))
    };
    for case in cases()
        .into_iter()
        .skip(shard)
        .step_by(SHARDS)
        .filter(|c| wanted(c.name))
    {
        let dir = TempDir::new(&format!("migration-{}", case.name));
        let db = format!("squill_migration_{}", case.name.replace('-', "_"));
        let (model, today) = (dir.path().join("model.yaml"), dir.path().join("today.yaml"));
        std::fs::write(&model, &case.model).unwrap();
        std::fs::write(&today, &case.today).unwrap();
        // The data of today, under the validators of today.
        let source = dir.path().join("today");
        let config = case.config.map(|text| {
            let path = dir.path().join("squill.toml");
            std::fs::write(&path, text).unwrap();
            path
        });
        let config = config.as_deref();
        let scale = case.scale.unwrap_or("4");
        let index = squill_generate(
            config,
            &today,
            &source,
            &["--scale", scale, "--max-children", "6"],
            // The estimate, with the free space.
            "squill generate: about [..] to write into [..]\n",
        );
        assert!(
            index.starts_with("squill generate: model `"),
            "{}: {index}",
            case.name
        );
        let shell = |file: &Path| {
            run_tool(
                Command::new(&mongosh)
                    .args(["--quiet", "--norc", &with_db(&uri, &db)])
                    .arg(file),
            )
        };
        crate::support::drop_database(&python, &uri, &db);
        assert!(shell(&source.join("setup.js")).contains("squill setup: done"));
        run_tool(
            Command::new(&python)
                .args(["-c", LOAD, &uri, &db])
                .arg(&source),
        );
        if let Some(js) = case.prepare {
            // (A file, not `--eval`: one script the long-lived mongosh runs.)
            let prepare = dir.path().join("prepare.js");
            std::fs::write(&prepare, js).unwrap();
            shell(&prepare);
        }
        let before = measure(&python, &uri, &db, case.unwound.map(|(p, f, _)| (p, f)));
        let specs: Vec<&str> = case
            .moved
            .iter()
            .flat_map(|(a, b)| [*a, *b])
            .chain(case.dropped.iter().copied())
            .chain(
                case.split
                    .iter()
                    .flat_map(|(a, b)| [*a, *b].into_iter().chain(b.split('+'))),
            )
            .collect();
        let links_before = links(&python, &uri, &db, &specs);
        let figures = case
            .computed
            .map(|c| computed(&python, &uri, &db, c, "source"));
        for spec in &case.bare {
            let n = &links_before[spec]["n"];
            assert_eq!(
                links_before[spec]["ids"], 0,
                "{}: {spec} holds sub-documents today ({n} links)",
                case.name
            );
        }
        let expected = dir.path().join("timelines.json");
        if let Some(spec) = case.timeline {
            run_tool(
                Command::new(&python)
                    .args(["-c", TIMELINES, &uri, &db, "expect"])
                    .arg(&expected)
                    .arg(spec),
            );
        }
        // The script, and the recommended design's artifacts.
        let out = dir.path().join("recommended");
        let said = squill_generate(
            config,
            &model,
            &out,
            &["--migration"],
            "note: `squill generate --migration` is now `squill migrate --from-current MODEL --out DIR`; the old spelling still works and is deprecated\n",
        );
        assert!(said.contains(" → "), "{}: {said}", case.name);
        let index = squill_generate(config, &model, &out, &[], "");
        assert!(
            index.starts_with("squill generate: model `"),
            "{}: {index}",
            case.name
        );
        if let Some(check) = case.fails {
            let run = crate::support::run_any(
                Command::new(&mongosh)
                    .args(["--quiet", "--norc", &with_db(&uri, &db)])
                    .arg(out.join("migration.js")),
            );
            let said = run.stdout;
            assert!(
                run.code != 0 && said.contains(&format!("FAILED: {check}")),
                "{}: {said}{}",
                case.name,
                run.stderr
            );
            let kept = measure(&python, &uri, &db, None);
            for (coll, n) in before["count"].as_object().unwrap() {
                assert!(
                    kept["count"][coll].as_u64() >= n.as_u64(),
                    "{}: {coll} lost documents",
                    case.name
                );
            }
            assert_eq!(
                links(&python, &uri, &db, &specs),
                links_before,
                "{}: the links of today changed",
                case.name
            );
            eprintln!("{}: failed as it must\n{said}", case.name);
            continue;
        }
        let first = shell(&out.join("migration.js"));
        assert!(!first.contains("FAILED"), "{}: {first}", case.name);
        assert!(
            first.contains("squill migration: ok: "),
            "{}: {first}",
            case.name
        );
        let held = case.held.map(|(c, f, _, _)| (c, f));
        let after = measure(&python, &uri, &db, held);
        // Every document as the recommended design's validators want it.
        let invalid = run_tool(Command::new(&python).args(["-c", INVALID, &uri, &db]));
        let invalid: serde_json::Value = serde_json::from_str(invalid.trim()).unwrap();
        assert!(
            invalid.as_object().unwrap().values().all(|n| n == 0),
            "{}: documents against their validator: {invalid}",
            case.name
        );
        let links_after = links(&python, &uri, &db, &specs);
        for (from, to) in &case.moved {
            assert!(
                links_before[from]["n"].as_u64() > Some(0),
                "{}: no links in {from} today",
                case.name
            );
            assert_eq!(
                (&links_after[to]["n"], &links_after[to]["digest"]),
                (&links_before[from]["n"], &links_before[from]["digest"]),
                "{}: the links of {from} today against {to} after",
                case.name
            );
        }
        if let (Some(c), Some(want)) = (case.computed, &figures) {
            let kept = computed(&python, &uri, &db, c, "kept");
            assert_eq!(&kept, want, "{}: the computed fields", case.name);
            assert!(
                want.as_object().unwrap().values().any(|v| v
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| x.as_f64() != Some(0.0))),
                "{}: no figure but 0",
                case.name
            );
        }
        if let Some((shared, disc, kinds)) = case.kinds {
            let text = run_tool(
                Command::new(&python)
                    .args(["-c", KINDS, &uri, &db, shared, disc])
                    .args(kinds),
            );
            let found: serde_json::Value = serde_json::from_str(text.trim()).expect("JSON");
            for kind in kinds {
                assert!(
                    found[kind]["n"].as_u64() > Some(0) && found[kind]["same"] == true,
                    "{}: {kind}: {}",
                    case.name,
                    found[kind]
                );
            }
        }
        for spec in &case.bare {
            assert_eq!(
                links_after[spec]["ids"], links_after[spec]["n"],
                "{}: {spec} holds bare ids",
                case.name
            );
        }
        for spec in &case.kept_ids {
            let n = &links_after[spec]["n"];
            assert!(
                n.as_u64() > Some(0) && links_after[spec]["ids"] == *n,
                "{}: {spec} holds bare ids, as today: {}",
                case.name,
                links_after[spec]
            );
        }
        for (script, specs) in [(COPIES, &case.copies), (ATTRIBUTES, &case.attributes)] {
            if specs.is_empty() {
                continue;
            }
            let text = run_tool(
                Command::new(&python)
                    .args(["-c", script, &uri, &db])
                    .args(specs),
            );
            let found: serde_json::Value = serde_json::from_str(text.trim()).expect("JSON");
            for spec in specs {
                assert!(
                    found[spec]["n"].as_u64() > Some(0) && found[spec]["wrong"] == 0,
                    "{}: {spec}: {}",
                    case.name,
                    found[spec]
                );
            }
        }
        if let Some(spec) = case.timeline {
            // (Beside today's until the final step.)
            let spec = match case.beside {
                Some(beside) => format!("{beside}|{}", spec.split_once('|').unwrap().1),
                None => spec.to_string(),
            };
            timeline_as_expected(&python, &uri, &db, &expected, &spec, case.name);
        }
        // Run again: every step is skipped and nothing changes (a script
        // whose changes all wait for the final step has no step).
        let steps = std::fs::read_to_string(out.join("migration.js"))
            .unwrap()
            .contains("\nrunStep(");
        let second = shell(&out.join("migration.js"));
        assert!(
            !steps || second.contains("done in an earlier run, skipped"),
            "{}: {second}",
            case.name
        );
        assert!(!second.contains("FAILED"), "{}: {second}", case.name);
        assert_eq!(
            measure(&python, &uri, &db, held),
            after,
            "{}: a second run changed the data",
            case.name
        );
        // As if interrupted in every step's first batch: the markers say
        // not done and nothing done; every batch runs again, and changes
        // nothing (no child embedded, unwound or counted twice).
        // (Through pymongo, the same update: a request to the long-lived
        // Python costs less than starting mongosh.)
        run_tool(Command::new(&python).args([
            "-c",
            r#"import sys; from pymongo import MongoClient; MongoClient(sys.argv[1])[sys.argv[2]].squill_migration.update_many({"_id": {"$ne": "00-before"}}, {"$set": {"done": False}, "$unset": {"last": ""}})"#,
            &uri,
            &db,
        ]));
        let resumed = shell(&out.join("migration.js"));
        assert!(
            !resumed.contains("skipped") && !resumed.contains("FAILED"),
            "{}: {resumed}",
            case.name
        );
        assert_eq!(
            measure(&python, &uri, &db, held),
            after,
            "{}: a resumed run changed the data",
            case.name
        );
        assert_eq!(
            links(&python, &uri, &db, &specs),
            links_after,
            "{}: a resumed run changed the links",
            case.name
        );
        // No document of today lost or duplicated.
        for (coll, n) in before["count"].as_object().unwrap() {
            if case.grown == Some(coll.as_str()) {
                assert!(
                    after["count"][coll].as_u64() > n.as_u64(),
                    "{}: {coll} gains documents",
                    case.name
                );
                continue;
            }
            assert_eq!(
                &after["count"][coll], n,
                "{}: {coll} before and after",
                case.name
            );
        }
        if let Some(kept) = case.kept {
            assert!(
                after["count"][kept].as_u64() > Some(0),
                "{}: {kept} kept until the final step",
                case.name
            );
        }
        // The fan-out: each child of today once in its parent's field, or
        // at most `cap` per parent.
        if let Some((parent, _, child, cap)) = case.held {
            let children = before["count"][child].as_u64().unwrap();
            let held = after["held"].as_u64().unwrap();
            match cap {
                None => assert_eq!(held, children, "{}: children held", case.name),
                // (A bucket collection is new: no parents of today to cap.)
                Some(k) => assert!(
                    held <= before["count"][parent].as_u64().unwrap() * k as u64 && held > 0,
                    "{}: {held} held",
                    case.name
                ),
            }
        }
        if let Some((_, _, child)) = case.unwound {
            assert_eq!(
                after["count"][child], before["held"],
                "{}: one {child} per embedded child",
                case.name
            );
        }
        if let Some((coll, items, count)) = case.bucketed {
            let key = case.time_key.iter().flat_map(|(s, t, h)| [*s, *t, *h]);
            let text = run_tool(
                Command::new(&python)
                    .args(["-c", BUCKETS, &uri, &db, coll, items, count])
                    .args(key),
            );
            let seen: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
            assert!(seen["buckets"].as_u64() > Some(0), "{}: {seen}", case.name);
            assert_eq!(
                seen["bad"],
                serde_json::json!([]),
                "{}: counts, keys",
                case.name
            );
        }
        if let (Some((coll, items, _)), false) = (case.bucketed, case.bucket_figures.is_empty()) {
            let text = run_tool(
                Command::new(&python)
                    .args(["-c", BUCKET_FIGURES, &uri, &db, coll, items])
                    .args(&case.bucket_figures),
            );
            let seen: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
            assert!(
                seen["buckets"].as_u64() > Some(0) && seen["bad"] == serde_json::json!([]),
                "{}: the buckets' aggregates: {seen}",
                case.name
            );
        }
        if !case.dropped.is_empty() || case.split.is_some() || !case.stale.is_empty() {
            // The final step (before the cookbook writes): what only the
            // design of today used goes, the new design's links stay, and
            // the cookbook below runs without them.
            let script = std::fs::read_to_string(out.join("migration.js")).unwrap();
            let last = dir.path().join("drop-old.js");
            std::fs::write(
                &last,
                script.replacen("const DROP_OLD = false;", "const DROP_OLD = true;", 1),
            )
            .unwrap();
            let held = indexes(&python, &uri, &db);
            for (coll, name) in &case.stale {
                assert!(
                    held[coll].get(name).is_some(),
                    "{}: {coll}.{name} before the final step: {held}",
                    case.name
                );
            }
            let said = shell(&last);
            assert!(said.contains("final step done"), "{}: {said}", case.name);
            // Every document as the validators want it after the final
            // step too (an outlier's parent gets its validator only then).
            let invalid = run_tool(Command::new(&python).args(["-c", INVALID, &uri, &db]));
            let invalid: serde_json::Value = serde_json::from_str(invalid.trim()).unwrap();
            assert!(
                invalid.as_object().unwrap().values().all(|n| n == 0),
                "{}: documents against their validator after the final step: {invalid}",
                case.name
            );
            // Run once more: what the checks compared is gone, and the
            // script says the migration is complete (`shell` fails on a
            // non-zero exit).
            let again = shell(&last);
            assert!(
                again.contains("the migration is complete, nothing to do")
                    && !again.contains("FAILED"),
                "{}: {again}",
                case.name
            );
            // No index of today left on a field the final step removed;
            // the recommended design's indexes all there.
            let held = indexes(&python, &uri, &db);
            for (coll, name) in &case.stale {
                assert!(
                    held[coll].get(name).is_none(),
                    "{}: {coll}.{name} after the final step: {held}",
                    case.name
                );
            }
            for spec in &case.dropped {
                let mut parts = spec.split('|');
                let (coll, field) = (parts.next().unwrap(), parts.nth(1).unwrap());
                let field = field.trim_end_matches('#').split('.').next().unwrap();
                let left: Vec<_> = held[coll]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(_, keys)| {
                        keys.as_array().unwrap().iter().any(|k| {
                            let k = k.as_str().unwrap();
                            k == field || k.starts_with(&format!("{field}."))
                        })
                    })
                    .collect();
                assert!(
                    left.is_empty(),
                    "{}: indexes on {coll}.{field} after the final step: {left:?}",
                    case.name
                );
            }
            for (coll, name) in created_indexes(&out.join("setup.js")) {
                assert!(
                    held[&coll].get(&name).is_some(),
                    "{}: the recommended {coll}.{name} after the final step: {held}",
                    case.name
                );
            }
            let gone = links(&python, &uri, &db, &specs);
            if let Some((today, split)) = case.split {
                assert!(
                    links_before[today]["n"].as_u64() > Some(0),
                    "{}: no links in {today} today",
                    case.name
                );
                assert_eq!(
                    (&gone[split]["n"], &gone[split]["digest"]),
                    (&links_before[today]["n"], &links_before[today]["digest"]),
                    "{}: the links of {today} today against {split} after the final step",
                    case.name
                );
                // Each place holds some: the array its first children, the
                // collection those past the threshold.
                for part in split.split('+') {
                    assert!(
                        gone[part]["n"].as_u64() > Some(0),
                        "{}: no links in {part} after the final step",
                        case.name
                    );
                }
            }
            if let Some(spec) = case.newest {
                let text = run_tool(Command::new(&python).args(["-c", NEWEST, &uri, &db, spec]));
                let seen: serde_json::Value = serde_json::from_str(text.trim()).expect("JSON");
                assert!(
                    seen["cut"].as_u64() > Some(0) && seen["bad"] == serde_json::json!([]),
                    "{}: {spec}: {seen}",
                    case.name
                );
            }
            for spec in &case.dropped {
                assert_eq!(
                    gone[spec]["n"], 0,
                    "{}: {spec} after the final step",
                    case.name
                );
            }
            if let (Some(spec), Some(beside)) = (case.timeline, case.beside) {
                // Rebuilt in place, the copy beside dropped.
                timeline_as_expected(&python, &uri, &db, &expected, spec, case.name);
                assert!(
                    gone_collection(&python, &uri, &db, beside),
                    "{}: {beside} after the final step",
                    case.name
                );
            }
            // (A place the split checks already holds less after it: an
            // outlier's child collection.)
            let split_part = |to: &str| {
                case.split
                    .is_some_and(|(_, s)| s.split('+').any(|p| p == to))
            };
            for (_, to) in case
                .moved
                .iter()
                .filter(|(_, to)| !case.dropped.contains(to) && !split_part(to))
            {
                assert_eq!(
                    gone[to], links_after[to],
                    "{}: {to} after the final step",
                    case.name
                );
            }
        }
        // The recommended design's cookbook on the migrated data.
        let checked = run_tool(
            Command::new(&python)
                .arg(crate::support::repo_root().join("scripts/testenv/check_generated.py"))
                .args(["--uri", &uri, "--db", &db, "--no-load", "--dir"])
                .arg(&out)
                .args(case.expect_fail.iter().flat_map(|f| ["--expect-fail", f])),
        );
        assert!(checked.contains("ok: cookbook"), "{}: {checked}", case.name);
        assert!(!checked.contains("FAIL"), "{}: {checked}", case.name);
        eprintln!("{}: migrated and checked\n{first}{checked}", case.name);
    }
}
