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
/// read through arrays and a sub-document standing for its `_id`; their
/// number, how many of the b values are bare ids (not sub-documents), and a
/// digest of the sorted pairs (so links moved to the other side, or into an
/// edge collection, compare equal when none is lost, added or changed).
/// A `b` ending in `#` pairs each value with its position (a path's order);
/// `b^nodes.parent` (optionally `:field`) stands for the walk up a tree from
/// the id at `b` through the parent ids of `nodes`, from the root down, each
/// node with its position (its `field` instead of its id): the path a tree
/// layout must hold, computed here from the parent ids alone.
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
    coll, a, b = spec.split("|")
    up = None
    if "^" in b:
        b, up = b.split("^")
        up, _, show = up.partition(":")
        up = up.split(".", 1) + [show]
    ordered = b.endswith("#")
    b = b.rstrip("#")
    pairs, ids = [], 0
    for d in db[coll].find({}):
        for _, x in vals(d, a):
            ys = vals(d, b)
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
    return {"avg": sum(xs) / len(xs), "first": xs[0], "last": xs[-1], "min": min(xs), "max": max(xs), "sum": sum(xs)}[fn]
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
    /// Specs that hold links until the final step and none after it (run
    /// with DROP_OLD = true, then the cookbook again).
    dropped: Vec<&'static str>,
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
}

fn cases() -> Vec<Case> {
    vec![
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
            name: "shared-id-to-parent-reference",
            model: settings(Some("parent-reference"), Some("shared-id")),
            today: settings(Some("shared-id"), None),
            // Each settings document keeps its _id and holds it again as
            // its user's id.
            moved: vec![("settings|_id|_id", "settings|_id|user")],
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
                &["reviews_avg_rating:avg", "reviews_last_rating:last"],
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
    ]
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

fn squill_generate(model: &Path, out: &Path, more: &[&str]) -> String {
    let run = Test::new()
        .args(["generate"])
        .args([model])
        .args(["--out"])
        .args([out])
        .args(more)
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn migration_runs_twice_and_the_cookbook_works_on_the_result() {
    let Some((uri, python, mongosh)) = mongo() else {
        return;
    };
    for case in cases() {
        let dir = TempDir::new(&format!("migration-{}", case.name));
        let db = format!("squill_migration_{}", case.name.replace('-', "_"));
        let (model, today) = (dir.path().join("model.yaml"), dir.path().join("today.yaml"));
        std::fs::write(&model, &case.model).unwrap();
        std::fs::write(&today, &case.today).unwrap();
        // The data of today, under the validators of today.
        let source = dir.path().join("today");
        squill_generate(&today, &source, &["--scale", "4", "--max-children", "6"]);
        let shell = |file: &Path| {
            run_tool(
                Command::new(&mongosh)
                    .args(["--quiet", "--norc", &with_db(&uri, &db)])
                    .arg(file),
            )
        };
        run_tool(
            Command::new(&mongosh)
                .args(["--quiet", "--norc", &with_db(&uri, &db)])
                .args(["--eval", "db.dropDatabase()"]),
        );
        assert!(shell(&source.join("setup.js")).contains("squill setup: done"));
        run_tool(
            Command::new(&python)
                .args(["-c", LOAD, &uri, &db])
                .arg(&source),
        );
        let before = measure(&python, &uri, &db, case.unwound.map(|(p, f, _)| (p, f)));
        let specs: Vec<&str> = case
            .moved
            .iter()
            .flat_map(|(a, b)| [*a, *b])
            .chain(case.dropped.iter().copied())
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
        // The script, and the recommended design's artifacts.
        let out = dir.path().join("recommended");
        let said = squill_generate(&model, &out, &["--migration"]);
        assert!(said.contains(" → "), "{}: {said}", case.name);
        squill_generate(&model, &out, &[]);
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
        for spec in &case.bare {
            assert_eq!(
                links_after[spec]["ids"], links_after[spec]["n"],
                "{}: {spec} holds bare ids",
                case.name
            );
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
        run_tool(
            Command::new(&mongosh)
                .args(["--quiet", "--norc", &with_db(&uri, &db)])
                .args([
                    "--eval",
                    r#"db.squill_migration.updateMany({ _id: { $ne: "00-before" } }, { $set: { done: false }, $unset: { last: "" } })"#,
                ]),
        );
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
            let parents = before["count"][parent].as_u64().unwrap();
            let held = after["held"].as_u64().unwrap();
            match cap {
                None => assert_eq!(held, children, "{}: children held", case.name),
                Some(k) => assert!(
                    held <= parents * k as u64 && held > 0,
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
        if !case.dropped.is_empty() || !case.stale.is_empty() {
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
            for spec in &case.dropped {
                assert_eq!(
                    gone[spec]["n"], 0,
                    "{}: {spec} after the final step",
                    case.name
                );
            }
            for (_, to) in case
                .moved
                .iter()
                .filter(|(_, to)| !case.dropped.contains(to))
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
