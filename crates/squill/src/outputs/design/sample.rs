//! `Design` values for the reporters' tests: a realistic one (the advised
//! product → parts fixture) and one built by hand that uses every variant of
//! every type, so a field the docs or the reporters forget shows up in a test
//! (no model makes them all at once).

use crate::advise::verdicts::CannotCombine;
use crate::design::{
    Action, Alternative, Cost, Design, EntityDecision, FieldOrigin, OperationPlan,
    RelationshipDecision, RuleHit, Shape, ShapeField, ShapeType, Step, UpdateOp, Verdict,
};
use crate::design::{Aggregation, BucketBy, Layout, Side};
use crate::design::{Figure, Reason};
use crate::finding::{Evidence, Finding, Location, Severity};
use crate::model::AggregateFn;
use crate::rules::design::{computed_field, polymorphic_collection, subset};

fn scalar(bson_type: &str) -> ShapeType {
    ShapeType::Scalar {
        bson_type: bson_type.into(),
        enum_values: Vec::new(),
    }
}

fn step(collection: &str, action: Action) -> Step {
    Step {
        collection: collection.into(),
        action,
        filter: Vec::new(),
        sort: Vec::new(),
        limit: None,
        projection: Vec::new(),
        updates: Vec::new(),
        index: None,
        documents: 1.0,
        purpose: Vec::new(),
        copy_of: None,
        every: None,
        fallback: false,
        if_matched: None,
        if_changed: false,
        if_deleted_all: None,
        group_first: None,
        count: None,
        group_sums: Vec::new(),
        graph: None,
        conditions: Vec::new(),
        otherwise: None,
        paging: None,
        each: None,
        densest: None,
        largest: None,
        batch: false,
        before: false,
        figures: None,
        elements: None,
        elements_within: Vec::new(),
        bucket_order: None,
        if_full: None,
        slices: Vec::new(),
        backlog: None,
    }
}

/// A realistic design: what advise makes of the product → parts fixture.
pub(crate) fn product_parts() -> Design {
    crate::fixtures::product_parts().1
}

/// `product_parts` plus every variant of every enum in the design, for the
/// field-coverage test of docs/design-json.md and the reporters' edge cases.
pub(crate) fn every_variant() -> Design {
    let mut design = product_parts();
    let layouts = vec![
        Layout::EmbedParentInChild,
        Layout::ParentReference,
        Layout::TwoWayReferences,
        Layout::ExtendedReference {
            copies_into: Side::Child,
            fields: vec!["ipaddr".into()],
        },
        Layout::Subset {
            k: 1000,
            sort_field: Some("time".into()),
            fields: vec!["time".into(), "message".into()],
        },
        Layout::Outlier { threshold: 1000 },
        Layout::Bucket {
            by: BucketBy::Count,
            per_bucket: 50,
            aggregates: vec![Aggregation {
                function: AggregateFn::Count,
                field: None,
            }],
        },
        Layout::Bucket {
            by: BucketBy::Time {
                field: "time".into(),
                unit: "hour".into(),
            },
            per_bucket: 60,
            aggregates: vec![
                Aggregation {
                    function: AggregateFn::Sum,
                    field: Some("value".into()),
                },
                Aggregation {
                    function: AggregateFn::Avg,
                    field: Some("value".into()),
                },
                Aggregation {
                    function: AggregateFn::Min,
                    field: Some("value".into()),
                },
                Aggregation {
                    function: AggregateFn::Max,
                    field: Some("value".into()),
                },
                Aggregation {
                    function: AggregateFn::First,
                    field: Some("value".into()),
                },
                Aggregation {
                    function: AggregateFn::Last,
                    field: Some("value".into()),
                },
            ],
        },
        Layout::ManyToManyOneWay {
            ids_in: Side::Child,
        },
        Layout::ManyToManyOneWay {
            ids_in: Side::Parent,
        },
        Layout::ManyToManyTwoWay,
    ];
    let alternatives = layouts
        .into_iter()
        .map(|layout| Alternative {
            layout: layout.clone(),
            verdict: Verdict::Rejected {
                rule: "design-for-workload",
                reason: Reason::new(CannotCombine {
                    parent: "host".into(),
                    child: "logmsg".into(),
                    layout,
                }),
            },
        })
        .collect();
    design.relationships.push(RelationshipDecision {
        relationship: "host_logmsgs".into(),
        parent: "host".into(),
        child: "logmsg".into(),
        class: "one-to-squillions".into(),
        chosen: Layout::Subset {
            k: 1000,
            sort_field: Some("time".into()),
            fields: vec!["time".into(), "message".into()],
        },
        rules: vec![RuleHit {
            rule: "subset",
            reason: Reason::new(subset::Latest {
                parent: "host".into(),
                child: "logmsg".into(),
                kept: Figure::count(1000.0),
                reads: Figure::per_second(50.0),
                inserts: Figure::per_second(5.0),
                batches: None,
            }),
        }],
        alternatives,
        tradeoffs: Vec::new(),
        snapshot: vec!["time".into()],
    });
    design.entities = vec![
        EntityDecision::Polymorphic {
            collection: "notifications".into(),
            entities: vec!["email".into(), "sms".into(), "push".into()],
            discriminator: "type".into(),
            rules: vec![RuleHit {
                rule: "polymorphic-collection",
                reason: Reason::new(polymorphic_collection::ReadTogether {
                    operations: vec!["list_notifications".into()],
                    entities: vec!["email".into(), "sms".into(), "push".into()],
                    collection: "notifications".into(),
                    discriminator: "type".into(),
                }),
            }],
        },
        EntityDecision::ComputedField {
            entity: "page".into(),
            field: "views".into(),
            computes: "count of views".into(),
            maintained_by: vec!["view_page".into()],
            rules: vec![RuleHit {
                rule: "computed-field",
                reason: Reason::new(computed_field::Computed {
                    parent: "page".into(),
                    child: "view".into(),
                    function: "count".into(),
                    of: None,
                    field: "views".into(),
                    count_field: None,
                    reads: Figure::per_second(300.0),
                    inserts: Figure::per_second(40.0),
                    batches: None,
                }),
            }],
        },
    ];
    let extra_fields = vec![
        ShapeField {
            name: "kind".into(),
            ty: ShapeType::Scalar {
                bson_type: "string".into(),
                enum_values: vec!["email".into(), "sms".into()],
            },
            required: true,
            origin: FieldOrigin::Discriminator,
        },
        ShapeField {
            name: "views".into(),
            ty: scalar("long"),
            required: false,
            origin: FieldOrigin::Computed {
                function: AggregateFn::Count,
                field: None,
                relationship: "views".into(),
                description: "count of views".into(),
                filter: None,
            },
        },
        ShapeField {
            name: "count".into(),
            ty: scalar("int"),
            required: true,
            origin: FieldOrigin::Bucket {
                part: crate::design::BucketPart::Count,
                description: "children in this bucket".into(),
            },
        },
        ShapeField {
            name: "address".into(),
            ty: ShapeType::Object {
                shape: Shape::default(),
            },
            required: false,
            origin: FieldOrigin::Embedded {
                relationship: "person_address".into(),
            },
        },
    ];
    design.collections[1].shape.fields.extend(extra_fields);
    design.collections[1].discriminator = Some("kind".into());
    design.collections[1].size.max_bytes = None;
    let updates = vec![
        UpdateOp::Unset { path: "a".into() },
        UpdateOp::Inc {
            path: "views".into(),
            by: None,
            amount: None,
        },
        UpdateOp::Inc {
            path: "stock".into(),
            by: Some(-2.0),
            amount: None,
        },
        UpdateOp::Inc {
            path: "available".into(),
            by: Some(-1.0),
            amount: Some("quantity".into()),
        },
        UpdateOp::Dec {
            path: "likes".into(),
        },
        UpdateOp::Min { path: "min".into() },
        UpdateOp::Max { path: "max".into() },
        UpdateOp::SetOnInsert {
            path: "first".into(),
        },
        UpdateOp::Push {
            path: "logmsgs".into(),
            sort: Some(("time".into(), 1)),
            slice: Some(-1000),
        },
        UpdateOp::Push {
            path: "readings".into(),
            sort: None,
            slice: None,
        },
        UpdateOp::AddToSet {
            path: "tags".into(),
        },
        UpdateOp::Pull {
            path: "tasks".into(),
        },
    ];
    let actions = [
        Action::InsertOne,
        Action::InsertMany,
        Action::Upsert,
        Action::DeleteOne,
        Action::DeleteMany,
    ];
    design.operations.push(OperationPlan {
        operation: "log_message".into(),
        rate: 5.0,
        index_entries_rewritten: 0.0,
        set_to: Vec::new(),
        steps: actions
            .iter()
            .map(|a| Step {
                sort: vec![("time".into(), -1)],
                limit: Some(1000),
                updates: updates.clone(),
                every: (*a == Action::Upsert || *a == Action::InsertOne).then_some(100),
                fallback: *a == Action::InsertOne,
                ..step("logmsgs", *a)
            })
            .collect(),
        transaction: true,
        cost: Cost {
            round_trips: 5.0,
            transactions: 1.0,
            ..Cost::default()
        },
        warnings: Vec::new(),
    });
    design.findings.push(Finding {
        rule: "massive-array",
        severity: Severity::Error,
        message: "sample".into(),
        location: Location::Collection {
            file: Some("dump/shop/products.bson".into()),
            database: Some("shop".into()),
            collection: "products".into(),
            field: Some("parts".into()),
            example_id: Some("{\"$oid\":\"65f1a2b3c4d5e6f708192a3b\"}".into()),
        },
        evidence: vec![Evidence::new("max_length", 12_000)],
        help: None,
    });
    design.findings.push(Finding {
        rule: "bloated-document",
        severity: Severity::Info,
        message: "sample".into(),
        location: Location::File {
            path: "model.yaml".into(),
            line: Some(12),
            byte_offset: Some(340),
        },
        evidence: Vec::new(),
        help: None,
    });
    let cost = |score: f64| Cost {
        round_trips: score / 2.0,
        score,
        ..Cost::default()
    };
    design.current = Some(crate::design::CurrentComparison {
        already_best: false,
        current_totals: cost(200.0),
        recommended_totals: cost(100.0),
        relationships: vec![crate::design::LayoutChange {
            relationship: "parts".into(),
            current: Layout::ParentReference,
            recommended: Layout::ChildReferences,
            gain: Some(cost(100.0)),
        }],
        operations: vec![crate::design::OperationComparison {
            operation: "product_page".into(),
            rate: 10.0,
            current: cost(2.0),
            recommended: cost(1.0),
        }],
        unstated: vec!["other".into()],
        patterns_added: vec!["order_archive".into()],
        patterns_dropped: Vec::new(),
    });
    design.tenancy = Some(crate::design::TenancyReport {
        tenant: "product".into(),
        scoped: vec![crate::design::ScopedEntity {
            entity: "part".into(),
            typical: 10.0,
            largest: 200.0,
        }],
        operations: vec![crate::design::TenantCost {
            operation: "rename_part".into(),
            typical: cost(2.0),
            largest: cost(6.0),
        }],
        finders: Vec::new(),
        all_tenants: Vec::new(),
    });
    design.capacity = Some(capacity());
    sharded(&mut design);
    design
}

/// Each collection's shard key as `advise --shard` chooses it for the
/// same model, and a zone on the first: the Sharding section and its JSON.
fn sharded(design: &mut Design) {
    let (model, _) = crate::fixtures::product_parts();
    let mut settings = crate::settings::Settings::default();
    settings.capacity.shard = true;
    let Ok(sharded) = crate::advise::advise(&model, &settings, None) else {
        return;
    };
    for (c, s) in design.collections.iter_mut().zip(sharded.collections) {
        c.sharding = s.sharding;
    }
    if let Some(s) = design
        .collections
        .first_mut()
        .and_then(|c| c.sharding.as_mut())
    {
        s.because = crate::design::sharding::ShardingCause::Outgrows {
            month: 20,
            data_bytes: 3.1e12,
            threshold: 3e12,
        };
        s.zones.push(crate::design::sharding::Zone {
            field: "product".into(),
            relationship: "parts".into(),
            documents: 1_000_000,
            bytes: 1 << 30,
            shard_share_bytes: 1 << 29,
            shards: 2,
        });
    }
}

/// A projection with every limit and every change, one month of figures
/// today and one later.
fn capacity() -> crate::design::capacity::Capacity {
    use crate::design::capacity::*;
    let row = |documents: u64, items: u64, rule: Option<u64>| CollectionGrowth {
        collection: "products".into(),
        documents,
        typical_bytes: 400,
        max_bytes: Some(20_000_000),
        largest_array: Some(ArrayGrowth {
            field: "parts".into(),
            relationship: "parts".into(),
            items,
            rule_max: rule,
        }),
        data_bytes: documents * 400,
        disk_bytes: documents * 200,
        index_bytes: documents * 20,
        working_set_bytes: documents * 420,
    };
    let mut bare = row(10, 0, None);
    bare.collection = "parts".into();
    bare.largest_array = None;
    bare.max_bytes = None;
    let month = |m: u32, rows: Vec<CollectionGrowth>| CapacityMonth {
        month: m,
        data_bytes: rows.iter().map(|r| r.data_bytes).sum(),
        disk_bytes: rows.iter().map(|r| r.disk_bytes).sum(),
        index_bytes: rows.iter().map(|r| r.index_bytes).sum(),
        working_set_bytes: rows.iter().map(|r| r.working_set_bytes).sum(),
        collections: rows,
    };
    let hit = |limit: LimitKind, m: u32, value: f64, threshold: f64| LimitReached {
        limit,
        month: m,
        collection: Some("products".into()),
        field: Some("parts".into()),
        value,
        threshold,
    };
    Capacity {
        horizon_months: 1,
        deployment: DeploymentUsed {
            ram_bytes: Some(64 << 30),
            disk_bytes: Some(4 << 40),
            cache_bytes: Some(63 << 29),
            shards: 1,
            compression: 0.5,
            compression_stated: true,
            sharding_bytes: 3_000_000_000_000,
        },
        months: vec![
            month(0, vec![row(1_000, 4_000, Some(5_000)), bare.clone()]),
            month(1, vec![row(2_000, 6_000, Some(5_000)), bare]),
        ],
        limits: vec![
            hit(LimitKind::WorkingSet, 0, 4e10, 3.4e10),
            hit(LimitKind::ArrayRule, 1, 6_000.0, 5_000.0),
            hit(LimitKind::DocumentSize, 1, 2e7, 16_777_216.0),
            hit(LimitKind::DiskFull, 1, 5e12, 4.4e12),
            hit(LimitKind::ShardingSize, 1, 3.1e12, 3e12),
        ],
        unchecked: vec![LimitKind::DiskFull, LimitKind::WorkingSet],
        remedies: vec![
            Remedy::Layout {
                relationship: "parts".into(),
                limit: LimitKind::ArrayRule,
                from: Layout::ChildReferences,
                to: Layout::ParentReference,
                score_delta: 12.5,
            },
            Remedy::Layout {
                relationship: "parts".into(),
                limit: LimitKind::DocumentSize,
                from: Layout::ChildReferences,
                to: Layout::ParentReference,
                score_delta: -3.0,
            },
            Remedy::Archive {
                entity: "order".into(),
                limit: LimitKind::WorkingSet,
                days: 90.0,
            },
            Remedy::Shard {
                limit: LimitKind::DiskFull,
                shards: 2,
            },
        ],
    }
}
