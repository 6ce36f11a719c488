//! Synthetic data under a tenant (`tenant: store`): every document of a
//! scoped entity names one tenant, and every document it references is of
//! the same tenant. Before, a second parent (an order's customer, an
//! entry's game, a follow's followed player) was drawn among every
//! tenant's instances, so an order of store A named a customer of store B.
//!
//! The check reads the documents only: the tenant of a document is the
//! tenant's ObjectId it holds (the entity is the ObjectId's sixth byte,
//! `Numbering::object_id`), and a reference is any ObjectId in it that is
//! another generated document's `_id`.

use super::documents::{Builder, Fanout};
use super::*;
use crate::design::Design;
use std::collections::{BTreeSet, HashMap};

/// Every ObjectId in `v`, at any depth.
fn object_ids(v: &Value, out: &mut Vec<[u8; 12]>) {
    match v {
        Value::ObjectId(id) => out.push(*id),
        Value::Array(items) => items.iter().for_each(|x| object_ids(x, out)),
        Value::Document(d) => d.0.iter().for_each(|(_, x)| object_ids(x, out)),
        _ => {}
    }
}

/// The generated documents of the collections whose first entity is
/// scoped (or is the tenant), with their `_id` and every other ObjectId
/// they hold.
type Scoped = Vec<(String, [u8; 12], Vec<[u8; 12]>)>;

fn scoped_documents(model: &Model, design: &Design, pop: &Population<'_>) -> Scoped {
    let tenant = model.tenant.expect("a tenant").entity;
    let b = Builder::new(pop, Fanout::Drawn);
    let mut out = Vec::new();
    for c in &design.collections {
        let Some(e) = c.entities.first().and_then(|n| model.entity_by_name(n)) else {
            continue;
        };
        if e != tenant && model.tenant_relationship(e).is_none() {
            continue;
        }
        pop.for_each_root(c, |root| -> Result<(), ()> {
            let doc = b.document(c, &root);
            let id = match doc.0.iter().find(|(k, _)| k == "_id") {
                Some((_, Value::ObjectId(id))) => *id,
                _ => return Ok(()),
            };
            let mut ids = Vec::new();
            for (k, v) in &doc.0 {
                if k != "_id" {
                    object_ids(v, &mut ids);
                }
            }
            out.push((c.name.clone(), id, ids));
            Ok(())
        })
        .unwrap();
    }
    out
}

/// Panics, naming the document and the reference, where a document names
/// two tenants or references a document of another tenant.
fn assert_references_stay_in_their_tenant(name: &str, model: &Model, design: &Design) {
    let tenant = model.tenant.expect("a tenant").entity;
    let tenant_byte = (tenant.index() & 0xff) as u8;
    // Several tenants, a few instances each: enough for a reference drawn
    // among every tenant's instances to land in another tenant.
    let pop = Population::with_max_children(model, design, 4, 13, Some(6));
    assert!(pop.count(tenant) > 1, "{name}: several tenants");
    let docs = scoped_documents(model, design, &pop);
    let tenant_of_doc: HashMap<[u8; 12], [u8; 12]> = docs
        .iter()
        .filter_map(|(coll, id, ids)| {
            if id[5] == tenant_byte {
                return Some((*id, *id));
            }
            let named: BTreeSet<[u8; 12]> = ids
                .iter()
                .copied()
                .filter(|x| x[5] == tenant_byte)
                .collect();
            assert_eq!(named.len(), 1, "{name}/{coll}: a document names one tenant");
            named.first().map(|t| (*id, *t))
        })
        .collect();
    let mut checked = 0;
    for (coll, id, ids) in &docs {
        let mine = tenant_of_doc[id];
        for x in ids.iter().filter(|x| x[5] != tenant_byte) {
            if let Some(theirs) = tenant_of_doc.get(x) {
                checked += 1;
                assert_eq!(
                    *theirs,
                    mine,
                    "{name}/{coll}: a document of tenant {} references {} of tenant {}",
                    value::object_id_hex(&mine),
                    value::object_id_hex(x),
                    value::object_id_hex(theirs)
                );
            }
        }
    }
    assert!(checked > 0, "{name}: references between scoped documents");
}

fn advised(name: &str, text: &str) -> (Model, Design) {
    let model = crate::inputs::model_file::parse(name, text).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    (model, design)
}

/// Orders name a customer and reviews a product of their store: second
/// parents within the tenant (`customer_orders`, `product_reviews`), the
/// order's copy of its customer's name, lines embedded in their order.
#[test]
fn tenant_writes_references_stay_in_their_tenant() {
    let (model, design) = crate::fixtures::load("tenant-writes");
    assert_references_stay_in_their_tenant("tenant-writes", &model, &design);
}

/// An entity numbered under another scoped entity (a player's entries)
/// whose relationship to the tenant is its second parent (`entries`), and
/// a pair unique per follower and followed (`follow`).
#[test]
fn leaderboard_references_stay_in_their_tenant() {
    let (model, design) = advised(
        "leaderboard-feed.yaml",
        include_str!("../advise/tests/leaderboard-feed.yaml"),
    );
    assert_references_stay_in_their_tenant("leaderboard-feed", &model, &design);
}

#[test]
fn s19_references_stay_in_their_tenant() {
    let (model, design) = advised(
        "s19-stores.yaml",
        include_str!("../../../../examples/scenarios/s19-stores.yaml"),
    );
    assert_references_stay_in_their_tenant("s19-stores", &model, &design);
}
