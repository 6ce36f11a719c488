//! The same application written two ways gives the same design (issue 19):
//! the children of one parent read as an include from the parent, or as a
//! query on the children by the parent's id, with the same fields, order
//! and limit.

use crate::advise::advise;
use crate::design::Layout;
use crate::settings::Settings;

fn layouts(yaml: &str) -> Vec<(String, Layout)> {
    let model = crate::inputs::model_file::parse("phrasing.yaml", yaml)
        .unwrap_or_else(|e| panic!("{e:?}\n{yaml}"));
    let d = advise(&model, &Settings::default(), None).unwrap();
    d.relationships
        .into_iter()
        .map(|r| (r.relationship, r.chosen))
        .collect()
}

fn text(name: &str) -> String {
    crate::rules::testing::example(&format!("{name}.yaml"))
}

/// S1's playlist page as an include from the playlist, and as tracks
/// queried by the playlist they are in.
#[test]
fn a_playlist_page_as_an_include_or_a_query() {
    let include = text("scenarios/s01-playlists");
    let query = include.replace(
        "    read: playlist
    rate: 3000
    filter: {_id: eq}
    include:
      tracks: {fields: [title, duration, artist_name]}",
        "    read: track
    rate: 3000
    filter: {playlists: eq}
    fields: [title, duration, artist_name]",
    );
    assert_ne!(include, query, "the rewrite must apply");
    assert_eq!(layouts(&include), layouts(&query));
}

/// The newest comments of a post: a query on the comments (as the example
/// has it) or an include from the post by its id.
#[test]
fn a_comment_page_as_a_query_or_an_include() {
    let query = text("blog-comments-link");
    let include = query.replace(
        "    read: comment
    rate: 150
    filter: {post: eq}
    sort: -created_on
    limit: 20",
        "    read: post
    rate: 150
    filter: {_id: eq}
    include:
      comments: {sort: -created_on, limit: 20}",
    );
    assert_ne!(include, query, "the rewrite must apply");
    assert_eq!(layouts(&query), layouts(&include));
}

/// An include whose condition tests another entity's field (RUBiS's open
/// items of a category whose seller is in a region, written from the
/// category) tests that field where the design keeps it, as the read on the
/// items does — not a path made of the relationship's names.
#[test]
fn an_include_condition_on_another_entity_is_resolved() {
    let query = text("rubis");
    let include = query.replace(
        "    read: items
    weights: {browsing: 8.26, bidding: 6.34, write_medium: 6.34, write_heavy: 6.34}
    filter: {category: eq, seller.region: eq, end_date: range}
    fields: [_id, name, initial_price, max_bid, nb_of_bids, end_date]
    limit: 25",
        "    read: categories
    weights: {browsing: 8.26, bidding: 6.34, write_medium: 6.34, write_heavy: 6.34}
    filter: {_id: eq}
    include:
      category_items:
        filter: {seller.region: eq, end_date: range}
        fields: [_id, name, initial_price, max_bid, nb_of_bids, end_date]
        limit: 25",
    );
    assert_ne!(include, query, "the rewrite must apply");
    let model = crate::inputs::model_file::parse("rubis.yaml", &include).unwrap();
    let d = advise(&model, &Settings::default(), None).unwrap();
    let plan = d
        .operations
        .iter()
        .find(|o| o.operation == "search_items_by_region")
        .unwrap();
    let paths: Vec<&str> = plan
        .steps
        .iter()
        .flat_map(|s| s.filter.iter().map(|f| f.path.as_str()))
        .collect();
    // The users' region, or its copy in the items: tested, not dropped.
    assert!(
        paths
            .iter()
            .any(|p| *p == "region" || *p == "seller.region"),
        "{paths:?}"
    );
    assert!(
        paths.iter().all(|p| !p.contains("region_users")),
        "{paths:?}"
    );
}

/// Every example and scenario, in every mix: each read of the children of
/// one parent written as a query on the children is rewritten as an include
/// from the parent (returning only the parent's id), and the design keeps
/// every layout.
#[test]
fn every_query_on_the_children_of_one_parent_reads_as_its_include() {
    use crate::model::{Filter, FilterOp, OperationKind};
    let mut rewritten = 0;
    for name in super::golden::example_names() {
        let model = super::golden::example(&name);
        let mut variant = model.clone();
        for op in &mut variant.workload.operations {
            let Some((parent, inc)) = op.as_parent_include(&model) else {
                continue;
            };
            op.kind = OperationKind::Read {
                entity: parent,
                filter: vec![Filter::new(
                    &model,
                    parent,
                    vec!["_id".into()],
                    FilterOp::Eq,
                )],
                sort: Vec::new(),
                limit: None,
                fields: vec!["_id".into()],
                include: vec![inc],
                aggregates: Vec::new(),
                family: Vec::new(),
            };
            rewritten += 1;
        }
        if variant == model {
            continue;
        }
        for mix in super::golden::mixes_of(&model) {
            let mix = mix.as_deref();
            let a = advise(&model, &Settings::default(), mix).unwrap();
            let b = advise(&variant, &Settings::default(), mix).unwrap();
            for (x, y) in a.relationships.iter().zip(&b.relationships) {
                assert_eq!(
                    x.chosen, y.chosen,
                    "{name} {mix:?}: {} is {:?} as queries, {:?} as includes",
                    x.relationship, x.chosen, y.chosen
                );
            }
            assert_eq!(
                entity_decisions(&a),
                entity_decisions(&b),
                "{name} {mix:?}: entity decisions as queries, then as includes"
            );
        }
    }
    assert!(rewritten >= 10, "only {rewritten} reads rewritten");
}

/// S5's event page as an include from the event, and as the attendees
/// queried by their event: the same outlier design either way.
#[test]
fn an_event_page_as_an_include_or_a_query() {
    let include = text("scenarios/s05-attendees");
    let query = include.replace(
        "    read: event
    rate: 5000
    filter: {_id: eq}
    include:
      attendees: {fields: [name]}",
        "    read: attendee
    rate: 5000
    filter: {event: eq}
    fields: [name]",
    );
    assert_ne!(include, query, "the rewrite must apply");
    let l = layouts(&include);
    assert!(matches!(l[0].1, Layout::Outlier { .. }), "{l:?}");
    assert_eq!(l, layouts(&query));
}

/// Each entity decision by its kind and the names it decides on.
fn entity_decisions(d: &crate::design::Design) -> Vec<String> {
    use crate::design::EntityDecision;
    d.entities
        .iter()
        .map(|e| match e {
            EntityDecision::Polymorphic { collection, .. } => format!("polymorphic {collection}"),
            EntityDecision::ComputedField { entity, field, .. } => {
                format!("computed {entity}.{field}")
            }
            EntityDecision::Archive {
                entity, archive, ..
            } => format!("archive {entity} into {archive}"),
            EntityDecision::Timeline { collection, .. } => format!("timeline {collection}"),
        })
        .collect()
}
