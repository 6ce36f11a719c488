//! Hand-made models and the designs the seeds recommend for them, so the
//! generators are tested on designs of every layout before (and apart from)
//! the advisor: parent references with a recent-first query (host → logs),
//! child references extended with a copied name and the `updateMany` that
//! keeps it in sync (product → parts), two-way references (person ↔ tasks),
//! embedding (person → addresses), a subset (product → latest reviews),
//! a bucket with pre-computed aggregates (sensor → readings) and a
//! polymorphic collection with a computed counter.

use crate::design::*;
use crate::design::{Aggregation, BucketBy, Layout, Side};
use crate::model::*;

pub fn field(name: &str, ty: FieldType) -> Field {
    Field {
        name: name.into(),
        ty,
        avg_size: None,
        distinct: None,
        enum_values: Vec::new(),
        required: true,
        description: None,
    }
}

pub fn enum_field(name: &str, values: &[&str]) -> Field {
    Field {
        enum_values: values.iter().map(|v| v.to_string()).collect(),
        ..field(name, FieldType::String)
    }
}

pub fn entity(name: &str, count: u64, fields: Vec<Field>) -> Entity {
    Entity {
        name: name.into(),
        count,
        fields,
        description: None,
    }
}

pub fn card(min: u64, typical: u64, max: Option<u64>) -> Cardinality {
    Cardinality {
        min,
        typical,
        max: max.map_or(Count::Unbounded, Count::Finite),
        growth_per_day: None,
    }
}

pub fn rel(
    name: &str,
    kind: RelationshipKind,
    parent: usize,
    child: usize,
    children: Cardinality,
    parents: Cardinality,
) -> Relationship {
    Relationship {
        name: name.into(),
        kind,
        parent: EntityId::from_index(parent),
        child: EntityId::from_index(child),
        children,
        parents,
        child_standalone: true,
        shared: false,
        parent_field: name.into(),
        child_field: String::new(),
        layout: None,
        description: None,
    }
}

pub fn op(name: &str, kind: OperationKind, rate: f64) -> Operation {
    Operation {
        name: name.into(),
        kind,
        rates: vec![rate],
        description: None,
    }
}

pub fn model(
    name: &str,
    entities: Vec<Entity>,
    relationships: Vec<Relationship>,
    operations: Vec<Operation>,
) -> Model {
    Model {
        name: name.into(),
        entities,
        relationships,
        workload: Workload {
            mixes: vec![Mix {
                name: "default".into(),
                description: None,
            }],
            operations,
            atomic_groups: Vec::new(),
        },
    }
}

pub fn s(t: &str) -> ShapeType {
    ShapeType::Scalar {
        bson_type: t.into(),
        enum_values: Vec::new(),
    }
}

pub fn arr(items: ShapeType, max: Option<u64>) -> ShapeType {
    ShapeType::Array {
        items: Box::new(items),
        max_items: max,
    }
}

pub fn obj(fields: Vec<ShapeField>) -> ShapeType {
    ShapeType::Object {
        shape: Shape { fields },
    }
}

pub fn id() -> ShapeField {
    sf("_id", s("objectId"), FieldOrigin::Id)
}

pub fn sf(name: &str, ty: ShapeType, origin: FieldOrigin) -> ShapeField {
    ShapeField {
        name: name.into(),
        ty,
        required: true,
        origin,
    }
}

/// The entity's own field, with the model's type and enum values.
pub fn own(m: &Model, entity: &str, field: &str) -> ShapeField {
    let e = &m.entities[m.entity_by_name(entity).unwrap().index()];
    let f = e.field(field).unwrap();
    let ty = ShapeType::Scalar {
        bson_type: f.ty.bson_type().into(),
        enum_values: f.enum_values.clone(),
    };
    ShapeField {
        name: field.into(),
        ty,
        required: f.required,
        origin: FieldOrigin::Own {
            entity: entity.into(),
            field: field.into(),
        },
    }
}

pub fn reference(name: &str, ty: ShapeType, relationship: &str) -> ShapeField {
    sf(
        name,
        ty,
        FieldOrigin::Reference {
            relationship: relationship.into(),
        },
    )
}

pub fn collection(
    name: &str,
    entities: &[&str],
    documents: u64,
    fields: Vec<ShapeField>,
    indexes: Vec<Index>,
) -> Collection {
    Collection {
        name: name.into(),
        entities: entities.iter().map(|e| e.to_string()).collect(),
        discriminator: None,
        shape: Shape { fields },
        example: serde_json::Value::Null,
        documents,
        size: DocumentSize {
            typical_bytes: 200,
            max_bytes: Some(2000),
            nesting_depth: 2,
        },
        indexes,
    }
}

pub fn index(name: &str, keys: &[(&str, i32)], used_by: &[&str]) -> Index {
    Index {
        name: name.into(),
        keys: keys.iter().map(|(k, d)| (k.to_string(), *d)).collect(),
        unique: false,
        used_by: used_by.iter().map(|u| u.to_string()).collect(),
    }
}

pub fn decision(m: &Model, relationship: &str, chosen: Layout) -> RelationshipDecision {
    let r = m.relationship(m.relationship_by_name(relationship).unwrap());
    RelationshipDecision {
        relationship: relationship.into(),
        parent: m.entity(r.parent).name.clone(),
        child: m.entity(r.child).name.clone(),
        class: "one-to-many".into(),
        chosen,
        rules: Vec::new(),
        alternatives: Vec::new(),
        tradeoffs: Vec::new(),
    }
}

/// A filter written the way the v1 design JSON read (`"eq"`, `"ids from step
/// 1"`, `"the old owner"`), as typed values: these fixtures predate them.
pub fn filter(path: &str, op: &str, value_from: &str) -> StepFilter {
    let op = match op.trim_start_matches('$') {
        "in" => FilterOp::In,
        "range" => FilterOp::Range,
        _ => FilterOp::Eq,
    };
    let value_from = if let Some(n) = value_from.strip_prefix("ids from step ") {
        ValueSource::FromStep {
            step: n.parse().unwrap_or(1),
        }
    } else if let Some(f) = value_from.strip_prefix("the old ") {
        ValueSource::Old { field: f.into() }
    } else if let Some(f) = value_from.strip_prefix("the new ") {
        ValueSource::New { field: f.into() }
    } else {
        ValueSource::Param
    };
    StepFilter {
        path: path.into(),
        op,
        value_from,
    }
}

pub fn step(collection: &str, action: Action, purpose: impl Into<Vec<Purpose>>) -> Step {
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
        purpose: purpose.into(),
        copy_of: None,
    }
}

pub fn plan(operation: &str, rate: f64, steps: Vec<Step>) -> OperationPlan {
    OperationPlan {
        operation: operation.into(),
        rate,
        steps,
        transaction: false,
        cost: Cost::default(),
        warnings: Vec::new(),
    }
}

pub fn design(
    m: &Model,
    collections: Vec<Collection>,
    relationships: Vec<RelationshipDecision>,
    operations: Vec<OperationPlan>,
) -> Design {
    Design {
        schema_version: DESIGN_SCHEMA_VERSION,
        model: m.name.clone(),
        mix: "default".into(),
        collections,
        relationships,
        entities: Vec::new(),
        operations,
        totals: Cost::default(),
        findings: Vec::new(),
    }
}

fn read(entity: usize) -> OperationKind {
    OperationKind::Read {
        entity: EntityId::from_index(entity),
        filter: Vec::new(),
        sort: Vec::new(),
        limit: None,
        fields: Vec::new(),
        include: Vec::new(),
        aggregates: Vec::new(),
    }
}

fn insert(entity: usize) -> OperationKind {
    OperationKind::Insert {
        entity: EntityId::from_index(entity),
        links: Vec::new(),
        count: 1,
    }
}

fn update(entity: usize, changes: &[&str]) -> OperationKind {
    OperationKind::Update {
        entity: EntityId::from_index(entity),
        filter: Vec::new(),
        changes: changes.iter().map(|c| c.to_string()).collect(),
        relinks: Vec::new(),
        multi: false,
    }
}

/// 000: host → log messages (squillions), parent reference, the latest 5,000
/// messages of a host, newest first; the host's ip copied into each message.
pub fn host_logs() -> (Model, Design) {
    let mut msg = field("message", FieldType::String);
    msg.avg_size = Some(60);
    let m = model(
        "host-logs",
        vec![
            entity(
                "host",
                10_000,
                vec![
                    field("name", FieldType::String),
                    field("ipaddr", FieldType::String),
                ],
            ),
            entity(
                "logmsg",
                1_000_000_000,
                vec![
                    field("time", FieldType::Date),
                    enum_field("level", &["debug", "info", "warn", "error"]),
                    msg,
                ],
            ),
        ],
        vec![rel(
            "logs",
            RelationshipKind::OneToMany,
            0,
            1,
            card(0, 6_000, None),
            Cardinality::ONE,
        )],
        vec![
            op("recent_logs", read(1), 50.0),
            op("log_message", insert(1), 2_000.0),
            op("change_host_ip", update(0, &["ipaddr"]), 0.001),
        ],
    );
    let hosts = collection(
        "hosts",
        &["host"],
        10_000,
        vec![id(), own(&m, "host", "name"), own(&m, "host", "ipaddr")],
        vec![],
    );
    let logs = collection(
        "logmsgs",
        &["logmsg"],
        1_000_000_000,
        vec![
            id(),
            own(&m, "logmsg", "time"),
            own(&m, "logmsg", "level"),
            own(&m, "logmsg", "message"),
            reference("host", s("objectId"), "logs"),
            sf(
                "host_ipaddr",
                s("string"),
                FieldOrigin::Copy {
                    relationship: "logs".into(),
                    entity: "host".into(),
                    field: "ipaddr".into(),
                },
            ),
        ],
        vec![index(
            "host_1_time_-1",
            &[("host", 1), ("time", -1)],
            &["recent_logs", "change_host_ip"],
        )],
    );
    let mut recent = step(
        "logmsgs",
        Action::Find,
        Purpose::FindMatching {
            entity: "logmsg".into(),
            field: "host".into(),
        },
    );
    recent.filter = vec![filter("host", "eq", "parameter")];
    recent.sort = vec![("time".into(), -1)];
    recent.limit = Some(5_000);
    recent.projection = vec![
        "time".into(),
        "level".into(),
        "message".into(),
        "host_ipaddr".into(),
    ];
    recent.index = Some("host_1_time_-1".into());
    let mut ins = step(
        "logmsgs",
        Action::InsertOne,
        Purpose::Insert {
            entity: "logmsg".into(),
        },
    );
    ins.documents = 1.0;
    let mut ip = step(
        "hosts",
        Action::UpdateOne,
        Purpose::Update {
            entity: "host".into(),
        },
    );
    ip.filter = vec![filter("_id", "eq", "parameter")];
    ip.updates = vec![UpdateOp::Set {
        path: "ipaddr".into(),
    }];
    let mut ip_copies = step(
        "logmsgs",
        Action::UpdateMany,
        Purpose::RefreshCopy {
            source: "host".into(),
            fields: vec!["ipaddr".into()],
            holders: 6_000.0,
            holder: "logmsg".into(),
        },
    );
    ip_copies.filter = vec![filter("host", "eq", "parameter")];
    ip_copies.updates = vec![UpdateOp::Set {
        path: "host_ipaddr".into(),
    }];
    ip_copies.index = Some("host_1_time_-1".into());
    ip_copies.documents = 6_000.0;
    let mut change = plan("change_host_ip", 0.001, vec![ip, ip_copies]);
    change.warnings = vec![Warning::NotAtomic {
        operation: "change_host_ip".into(),
        writes: 2,
    }];
    let d = design(
        &m,
        vec![hosts, logs],
        vec![decision(
            &m,
            "logs",
            Layout::ExtendedReference {
                copies_into: Side::Child,
                fields: vec!["ipaddr".into()],
            },
        )],
        vec![
            plan("recent_logs", 50.0, vec![recent]),
            plan("log_message", 2_000.0, vec![ins]),
            change,
        ],
    );
    (m, d)
}

/// 000/001: product → parts, ids in the product with each part's name copied
/// (extended reference); renaming a part refreshes every product's copy.
pub fn product_parts() -> (Model, Design) {
    let m = model(
        "product-parts",
        vec![
            entity(
                "product",
                100_000,
                vec![
                    field("name", FieldType::String),
                    field("price", FieldType::Decimal),
                ],
            ),
            entity(
                "part",
                1_000_000,
                vec![
                    field("name", FieldType::String),
                    field("qty", FieldType::Int),
                    field("cost", FieldType::Double),
                ],
            ),
        ],
        vec![{
            let mut r = rel(
                "parts",
                RelationshipKind::OneToMany,
                0,
                1,
                card(1, 10, Some(200)),
                Cardinality::ONE,
            );
            r.shared = true;
            r
        }],
        vec![
            op("product_with_parts", read(0), 500.0),
            op("rename_part", update(1, &["name"]), 0.1),
        ],
    );
    let products = collection(
        "products",
        &["product"],
        100_000,
        vec![
            id(),
            own(&m, "product", "name"),
            own(&m, "product", "price"),
            reference(
                "parts",
                arr(
                    obj(vec![
                        id(),
                        sf(
                            "name",
                            s("string"),
                            FieldOrigin::Copy {
                                relationship: "parts".into(),
                                entity: "part".into(),
                                field: "name".into(),
                            },
                        ),
                    ]),
                    Some(200),
                ),
                "parts",
            ),
        ],
        vec![index("parts._id_1", &[("parts._id", 1)], &["rename_part"])],
    );
    let parts = collection(
        "parts",
        &["part"],
        1_000_000,
        vec![
            id(),
            own(&m, "part", "name"),
            own(&m, "part", "qty"),
            own(&m, "part", "cost"),
        ],
        vec![],
    );
    let mut p1 = step(
        "products",
        Action::Find,
        Purpose::Find {
            entity: "product".into(),
        },
    );
    p1.filter = vec![filter("_id", "eq", "parameter")];
    let mut p2 = step(
        "parts",
        Action::Find,
        Purpose::Join {
            target: "part".into(),
            many: true,
            from: "product".into(),
            via: "parts".into(),
        },
    );
    p2.filter = vec![filter("_id", "in", "ids from step 1")];
    p2.documents = 10.0;
    let mut r1 = step(
        "parts",
        Action::UpdateOne,
        Purpose::Update {
            entity: "part".into(),
        },
    );
    r1.filter = vec![filter("_id", "eq", "parameter")];
    r1.updates = vec![UpdateOp::Set {
        path: "name".into(),
    }];
    let mut r2 = step(
        "products",
        Action::UpdateMany,
        Purpose::RefreshCopy {
            source: "part".into(),
            fields: vec!["name".into()],
            holders: 1.0,
            holder: "product".into(),
        },
    );
    r2.filter = vec![filter("parts._id", "eq", "parameter")];
    r2.updates = vec![UpdateOp::Set {
        path: "parts.name".into(),
    }];
    r2.index = Some("parts._id_1".into());
    r2.documents = 1.0;
    let d = design(
        &m,
        vec![products, parts],
        vec![decision(
            &m,
            "parts",
            Layout::ExtendedReference {
                copies_into: Side::Parent,
                fields: vec!["name".into()],
            },
        )],
        vec![
            plan("product_with_parts", 500.0, vec![p1, p2]),
            plan("rename_part", 0.1, vec![r1, r2]),
        ],
    );
    (m, d)
}

/// 001: person ↔ tasks, two-way references; reassigning a task is atomic by
/// the model's request (a transaction over the three writes).
pub fn person_tasks() -> (Model, Design) {
    let mut m = model(
        "person-tasks",
        vec![
            entity(
                "person",
                1_000,
                vec![
                    field("name", FieldType::String),
                    field("email", FieldType::String),
                ],
            ),
            entity(
                "task",
                20_000,
                vec![
                    field("description", FieldType::String),
                    field("due", FieldType::Date),
                    enum_field("status", &["open", "done"]),
                ],
            ),
        ],
        vec![rel(
            "tasks",
            RelationshipKind::OneToMany,
            0,
            1,
            card(0, 20, Some(500)),
            Cardinality::ONE,
        )],
        vec![
            op("tasks_of_person", read(0), 100.0),
            op("reassign_task", update(1, &[]), 1.0),
            op("complete_task", update(1, &["status"]), 5.0),
        ],
    );
    m.workload.atomic_groups.push(AtomicGroup {
        name: "reassign".into(),
        operations: vec![OperationId::from_index(1)],
    });
    let people = collection(
        "people",
        &["person"],
        1_000,
        vec![
            id(),
            own(&m, "person", "name"),
            own(&m, "person", "email"),
            reference("tasks", arr(s("objectId"), Some(500)), "tasks"),
        ],
        vec![{
            let mut i = index("email_1", &[("email", 1)], &["tasks_of_person"]);
            i.unique = true;
            i
        }],
    );
    let tasks = collection(
        "tasks",
        &["task"],
        20_000,
        vec![
            id(),
            own(&m, "task", "description"),
            own(&m, "task", "due"),
            own(&m, "task", "status"),
            reference("owner", s("objectId"), "tasks"),
        ],
        vec![index(
            "owner_1_due_1",
            &[("owner", 1), ("due", 1)],
            &["tasks_of_person"],
        )],
    );
    let mut t1 = step(
        "people",
        Action::Find,
        Purpose::Find {
            entity: "person".into(),
        },
    );
    t1.filter = vec![filter("email", "eq", "parameter")];
    t1.index = Some("email_1".into());
    t1.projection = vec!["name".into(), "email".into()];
    let mut t2 = step(
        "tasks",
        Action::Find,
        Purpose::Join {
            target: "task".into(),
            many: true,
            from: "person".into(),
            via: "owner".into(),
        },
    );
    t2.filter = vec![filter("owner", "eq", "ids from step 1")];
    t2.sort = vec![("due".into(), 1)];
    t2.index = Some("owner_1_due_1".into());
    t2.documents = 20.0;
    let mut a1 = step(
        "tasks",
        Action::UpdateOne,
        Purpose::Update {
            entity: "task".into(),
        },
    );
    a1.filter = vec![filter("_id", "eq", "parameter")];
    a1.updates = vec![UpdateOp::Set {
        path: "owner".into(),
    }];
    let mut a2 = step(
        "people",
        Action::UpdateOne,
        Purpose::RemoveFromOldParent {
            entity: "task".into(),
            parent: "person".into(),
        },
    );
    a2.filter = vec![filter("_id", "eq", "the old owner")];
    a2.updates = vec![UpdateOp::Pull {
        path: "tasks".into(),
    }];
    let mut a3 = step(
        "people",
        Action::UpdateOne,
        Purpose::AddToNewParent {
            entity: "task".into(),
            parent: "person".into(),
        },
    );
    a3.filter = vec![filter("_id", "eq", "parameter")];
    a3.updates = vec![UpdateOp::AddToSet {
        path: "tasks".into(),
    }];
    let mut reassign = plan("reassign_task", 1.0, vec![a1, a2, a3]);
    reassign.transaction = true;
    let mut c1 = step(
        "tasks",
        Action::UpdateOne,
        Purpose::Update {
            entity: "task".into(),
        },
    );
    c1.filter = vec![filter("_id", "eq", "parameter")];
    c1.updates = vec![UpdateOp::Set {
        path: "status".into(),
    }];
    let d = design(
        &m,
        vec![people, tasks],
        vec![decision(&m, "tasks", Layout::TwoWayReferences)],
        vec![
            plan("tasks_of_person", 100.0, vec![t1, t2]),
            reassign,
            plan("complete_task", 5.0, vec![c1]),
        ],
    );
    (m, d)
}

/// 000/002: person → addresses embedded; product → reviews with the latest
/// 10 kept in the product (subset) and a computed review count.
pub fn shop() -> (Model, Design) {
    let mut bio = field("bio", FieldType::String);
    bio.required = false;
    let m = model(
        "shop",
        vec![
            entity(
                "person",
                10_000,
                vec![field("name", FieldType::String), bio],
            ),
            entity(
                "address",
                20_000,
                vec![
                    field("street", FieldType::String),
                    field("city", FieldType::String),
                    field("zip", FieldType::String),
                ],
            ),
            entity(
                "product",
                5_000,
                vec![
                    field("name", FieldType::String),
                    field("price", FieldType::Double),
                ],
            ),
            entity(
                "review",
                500_000,
                vec![
                    field("stars", FieldType::Int),
                    field("text", FieldType::String),
                    field("at", FieldType::Date),
                ],
            ),
        ],
        vec![
            rel(
                "addresses",
                RelationshipKind::OneToMany,
                0,
                1,
                card(1, 2, Some(5)),
                Cardinality::ONE,
            ),
            rel(
                "reviews",
                RelationshipKind::OneToMany,
                2,
                3,
                card(0, 100, Some(5_000)),
                Cardinality::ONE,
            ),
        ],
        vec![
            op("person_with_addresses", read(0), 20.0),
            op("product_page", read(2), 300.0),
            op("add_review", insert(3), 2.0),
        ],
    );
    let addr_item = obj(vec![
        own(&m, "address", "street"),
        own(&m, "address", "city"),
        own(&m, "address", "zip"),
    ]);
    let people = collection(
        "people",
        &["person"],
        10_000,
        vec![
            id(),
            own(&m, "person", "name"),
            own(&m, "person", "bio"),
            sf(
                "addresses",
                arr(addr_item, Some(5)),
                FieldOrigin::Embedded {
                    relationship: "addresses".into(),
                },
            ),
        ],
        vec![],
    );
    let review_item = obj(vec![
        id(),
        own(&m, "review", "stars"),
        own(&m, "review", "at"),
    ]);
    let products = collection(
        "products",
        &["product"],
        5_000,
        vec![
            id(),
            own(&m, "product", "name"),
            own(&m, "product", "price"),
            sf(
                "reviews",
                arr(review_item, Some(10)),
                FieldOrigin::Embedded {
                    relationship: "reviews".into(),
                },
            ),
            sf(
                "review_count",
                s("int"),
                FieldOrigin::Computed {
                    description: "count of reviews".into(),
                },
            ),
        ],
        vec![],
    );
    let reviews = collection(
        "reviews",
        &["review"],
        500_000,
        vec![
            id(),
            own(&m, "review", "stars"),
            own(&m, "review", "text"),
            own(&m, "review", "at"),
            reference("product", s("objectId"), "reviews"),
        ],
        vec![index(
            "product_1_at_-1",
            &[("product", 1), ("at", -1)],
            &["product_page"],
        )],
    );
    let mut a = step(
        "people",
        Action::Find,
        Purpose::Find {
            entity: "person".into(),
        },
    );
    a.filter = vec![filter("_id", "eq", "parameter")];
    let mut p = step(
        "products",
        Action::Find,
        Purpose::Find {
            entity: "product".into(),
        },
    );
    p.filter = vec![filter("_id", "eq", "parameter")];
    let mut r1 = step(
        "reviews",
        Action::InsertOne,
        Purpose::Insert {
            entity: "review".into(),
        },
    );
    r1.documents = 1.0;
    let mut r2 = step(
        "products",
        Action::UpdateOne,
        vec![
            Purpose::KeepLatest {
                k: 10,
                entity: "review".into(),
                parent: "product".into(),
            },
            Purpose::KeepComputed {
                function: "count".into(),
                field: None,
                entity: "review".into(),
                parent: "product".into(),
            },
        ],
    );
    r2.filter = vec![filter("_id", "eq", "parameter")];
    r2.updates = vec![
        UpdateOp::Push {
            path: "reviews".into(),
            sort: Some(("at".into(), -1)),
            slice: Some(10),
        },
        UpdateOp::Inc {
            path: "review_count".into(),
        },
    ];
    let d = design(
        &m,
        vec![people, products, reviews],
        vec![
            decision(&m, "addresses", Layout::Embed),
            decision(
                &m,
                "reviews",
                Layout::Subset {
                    k: 10,
                    sort_field: Some("at".into()),
                    fields: vec!["stars".into(), "at".into()],
                },
            ),
        ],
        vec![
            plan("person_with_addresses", 20.0, vec![a]),
            plan("product_page", 300.0, vec![p]),
            plan("add_review", 2.0, vec![r1, r2]),
        ],
    );
    (m, d)
}

/// 002: sensor → readings in hourly buckets with count, sum, min and max.
pub fn sensor_buckets() -> (Model, Design) {
    let m = model(
        "sensor-readings",
        vec![
            entity(
                "sensor",
                1_000,
                vec![
                    field("name", FieldType::String),
                    enum_field("kind", &["temp", "humidity"]),
                ],
            ),
            entity(
                "reading",
                100_000_000,
                vec![
                    field("ts", FieldType::Date),
                    field("value", FieldType::Double),
                ],
            ),
        ],
        vec![rel(
            "readings",
            RelationshipKind::OneToMany,
            0,
            1,
            card(10, 300, None),
            Cardinality::ONE,
        )],
        vec![
            op("hourly_stats", read(1), 10.0),
            op("record_reading", insert(1), 1_000.0),
        ],
    );
    let sensors = collection(
        "sensors",
        &["sensor"],
        1_000,
        vec![id(), own(&m, "sensor", "name"), own(&m, "sensor", "kind")],
        vec![],
    );
    let buckets = collection(
        "reading_buckets",
        &["reading"],
        1_000_000,
        vec![
            id(),
            reference("sensor", s("objectId"), "readings"),
            sf(
                "start",
                s("date"),
                FieldOrigin::Bucket {
                    description: "start of the hour".into(),
                },
            ),
            sf(
                "count",
                s("int"),
                FieldOrigin::Bucket {
                    description: "readings in the bucket".into(),
                },
            ),
            sf(
                "sum_value",
                s("double"),
                FieldOrigin::Computed {
                    description: "sum of value".into(),
                },
            ),
            sf(
                "min_value",
                s("double"),
                FieldOrigin::Computed {
                    description: "min of value".into(),
                },
            ),
            sf(
                "max_value",
                s("double"),
                FieldOrigin::Computed {
                    description: "max of value".into(),
                },
            ),
            sf(
                "readings",
                arr(
                    obj(vec![own(&m, "reading", "ts"), own(&m, "reading", "value")]),
                    Some(100),
                ),
                FieldOrigin::Embedded {
                    relationship: "readings".into(),
                },
            ),
        ],
        vec![index(
            "sensor_1_start_-1",
            &[("sensor", 1), ("start", -1)],
            &["hourly_stats", "record_reading"],
        )],
    );
    let mut h = step(
        "reading_buckets",
        Action::Find,
        Purpose::ReadBuckets {
            field: "readings".into(),
            entity: "sensor".into(),
        },
    );
    h.filter = vec![filter("sensor", "eq", "parameter")];
    h.sort = vec![("start".into(), -1)];
    h.limit = Some(24);
    h.projection = vec![
        "start".into(),
        "count".into(),
        "sum_value".into(),
        "min_value".into(),
        "max_value".into(),
    ];
    h.index = Some("sensor_1_start_-1".into());
    let mut r = step(
        "reading_buckets",
        Action::Upsert,
        Purpose::AddToOpenBucket {
            entity: "reading".into(),
            parent: "sensor".into(),
        },
    );
    r.filter = vec![
        filter("sensor", "eq", "parameter"),
        filter("start", "eq", "parameter"),
    ];
    r.updates = vec![
        UpdateOp::Push {
            path: "readings".into(),
            sort: None,
            slice: None,
        },
        UpdateOp::Inc {
            path: "count".into(),
        },
        UpdateOp::Inc {
            path: "sum_value".into(),
        },
        UpdateOp::Min {
            path: "min_value".into(),
        },
        UpdateOp::Max {
            path: "max_value".into(),
        },
    ];
    r.index = Some("sensor_1_start_-1".into());
    let d = design(
        &m,
        vec![sensors, buckets],
        vec![decision(
            &m,
            "readings",
            Layout::Bucket {
                by: BucketBy::Time {
                    field: "ts".into(),
                    unit: "hour".into(),
                },
                per_bucket: 100,
                aggregates: vec![
                    Aggregation {
                        function: AggregateFn::Count,
                        field: None,
                    },
                    Aggregation {
                        function: AggregateFn::Sum,
                        field: Some("value".into()),
                    },
                ],
            },
        )],
        vec![
            plan("hourly_stats", 10.0, vec![h]),
            plan("record_reading", 1_000.0, vec![r]),
        ],
    );
    (m, d)
}

/// Every fixture, by name.
pub fn all() -> Vec<(&'static str, Model, Design)> {
    let mut out = Vec::new();
    for (name, f) in [
        ("host-logs", host_logs as fn() -> (Model, Design)),
        ("product-parts", product_parts),
        ("person-tasks", person_tasks),
        ("shop", shop),
        ("sensor-readings", sensor_buckets),
    ] {
        let (m, d) = f();
        out.push((name, m, d));
    }
    out
}
