//! Every design rule fires on some model: as a limit that forbids a candidate,
//! a reason that supports one, or a finding on the finished design.

use super::golden::example;
use crate::advise::advise;
use crate::candidates::facts::Facts;
use crate::design::Verdict;
use crate::model::Model;
use crate::settings::{DesignOptions, Options, Settings};
use std::collections::BTreeSet;

/// Rule ids a model makes fire under `settings`.
fn fired(model: &Model, settings: &Settings) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    for mix in 0..model.workload.mixes.len() {
        let facts = Facts::new(model, settings, mix);
        let space = crate::rules::design::space(&facts);
        for c in space.rels.iter().flatten() {
            out.extend(c.forbidden.iter().map(|h| h.rule));
            out.extend(c.support.iter().map(|h| h.rule));
        }
        out.extend(space.entity_support.iter().flatten().map(|h| h.rule));
        let name = &model.workload.mixes[mix].name;
        let d = advise(model, settings, Some(name)).unwrap();
        for r in &d.relationships {
            out.extend(r.rules.iter().map(|h| h.rule));
            for a in &r.alternatives {
                if let Verdict::Rejected { rule, .. } = a.verdict {
                    out.insert(rule);
                }
            }
        }
        out.extend(d.findings.iter().map(|f| f.rule));
        for e in &d.entities {
            out.extend(e.rules().iter().map(|h| h.rule));
        }
    }
    out
}

fn model(file: &str, yaml: &str) -> Model {
    crate::inputs::model_file::parse(file, yaml).unwrap()
}

/// A product whose embedded parts would pass 16 MiB at their maximum.
fn huge_children() -> Model {
    model(
        "huge-children.yaml",
        "name: huge-children
entities:
  product: {count: 1000, fields: {name: string(20)}}
  part: {count: 100000, fields: {name: string(20), drawing: binary(200000)}}
relationships:
  parts: {parent: product, child: part, children: {min: 1, typical: 5, max: 150}}
operations:
  product_page: {read: product, rate: 10, filter: {_id: eq}, include: [parts]}
",
    )
}

/// A read that returns only the field it filters on: a covered query.
fn covered() -> Model {
    model(
        "covered.yaml",
        "name: covered
entities:
  user: {count: 100000, fields: {email: string(24), name: string(16)}}
  session: {count: 1000000, fields: {token: string(32), at: date}}
relationships:
  sessions:
    parent: user
    child: session
    children: {min: 0, typical: 10, max: unbounded}
    standalone: true
operations:
  email_exists: {read: user, rate: 50, filter: {email: eq}, limit: 1, fields: [email]}
  login: {insert: session, links: [sessions], rate: 10}
",
    )
}

#[test]
fn every_design_rule_fires_on_some_model() {
    let defaults = Settings::default();
    let mut seen = BTreeSet::new();
    // Every example and scenario.
    for name in super::golden::example_names() {
        seen.extend(fired(&example(&name), &defaults));
    }
    seen.extend(fired(&huge_children(), &defaults));
    seen.extend(fired(&covered(), &defaults));
    // 65 indexes on one collection: the design-level limit.
    let wide = crate::inputs::model_file::parse(
        "wide.yaml",
        &crate::rules::testing::reads_on_own_fields(64),
    )
    .unwrap();
    seen.extend(fired(&wide, &defaults));
    // Placeholder figures, as `squill import sql` writes them.
    let assumed = crate::inputs::model_file::parse(
        "assumed.yaml",
        "entities:\n  a: {count: 10, assumed: [count]}\n  b: {count: 100}\nrelationships:\n  bs: {parent: a, child: b, children: {typical: 10, max: 20}, assumed: [children]}\n",
    )
    .unwrap();
    seen.extend(fired(&assumed, &defaults));
    // A place kept as two numbers and searched by two ranges.
    let two_numbers = crate::inputs::model_file::parse(
        "two-numbers.yaml",
        "entities:\n  shop: {count: 1000, fields: {lat: double, lng: double}}\noperations:\n  box: {read: shop, rate: 1, filter: {lat: range, lng: range}}\n",
    )
    .unwrap();
    seen.extend(fired(&two_numbers, &defaults));
    // Posts in their own collection paged by skip, typically 40 pages deep.
    let skip = crate::inputs::model_file::parse(
        "skip.yaml",
        "entities:\n  t: {count: 1000}\n  p: {count: 100000, fields: {at: date}}\nrelationships:\n  ps: {parent: t, child: p, children: {typical: 100, max: 50000}, child_field: t, layout: parent-reference}\noperations:\n  page: {read: p, rate: 1, filter: {t: eq}, sort: at, limit: 10, paging: {by: skip, past_first: 0.5, depth: {typical: 40}}}\n",
    )
    .unwrap();
    seen.extend(fired(&skip, &defaults));
    // Sessions that expire, embedded in their user: no TTL index can
    // delete one (audit44 D).
    let embedded_expiry = crate::inputs::model_file::parse(
        "embedded-expiry.yaml",
        "entities:\n  u: {count: 1000}\n  s: {count: 2000, fields: {at: date}, expires: {from: at, after: 1 day}}\nrelationships:\n  ss: {parent: u, child: s, children: {typical: 2, max: 10}, child_field: u, layout: embed}\noperations:\n  open: {insert: s, links: [ss], rate: 0.02}\n  show: {read: u, rate: 10, filter: {_id: eq}, include: [ss]}\n",
    )
    .unwrap();
    seen.extend(fired(&embedded_expiry, &defaults));
    // A booking that finds a free seat, then sets its state by id (the
    // seat map's copy must follow), with no condition: read-then-write.
    let booking = crate::inputs::model_file::parse(
        "booking.yaml",
        "entities:\n  show: {count: 10000, fields: {title: string(40)}}\n  seat: {count: 5000000, fields: {label: string(4), price: decimal, state: string(8)}}\nrelationships:\n  seats: {parent: show, child: seat, children: {typical: 500, max: 2000}, child_field: show, standalone: true, layout: extended-reference}\noperations:\n  seat_map: {read: show, rate: 1000, filter: {_id: eq}, include: {seats: {fields: [label, state]}}}\n  book: {update: seat, rate: 50, filter: {show: eq, state: eq}, changes: [state]}\n",
    )
    .unwrap();
    seen.extend(fired(&booking, &defaults));
    // Stores where the largest holds 10% of the orders (100,000), and the
    // relationship says no store has more than 1,000.
    let tenant = crate::inputs::model_file::parse(
        "tenant.yaml",
        "tenant: {entity: store, largest: 0.1}\nentities:\n  store: {count: 1000, fields: {name: string(20)}}\n  order: {count: 1000000, fields: {at: date}}\nrelationships:\n  orders: {parent: store, child: order, children: {typical: 1000, max: 1000}, child_field: store}\noperations:\n  recent: {read: order, rate: 10, filter: {store: eq}, sort: -at, limit: 20}\n",
    )
    .unwrap();
    seen.extend(fired(&tenant, &defaults));
    // A view counted on its story in the view's atomic group: the largest
    // story takes 2% of 20,000 $inc/s (audit48 B3).
    let hot = crate::inputs::model_file::parse(
        "hot.yaml",
        "entities:\n  story: {count: 1000000, fields: {n: int}}\n  view: {count: 50000000, fields: {at: date}}\nrelationships:\n  views: {parent: story, child: view, children: {typical: 50, max: 1000000}, child_field: story}\noperations:\n  record: {insert: view, links: [views], rate: 20000}\n  tally: {update: story, filter: {_id: eq}, increments: {n: 1}, rate: 20000}\natomic:\n  viewed: {writes: [record, tally], same: story}\n",
    )
    .unwrap();
    seen.extend(fired(&hot, &defaults));
    // A stack added to or added (`otherwise: insert`): ids of stacks in
    // the player are refused for it.
    let upsert = crate::inputs::model_file::parse(
        "upsert.yaml",
        "entities:\n  player: {count: 1000}\n  stack: {count: 30000, fields: {kind: string(20), qty: int}, unique: [[player, kind]]}\nrelationships:\n  inventory: {parent: player, child: stack, children: {typical: 30, max: 2000}, child_field: player}\noperations:\n  grant: {update: stack, rate: 10, filter: {player: eq, kind: eq}, increments: {qty: amount}, otherwise: insert}\n",
    )
    .unwrap();
    seen.extend(fired(&upsert, &defaults));
    // The nesting limit, lowered so that embedding one level trips it.
    let shallow = Options {
        design: Some(DesignOptions {
            max_nesting_depth: Some(2),
            ..DesignOptions::default()
        }),
        ..Options::default()
    }
    .into_settings();
    let nest = fired(&example("person-addresses"), &shallow);
    assert!(nest.contains("nesting-depth-limit"));
    seen.extend(nest);
    let missing: Vec<&str> = crate::rules::design::ALL
        .iter()
        .map(|r| r.id)
        .filter(|id| !seen.contains(id))
        .collect();
    assert!(missing.is_empty(), "rules that never fired: {missing:?}");
}

#[test]
fn document_size_limit_names_the_size() {
    let settings = Settings::default();
    let model = huge_children();
    let facts = Facts::new(&model, &settings, 0);
    let space = crate::rules::design::space(&facts);
    let embed = space.rels[0]
        .iter()
        .find(|c| c.layout == crate::design::Layout::Embed)
        .unwrap();
    let hit = embed
        .forbidden
        .as_ref()
        .expect("embedding 150 drawings breaks 16 MiB");
    assert_eq!(hit.rule, "document-size-limit");
    let why: &crate::rules::design::document_size_limit::TooLarge =
        hit.reason.get().expect("its evidence");
    assert_eq!(why.children, crate::design::Figure::count(150.0));
}
