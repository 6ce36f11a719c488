//! Every design rule fires on some model: as a limit that forbids a candidate,
//! a reason that supports one, or a finding on the finished design.

use super::builder::*;
use super::golden::example;
use crate::advise::advise;
use crate::candidates::facts::Facts;
use crate::design::Verdict;
use crate::model::{Model, OperationKind};
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
    }
    out
}

/// A product whose embedded parts would pass 16 MiB at their maximum.
fn huge_children() -> Model {
    let mut b = B::new("huge-children");
    let p = b.entity("product", 1_000, vec![s("name", 20)]);
    let part = b.entity(
        "part",
        100_000,
        vec![
            s("name", 20),
            field("drawing", crate::model::FieldType::Binary, Some(200_000)),
        ],
    );
    let r = b.one_to_many("parts", p, part, card(1, 5, Some(150)), false);
    b.read(
        "product_page",
        10.0,
        p,
        vec![eq("_id")],
        vec![inc(r, true, &[])],
    );
    b.build()
}

/// A read that returns only the field it filters on: a covered query.
fn covered() -> Model {
    let mut b = B::new("covered");
    let user = b.entity("user", 100_000, vec![s("email", 24), s("name", 16)]);
    let session = b.entity("session", 1_000_000, vec![s("token", 32), date("at")]);
    let r = b.one_to_many("sessions", user, session, card(0, 10, None), true);
    b.op(
        "email_exists",
        &[50.0],
        OperationKind::Read {
            entity: user,
            filter: vec![eq("email")],
            sort: vec![],
            limit: Some(1),
            fields: vec!["email".into()],
            include: vec![],
            aggregates: vec![],
        },
    );
    b.insert("login", 10.0, session, vec![r]);
    b.build()
}

#[test]
fn every_design_rule_fires_on_some_model() {
    let defaults = Settings::default();
    let mut seen = BTreeSet::new();
    for name in [
        "person-addresses",
        "product-parts",
        "host-logs",
        "person-tasks",
        "parts-name-denormalized",
        "product-name-in-parts",
        "host-ip-in-logs",
        "host-last-1000",
        "blog-comments-embed",
        "blog-comments-link",
        "blog-comments-pages",
        "user-address",
        "books-authors",
        "books-categories",
        "sensor-readings",
        "product-reviews",
        "order-customer",
        "notifications",
        "page-views",
        "auction-catalog",
        "rubis",
    ] {
        seen.extend(fired(&example(name), &defaults));
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
    assert!(hit.reason.contains("150 parts"), "{}", hit.reason);
}
