//! Hand-made `Design` values for the reporters' tests: one realistic design
//! (Zola's products and parts) and one that uses every variant of every type,
//! so a field the docs or the reporters forget shows up in a test.

use crate::design::{
    Action, Alternative, Collection, Cost, DESIGN_SCHEMA_VERSION, Design, DocumentSize,
    EntityDecision, FieldOrigin, Index, OperationPlan, RelationshipDecision, RuleHit, Shape,
    ShapeField, ShapeType, Step, StepFilter, UpdateOp, Verdict,
};
use crate::design::{Aggregation, BucketBy, FilterOp, Layout, Purpose, Side, ValueSource, Warning};
use crate::finding::{Evidence, Finding, Location, Severity};
use crate::model::AggregateFn;
use serde_json::json;

fn scalar(bson_type: &str) -> ShapeType {
    ShapeType::Scalar {
        bson_type: bson_type.into(),
        enum_values: Vec::new(),
    }
}

fn own(entity: &str, field: &str, ty: ShapeType) -> ShapeField {
    ShapeField {
        name: field.into(),
        ty,
        required: true,
        origin: FieldOrigin::Own {
            entity: entity.into(),
            field: field.into(),
        },
    }
}

fn id_field() -> ShapeField {
    ShapeField {
        name: "_id".into(),
        ty: scalar("objectId"),
        required: true,
        origin: FieldOrigin::Id,
    }
}

fn id_index() -> Index {
    Index {
        name: "_id_".into(),
        keys: vec![("_id".into(), 1)],
        unique: true,
        used_by: Vec::new(),
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
    }
}

fn eq(path: &str) -> StepFilter {
    StepFilter {
        path: path.into(),
        op: FilterOp::Eq,
        value_from: ValueSource::Param,
    }
}

/// Products with an array of part references that carries each part's name
/// (an extended reference), parts in their own collection.
pub fn product_parts() -> Design {
    let products = Collection {
        name: "products".into(),
        entities: vec!["product".into()],
        discriminator: None,
        shape: Shape {
            fields: vec![
                id_field(),
                own("product", "name", scalar("string")),
                own("product", "catalog_number", scalar("int")),
                ShapeField {
                    name: "parts".into(),
                    ty: ShapeType::Array {
                        items: Box::new(ShapeType::Object {
                            shape: Shape {
                                fields: vec![
                                    ShapeField {
                                        name: "id".into(),
                                        ty: scalar("objectId"),
                                        required: true,
                                        origin: FieldOrigin::Reference {
                                            relationship: "product_parts".into(),
                                        },
                                    },
                                    ShapeField {
                                        name: "name".into(),
                                        ty: scalar("string"),
                                        required: true,
                                        origin: FieldOrigin::Copy {
                                            relationship: "product_parts".into(),
                                            entity: "part".into(),
                                            field: "name".into(),
                                        },
                                    },
                                ],
                            },
                        }),
                        max_items: Some(2000),
                    },
                    required: true,
                    origin: FieldOrigin::Reference {
                        relationship: "product_parts".into(),
                    },
                },
            ],
        },
        example: json!({
            "_id": {"$oid": "65f1a2b3c4d5e6f708192a3b"},
            "name": "left-handed smoke shifter",
            "catalog_number": 1234,
            "parts": [
                {"id": {"$oid": "65f1a2b3c4d5e6f708192a01"}, "name": "#4 grommet"},
                {"id": {"$oid": "65f1a2b3c4d5e6f708192a02"}, "name": "fan blade assembly"}
            ]
        }),
        documents: 20_000,
        size: DocumentSize {
            typical_bytes: 9_870,
            max_bytes: Some(96_420),
            nesting_depth: 3,
        },
        indexes: vec![
            id_index(),
            Index {
                name: "catalog_number_1".into(),
                keys: vec![("catalog_number".into(), 1)],
                unique: true,
                used_by: vec!["view_product".into()],
            },
        ],
    };
    let parts = Collection {
        name: "parts".into(),
        entities: vec!["part".into()],
        discriminator: None,
        shape: Shape {
            fields: vec![
                id_field(),
                own("part", "partno", scalar("string")),
                own("part", "name", scalar("string")),
                own("part", "qty", scalar("int")),
                own("part", "price", scalar("decimal")),
            ],
        },
        example: json!({
            "_id": {"$oid": "65f1a2b3c4d5e6f708192a01"},
            "partno": "123-aff-456",
            "name": "#4 grommet",
            "qty": 94,
            "price": {"$numberDecimal": "3.99"}
        }),
        documents: 1_000_000,
        size: DocumentSize {
            typical_bytes: 118,
            max_bytes: Some(118),
            nesting_depth: 1,
        },
        indexes: vec![id_index()],
    };
    let view_product = OperationPlan {
        operation: "view_product".into(),
        rate: 1200.0,
        steps: vec![Step {
            filter: vec![eq("catalog_number")],
            index: Some("catalog_number_1".into()),
            purpose: vec![Purpose::Find {
                entity: "product".into(),
            }],
            ..step("products", Action::Find)
        }],
        transaction: false,
        cost: Cost {
            round_trips: 1.0,
            documents_examined: 1.0,
            index_keys_examined: 1.0,
            bytes_read: 9_870.0,
            score: 1.4,
            ..Cost::default()
        },
        warnings: Vec::new(),
    };
    let view_parts = OperationPlan {
        operation: "view_product_parts".into(),
        rate: 40.0,
        steps: vec![
            Step {
                filter: vec![eq("catalog_number")],
                projection: vec!["parts.id".into()],
                index: Some("catalog_number_1".into()),
                purpose: vec![Purpose::ReadIds {
                    entity: "product".into(),
                    field: "parts".into(),
                }],
                ..step("products", Action::Find)
            },
            Step {
                filter: vec![StepFilter {
                    path: "_id".into(),
                    op: FilterOp::In,
                    value_from: ValueSource::FromStep { step: 1 },
                }],
                index: Some("_id_".into()),
                documents: 300.0,
                purpose: vec![Purpose::Join {
                    target: "part".into(),
                    many: true,
                    from: "product".into(),
                    via: "parts".into(),
                }],
                ..step("parts", Action::Find)
            },
        ],
        transaction: false,
        cost: Cost {
            round_trips: 2.0,
            documents_examined: 301.0,
            index_keys_examined: 301.0,
            bytes_read: 45_270.0,
            score: 8.2,
            ..Cost::default()
        },
        warnings: Vec::new(),
    };
    let rename_part = OperationPlan {
        operation: "rename_part".into(),
        rate: 0.5,
        steps: vec![
            Step {
                filter: vec![eq("_id")],
                updates: vec![UpdateOp::Set {
                    path: "name".into(),
                }],
                index: Some("_id_".into()),
                purpose: vec![Purpose::Update {
                    entity: "part".into(),
                }],
                ..step("parts", Action::UpdateOne)
            },
            Step {
                filter: vec![eq("parts.id")],
                updates: vec![UpdateOp::Set {
                    path: "parts.$[p].name".into(),
                }],
                index: None,
                documents: 300.0,
                purpose: vec![Purpose::RefreshCopy {
                    source: "part".into(),
                    fields: vec!["name".into()],
                    holders: 300.0,
                    holder: "product".into(),
                }],
                ..step("products", Action::UpdateMany)
            },
        ],
        transaction: false,
        cost: Cost {
            round_trips: 2.0,
            documents_examined: 20_001.0,
            bytes_written: 2_961_118.0,
            sync_writes: 300.0,
            documents_written: 301.0,
            score: 310.0,
            ..Cost::default()
        },
        warnings: vec![Warning::NotAtomic {
            operation: "rename_part".into(),
            writes: 2,
        }],
    };
    Design {
        schema_version: DESIGN_SCHEMA_VERSION,
        model: "product-parts".into(),
        mix: "default".into(),
        collections: vec![products, parts],
        relationships: vec![RelationshipDecision {
            relationship: "product_parts".into(),
            parent: "product".into(),
            child: "part".into(),
            class: "one-to-many".into(),
            chosen: Layout::ExtendedReference {
                copies_into: Side::Parent,
                fields: vec!["name".into()],
            },
            rules: vec![
                RuleHit {
                    rule: "child-references",
                    reason: "up to 2,000 parts per product, and parts are read on their own".into(),
                },
                RuleHit {
                    rule: "denormalize-read-mostly",
                    reason: "a part's name is read 1,200 times/s and renamed 0.5 times/s".into(),
                },
            ],
            alternatives: vec![
                Alternative {
                    layout: Layout::Embed,
                    verdict: Verdict::Rejected {
                        rule: "unbounded-array",
                        reason: "up to 2,000 parts per product is more than the 200 that may be embedded".into(),
                    },
                },
                Alternative {
                    layout: Layout::ChildReferences,
                    verdict: Verdict::Costlier {
                        delta: Cost {
                            round_trips: 1200.0,
                            documents_examined: 360_000.0,
                            index_keys_examined: 360_000.0,
                            bytes_read: 42_480_000.0,
                            sync_writes: -150.0,
                            score: 9_450.0,
                            ..Cost::default()
                        },
                        explanation: "copying names saves 1 round trip on 1,200 reads/s; a rename then rewrites 300 products".into(),
                    },
                },
            ],
            tradeoffs: vec![
                "a part's new name reaches the products a moment later (two updates, not atomic)".into(),
            ],
        }],
        entities: Vec::new(),
        operations: vec![view_product, view_parts, rename_part],
        totals: Cost {
            round_trips: 1_281.0,
            documents_examined: 14_240.5,
            index_keys_examined: 13_240.0,
            bytes_read: 13_654_800.0,
            bytes_written: 1_480_559.0,
            sync_writes: 150.0,
            documents_written: 150.5,
            index_entries: 1_020_000.0,
            score: 2_163.0,
            ..Cost::default()
        },
        findings: vec![Finding {
            rule: "growing-document",
            severity: Severity::Warning,
            message: "products grow to 94.2 KiB at 2,000 parts; every update rewrites the whole document".into(),
            location: Location::Model {
                path: "relationships.product_parts".into(),
            },
            evidence: vec![
                Evidence::new("max_bytes", 96_420),
                Evidence::new("max_parts", 2000),
            ],
            help: Some("keep updates to products rare, or reference the parts from each part".into()),
        }],
    }
}

/// `product_parts` plus every variant of every enum in the design, for the
/// field-coverage test of docs/design-json.md and the reporters' edge cases.
pub fn every_variant() -> Design {
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
            layout,
            verdict: Verdict::Rejected {
                rule: "design-for-workload",
                reason: "not applicable to this sample".into(),
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
            reason: "the latest messages are read 50 times/s, written 5 times/s".into(),
        }],
        alternatives,
        tradeoffs: Vec::new(),
    });
    design.entities = vec![
        EntityDecision::Polymorphic {
            collection: "notifications".into(),
            entities: vec!["email".into(), "sms".into(), "push".into()],
            discriminator: "type".into(),
            rules: vec![RuleHit {
                rule: "polymorphic-collection",
                reason: "list_notifications reads all three kinds in one query".into(),
            }],
        },
        EntityDecision::ComputedField {
            entity: "page".into(),
            field: "views".into(),
            computes: "count of views".into(),
            maintained_by: vec!["view_page".into()],
            rules: vec![RuleHit {
                rule: "computed-field",
                reason: "read 300 times/s, a $inc per view instead of a count per read".into(),
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
            },
        },
        ShapeField {
            name: "count".into(),
            ty: scalar("int"),
            required: true,
            origin: FieldOrigin::Bucket {
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
        },
        UpdateOp::Min { path: "min".into() },
        UpdateOp::Max { path: "max".into() },
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
        steps: actions
            .iter()
            .map(|a| Step {
                sort: vec![("time".into(), -1)],
                limit: Some(1000),
                updates: updates.clone(),
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
    design
}
