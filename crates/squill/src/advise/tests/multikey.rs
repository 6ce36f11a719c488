//! Multikey indexes on an array field of the entity's own (issue 41): an
//! index on `tags: string[5]` has an entry per element, five a document,
//! wherever its entries are counted: the entries the design holds, the
//! keys each write of a document writes, the bytes the capacity
//! projection gives the index. Each beside the scalar field that has one.

use crate::advise::optimize::{PLAN_BUDGET, local_search_within};
use crate::candidates::facts::Facts;
use crate::candidates::placement::Placement;
use crate::costs::plan::{IndexNeed, Planner};
use crate::design::capacity::Capacity;
use crate::model::{Horizon, Model};
use crate::settings::Settings;

const ARTICLES: u64 = 1_000_000;

/// Articles with `tags` of type `tags`, found by a tag, re-labelled by a
/// tag (a write that finds its documents through the array), inserted.
fn articles(tags: &str) -> Model {
    let text = format!(
        "name: tagged
entities:
  article:
    count: {ARTICLES}
    fields:
      title: string(40)
      tags: {tags}
      status: string(8)
operations:
  by_tag:
    read: article
    rate: 500
    filter: {{tags: eq}}
    limit: 20
    fields: [title]
  retire_tag:
    update: article
    filter: {{tags: eq}}
    changes: [status]
    rate: 1
  write:
    insert: article
    rate: 50
"
    );
    crate::inputs::model_file::parse("tagged.yaml", &text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The index need of operation `op` on `tags`, as the chosen design plans it.
fn need(model: &Model, op: &str) -> IndexNeed {
    let settings = Settings::default();
    let facts = Facts::new(model, &settings, 0);
    let space = crate::rules::design::space(&facts);
    let searched = local_search_within(&facts, &space, PLAN_BUDGET).unwrap();
    let p = Placement::build(&facts, &space, &searched.state).unwrap();
    let planner = Planner {
        facts: &facts,
        space: &space,
        p: &p,
    };
    let id = model.operation_by_name(op).unwrap();
    planner
        .plan(id)
        .indexes
        .into_iter()
        .find(|n| n.keys.iter().any(|(k, _)| k == "tags"))
        .unwrap_or_else(|| panic!("{op} uses an index on tags"))
}

/// A read by a tag and a write by a tag use one index on `tags`: five
/// entries an article, each written when an article is; a scalar `tags`
/// has one.
#[test]
fn an_index_on_an_array_field_has_an_entry_per_element() {
    let five = articles("string[5]");
    let one = articles("string");
    for op in ["by_tag", "retire_tag"] {
        let n = need(&five, op);
        assert!(
            (n.entries - 5.0 * ARTICLES as f64).abs() < 1e-6,
            "{op}: {n:?}"
        );
        assert!((n.keys_per_write - 5.0).abs() < 1e-9, "{op}: {n:?}");
        let s = need(&one, op);
        assert!((s.entries - ARTICLES as f64).abs() < 1e-6, "{op}: {s:?}");
        assert!((s.keys_per_write - 1.0).abs() < 1e-9, "{op}: {s:?}");
    }
    let d = crate::advise::advise(&five, &Settings::default(), None).unwrap();
    assert!((d.totals.index_entries - 5.0 * ARTICLES as f64).abs() < 1e-6);
}

/// An array of unstated size has the model's default elements (4).
#[test]
fn an_array_of_unstated_size_has_the_default_elements() {
    let n = need(&articles("string[]"), "by_tag");
    assert!((n.entries - 4.0 * ARTICLES as f64).abs() < 1e-6, "{n:?}");
}

fn projected(model: &Model) -> Capacity {
    let mut settings = Settings::default();
    settings.capacity.horizon = Some(Horizon { months: 1 });
    crate::advise::advise(model, &settings, None)
        .unwrap()
        .capacity
        .unwrap()
}

/// The projection gives the index on `tags` an entry per element, each
/// of one element's bytes (a 16-character string: 21) and a record id
/// (8), beside the `_id` index (an ObjectId and a record id a document).
#[test]
fn the_projection_sizes_an_array_index_per_element() {
    let row = |c: &Capacity| {
        c.months[0]
            .collections
            .iter()
            .find(|r| r.collection == "article")
            .unwrap()
            .index_bytes
    };
    let id_index = ARTICLES * (12 + 8);
    assert_eq!(
        row(&projected(&articles("string[5]"))),
        id_index + 5 * ARTICLES * (21 + 8)
    );
    assert_eq!(
        row(&projected(&articles("string"))),
        id_index + ARTICLES * (21 + 8)
    );
}

/// Articles with their tags' ids in an array (a many-to-many laid out as
/// `layout`), typically `per` tags an article; read by a tag, written.
fn tagged_by_ids(layout: &str, per: u64) -> Model {
    let text = format!(
        "name: tag-ids
entities:
  article:
    count: {ARTICLES}
    fields:
      title: string(40)
  tag:
    count: 2000
    fields:
      label: string(12)
relationships:
  tags:
    kind: many-to-many
    parent: article
    child: tag
    children: {{min: 0, typical: {per}, max: 10}}
    parents: {{min: 0, typical: 2500, max: 4000}}
    child_field: articles
    layout: {layout}
operations:
  by_tag:
    read: article
    rate: 500
    filter: {{tags: eq}}
    limit: 20
    fields: [title]
  write:
    insert: article
    links: [tags]
    rate: 50
"
    );
    crate::inputs::model_file::parse("tag-ids.yaml", &text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The index need of `op` on `collection` whose key lies in the array `field`.
fn need_on(model: &Model, op: &str, collection: &str, field: &str) -> IndexNeed {
    let settings = Settings::default();
    let facts = Facts::new(model, &settings, 0);
    let space = crate::rules::design::space(&facts);
    let searched = local_search_within(&facts, &space, PLAN_BUDGET).unwrap();
    let p = Placement::build(&facts, &space, &searched.state).unwrap();
    let planner = Planner {
        facts: &facts,
        space: &space,
        p: &p,
    };
    let id = model.operation_by_name(op).unwrap();
    let under = |k: &str| k == field || k.starts_with(&format!("{field}."));
    planner
        .plan(id)
        .indexes
        .into_iter()
        .find(|n| n.collection == collection && n.keys.iter().any(|(k, _)| under(k)))
        .unwrap_or_else(|| panic!("{op} uses an index on {collection}.{field}"))
}

/// A many-to-many kept as an array of the tags' ids in each article: the
/// index on the array has an entry per id (the relationship's typical
/// tags an article, 6), and each article written writes 6 keys, not one.
#[test]
fn an_index_on_an_array_of_ids_has_an_entry_per_id() {
    for layout in ["many-to-many-one-way", "many-to-many-two-way"] {
        let m = tagged_by_ids(layout, 6);
        let n = need_on(&m, "by_tag", "article", "tags");
        assert!(
            (n.entries - 6.0 * ARTICLES as f64).abs() < 1e-6,
            "{layout}: {n:?}"
        );
        assert!((n.keys_per_write - 6.0).abs() < 1e-9, "{layout}: {n:?}");
    }
}

/// The projection sizes the index on the array of ids at an entry per id
/// (6 an article), each an ObjectId and a record id, beside `_id`'s: the
/// ids counted once, though both the growing array and the ids say so.
#[test]
fn the_projection_sizes_an_index_on_ids_per_id() {
    let c = projected(&tagged_by_ids("many-to-many-one-way", 6));
    let row = c.months[0]
        .collections
        .iter()
        .find(|r| r.collection == "article")
        .unwrap();
    assert_eq!(
        row.index_bytes,
        ARTICLES * (12 + 8) + 6 * ARTICLES * (12 + 8)
    );
}

/// The working set of an archive split (and any index sized from a
/// design's collection) counts the index on the tag ids at 6 entries an
/// article, as the plans do, through the shape's array of ids.
#[test]
fn a_collections_index_on_ids_counts_an_entry_per_id() {
    let m = tagged_by_ids("many-to-many-one-way", 6);
    let d = crate::advise::advise(&m, &Settings::default(), None).unwrap();
    let article = d.collections.iter().find(|c| c.name == "article").unwrap();
    let key = article
        .indexes
        .iter()
        .flat_map(|i| i.keys.iter().map(|(k, _)| k.as_str()))
        .find(|k| *k == "tags" || k.starts_with("tags."))
        .unwrap_or_else(|| panic!("an index on the tag ids: {:?}", article.indexes));
    assert!((crate::advise::archive::array_entries(&m, article, key) - 6.0).abs() < 1e-9);
    assert!((crate::advise::archive::array_entries(&m, article, "title") - 1.0).abs() < 1e-9);
}

/// Orders with their lines embedded (5 an order), found by a line's sku,
/// re-counted by a sku (a write that finds its orders through the array),
/// placed whole, a line pushed into its order.
fn orders_with_lines() -> Model {
    let text = "name: order-lines
entities:
  order:
    count: 1000000
    fields:
      placed_at: date
  line:
    count: 5000000
    fields:
      sku: string(12)
      qty: int
relationships:
  lines:
    parent: order
    child: line
    children: {min: 1, typical: 5, max: 50}
    parent_field: lines
    layout: embed
operations:
  by_sku:
    read: line
    rate: 20
    filter: {sku: eq}
    limit: 10
  recount:
    update: line
    filter: {sku: eq}
    changes: [qty]
    multi: true
    rate: 1
  place_order:
    insert: order
    rate: 10
  add_line:
    insert: line
    links: [lines]
    rate: 2
";
    crate::inputs::model_file::parse("order-lines.yaml", text).unwrap_or_else(|e| panic!("{e}"))
}

/// The index on `lines.sku` gets a key per line: an order placed (10/s)
/// writes its 5 lines' keys, a line pushed (2/s) its own one, 52 keys a
/// second, whether a read through the line or a write through the order
/// needs it (once an order wrote one key through the order and none
/// through the line).
#[test]
fn an_index_in_an_embedded_array_writes_a_key_per_element() {
    let m = orders_with_lines();
    for op in ["by_sku", "recount"] {
        let n = need_on(&m, op, "order", "lines");
        assert!((n.writes - 12.0).abs() < 1e-9, "{op}: {n:?}");
        assert!(
            (n.writes * n.keys_per_write - (10.0 * 5.0 + 2.0)).abs() < 1e-9,
            "{op}: {n:?}"
        );
        assert!((n.entries - 5_000_000.0).abs() < 1e-6, "{op}: {n:?}");
    }
}

/// Customers with their address embedded (one-to-one) and their orders
/// embedded, each order with its lines embedded: an index on
/// `address.city` or on `orders.lines.sku` in the customer collection.
fn customers_with_orders_and_lines() -> Model {
    let text = "name: customer-orders-lines
entities:
  customer:
    count: 100000
    fields:
      name: string(20)
  address:
    count: 100000
    fields:
      city: string(12)
      street: string(30)
  order:
    count: 1000000
    fields:
      placed_at: date
  line:
    count: 5000000
    fields:
      sku: string(12)
      qty: int
relationships:
  home:
    parent: customer
    child: address
    kind: one-to-one
    children: {min: 1, typical: 1, max: 1}
    parent_field: address
    layout: embed
  orders:
    parent: customer
    child: order
    children: {min: 0, typical: 10, max: 50}
    parent_field: orders
    layout: embed
  lines:
    parent: order
    child: line
    children: {min: 1, typical: 5, max: 50}
    parent_field: lines
    layout: embed
operations:
  by_city:
    read: address
    rate: 20
    filter: {city: eq}
    limit: 10
  move:
    update: address
    filter: {_id: eq}
    changes: [city]
    rate: 3
  by_sku:
    read: line
    rate: 20
    filter: {sku: eq}
    limit: 10
  join:
    insert: customer
    rate: 10
  place_order:
    insert: order
    links: [orders]
    rate: 4
  add_line:
    insert: line
    links: [lines]
    rate: 2
";
    crate::inputs::model_file::parse("customer-orders-lines.yaml", text)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// An index on a field of an embedded one-to-one object (`address.city`)
/// is written by the customer's inserts (10/s, the address in them) and
/// the city's changes (3/s): 13 writes of one key. Once only the changes
/// were counted (the host's writes reached an embedded array's index only).
#[test]
fn an_index_in_an_embedded_object_counts_its_hosts_writes() {
    let n = need_on(
        &customers_with_orders_and_lines(),
        "by_city",
        "customer",
        "address",
    );
    assert!((n.writes - 13.0).abs() < 1e-9, "{n:?}");
    assert!((n.keys_per_write - 1.0).abs() < 1e-9, "{n:?}");
}

/// An index two arrays deep (`orders.lines.sku`: 10 orders a customer, 5
/// lines an order) is written by a customer inserted whole (10/s, 50 keys
/// each), an order pushed (4/s, its 5 lines' keys) and a line pushed (2/s,
/// one): 16 writes, 522 keys a second. Once the customer's writes were not
/// counted through the line.
#[test]
fn an_index_two_arrays_deep_writes_a_key_per_inner_element() {
    let n = need_on(
        &customers_with_orders_and_lines(),
        "by_sku",
        "customer",
        "orders",
    );
    assert!((n.writes - 16.0).abs() < 1e-9, "{n:?}");
    assert!(
        (n.writes * n.keys_per_write - (10.0 * 10.0 * 5.0 + 4.0 * 5.0 + 2.0)).abs() < 1e-9,
        "{n:?}"
    );
    assert!((n.entries - 100_000.0 * 10.0 * 5.0).abs() < 1e-6, "{n:?}");
}
