//! The scenarios of `../shared/scenarios.md` (examples/scenarios/): each
//! asserts the structure an expert expects (layouts, where fields come from,
//! indexes, round trips and documents per operation, what maintains what),
//! not the report's words.

use super::golden::example;
use crate::advise::advise;
use crate::design::{Action, Design, FieldOrigin, Layout, OperationPlan, ShapeType, Side};
use crate::settings::Settings;

fn design(name: &str) -> Design {
    advise(
        &example(&format!("scenarios/{name}")),
        &Settings::default(),
        None,
    )
    .unwrap()
}

fn plan<'d>(d: &'d Design, op: &str) -> &'d OperationPlan {
    d.operations.iter().find(|p| p.operation == op).unwrap()
}

/// Whether operation `op`'s plan runs in a multi-document transaction.
fn in_transaction(d: &Design, op: &str) -> bool {
    plan(d, op)
        .warnings
        .iter()
        .any(|w| matches!(w, crate::design::Warning::Transaction { .. }))
}

/// The layout chosen for relationship `rel`.
fn layout<'d>(d: &'d Design, rel: &str) -> &'d Layout {
    &d.relationships
        .iter()
        .find(|r| r.relationship == rel)
        .unwrap()
        .chosen
}

fn indexes(d: &Design, coll: &str) -> Vec<Vec<(String, i32)>> {
    let c = d.collections.iter().find(|c| c.name == coll).unwrap();
    c.indexes.iter().map(|i| i.keys.clone()).collect()
}

/// S1: an extended reference inside the many-to-many, ids on the playlist
/// side only; the page is one round trip; the rename one updateMany.
#[test]
fn s01_playlists() {
    let d = design("s01-playlists");
    let r = &d.relationships[0];
    assert_eq!(
        r.chosen,
        Layout::ExtendedReference {
            copies_into: Side::Parent,
            fields: vec!["title".into(), "duration".into(), "artist_name".into()]
        }
    );
    // Never the playlists' ids inside the track.
    let track = d.collections.iter().find(|c| c.name == "track").unwrap();
    assert!(track.shape.fields.iter().all(|f| f.name != "playlists"));
    // The playlist's array: ids with the three copies.
    let playlist = d.collections.iter().find(|c| c.name == "playlist").unwrap();
    let tracks = playlist
        .shape
        .fields
        .iter()
        .find(|f| f.name == "tracks")
        .unwrap();
    let ShapeType::Array { items, .. } = &tracks.ty else {
        panic!("{:?}", tracks.ty)
    };
    let ShapeType::Object { shape } = items.as_ref() else {
        panic!("{items:?}")
    };
    let copied: Vec<&str> = shape
        .fields
        .iter()
        .filter(|f| matches!(f.origin, FieldOrigin::Copy { .. }))
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(copied, ["title", "duration", "artist_name"]);
    assert!(indexes(&d, "playlist").contains(&vec![("tracks._id".to_string(), 1)]));
    let page = plan(&d, "playlist_page");
    assert_eq!(
        (page.cost.round_trips, page.cost.documents_examined),
        (1.0, 1.0)
    );
    let reverse = plan(&d, "playlists_of_track");
    assert_eq!(reverse.cost.round_trips, 1.0);
    assert_eq!(
        reverse.steps[0].documents, 30.0,
        "the model's playlists per track"
    );
    let rename = plan(&d, "rename_track");
    let refresh = rename
        .steps
        .iter()
        .find(|s| s.action == Action::UpdateMany)
        .unwrap();
    assert_eq!(
        (refresh.collection.as_str(), refresh.documents),
        ("playlist", 30.0)
    );
    assert!(refresh.purpose.iter().any(|p| matches!(
        p,
        crate::design::Purpose::RefreshCopy {
            at_most: Some(3_000_000),
            ..
        }
    )));
    // Adding a track reads its copies, then writes the playlist only.
    let add = plan(&d, "add_track");
    let writes: Vec<&str> = add
        .steps
        .iter()
        .filter(|s| s.action != Action::Find)
        .map(|s| s.collection.as_str())
        .collect();
    assert_eq!(writes, ["playlist"]);
    assert_eq!(plan(&d, "remove_track").cost.round_trips, 1.0);
}

/// S2: stars in their own collection, unique per user and repository, one
/// index per "newest first" read, the count kept in the repository.
#[test]
fn s02_stars() {
    let d = design("s02-stars");
    for rel in ["stars_given", "stargazers"] {
        assert_eq!(layout(&d, rel), &Layout::ParentReference, "{rel}");
        // Ids (or stars) kept on either side are rejected by a limit.
        let decision = d
            .relationships
            .iter()
            .find(|r| r.relationship == rel)
            .unwrap();
        for alt in &decision.alternatives {
            if matches!(
                alt.layout,
                Layout::ChildReferences | Layout::TwoWayReferences
            ) {
                assert!(
                    matches!(
                        alt.verdict,
                        crate::design::Verdict::Rejected {
                            rule: "unbounded-array",
                            ..
                        }
                    ),
                    "{rel}: {:?}",
                    alt.verdict
                );
            }
        }
    }
    assert_eq!(
        origin(&d, "star", "user"),
        &FieldOrigin::Reference {
            relationship: "stars_given".into(),
            side: None,
        }
    );
    let star = d.collections.iter().find(|c| c.name == "star").unwrap();
    let unique: Vec<&Vec<(String, i32)>> = star
        .indexes
        .iter()
        .filter(|i| i.unique && i.name != "_id_")
        .map(|i| &i.keys)
        .collect();
    assert_eq!(
        unique,
        [&vec![("user".to_string(), 1), ("repo".to_string(), 1)]]
    );
    let keys = indexes(&d, "star");
    for wanted in [
        vec![("user".to_string(), 1), ("starred_at".to_string(), 1)],
        vec![("repo".to_string(), 1), ("starred_at".to_string(), 1)],
    ] {
        assert!(keys.contains(&wanted), "{keys:?}");
    }
    assert_eq!(
        keys.len(),
        4,
        "_id, the unique pair and one per page read: {keys:?}"
    );
    // The count: a computed field the star and the unstar keep.
    let counted = d.entities.iter().find_map(|e| match e {
        crate::design::EntityDecision::ComputedField {
            entity,
            maintained_by,
            ..
        } if entity == "repo" => Some(maintained_by.clone()),
        _ => None,
    });
    assert_eq!(
        counted,
        Some(vec!["star".to_string(), "unstar".to_string()])
    );
    let page = plan(&d, "repo_page");
    assert_eq!(
        (page.cost.round_trips, page.cost.documents_examined),
        (1.0, 1.0)
    );
    // Unstar finds the star, deletes it, and decrements the count of the
    // repository the star names (not a repository that lists it).
    let unstar = plan(&d, "unstar");
    let last = unstar.steps.last().unwrap();
    assert_eq!(last.collection, "repo");
    assert_eq!(last.filter[0].path, "_id");
    assert!(
        last.updates
            .iter()
            .any(|u| matches!(u, crate::design::UpdateOp::Dec { .. }))
    );
    assert_eq!(plan(&d, "has_starred").cost.documents_examined, 1.0);
}

/// S10: the view counter is a computed field written once every 200 views
/// (1% of a typical 20,000); the rule states the exact counter's price.
#[test]
fn s10_view_counts() {
    let d = design("s10-view-counts");
    let counted = d.entities.iter().find_map(|e| match e {
        crate::design::EntityDecision::ComputedField {
            entity,
            field,
            maintained_by,
            rules,
            ..
        } if entity == "article" => Some((field.clone(), maintained_by.clone(), rules.clone())),
        _ => None,
    });
    let (field, maintained_by, rules) = counted.unwrap();
    assert_eq!(field, "views_count");
    assert_eq!(maintained_by, ["count_view"]);
    let approx = rules
        .iter()
        .find(|r| r.rule == "approximate-counter")
        .unwrap();
    let why: &crate::rules::design::approximate_counter::Approximate =
        approx.reason.get().expect("its evidence");
    assert_eq!(why.exact, crate::design::Figure::per_second(200_000.0));
    let count_view = plan(&d, "count_view");
    let counter = count_view
        .steps
        .iter()
        .find(|s| s.collection == "article")
        .unwrap();
    assert_eq!(counter.every, Some(200));
    // The insert every time, the counter once in 200: 1.005 round trips.
    assert!((count_view.cost.round_trips - 1.005).abs() < 1e-9);
    let page = plan(&d, "read_article");
    assert_eq!(
        (page.cost.round_trips, page.cost.documents_examined),
        (1.0, 1.0)
    );
}

/// The origin of `path` (a.b.c) in collection `coll`, through objects and
/// arrays of objects.
fn origin<'d>(d: &'d Design, coll: &str, path: &str) -> &'d FieldOrigin {
    let c = d.collections.iter().find(|c| c.name == coll).unwrap();
    let mut fields = &c.shape.fields;
    let mut parts = path.split('.').peekable();
    loop {
        let name = parts.next().unwrap();
        let f = fields
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("{coll}.{path}"));
        if parts.peek().is_none() {
            return &f.origin;
        }
        fields = match &f.ty {
            ShapeType::Object { shape } => &shape.fields,
            ShapeType::Array { items, .. } => match items.as_ref() {
                ShapeType::Object { shape } => &shape.fields,
                other => panic!("{coll}.{path}: {other:?}"),
            },
            other => panic!("{coll}.{path}: {other:?}"),
        };
    }
}

fn snapshot(o: &FieldOrigin) -> Option<bool> {
    match o {
        FieldOrigin::Copy { snapshot, .. } => Some(*snapshot),
        _ => None,
    }
}

/// S7: lines embedded; the product's name and price and the billing address
/// as snapshots; the customer's name a live copy; a price change touches
/// the product alone.
#[test]
fn s07_invoices() {
    let d = design("s07-invoices");
    assert_eq!(layout(&d, "lines"), &Layout::Embed);
    assert_eq!(
        snapshot(origin(&d, "invoice", "lines.product.name")),
        Some(true)
    );
    assert_eq!(
        snapshot(origin(&d, "invoice", "lines.product.price")),
        Some(true)
    );
    assert_eq!(
        snapshot(origin(&d, "invoice", "customer.billing_address")),
        Some(true)
    );
    assert_eq!(
        snapshot(origin(&d, "invoice", "customer.name")),
        Some(false)
    );
    // Product and customer keep their own collections, referenced by id.
    assert!(d.collections.iter().any(|c| c.name == "product"));
    assert!(d.collections.iter().any(|c| c.name == "customer"));
    assert_eq!(plan(&d, "invoice_page").cost.round_trips, 1.0);
    let price = plan(&d, "change_price");
    assert_eq!(price.steps.len(), 1);
    assert_eq!(price.steps[0].collection, "product");
    let rename = plan(&d, "rename_customer");
    let refresh: Vec<&str> = rename
        .steps
        .iter()
        .filter(|s| s.action == Action::UpdateMany)
        .map(|s| s.collection.as_str())
        .collect();
    assert_eq!(refresh, ["invoice"]);
    let set: Vec<&str> = rename
        .steps
        .iter()
        .filter(|s| s.action == Action::UpdateMany)
        .flat_map(|s| s.updates.iter().map(crate::advise::build::update_path))
        .collect();
    assert_eq!(set, ["customer.name"], "the snapshot is not refreshed");
}

/// S8: revisions in their own collection keyed by contract and revision,
/// the history never embedded, the copy and the edit in one transaction.
#[test]
fn s08_contracts() {
    let d = design("s08-contracts");
    let r = &d.relationships[0];
    assert_eq!(r.chosen, Layout::ParentReference);
    assert!(r.alternatives.iter().any(|a| a.layout == Layout::Embed
        && matches!(
            a.verdict,
            crate::design::Verdict::Rejected {
                rule: "unbounded-array",
                ..
            }
        )));
    assert_eq!(d.collections.len(), 2);
    let revisions = d
        .collections
        .iter()
        .find(|c| c.name == "contract_revision")
        .unwrap();
    assert!(
        revisions
            .indexes
            .iter()
            .any(|i| i.unique
                && i.keys == [("contract".to_string(), 1), ("revision".to_string(), 1)])
    );
    for op in ["keep_old_version", "edit"] {
        assert!(in_transaction(&d, op), "{op}");
    }
    assert_eq!(plan(&d, "current").cost.round_trips, 1.0);
    assert_eq!(plan(&d, "history").cost.round_trips, 1.0);
}

/// S12: active loans embedded with the book's title, every loan in its own
/// collection by patron, borrow and return in transactions.
#[test]
fn s12_library_loans() {
    let d = design("s12-library-loans");
    assert_eq!(layout(&d, "active_loans"), &Layout::Embed);
    assert_eq!(layout(&d, "loans"), &Layout::ParentReference);
    assert!(matches!(
        origin(&d, "patron", "active_loans.book.title"),
        FieldOrigin::Copy {
            snapshot: false,
            ..
        }
    ));
    assert!(indexes(&d, "loan").contains(&vec![
        ("patron".to_string(), 1),
        ("returned_at".to_string(), 1)
    ]));
    assert_eq!(plan(&d, "patron_page").cost.round_trips, 1.0);
    for op in [
        "borrow_active",
        "borrow_record",
        "return_active",
        "return_record",
    ] {
        assert!(in_transaction(&d, op), "{op}");
    }
    // Returning pulls the loan out of the patron's array.
    let ret = plan(&d, "return_active");
    assert_eq!(ret.steps.len(), 1);
    assert_eq!(ret.steps[0].collection, "patron");
}

/// S15: places. The location is a GeoJSON point with a `2dsphere` index
/// after the read's equality (`{open: 1, location: "2dsphere"}`); the
/// nearest search is one query priced by the restaurants inside the
/// radius (density × area, cut to the limit), not by the collection;
/// zones are polygons answered by `$geoIntersects` on their own index;
/// no order carries a restaurant's position.
#[test]
fn s15_restaurants() {
    use crate::design::SPHERE_2D;
    use crate::model::FilterOp;
    let text = super::golden::example_text("scenarios/s15-restaurants");
    let parse = |t: &str| crate::inputs::model_file::parse("s15.yaml", t).unwrap();
    let d = advise(&parse(&text), &Settings::default(), None).unwrap();
    let names: Vec<&str> = d.collections.iter().map(|c| c.name.as_str()).collect();
    for c in ["restaurant", "zone", "order"] {
        assert!(names.contains(&c), "{names:?}");
    }
    // GeoJSON fields: a Point in the restaurant, a Polygon in the zone.
    let geo = |coll: &str, field: &str| {
        let c = d.collections.iter().find(|c| c.name == coll).unwrap();
        let f = c.shape.fields.iter().find(|f| f.name == field).unwrap();
        f.ty.geojson()
    };
    assert_eq!(geo("restaurant", "location"), Some("Point"));
    assert_eq!(geo("zone", "area"), Some("Polygon"));
    // The equality key first, then the place.
    assert!(indexes(&d, "restaurant").contains(&vec![
        ("open".to_string(), 1),
        ("location".to_string(), SPHERE_2D)
    ]));
    assert!(indexes(&d, "zone").contains(&vec![("area".to_string(), SPHERE_2D)]));
    // One round trip each; the nearest 20 examine 20 restaurants, the
    // zone of an address one zone.
    let near = plan(&d, "nearby_open");
    assert_eq!(near.cost.round_trips, 1.0);
    assert_eq!(near.steps[0].filter[1].op, FilterOp::Near);
    assert_eq!(near.steps[0].filter[1].radius_m, Some(3000.0));
    assert!(
        (near.cost.documents_examined - 20.0).abs() < 1e-9,
        "{:?}",
        near.cost
    );
    let zone = plan(&d, "zone_of_address");
    assert_eq!(zone.cost.round_trips, 1.0);
    assert_eq!(zone.steps[0].filter[0].op, FilterOp::Intersects);
    assert!(
        (zone.cost.documents_examined - 1.0).abs() < 1e-9,
        "{:?}",
        zone.cost
    );
    // Without the limit, every open restaurant inside the 3 km: 50 a km²
    // over π × 3² km², half of them open. Not the collection's 2,000,000.
    let all = advise(
        &parse(&text.replace("    limit: 20\n", "")),
        &Settings::default(),
        None,
    )
    .unwrap();
    let inside = 50.0 * std::f64::consts::PI * 9.0 / 2.0;
    let examined = plan(&all, "nearby_open").cost.documents_examined;
    assert!((examined - inside).abs() < 1e-6, "{examined} vs {inside}");
    // Where restaurants are sparse (1 in 4 km²), the radius holds fewer
    // open ones than the limit: the search examines those.
    let sparse = advise(
        &parse(&text.replace("{typical: 50, max: 400}", "{typical: 0.25, max: 400}")),
        &Settings::default(),
        None,
    )
    .unwrap();
    let few = plan(&sparse, "nearby_open").cost.documents_examined;
    assert!(
        (few - 0.25 * std::f64::consts::PI * 9.0 / 2.0).max(1.0) - few < 1e-6,
        "{few}"
    );
    // No order carries a restaurant's position.
    let order = d.collections.iter().find(|c| c.name == "order").unwrap();
    let copies_location = |fields: &[crate::design::ShapeField]| {
        fields.iter().any(|f| match &f.ty {
            ShapeType::Object { shape } => shape.fields.iter().any(|g| g.name == "location"),
            _ => f.name == "location",
        })
    };
    assert!(!copies_location(&order.shape.fields), "{:?}", order.shape);
}

/// S13: the large, rarely read settings in their own collection; the hot
/// read touches the small profile only; embedding is the costlier
/// alternative, by the bytes the hot read would carry.
#[test]
fn s13_user_profile() {
    let d = design("s13-user-profile");
    let r = &d.relationships[0];
    // The settings under the user's _id: no reference field on either side.
    assert_eq!(r.chosen, Layout::SharedId);
    let user = d.collections.iter().find(|c| c.name == "user").unwrap();
    assert!(user.size.typical_bytes < 1024, "{:?}", user.size);
    assert!(user.shape.fields.iter().all(|f| f.name != "user_settings"));
    assert_eq!(
        origin(&d, "settings", "_id"),
        &FieldOrigin::Reference {
            relationship: "user_settings".into(),
            side: None,
        }
    );
    assert!(indexes(&d, "settings").iter().all(|k| k[0].0 == "_id"));
    let load = plan(&d, "load_settings");
    assert_eq!(
        (load.cost.round_trips, load.steps[0].collection.as_str()),
        (1.0, "settings")
    );
    let hot = plan(&d, "core_profile");
    assert_eq!(hot.cost.round_trips, 1.0);
    assert!(hot.cost.bytes_read < 1024.0, "{:?}", hot.cost);
    let embed = r
        .alternatives
        .iter()
        .find(|a| a.layout == Layout::Embed)
        .unwrap();
    let crate::design::Verdict::Costlier { delta, .. } = &embed.verdict else {
        panic!("{:?}", embed.verdict)
    };
    assert!(delta.bytes_read > 1e9, "{delta:?}");
}

/// S6: one bucket per symbol and minute holding the ticks and the candle,
/// kept by the insert's upsert; the candle read returns 1,440 buckets'
/// figures, never their ticks; the last price a computed field on the
/// symbol; the time series collection weighed in the reasons.
#[test]
fn s06_ticks() {
    let d = design("s06-ticks");
    let Layout::Bucket {
        by: crate::design::BucketBy::Time { field, unit },
        per_bucket,
        aggregates,
    } = layout(&d, "ticks")
    else {
        panic!("ticks are not bucketed by time: {:?}", layout(&d, "ticks"));
    };
    assert_eq!(
        (field.as_str(), unit.as_str(), *per_bucket),
        ("time", "minute", 3000)
    );
    let kept: Vec<String> = aggregates
        .iter()
        .map(|a| format!("{}_{}", a.function.name(), a.field.as_deref().unwrap_or("")))
        .collect();
    for f in [
        "first_price",
        "last_price",
        "min_price",
        "max_price",
        "sum_volume",
    ] {
        assert!(kept.iter().any(|k| k == f), "{f} not kept: {kept:?}");
    }
    assert_eq!(
        indexes(&d, "symbol_ticks"),
        [vec![("symbol".to_string(), 1), ("minute".to_string(), 1)]]
    );
    // The insert keeps the candle with operators, in one upsert.
    let record = plan(&d, "record");
    let upsert = &record.steps[0];
    assert_eq!(upsert.action, Action::Upsert);
    use crate::design::UpdateOp as U;
    let ops: Vec<String> = upsert
        .updates
        .iter()
        .map(|u| match u {
            U::SetOnInsert { path } => format!("$setOnInsert {path}"),
            U::Set { path } => format!("$set {path}"),
            U::Min { path } => format!("$min {path}"),
            U::Max { path } => format!("$max {path}"),
            U::Inc { path, .. } => format!("$inc {path}"),
            U::Recompute {
                path,
                function,
                by: Some(by),
                ..
            } => format!("{} {path} by {by}", crate::candidates::fn_name(*function)),
            other => format!("{other:?}"),
        })
        .collect();
    // The first and last price are those of the earliest and latest tick,
    // as `last_time` is its `$max` (review46 item 5), not the arrival order.
    for op in [
        "first first_price by ticks.time",
        "last last_price by ticks.time",
        "$min min_price",
        "$max max_price",
        "$inc sum_volume",
    ] {
        assert!(ops.iter().any(|o| o == op), "{op} missing: {ops:?}");
    }
    // A push costs its item and a share of the checkpoint rewrite, not
    // half of a 200 KiB bucket.
    assert!(upsert_bytes(&d) < 1000.0, "{}", upsert_bytes(&d));
    // Candles: the figures of 1,440 buckets, projected.
    let candles = plan(&d, "candles");
    let read = candles.steps.last().unwrap();
    assert_eq!(read.collection, "symbol_ticks");
    assert_eq!(read.documents, 1440.0);
    assert!(!read.projection.is_empty());
    assert!(!read.projection.iter().any(|p| p == "ticks"));
    assert!(
        candles.cost.bytes_read < 1440.0 * 200.0,
        "{}",
        candles.cost.bytes_read
    );
    // The last price is kept in the symbol, read in one round trip.
    let last = plan(&d, "last_price");
    assert_eq!(last.cost.round_trips, 1.0);
    assert!(d.entities.iter().any(|e| matches!(e,
        crate::design::EntityDecision::ComputedField { entity, maintained_by, .. }
            if entity == "symbol" && maintained_by == &["record"])));
    // The time series collection is weighed with the model's numbers.
    let r = d
        .relationships
        .iter()
        .find(|r| r.relationship == "ticks")
        .unwrap();
    let ts = r
        .rules
        .iter()
        .find(|h| h.rule == "time-series-collection")
        .unwrap();
    let why: &crate::rules::design::time_series_collection::TimeSeries =
        ts.reason.get().expect("its evidence");
    let window = why.window.as_ref().expect("a window read");
    assert_eq!(window.grouped, crate::design::Figure::count(4_320_000.0));
}

/// Bytes written per run of S6's insert by its bucket upsert: the whole
/// run less the symbol document its `$set` rewrites.
fn upsert_bytes(d: &Design) -> f64 {
    let symbol = d.collections.iter().find(|c| c.name == "symbol").unwrap();
    plan(d, "record").cost.bytes_written - symbol.size.typical_bytes as f64
}

/// S5: attendees embedded in the event up to a threshold above the p99;
/// an outlier's rest in the attendee collection by reference. The page is
/// one document for all but the rare outlier; registration one write; no
/// event document grows past the threshold; the reason names the p99.
#[test]
fn s05_attendees() {
    let d = design("s05-attendees");
    let Layout::Outlier { threshold } = layout(&d, "attendees") else {
        panic!("not an outlier layout: {:?}", layout(&d, "attendees"));
    };
    // Above the p99 (400), below what an embedded array may hold.
    assert!((400..=5000).contains(threshold), "{threshold}");
    let event = d.collections.iter().find(|c| c.name == "event").unwrap();
    let max = event.size.max_bytes.unwrap();
    assert!(max < 1024 * 1024, "{max}");
    let ShapeType::Array { max_items, .. } = &event
        .shape
        .fields
        .iter()
        .find(|f| f.name == "attendees")
        .unwrap()
        .ty
    else {
        panic!("attendees are not an array")
    };
    assert_eq!(*max_items, Some(*threshold));
    // The overflow holds a small share of the attendees, by event.
    let overflow = d.collections.iter().find(|c| c.name == "attendee").unwrap();
    assert!(
        overflow.documents < 400_000_000 / 100,
        "{}",
        overflow.documents
    );
    assert_eq!(indexes(&d, "attendee"), [vec![("event".to_string(), 1)]]);
    // The page: one document, the overflow query once in many runs.
    let page = plan(&d, "event_page");
    assert_eq!(page.steps[0].collection, "event");
    let rest = &page.steps[1];
    assert_eq!(rest.collection, "attendee");
    assert!(rest.every.is_some_and(|n| n >= 100), "{:?}", rest.every);
    assert!(page.cost.round_trips < 1.01, "{}", page.cost.round_trips);
    // Registration: a push while the array has room; a document of its own
    // only when it has none.
    let register = plan(&d, "register");
    assert_eq!(register.steps[0].collection, "event");
    assert!(
        register.steps[0]
            .filter
            .iter()
            .any(|f| f.value_from == crate::design::ValueSource::Missing)
    );
    assert!(register.steps[1].fallback);
    assert!(register.warnings.is_empty(), "{:?}", register.warnings);
    let r = d
        .relationships
        .iter()
        .find(|r| r.relationship == "attendees")
        .unwrap();
    let why = r.rules.iter().find(|h| h.rule == "outlier").unwrap();
    let skew: &crate::rules::design::outlier::Skewed = why.reason.get().expect("its evidence");
    assert_eq!(skew.percentile, "p99");
    assert_eq!(skew.at_percentile, crate::design::Figure::count(400.0));
}

/// S14: follow edges in their own collection, posts by author with
/// `{author, created_at}`; the home timeline read on demand in two queries
/// (the reader's follows, then the latest posts of those authors); fan-out
/// on write priced against it with the authors above the followers' p99
/// left to read time. squill builds no timeline collection (see the
/// example's header).
#[test]
fn s14_follow_graph() {
    let d = design("s14-follow-graph");
    for rel in ["following", "followers", "posts"] {
        assert_eq!(layout(&d, rel), &Layout::ParentReference, "{rel}");
    }
    assert_eq!(
        indexes(&d, "follow"),
        [vec![
            ("follower".to_string(), 1),
            ("followee".to_string(), 1)
        ]]
    );
    assert_eq!(
        indexes(&d, "post"),
        [vec![
            ("author".to_string(), 1),
            ("created_at".to_string(), 1)
        ]]
    );
    let timeline = plan(&d, "home_timeline");
    assert_eq!(timeline.cost.round_trips, 2.0);
    assert_eq!(timeline.steps[0].collection, "follow");
    assert_eq!(timeline.steps[1].collection, "post");
    assert_eq!(timeline.steps[1].filter[0].op, crate::design::FilterOp::In);
    assert_eq!(timeline.steps[1].limit, Some(50));
    // The reader's follows (150), then 50 posts: no step on the users.
    assert_eq!(timeline.cost.documents_examined, 200.0);
    let posts = d
        .relationships
        .iter()
        .find(|r| r.relationship == "posts")
        .unwrap();
    let fan = posts.rules.iter().find(|h| h.rule == "fan-out").unwrap();
    let why: &crate::rules::design::fan_out::FanOut = fan.reason.get().expect("its evidence");
    assert_eq!(why.new_items, crate::design::Figure::per_second(5_000.0));
    let outliers = why.outliers.as_ref().expect("outliers");
    assert_eq!(outliers.percentile, "p99");
    assert_eq!(outliers.followers, crate::design::Figure::count(5_000.0));
    assert_eq!(
        outliers.max,
        Some(crate::design::Figure::count(80_000_000.0))
    );
    // Each push rewrites, at the next checkpoint, a timeline of 50 posts:
    // the pushes cost more than the reads save.
    assert!(why.on_read_costs_less, "{why:?}");
    // The timeline was in the search and lost: no timeline collection.
    assert!(d.entities.is_empty(), "{:?}", d.entities);
    assert!(d.collections.iter().all(|c| c.name != "user_timeline"));
}

/// A feed read far more often than posts are written (5,000 feeds a second
/// against 6 posts): a timeline per member pays. The feed is the member's
/// timeline by id and the newest posts of the outliers it follows; a post
/// is pushed into its author's followers' timelines in one `updateMany`;
/// edits and deletes rewrite or pull the copies; a new member gets an
/// empty timeline; a follow of an outlier notes it.
#[test]
fn a_feed_read_far_more_than_written_keeps_timelines() {
    let text = include_str!("../../../tests/fixtures/club-feed.yaml");
    let model = crate::inputs::model_file::parse("club-feed.yaml", text).unwrap();
    let d = advise(&model, &Settings::default(), None).unwrap();
    let Some(crate::design::EntityDecision::Timeline {
        collection,
        limit,
        threshold,
        rules,
        ..
    }) = d.entities.first()
    else {
        panic!("{:?}", d.entities)
    };
    assert_eq!(collection, "member_timeline");
    assert_eq!((*limit, *threshold), (30, Some(2000)));
    let without = rules
        .iter()
        .find(|r| r.rule == "design-for-workload")
        .unwrap();
    let kept = without
        .reason
        .get::<crate::advise::verdicts::Kept>()
        .unwrap();
    assert_eq!(
        kept.instead,
        crate::advise::verdicts::Instead::FanOutOnRead {
            operation: "home_feed".into()
        }
    );
    assert!(kept.margin.value > 0.0, "{kept:?}");
    let c = d
        .collections
        .iter()
        .find(|c| c.name == *collection)
        .unwrap();
    let fields: Vec<&str> = c.shape.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(fields, ["_id", "items", "outliers"]);
    assert_eq!(c.documents, 1_000_000);
    let feed = plan(&d, "home_feed");
    assert_eq!(feed.steps[0].collection, "member_timeline");
    assert_eq!(feed.steps[0].documents, 1.0);
    assert_eq!(feed.steps[1].collection, "post");
    assert_eq!(feed.steps[1].limit, Some(30));
    let publish = plan(&d, "publish");
    let actions: Vec<Action> = publish.steps.iter().map(|s| s.action).collect();
    assert_eq!(
        actions,
        [Action::InsertOne, Action::Find, Action::UpdateMany]
    );
    assert_eq!(publish.steps[1].collection, "follow");
    assert_eq!(publish.steps[1].limit, Some(2001));
    assert!(
        matches!(&publish.steps[2].updates[0], crate::design::UpdateOp::Push { slice: Some(30), sort: Some((f, -1)), .. } if f == "created_at"),
        "{:?}",
        publish.steps[2].updates
    );
    // Pushed to the followers of authors up to the p99, not to the 500,000.
    assert!(
        publish.steps[2].documents < 2000.0,
        "{}",
        publish.steps[2].documents
    );
    for (op, n) in [("edit_post", 3), ("delete_post", 3), ("join", 2)] {
        let p = plan(&d, op);
        assert_eq!(p.steps.len(), n, "{op}");
        assert_eq!(p.steps[n - 1].collection, "member_timeline", "{op}");
    }
    let follow = plan(&d, "follow");
    assert!(
        follow.steps[1].every.is_some_and(|n| n > 1),
        "{:?}",
        follow.steps
    );
    // An unfollow takes the parent out of the follower's outliers, when it is one.
    let text = text.replace(
        "  join:",
        "  unfollow: {delete: follow, rate: 5, filter: {follower: eq, followee: eq}}\n  join:",
    );
    let model = crate::inputs::model_file::parse("club-feed.yaml", &text).unwrap();
    let d = advise(&model, &Settings::default(), None).unwrap();
    let unfollow = plan(&d, "unfollow");
    assert_eq!(unfollow.steps[1].collection, "member_timeline");
    assert!(
        matches!(&unfollow.steps[1].updates[0], crate::design::UpdateOp::Pull { path } if path == "outliers"),
        "{:?}",
        unfollow.steps[1]
    );
    assert_eq!(unfollow.steps[1].every, follow.steps[1].every);
}

/// With no percentile of the followers, every author is pushed to: no
/// outliers, and the feed is one read.
#[test]
fn a_timeline_without_outliers_is_one_read() {
    let text = include_str!("../../../tests/fixtures/club-feed.yaml")
        .replace("p99: 2000, max: 500000", "max: 5000");
    let model = crate::inputs::model_file::parse("club-feed.yaml", &text).unwrap();
    let d = advise(&model, &Settings::default(), None).unwrap();
    let c = d
        .collections
        .iter()
        .find(|c| c.name == "member_timeline")
        .unwrap();
    let fields: Vec<&str> = c.shape.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(fields, ["_id", "items"]);
    let feed = plan(&d, "home_feed");
    assert_eq!(feed.steps.len(), 1);
    assert_eq!(feed.cost.round_trips, 1.0);
    assert_eq!(plan(&d, "follow").steps.len(), 1);
}

/// Under S5's outlier layout, a child written by its id (unregister,
/// rename) is found in its event's array by a multikey index, and its own
/// document is written only when that matched nothing; a count of the
/// attendees reads the overflow once in so many runs.
#[test]
fn an_outliers_child_is_written_in_its_parents_array_first() {
    let yaml = crate::rules::testing::example("scenarios/s05-attendees.yaml")
        + "  unregister: {delete: attendee, filter: {_id: eq}, rate: 50}
  rename: {update: attendee, filter: {_id: eq}, changes: [name], rate: 5}
  count_page: {read: event, filter: {_id: eq}, rate: 100, aggregates: [count(attendees)]}
";
    let model = crate::inputs::model_file::parse("s05.yaml", &yaml).unwrap();
    let d = advise(&model, &Settings::default(), None).unwrap();
    assert!(matches!(layout(&d, "attendees"), Layout::Outlier { .. }));
    for (op, first) in [("unregister", "$pull"), ("rename", "$set")] {
        let p = plan(&d, op);
        assert_eq!(p.steps[0].collection, "event", "{op}");
        assert_eq!(p.steps[0].filter[0].path, "attendees._id", "{op}");
        assert_eq!(p.steps[0].index.as_deref(), Some("attendees._id_1"), "{op}");
        let ops = format!("{:?}", p.steps[0].updates);
        assert!(
            ops.contains(if first == "$pull" { "Pull" } else { "Set" }),
            "{op}: {ops}"
        );
        assert_eq!(p.steps[1].collection, "attendee", "{op}");
        assert!(p.steps[1].fallback && p.steps[1].every.is_some(), "{op}");
        assert!(p.cost.round_trips < 1.01, "{op}: {}", p.cost.round_trips);
    }
    let count = plan(&d, "count_page");
    assert!(count.steps[1].every.is_some_and(|n| n > 100));
}

/// The names of the fields inside the objects of array `path` of `coll`.
fn item_fields(d: &Design, coll: &str, path: &str) -> Vec<String> {
    let c = d.collections.iter().find(|c| c.name == coll).unwrap();
    let f = c.shape.fields.iter().find(|f| f.name == path).unwrap();
    let ShapeType::Array { items, .. } = &f.ty else {
        panic!("{coll}.{path}: {:?}", f.ty)
    };
    let ShapeType::Object { shape } = items.as_ref() else {
        panic!("{coll}.{path}: {items:?}")
    };
    shape.fields.iter().map(|f| f.name.clone()).collect()
}

/// S9: references both ways, each with the other side's name and the link's
/// attributes the side's reads take; both pages one document; join and
/// leave write both sides in a transaction; renames refresh the copies.
#[test]
fn s09_teams() {
    let d = design("s09-teams");
    assert_eq!(
        layout(&d, "memberships"),
        &Layout::TwoWayExtendedReference {
            copies_in_parent: vec!["name".into()],
            copies_in_child: vec!["name".into()],
        }
    );
    assert_eq!(
        item_fields(&d, "team", "members"),
        ["_id", "name", "role", "joined_at"]
    );
    assert_eq!(item_fields(&d, "user", "teams"), ["_id", "name", "role"]);
    assert!(matches!(
        origin(&d, "team", "members.role"),
        FieldOrigin::Attribute { field, .. } if field == "role"
    ));
    assert!(matches!(
        origin(&d, "user", "teams.name"),
        FieldOrigin::Copy { entity, field, .. } if entity == "team" && field == "name"
    ));
    assert!(indexes(&d, "team").contains(&vec![("members._id".to_string(), 1)]));
    assert!(indexes(&d, "user").contains(&vec![("teams._id".to_string(), 1)]));
    for page in ["team_page", "my_teams"] {
        let p = plan(&d, page);
        assert_eq!(
            (p.cost.round_trips, p.cost.documents_examined),
            (1.0, 1.0),
            "{page}"
        );
    }
    // A join pushes the whole element on each side; a leave pulls it by
    // the id inside it (`$pull: {members: {_id: …}}` in the cookbook).
    use crate::design::UpdateOp;
    let push = |p: &str| UpdateOp::Push {
        path: p.into(),
        sort: None,
        slice: None,
    };
    let pull = |p: &str| UpdateOp::Pull { path: p.into() };
    for (op, want) in [
        ("join", [push("members"), push("teams")]),
        ("leave", [pull("members._id"), pull("teams._id")]),
    ] {
        let p = plan(&d, op);
        let written: Vec<(&str, &UpdateOp)> = p
            .steps
            .iter()
            .filter(|s| s.action == Action::UpdateOne)
            .flat_map(|s| s.updates.iter().map(move |u| (s.collection.as_str(), u)))
            .collect();
        assert_eq!(written, [("team", &want[0]), ("user", &want[1])], "{op}");
        assert!(in_transaction(&d, op), "{op}");
    }
    for (op, coll, docs) in [("rename_user", "team", 3.0), ("rename_team", "user", 8.0)] {
        let refresh = plan(&d, op)
            .steps
            .iter()
            .find(|s| s.action == Action::UpdateMany)
            .unwrap_or_else(|| panic!("{op}"));
        assert_eq!(
            (refresh.collection.as_str(), refresh.documents),
            (coll, docs)
        );
    }
    // Bare ids on both sides would cost a second query on both pages.
    let decision = &d.relationships[0];
    let bare = decision
        .alternatives
        .iter()
        .find(|a| a.layout == Layout::ManyToManyTwoWay)
        .unwrap();
    let crate::design::Verdict::Costlier { delta, .. } = &bare.verdict else {
        panic!("{:?}", bare.verdict)
    };
    assert!(delta.round_trips > 0.0, "{delta:?}");
    // The membership collection is the costlier alternative, with its delta.
    let edge = decision
        .alternatives
        .iter()
        .find(|a| matches!(a.layout, Layout::EdgeCollection { .. }))
        .unwrap();
    let crate::design::Verdict::Costlier { delta, .. } = &edge.verdict else {
        panic!("{:?}", edge.verdict)
    };
    assert!(delta.score > 0.0 && delta.round_trips > 0.0, "{delta:?}");
}

/// S2 written as a many-to-many with the star's date as the link's
/// attribute: every array layout breaks a limit, so the links get a
/// collection of their own, with the indexes, counter and plans of S2
/// written as an entity (`s02_stars`): the same application, the same
/// design.
#[test]
fn s02_stars_as_a_many_to_many() {
    let m2m = design("s02-stars-many-to-many");
    let entity = design("s02-stars");
    assert_eq!(
        layout(&m2m, "stars"),
        &Layout::EdgeCollection {
            collection: "stars".into()
        }
    );
    let decision = m2m
        .relationships
        .iter()
        .find(|r| r.relationship == "stars")
        .unwrap();
    assert!(!decision.alternatives.is_empty());
    assert!(
        decision
            .alternatives
            .iter()
            .all(|a| matches!(a.verdict, crate::design::Verdict::Rejected { .. }))
    );
    let keys = |d: &Design, coll: &str| {
        let c = d.collections.iter().find(|c| c.name == coll).unwrap();
        let mut k: Vec<(Vec<(String, i32)>, bool)> = c
            .indexes
            .iter()
            .map(|i| (i.keys.clone(), i.unique))
            .collect();
        k.sort();
        k
    };
    assert_eq!(keys(&m2m, "stars"), keys(&entity, "star"));
    for d in [&m2m, &entity] {
        assert!(matches!(
            origin(d, "repo", "stargazers_count"),
            FieldOrigin::Computed { .. }
        ));
    }
    for op in [
        "has_starred",
        "repo_page",
        "my_stars",
        "stargazers_page",
        "star",
        "unstar",
    ] {
        assert_eq!(
            plan(&m2m, op).cost.round_trips,
            plan(&entity, op).cost.round_trips,
            "{op}"
        );
    }
    // The link's attribute and both references, nothing else.
    let stars = m2m.collections.iter().find(|c| c.name == "stars").unwrap();
    let mut names: Vec<&str> = stars.shape.fields.iter().map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["_id", "repo", "starred_at", "user"]);
}

/// S11: orders younger than 90 days stay in `order`, older ones move to
/// `order_archive` by a job; each read goes to the side its age keeps
/// to, and the decision states the working set with and without.
#[test]
fn s11_orders() {
    let d = design("s11-orders");
    let Some(crate::design::EntityDecision::Archive {
        entity,
        collection,
        archive,
        field,
        horizon_days,
        moved_per_second,
        on_both,
        working_set,
        without_archive,
        saves,
        ..
    }) = d
        .entities
        .iter()
        .find(|e| matches!(e, crate::design::EntityDecision::Archive { .. }))
    else {
        panic!("no archive: {:?}", d.entities)
    };
    assert_eq!((entity.as_str(), collection.as_str()), ("order", "order"));
    assert_eq!(archive, "order_archive");
    assert_eq!((field.as_str(), *horizon_days), ("placed_at", 90.0));
    assert!((moved_per_second - 11.6).abs() < 1e-9);
    assert!(on_both.is_empty());
    assert!(saves.score > 0.0);
    // 1 M orders a day for 90 days stay live: 90 M of 2 B.
    let live = d.collections.iter().find(|c| c.name == "order").unwrap();
    let old = d
        .collections
        .iter()
        .find(|c| c.name == "order_archive")
        .unwrap();
    assert_eq!(live.documents, 90_201_600);
    assert_eq!(live.documents + old.documents, 2_000_000_000);
    // The live documents with the archive, every order without it
    // (audit48 C2: the figure "instead of" was the live share too); the
    // index entries of the live collection only with the archive.
    assert_eq!(without_archive.documents, 2_000_000_000);
    assert_eq!(working_set.documents, live.documents);
    assert!(working_set.index_entries * 10 < without_archive.index_entries);
    assert!(working_set.index_bytes * 10 < without_archive.index_bytes);
    // Each read on its side, in one indexed query.
    let on = |op: &str| -> Vec<String> {
        plan(&d, op)
            .steps
            .iter()
            .map(|s| s.collection.clone())
            .collect()
    };
    assert_eq!(on("recent_orders"), ["order"]);
    assert_eq!(on("old_orders"), ["order_archive"]);
    assert_eq!(on("ship_order"), ["order"]);
    assert_eq!(on("place_order"), ["order"]);
    assert!(
        d.operations
            .iter()
            .all(|p| !p.operation.ends_with("_in_archive"))
    );
    let keys = |k: &[(&str, i32)]| {
        k.iter()
            .map(|(p, d)| (p.to_string(), *d))
            .collect::<Vec<_>>()
    };
    assert!(indexes(&d, "order").contains(&keys(&[("customer", 1), ("placed_at", 1)])));
    assert!(indexes(&d, "order_archive").contains(&keys(&[("customer", 1), ("placed_at", 1)])));
    // The job: as many batches of 1,000 as the inserts fill.
    for step in ["find", "insert", "delete"] {
        let p = plan(&d, &format!("archive_order_{step}"));
        assert!((p.rate - 11.6 / 1000.0).abs() < 1e-12, "{step}: {}", p.rate);
    }
    assert_eq!(on("archive_order_insert"), ["order_archive"]);
}

/// S11 with a frequent read by `_id` that no age filter sends to one
/// side: it would run on both collections, and one collection is kept,
/// with the archive's cost stated.
#[test]
fn s11_orders_read_by_id_keep_one_collection() {
    let mut text = super::golden::example_text("scenarios/s11-orders");
    text.push_str("  order_page: {read: order, rate: 3000, filter: {_id: eq}}\n");
    let model = crate::inputs::model_file::parse("s11.yaml", &text).unwrap();
    let d = advise(&model, &Settings::default(), None).unwrap();
    assert!(d.collections.iter().all(|c| c.name != "order_archive"));
    let note = d
        .findings
        .iter()
        .find(|f| f.rule == "archive-by-age")
        .unwrap();
    assert!(
        note.message.contains("order_page would run on both"),
        "{}",
        note.message
    );
}

/// S4: one `listing` collection with its kind and common fields
/// top-level and the specs as `{k, v}` pairs, searched through one
/// compound index; a field per spec is stated as the alternative past
/// MongoDB's limit.
#[test]
fn s04_marketplace() {
    let d = design("s04-marketplace");
    let names: Vec<&str> = d.collections.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["seller", "listing"]);
    let listing = d.collections.iter().find(|c| c.name == "listing").unwrap();
    let top: Vec<&str> = listing
        .shape
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    for f in ["kind", "title", "price", "city", "specs", "seller"] {
        assert!(top.contains(&f), "{f} not top-level: {top:?}");
    }
    let specs = listing
        .shape
        .fields
        .iter()
        .find(|f| f.name == "specs")
        .unwrap();
    assert!(specs.is_attributes(), "{:?}", specs.ty);
    let keys = |k: &[(&str, i32)]| {
        k.iter()
            .map(|(p, d)| (p.to_string(), *d))
            .collect::<Vec<_>>()
    };
    let idx = indexes(&d, "listing");
    assert!(
        idx.contains(&keys(&[
            ("kind", 1),
            ("specs.k", 1),
            ("specs.v", 1),
            ("price", 1)
        ])),
        "{idx:?}"
    );
    assert!(idx.contains(&keys(&[("city", 1), ("price", 1)])), "{idx:?}");
    assert_eq!(idx.len(), 3, "{idx:?}");
    for op in ["search_by_spec", "search_by_city"] {
        let p = plan(&d, op);
        assert_eq!(p.steps.len(), 1, "{op}");
        assert!(p.steps[0].index.is_some(), "{op}");
        assert!(p.cost.documents_examined <= 24.0, "{op}: {:?}", p.cost);
    }
    let note = d
        .findings
        .iter()
        .find(|f| f.rule == "attribute-pattern")
        .unwrap();
    assert!(note.message.contains("800 indexes"), "{}", note.message);
    // 20 entries a listing in the pairs' index: the multikey count.
    let entries = d.totals.index_entries;
    assert_eq!(entries, 20_000_000.0 * 20.0 + 20_000_000.0, "{entries}");
}

/// S4 with one entity per kind and the search across kinds written as a
/// read over the family: the kinds share one collection told apart by
/// `kind`, so that search is one query; a collection per kind is priced
/// against it.
#[test]
fn s04_marketplace_kinds() {
    let d = design("s04-marketplace-kinds");
    let names: Vec<&str> = d.collections.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["seller", "listing"]);
    let Some(crate::design::EntityDecision::Polymorphic {
        entities,
        discriminator,
        rules,
        ..
    }) = d.entities.first()
    else {
        panic!("{:?}", d.entities)
    };
    assert_eq!(entities, &["car_listing", "phone_listing", "flat_listing"]);
    assert_eq!(discriminator, "kind");
    // A collection per kind: the search by city takes a query per kind.
    let without = rules
        .iter()
        .find(|r| r.rule == "design-for-workload")
        .unwrap();
    let kept = without
        .reason
        .get::<crate::advise::verdicts::Kept>()
        .unwrap();
    let search = kept
        .operations
        .iter()
        .find(|o| o.operation == "search_by_city")
        .unwrap();
    assert_eq!(search.rate.value, 1000.0);
    assert_eq!(search.per_execution.round_trips, 2.0);
    let p = plan(&d, "search_by_city");
    assert_eq!(p.steps.len(), 1);
    assert!(p.steps[0].filter.iter().all(|f| f.path != "kind"));
    assert_eq!(p.cost.documents_examined, 24.0);
    assert_eq!(p.steps[0].index.as_deref(), Some("city_1_price_1"));
    // Each kind's own search tests the kind first.
    let cars = plan(&d, "search_cars");
    assert_eq!(cars.steps[0].filter[0].path, "kind");
    assert_eq!(cars.cost.documents_examined, 24.0);
}

/// Recursive reads over a tree kept as parent references: the
/// breadcrumbs (a product's category and its ancestors) in the step that
/// finds the category, a subtree in one `$graphLookup` on the parent index.
#[test]
fn a_tree_is_walked_in_one_command() {
    let (_, d) = crate::fixtures::load("category-tree");
    let page = plan(&d, "product_page");
    assert_eq!(page.cost.round_trips, 2.0);
    let walk = &page.steps[1];
    assert_eq!(walk.action, Action::GraphLookup);
    let g = walk.graph.as_ref().unwrap();
    assert_eq!(
        (
            g.start_with.as_str(),
            g.connect_from.as_str(),
            g.connect_to.as_str(),
            g.into.as_str()
        ),
        ("parent", "parent", "_id", "ancestors")
    );
    // A tree of 600 nodes with 3 children each is 6 levels high: the
    // walk finds 5 ancestors; `recursive: true` bounds it by nothing but
    // the nesting limit (the fixture gives no `levels`), so a deeper
    // branch is walked whole.
    assert_eq!(g.max_depth, 99);
    assert_eq!(walk.documents, 1.0 + 5.0);
    let tree = plan(&d, "category_tree");
    assert_eq!(tree.cost.round_trips, 2.0);
    let down = tree.steps[1].graph.as_ref().unwrap();
    assert_eq!(
        (
            down.start_with.as_str(),
            down.connect_to.as_str(),
            down.max_depth
        ),
        ("_id", "parent", 2)
    );
    assert_eq!(tree.steps[1].index.as_deref(), Some("parent_1"));
}

/// S3: each category keeps its path from the root with the names (the
/// breadcrumbs), each product the ids of its category's path; a category
/// page with everything under it is one indexed query, a product page two
/// documents; a move rewrites the paths below the moved category.
#[test]
fn s03_category_tree() {
    let d = design("s03-category-tree");
    assert_eq!(
        layout(&d, "subcategories"),
        &Layout::TreePath {
            fields: vec!["name".into()]
        }
    );
    assert_eq!(layout(&d, "products"), &Layout::PathReference);
    assert!(matches!(
        origin(&d, "category", "path"),
        FieldOrigin::Path { tree, via: None } if tree == "subcategories"
    ));
    assert_eq!(item_fields(&d, "category", "path"), ["_id", "name"]);
    assert!(matches!(
        origin(&d, "product", "category_path"),
        FieldOrigin::Path { tree, via: Some(v) } if tree == "subcategories" && v == "products"
    ));
    assert!(indexes(&d, "category").contains(&vec![("path._id".into(), 1)]));
    assert!(
        indexes(&d, "product").contains(&vec![("category_path".into(), 1), ("price".into(), 1)])
    );
    // Everything under a category: one query, 24 documents.
    let page = plan(&d, "category_page");
    assert_eq!(page.cost.round_trips, 1.0);
    assert_eq!(page.cost.documents_examined, 24.0);
    assert_eq!(
        page.steps[0].index.as_deref(),
        Some("category_path_1_price_1")
    );
    // The breadcrumbs come with the category: no walk.
    let product = plan(&d, "product_page");
    assert_eq!(product.cost.round_trips, 2.0);
    assert_eq!(product.cost.documents_examined, 2.0);
    assert!(product.steps[1].projection.contains(&"path".to_string()));
    assert!(product.steps.iter().all(|s| s.graph.is_none()));
    // A rename refreshes the copies in the subtree's paths.
    let rename = plan(&d, "rename_category");
    let refresh = rename.steps.last().unwrap();
    assert_eq!(refresh.action, Action::UpdateMany);
    assert_eq!(refresh.filter[0].path, "path._id");
    // A move: the new parent's path read, then the paths of the subtree
    // (6.3 categories: the height of 6,000 nodes with 4 children each) and
    // of its products (1,700 each) rebased.
    let moved = plan(&d, "move_category");
    let rebased: Vec<(&str, f64)> = moved
        .steps
        .iter()
        .filter(|s| {
            s.updates
                .iter()
                .any(|u| matches!(u, crate::design::UpdateOp::Rebase { .. }))
        })
        .map(|s| (s.collection.as_str(), s.documents))
        .collect();
    let h = 6000f64.ln() / 4f64.ln();
    assert_eq!(rebased, [("category", h), ("product", h * 1700.0)]);
    // A new product copies its category's path: read first.
    let add = plan(&d, "add_product");
    assert_eq!(add.cost.round_trips, 2.0);
    assert_eq!(add.steps[0].projection, ["path"]);
}

/// Without a read of everything under a category, products keep a bare
/// reference (no path to rewrite on a move); without breadcrumbs or
/// subtrees, the categories keep a bare parent reference.
#[test]
fn s03_paths_only_for_the_reads_that_need_them() {
    let mut m = example("scenarios/s03-category-tree");
    let page = m
        .workload
        .operations
        .iter()
        .position(|o| o.name == "category_page")
        .unwrap();
    m.workload.operations[page].rates = vec![0.0];
    let d = advise(&m, &Settings::default(), None).unwrap();
    assert_eq!(layout(&d, "products"), &Layout::ParentReference);
    let crumbs = m
        .workload
        .operations
        .iter()
        .position(|o| o.name == "product_page")
        .unwrap();
    m.workload.operations[crumbs].rates = vec![0.0];
    let d = advise(&m, &Settings::default(), None).unwrap();
    assert!(!matches!(
        layout(&d, "subcategories"),
        Layout::TreePath { .. }
    ));
}

/// Kept as bare references, everything under a category takes a walk down
/// the tree first (the category and its descendants in one
/// `$graphLookup`), then the products of those categories.
#[test]
fn s03_a_subtree_without_paths_is_walked_first() {
    let mut m = example("scenarios/s03-category-tree");
    for r in &mut m.relationships {
        r.layout = Some(crate::model::LayoutKind::ParentReference);
    }
    let d = advise(&m, &Settings::default(), None).unwrap();
    let page = plan(&d, "category_page");
    assert_eq!(page.cost.round_trips, 2.0);
    let walk = &page.steps[0];
    assert_eq!(walk.action, Action::GraphLookup);
    let g = walk.graph.as_ref().unwrap();
    assert_eq!((g.connect_to.as_str(), g.max_depth), ("parent", 6));
    let products = &page.steps[1];
    assert_eq!(products.filter[0].path, "category");
    assert_eq!(products.filter[0].op, crate::model::FilterOp::In);
    assert_eq!(products.index.as_deref(), Some("category_1_price_1"));
}

/// A change of a link's own field (a member made admin) is written where the
/// design keeps it: S9 keeps the role on both sides, so both elements are
/// set, each found by its document's id and the other side's id in the
/// array, with the positional `$`; the layout does not change for it.
#[test]
fn s09_a_role_change_sets_both_elements() {
    let text = super::golden::example_text("scenarios/s09-teams").replace(
        "atomic:\n",
        "  promote: {link: memberships, changes: [role], rate: 5}\natomic:\n",
    );
    let model = crate::inputs::model_file::parse("s09.yaml", &text).unwrap();
    let d = advise(&model, &Settings::default(), None).unwrap();
    assert_eq!(
        layout(&d, "memberships"),
        layout(&design("s09-teams"), "memberships")
    );
    use crate::design::UpdateOp;
    let p = plan(&d, "promote");
    let steps: Vec<(&str, Vec<&str>, &[UpdateOp])> = p
        .steps
        .iter()
        .map(|s| {
            let f = s.filter.iter().map(|f| f.path.as_str()).collect();
            (s.collection.as_str(), f, s.updates.as_slice())
        })
        .collect();
    let set = |p: &str| [UpdateOp::Set { path: p.into() }];
    assert_eq!(
        steps,
        [
            (
                "team",
                vec!["_id", "members._id"],
                &set("members.$.role")[..]
            ),
            ("user", vec!["_id", "teams._id"], &set("teams.$.role")[..]),
        ]
    );
    assert!(p.steps.iter().all(|s| s.action == Action::UpdateOne));
    assert_eq!(p.cost.round_trips, 2.0);
    // `joined_at` only the team keeps: one write.
    let text = text.replace("changes: [role]", "changes: [joined_at]");
    let model = crate::inputs::model_file::parse("s09.yaml", &text).unwrap();
    let d = advise(&model, &Settings::default(), None).unwrap();
    let p = plan(&d, "promote");
    assert_eq!(p.steps.len(), 1);
    assert_eq!(p.steps[0].updates, set("members.$.joined_at"));
}

/// The index of collection `coll` with exactly these keys.
fn index<'d>(d: &'d Design, coll: &str, keys: &[(&str, i32)]) -> &'d crate::design::Index {
    let c = d.collections.iter().find(|c| c.name == coll).unwrap();
    let want: Vec<(String, i32)> = keys.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    c.indexes
        .iter()
        .find(|i| i.keys == want)
        .unwrap_or_else(|| panic!("{coll}: no index {want:?} in {:?}", c.indexes))
}

/// The one write step of operation `op`'s plan.
fn only_step<'d>(d: &'d Design, op: &str) -> &'d crate::design::Step {
    let p = plan(d, op);
    assert_eq!(p.steps.len(), 1, "{op}: {:?}", p.steps);
    &p.steps[0]
}

/// S16: `remaining` in the coupon, decremented by one conditional
/// single-document update; redemptions their own collection under a
/// unique {coupon, customer}; the group kept without a transaction (the
/// decrement undoes the redemption when it matches nothing).
#[test]
fn s16_coupons() {
    use crate::design::{StepCondition, UpdateOp};
    use crate::model::{Literal, Otherwise, Test};
    let d = design("s16-coupons");
    assert_eq!(layout(&d, "redemptions"), &Layout::ParentReference);
    assert!(index(&d, "redemption", &[("coupon", 1), ("customer", 1)]).unique);
    let dec = only_step(&d, "redeem_decrement");
    assert_eq!(
        (dec.action, dec.collection.as_str()),
        (Action::UpdateOne, "coupon")
    );
    assert_eq!(dec.filter[0].path, "_id");
    assert_eq!(
        dec.conditions,
        vec![StepCondition {
            path: "remaining".into(),
            plus: None,
            test: Test::Gt,
            value: Literal::Number(0.0)
        }]
    );
    // The amount the model states (audit43 A): not an amount the caller
    // passes, which a guard for -1 would not protect.
    assert_eq!(
        dec.updates,
        vec![UpdateOp::Inc {
            path: "remaining".into(),
            by: Some(-1.0),
            amount: None,
        }]
    );
    assert_eq!(dec.otherwise, Some(Otherwise::Undo));
    assert_eq!(plan(&d, "redeem_decrement").cost.round_trips, 1.0);
    for op in ["redeem_record", "redeem_decrement"] {
        assert!(!in_transaction(&d, op), "{op}");
        assert!(!plan(&d, op).transaction, "{op}");
    }
    // No read of the coupon before the write.
    assert!(
        plan(&d, "redeem_decrement")
            .steps
            .iter()
            .all(|s| s.action != Action::Find)
    );
}

/// S17: the claim is one findOneAndUpdate with its sort, on {status,
/// priority desc, created_at}; finished jobs leave by a TTL index of 7
/// days; no transaction, no delete operation.
#[test]
fn s17_job_queue() {
    let d = design("s17-job-queue");
    let claim = only_step(&d, "claim_next");
    assert_eq!(claim.action, Action::FindOneAndUpdate);
    assert_eq!(
        claim.sort,
        vec![("priority".to_string(), -1), ("created_at".to_string(), 1)]
    );
    assert_eq!(claim.limit, Some(1));
    let keys = [("status", 1), ("priority", -1), ("created_at", 1)];
    let i = index(&d, "job", &keys);
    assert_eq!(claim.index.as_deref(), Some(i.name.as_str()));
    let cost = plan(&d, "claim_next").cost;
    assert_eq!((cost.round_trips, cost.index_keys_examined), (1.0, 1.0));
    assert!(!plan(&d, "claim_next").transaction);
    let ttl = index(&d, "job", &[("finished_at", 1)]);
    assert_eq!(ttl.expire_after_seconds, Some(7 * 86_400));
    assert!(ttl.used_by.is_empty());
    // Finishing a job tests that it runs: a conditional update by _id.
    let finish = only_step(&d, "finish");
    assert_eq!(finish.conditions.len(), 1);
    assert!(d.operations.iter().all(|p| {
        p.steps
            .iter()
            .all(|s| !matches!(s.action, Action::DeleteOne | Action::DeleteMany))
    }));
}

/// S18: sessions keyed by their token with a TTL of 1,800 s on
/// `last_used`; reset tokens the same with 3,600 s; every lookup one round
/// trip by `_id`; no cleanup operation.
#[test]
fn s18_sessions() {
    let d = design("s18-sessions");
    assert_eq!(
        index(&d, "session", &[("last_used", 1)]).expire_after_seconds,
        Some(1_800)
    );
    assert_eq!(
        index(&d, "reset_token", &[("created_at", 1)]).expire_after_seconds,
        Some(3_600)
    );
    for op in ["lookup_session", "touch_session", "use_reset"] {
        let s = only_step(&d, op);
        assert_eq!(s.index.as_deref(), Some("_id_"), "{op}");
    }
    assert!(d.operations.iter().all(|p| {
        p.steps
            .iter()
            .all(|s| !matches!(s.action, Action::DeleteOne | Action::DeleteMany))
    }));
    // The TTL index is the server's: no finding calls it unused.
    assert!(
        d.findings.iter().all(|f| f.rule != "index-write-cost"),
        "{:?}",
        d.findings
    );
}

/// S21: squill keeps the posts in buckets of one page (25) each, so any
/// page is one document by its number, at page 1,000 too; with the posts
/// pinned in their own collection, `{thread: 1, created_at: 1}` serves
/// every page as one range query whose cost keyset paging keeps at every
/// depth, and a `skip` plan adds the keys skipped by the expected depth.
/// The post count and the last post's date and author are computed fields
/// of the thread.
#[test]
fn s21_forum() {
    let text = super::golden::example_text("scenarios/s21-forum");
    let with = |edits: &[(&str, &str)]| {
        let mut t = text.clone();
        for (from, to) in edits {
            assert!(t.contains(from), "{from}");
            t = t.replace(from, to);
        }
        let model = crate::inputs::model_file::parse("s21.yaml", &t).unwrap();
        advise(&model, &Settings::default(), None).unwrap()
    };
    let d = design("s21-forum");
    assert!(
        matches!(layout(&d, "posts"), Layout::Bucket { .. }),
        "{:?}",
        layout(&d, "posts")
    );
    let page = plan(&d, "thread_page");
    assert_eq!(
        (page.cost.round_trips, page.cost.documents_examined),
        (1.0, 1.0)
    );
    // The header: the count and the last post's figures, kept by the insert.
    let computed: Vec<_> = d
        .entities
        .iter()
        .filter_map(|e| match e {
            crate::design::EntityDecision::ComputedField {
                entity,
                maintained_by,
                ..
            } if entity == "thread" => Some(maintained_by.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(computed.len(), 3, "{:?}", d.entities);
    assert!(computed.iter().all(|m| m == &["new_post".to_string()]));
    assert_eq!(plan(&d, "thread_header").cost.round_trips, 1.0);

    // The posts in their own collection.
    let own = (
        "child_field: thread\n",
        "child_field: thread\n    layout: parent-reference\n",
    );
    let d = with(&[own]);
    // `_id` after the sort: posts that tie on created_at are ordered by it
    // and a keyset page starts after both.
    assert!(
        indexes(&d, "post").contains(&vec![
            ("thread".into(), 1),
            ("created_at".into(), 1),
            ("_id".into(), 1)
        ]),
        "{:?}",
        indexes(&d, "post")
    );
    let page = plan(&d, "thread_page");
    assert_eq!(page.cost.round_trips, 1.0);
    let step = &page.steps[0];
    assert_eq!(step.collection, "post");
    let paging = step.paging.as_deref().unwrap();
    assert_eq!(paging.by, crate::model::PagingBy::Keyset);
    assert_eq!(paging.after.as_deref(), Some("created_at"));
    assert_eq!((paging.skipped, paging.deepest_skipped), (0.0, 0.0));
    // Keyset: the same cost as a read of the first page only, and as one
    // whose readers typically go 1,000 pages deep.
    let paging_line =
        "    paging: {by: keyset, past_first: 0.048, depth: {typical: 5, max: 1000}}\n";
    let first_only = with(&[own, (paging_line, "")]);
    let deep = with(&[own, ("typical: 5, max: 1000", "typical: 1000, max: 1000")]);
    for other in [&first_only, &deep] {
        assert_eq!(plan(other, "thread_page").cost, page.cost);
    }
    // Skip: priced by the expected depth, 0.048 × 4 pages × 25 keys more
    // per execution; 999 pages of 25 keys to reach page 1,000.
    let skip = with(&[own, ("by: keyset", "by: skip")]);
    let skipped = plan(&skip, "thread_page");
    let p = skipped.steps[0].paging.as_deref().unwrap();
    assert!((p.skipped - 4.8).abs() < 1e-9, "{}", p.skipped);
    assert_eq!(p.deepest_skipped, 24975.0);
    assert!((skipped.cost.index_keys_examined - page.cost.index_keys_examined - 4.8).abs() < 1e-9);
}

/// S19: one collection per entity shared by every store, the store's id on
/// every document, every index led by it; a SKU within its store is one
/// document by the unique `{store, sku}`; an order by `_id` uses `_id_`
/// alone. squill keeps a customer's order ids in the customer (2 round
/// trips); pinned to references, her orders in a store are one query on
/// `{store, customer, created_at}` for her 4 orders, not her share times
/// the store's. The report prices each operation at the largest store.
#[test]
fn s19_stores() {
    let text = super::golden::example_text("scenarios/s19-stores");
    let with = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        let model = crate::inputs::model_file::parse("s19.yaml", &text.replace(from, to)).unwrap();
        advise(&model, &Settings::default(), None).unwrap()
    };
    let d = design("s19-stores");
    let names: Vec<&str> = d.collections.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    for c in ["store", "product", "customer", "order"] {
        assert!(names.contains(&c), "{names:?}");
    }
    for (c, r) in [
        ("product", "products"),
        ("customer", "customers"),
        ("order", "store_orders"),
    ] {
        assert_eq!(layout(&d, r), &Layout::ParentReference, "{r}");
        assert_eq!(
            origin(&d, c, "store"),
            &FieldOrigin::Reference {
                relationship: r.into(),
                side: None,
            }
        );
        // Every index of a scoped collection leads with the store.
        for keys in indexes(&d, c) {
            assert!(
                keys[0].0 == "store" || keys == vec![("_id".to_string(), 1)],
                "{c}: {keys:?}"
            );
        }
    }
    let store = |k: &[&str]| -> Vec<(String, i32)> {
        std::iter::once("store")
            .chain(k.iter().copied())
            .map(|x| (x.to_string(), 1))
            .collect()
    };
    let product = d.collections.iter().find(|c| c.name == "product").unwrap();
    let sku = product
        .indexes
        .iter()
        .find(|i| i.keys == store(&["sku"]))
        .unwrap();
    assert!(sku.unique, "{sku:?}");
    let order = indexes(&d, "order");
    assert!(
        order.contains(&store(&["status", "created_at"])),
        "{order:?}"
    );
    assert!(!order.contains(&store(&["_id"])), "{order:?}");
    // One document by the unique pair, one by `_id_`.
    let by_sku = only_step(&d, "product_by_sku");
    assert_eq!(by_sku.index.as_deref(), Some("store_1_sku_1"));
    assert_eq!(plan(&d, "product_by_sku").cost.documents_examined, 1.0);
    let by_id = only_step(&d, "order_by_id");
    assert_eq!(by_id.index.as_deref(), Some("_id_"));
    assert_eq!(by_id.filter[0].path, "store");
    assert_eq!(plan(&d, "order_by_id").cost.documents_examined, 1.0);
    let page = plan(&d, "store_orders_by_status");
    assert_eq!(page.cost.documents_examined, 50.0);
    // A customer's orders: her ids in the customer, then her 4 orders.
    assert_eq!(layout(&d, "customer_orders"), &Layout::ChildReferences);
    let mine = plan(&d, "customer_orders");
    assert_eq!(
        (mine.cost.round_trips, mine.cost.documents_examined),
        (2.0, 5.0)
    );
    // Her orders found by her reference: one query, 4 documents, on
    // `{store, customer, created_at}`.
    let pinned = with(
        "    child_field: customer\n",
        "    child_field: customer\n    layout: parent-reference\n",
    );
    let mine = plan(&pinned, "customer_orders");
    assert_eq!(mine.cost.round_trips, 1.0);
    assert!(
        (mine.cost.documents_examined - 4.0).abs() < 1e-9,
        "{:?}",
        mine.cost
    );
    assert!(
        indexes(&pinned, "order").contains(&store(&["customer", "created_at"])),
        "{:?}",
        indexes(&pinned, "order")
    );
    // The largest store: 3,000,000 products; a page of its orders by
    // status still reads 50 through the index.
    let t = d.tenancy.as_ref().unwrap();
    assert_eq!(t.tenant, "store");
    let products = t.scoped.iter().find(|s| s.entity == "product").unwrap();
    assert_eq!((products.typical, products.largest), (2000.0, 3_000_000.0));
    let big_page = t
        .operations
        .iter()
        .find(|o| o.operation == "store_orders_by_status")
        .unwrap();
    assert_eq!(big_page.typical, page.cost);
    assert_eq!(big_page.largest.documents_examined, 50.0);
    // Every order of one status, without a page: a fifth of the store's,
    // 4,000 in the typical store and 6,000,000 in the largest.
    let all = with("    limit: 50\n", "");
    let t = all.tenancy.as_ref().unwrap();
    let every = t
        .operations
        .iter()
        .find(|o| o.operation == "store_orders_by_status")
        .unwrap();
    assert_eq!(
        (
            every.typical.documents_examined,
            every.largest.documents_examined
        ),
        (4000.0, 6_000_000.0)
    );
}

/// S20: events arrive unevenly (typically 50 a device a day, at most
/// 200,000). No bucket is sized for the typical device: the bucket per
/// device-day is rejected with the busiest device's 200,000 events in it;
/// buckets filled by count, each at most the embedding bound and keeping
/// its first and last time, are weighed; squill keeps the events as
/// documents of their own with `{device, ts}`. Pinned to buckets, the
/// last day reads only the buckets whose last event is in it. Inserts
/// that the growth does not admit are reported and followed.
#[test]
fn s20_device_activity() {
    use crate::design::{BucketBy, Verdict};
    let text = super::golden::example_text("scenarios/s20-device-activity");
    let with = |edits: &[(&str, &str)]| {
        let mut t = text.clone();
        for (from, to) in edits {
            assert!(t.contains(from), "{from}");
            t = t.replace(from, to);
        }
        let model = crate::inputs::model_file::parse("s20.yaml", &t).unwrap();
        advise(&model, &Settings::default(), None).unwrap()
    };
    let d = design("s20-device-activity");
    let events = d
        .relationships
        .iter()
        .find(|r| r.relationship == "events")
        .unwrap();
    assert_eq!(events.chosen, Layout::ParentReference);
    assert!(
        indexes(&d, "event").contains(&vec![("device".into(), 1), ("ts".into(), 1)]),
        "{:?}",
        indexes(&d, "event")
    );
    // The bucket per device-day: rejected, the busiest device's day in it.
    let day = events
        .alternatives
        .iter()
        .find(|a| {
            matches!(&a.layout, Layout::Bucket { by: BucketBy::Time { unit, .. }, .. } if unit == "day")
        })
        .unwrap_or_else(|| panic!("{:?}", events.alternatives));
    let Verdict::Rejected { rule, reason } = &day.verdict else {
        panic!("{:?}", day.verdict)
    };
    assert_eq!(*rule, "unbounded-bucket");
    let why = reason
        .get::<crate::rules::design::unbounded_bucket::BusiestBucket>()
        .unwrap();
    assert_eq!((why.typical.value, why.busiest.value), (50.0, 200_000.0));
    // Buckets filled by count: bounded, with their time span.
    let filled = events
        .alternatives
        .iter()
        .find_map(|a| match &a.layout {
            Layout::Bucket {
                by: BucketBy::Count,
                per_bucket,
                aggregates,
            } => Some((*per_bucket, aggregates.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{:?}", events.alternatives));
    assert!(filled.0 >= 200 && filled.0 < 200_000, "{}", filled.0);
    let span: Vec<_> = filled
        .1
        .iter()
        .map(|a| (a.function, a.field.as_deref()))
        .collect();
    assert!(span.contains(&(crate::model::AggregateFn::First, Some("ts"))));
    assert!(span.contains(&(crate::model::AggregateFn::Last, Some("ts"))));
    // The last day of a device: its events by {device, ts}.
    let last_day = plan(&d, "last_day");
    assert!(
        last_day.cost.documents_examined < 60.0,
        "{:?}",
        last_day.cost
    );
    // The growth and the inserts agree (1,728 a day per device on average).
    assert!(
        d.findings
            .iter()
            .all(|f| f.rule != "growth-and-inserts-disagree"),
        "{:?}",
        d.findings
    );

    // Pinned to buckets: the count buckets, opened when full, and the last
    // day read from the buckets whose last event is in it (two: the open
    // one and the one before), not every bucket of the device.
    let pinned = with(&[(
        "child_field: device\n",
        "child_field: device\n    layout: bucket\n",
    )]);
    let chosen = layout(&pinned, "events");
    let Layout::Bucket {
        by: BucketBy::Count,
        per_bucket,
        ..
    } = chosen
    else {
        panic!("{chosen:?}")
    };
    assert_eq!(*per_bucket, filled.0);
    let record = plan(&pinned, "record");
    let upsert = &record.steps[0];
    assert_eq!(upsert.action, Action::Upsert);
    // Opened when full of arrivals: a bucket a delete thinned is not
    // filled again (issue 41).
    assert!(
        upsert
            .filter
            .iter()
            .any(|c| c.path == crate::design::ARRIVED),
        "{:?}",
        upsert.filter
    );
    let read = plan(&pinned, "last_day");
    let buckets = read.steps.last().unwrap();
    assert!(
        buckets.filter.iter().any(|c| c.path == "last_ts"),
        "{:?}",
        buckets.filter
    );
    assert_eq!(buckets.documents, 2.0);
    let bucket_reason = pinned
        .relationships
        .iter()
        .find(|r| r.relationship == "events")
        .unwrap()
        .rules
        .iter()
        .find_map(|h| h.reason.get::<crate::rules::design::bucket::Buckets>())
        .cloned()
        .unwrap();
    let crate::rules::design::bucket::Buckets::Count {
        busiest: Some(b), ..
    } = bucket_reason
    else {
        panic!("{bucket_reason:?}")
    };
    // The busiest device fills a bucket every few minutes, never a larger one.
    assert_eq!(b.per_day.value, 200_000.0);
    assert_eq!(b.in_bucket.value, filled.0 as f64);
    assert_eq!(b.buckets_a_day.value, (200_000.0 / filled.0 as f64).ceil());

    // Ten times the inserts: 17,280 a day per device on average, past
    // twice the most the spread admits (4,475). Reported, and followed:
    // the busiest device is scaled with them.
    let busy = with(&[("rate: 20000", "rate: 200000")]);
    let f = busy
        .findings
        .iter()
        .find(|f| f.rule == "growth-and-inserts-disagree")
        .unwrap_or_else(|| panic!("{:?}", busy.findings));
    let ev = |name: &str| {
        f.evidence
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.value.as_f64().unwrap())
            .unwrap()
    };
    assert_eq!(ev("inserts_per_parent_per_day"), 17280.0);
    assert!((ev("stated_mean_most_per_day") - 4475.0).abs() < 1e-9);
    let k = 17280.0 / 4475.0;
    assert!((ev("used_busiest_per_day") - 200_000.0 * k).abs() < 1e-6);
}
