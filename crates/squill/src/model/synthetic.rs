//! A deterministic generator of large models for the `advise` benchmark
//! (200 entities, 300 relationships, 1,000 operations by default). Not part of
//! the public API.

use crate::model::*;

/// A small linear congruential generator: the same seed gives the same model.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn rate(&mut self) -> f64 {
        [0.1, 0.5, 1.0, 5.0, 20.0, 100.0][self.below(6) as usize]
    }
}

/// A model with `entities` entities, `relationships` relationships and
/// `operations` operations, all derived from `seed`.
pub fn model(entities: usize, relationships: usize, operations: usize, seed: u64) -> Model {
    let mut g = Lcg(seed);
    let mut ents = Vec::with_capacity(entities);
    for i in 0..entities {
        let n_fields = 3 + g.below(6) as usize;
        let fields = (0..n_fields)
            .map(|j| {
                let (ty, size) = match g.below(5) {
                    0 => (FieldType::Int, None),
                    1 => (FieldType::Double, None),
                    2 => (FieldType::Date, None),
                    _ => (FieldType::String, Some(8 + g.below(120) as u32)),
                };
                Field {
                    name: format!("f{j}"),
                    ty,
                    avg_size: size,
                    element_size: None,
                    distinct: Some(1 + g.below(10_000)),
                    enum_values: Vec::new(),
                    required: true,
                    description: None,
                }
            })
            .collect();
        ents.push(Entity {
            expires: None,
            name: format!("e{i}"),
            count: 1_000 * (1 + g.below(10_000)),
            fields,
            description: None,
            unique: Vec::new(),
            archive_of: None,
            density: None,
            growth: None,
        });
    }
    let mut rels = Vec::with_capacity(relationships);
    for i in 0..relationships {
        let a = g.below(entities as u64) as usize;
        let mut b = g.below(entities as u64) as usize;
        if a == b {
            b = (b + 1) % entities;
        }
        let kind = match g.below(10) {
            0 => RelationshipKind::OneToOne,
            1 | 2 => RelationshipKind::ManyToMany,
            _ => RelationshipKind::OneToMany,
        };
        let (children, parents) = match kind {
            RelationshipKind::OneToOne => (Cardinality::ONE, Cardinality::ONE),
            RelationshipKind::OneToMany => {
                let typical = [3, 20, 300, 5_000][g.below(4) as usize];
                let max = if g.below(4) == 0 {
                    Count::Unbounded
                } else {
                    Count::Finite(typical * 4)
                };
                (
                    Cardinality {
                        mean: None,
                        min: 0,
                        typical,
                        max,
                        growth: None,
                        p95: None,
                        p99: None,
                    },
                    Cardinality::ONE,
                )
            }
            RelationshipKind::ManyToMany => (
                Cardinality {
                    mean: None,
                    min: 0,
                    typical: 3,
                    max: Count::Finite(10),
                    growth: None,
                    p95: None,
                    p99: None,
                },
                Cardinality {
                    mean: None,
                    min: 0,
                    typical: 50,
                    max: Count::Finite([200, 1_000_000][g.below(2) as usize]),
                    growth: None,
                    p95: None,
                    p99: None,
                },
            ),
        };
        rels.push(Relationship {
            tenant_chain: Vec::new(),
            stated_parents: None,
            name: format!("r{i}"),
            kind,
            parent: EntityId::from_index(a),
            child: EntityId::from_index(b),
            children,
            parents,
            child_standalone: g.below(2) == 0,
            shared: false,
            parent_field: format!("r{i}"),
            child_field: format!("e{a}_ref{i}"),
            layout: None,
            snapshot: Vec::new(),
            attributes: Vec::new(),
            edge: false,
            levels: None,
            description: None,
        });
    }
    let touching = |e: usize| -> Vec<(usize, bool)> {
        rels.iter()
            .enumerate()
            .filter_map(|(i, r)| {
                if r.parent.index() == e {
                    Some((i, true))
                } else if r.child.index() == e {
                    Some((i, false))
                } else {
                    None
                }
            })
            .collect()
    };
    let mut ops = Vec::with_capacity(operations);
    for i in 0..operations {
        let e = g.below(entities as u64) as usize;
        let entity = EntityId::from_index(e);
        let near = touching(e);
        let first_field = ents[e].fields[0].name.clone();
        let kind = match g.below(20) {
            0..=11 => {
                let include = near
                    .iter()
                    .take(1 + g.below(2) as usize)
                    .map(|(r, down)| Include {
                        relationship: RelationshipId::from_index(*r),
                        to_children: *down,
                        fields: Vec::new(),
                        limit: if *down && g.below(3) == 0 {
                            Some(10)
                        } else {
                            None
                        },
                        sort: Vec::new(),
                        filter: Vec::new(),
                        include: Vec::new(),
                        recursive: None,
                        paging: None,
                    })
                    .collect();
                OperationKind::Read {
                    entity,
                    filter: vec![Filter {
                        path: vec![if g.below(2) == 0 {
                            "_id".to_string()
                        } else {
                            first_field
                        }],
                        op: FilterOp::Eq,
                        // An own field or `_id`: no relationship to resolve.
                        related: None,
                        selectivity: None,
                        age: None,
                        geo: None,
                    }],
                    sort: Vec::new(),
                    limit: None,
                    fields: Vec::new(),
                    include,
                    aggregates: Vec::new(),
                    family: Vec::new(),
                }
            }
            12..=15 => OperationKind::Insert {
                entity,
                links: near
                    .iter()
                    .filter(|(_, down)| !down)
                    .map(|(r, _)| RelationshipId::from_index(*r))
                    .collect(),
                count: 1,
            },
            16..=18 => OperationKind::Update {
                entity,
                filter: vec![Filter {
                    path: vec!["_id".to_string()],
                    op: FilterOp::Eq,
                    related: None,
                    selectivity: None,
                    age: None,
                    geo: None,
                }],
                changes: vec![first_field],
                relinks: Vec::new(),
                multi: false,
            },
            _ => OperationKind::Delete {
                entity,
                filter: vec![Filter {
                    path: vec!["_id".to_string()],
                    op: FilterOp::Eq,
                    related: None,
                    selectivity: None,
                    age: None,
                    geo: None,
                }],
            },
        };
        ops.push(Operation {
            terms: Default::default(),
            name: format!("op{i}"),
            kind,
            rates: vec![g.rate()],
            description: None,
            paging: None,
            finds_tenant: false,
            all_tenants: false,
            counts: false,
        });
    }
    Model {
        name: format!("synthetic-{entities}-{relationships}-{operations}"),
        entities: ents,
        relationships: rels,
        workload: Workload {
            mixes: vec![Mix {
                name: "default".to_string(),
                description: None,
            }],
            operations: ops,
            atomic_groups: Vec::new(),
        },
        assumed: Vec::new(),
        current: Vec::new(),
        without: crate::model::Without::default(),
        tenant: None,
        deployment: Default::default(),
    }
}

/// A chain of `n` entities (`e0 → e1 → … `), one-to-many with 5 children
/// typically and 50 at most, and one read per relationship that includes the
/// children: the shape whose cost grew fastest with the model's size.
pub fn chain(n: usize) -> Model {
    let mut g = Lcg(11);
    let entities: Vec<Entity> = (0..n)
        .map(|i| Entity {
            expires: None,
            name: format!("e{i}"),
            count: 1_000 * (i as u64 + 1),
            fields: vec![
                Field {
                    name: "name".into(),
                    ty: FieldType::String,
                    avg_size: Some(20),
                    element_size: None,
                    distinct: None,
                    enum_values: Vec::new(),
                    required: true,
                    description: None,
                },
                Field {
                    name: "v".into(),
                    ty: FieldType::Int,
                    avg_size: None,
                    element_size: None,
                    distinct: None,
                    enum_values: Vec::new(),
                    required: true,
                    description: None,
                },
            ],
            description: None,
            unique: Vec::new(),
            archive_of: None,
            density: None,
            growth: None,
        })
        .collect();
    let relationships: Vec<Relationship> = (1..n)
        .map(|i| Relationship {
            tenant_chain: Vec::new(),
            stated_parents: None,
            name: format!("r{}", i - 1),
            kind: RelationshipKind::OneToMany,
            parent: EntityId::from_index(i - 1),
            child: EntityId::from_index(i),
            children: Cardinality {
                mean: None,
                min: 0,
                typical: 5,
                max: Count::Finite(50),
                growth: None,
                p95: None,
                p99: None,
            },
            parents: Cardinality::ONE,
            child_standalone: false,
            shared: false,
            parent_field: format!("r{}", i - 1),
            child_field: format!("e{}_id", i - 1),
            layout: None,
            snapshot: Vec::new(),
            attributes: Vec::new(),
            edge: false,
            levels: None,
            description: None,
        })
        .collect();
    let operations = relationships
        .iter()
        .enumerate()
        .map(|(i, rel)| Operation {
            terms: Default::default(),
            name: format!("read{i}"),
            kind: OperationKind::Read {
                entity: rel.parent,
                filter: vec![Filter {
                    path: vec!["_id".to_string()],
                    op: FilterOp::Eq,
                    related: None,
                    selectivity: None,
                    age: None,
                    geo: None,
                }],
                sort: Vec::new(),
                limit: None,
                fields: Vec::new(),
                include: vec![Include {
                    relationship: RelationshipId::from_index(i),
                    to_children: true,
                    fields: Vec::new(),
                    limit: None,
                    sort: Vec::new(),
                    filter: Vec::new(),
                    include: Vec::new(),
                    recursive: None,
                    paging: None,
                }],
                aggregates: Vec::new(),
                family: Vec::new(),
            },
            rates: vec![g.rate()],
            description: None,
            paging: None,
            finds_tenant: false,
            all_tenants: false,
            counts: false,
        })
        .collect();
    Model {
        name: format!("chain{n}"),
        entities,
        relationships,
        workload: Workload {
            mixes: vec![Mix {
                name: "default".to_string(),
                description: None,
            }],
            operations,
            atomic_groups: Vec::new(),
        },
        assumed: Vec::new(),
        current: Vec::new(),
        without: crate::model::Without::default(),
        tenant: None,
        deployment: Default::default(),
    }
}
