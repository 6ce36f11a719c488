//! A many-to-many as an entity of its own (the relational join table, a
//! MongoDB "edge" or link collection): one instance per link, holding both
//! references and the link's attributes, with a one-to-many from each side.
//! advise prices the model rewritten this way against the arrays the
//! relationship's own layouts keep, and keeps the cheaper.

use super::{
    Aggregate, AggregateFn, Cardinality, Entity, EntityId, Filter, FilterOp, Include, KeyPart,
    Model, OperationKind, Relationship, RelationshipId, RelationshipKind,
};

/// `model` with many-to-many `r` turned into an entity named after it and
/// two one-to-many relationships: the first takes `r`'s place (so every
/// other id stays valid), the second is appended. Reads through `r` become
/// reads through the link's entity; `link:` inserts a link, `unlink:`
/// deletes it by both references; a filter whose first hop is `r` (books
/// with a tag) goes through the link to the other side; an insert that
/// links `r` and a delete of one side by its id are followed by an
/// operation of their own on the links (appended, named after both, at the
/// same rates). `None` when `r` is not a many-to-many between two entities,
/// or when an operation uses it in a way this rewrite cannot say (a filter
/// through it past the first hop, a sum over it, a re-pointing update, a
/// side deleted by another filter than its id).
pub fn as_junction(model: &Model, r: RelationshipId) -> Option<Model> {
    let rel = model.relationship(r);
    if rel.kind != RelationshipKind::ManyToMany || rel.shared {
        return None;
    }
    let (parent, child) = (model.entity(rel.parent), model.entity(rel.child));
    // The link's two references: named after the sides' entities, or for
    // a many-to-many of an entity with itself after the roles the fields
    // name (a user's `followers` and `following`: a follow's `follower`
    // and `following`).
    let names: [String; 2] = if rel.parent == rel.child {
        [
            singular(&rel.child_field).to_string(),
            singular(&rel.parent_field).to_string(),
        ]
    } else {
        [parent.name.clone(), child.name.clone()]
    };
    let taken = |name: &str| model.entities.iter().any(|e| e.name == name);
    if taken(&rel.name)
        || names[0] == names[1]
        || rel
            .attributes
            .iter()
            .any(|a| a.name == names[0] || a.name == names[1])
    {
        return None;
    }
    let link = EntityId::from_index(model.entities.len());
    let from_child = RelationshipId::from_index(model.relationships.len());
    let mut out = model.clone();
    out.entities.push(Entity {
        expires: None,
        name: rel.name.clone(),
        count: parent.count.saturating_mul(rel.children.typical).max(1),
        fields: rel.attributes.clone(),
        description: Some(format!(
            "one document per link of {} (a {} and a {})",
            rel.name, parent.name, child.name
        )),
        unique: vec![vec![KeyPart::Parent(r), KeyPart::Parent(from_child)]],
        archive_of: None,
        density: None,
        growth: None,
    });
    let side = |name: String, from: EntityId, children: Cardinality, field: &str, back: &str| {
        Relationship {
            tenant_chain: Vec::new(),
            stated_parents: None,
            name,
            kind: RelationshipKind::OneToMany,
            parent: from,
            child: link,
            children,
            parents: Cardinality::ONE,
            child_standalone: true,
            shared: false,
            parent_field: field.to_string(),
            child_field: back.to_string(),
            layout: None,
            snapshot: Vec::new(),
            attributes: Vec::new(),
            edge: true,
            levels: None,
            description: Some(format!(
                "the links of {} from each {}",
                rel.name,
                model.entity(from).name
            )),
        }
    };
    out.relationships[r.index()] = side(
        format!("{}_of_{}", rel.name, names[0]),
        rel.parent,
        rel.children,
        &rel.parent_field,
        &names[0],
    );
    out.relationships.push(side(
        format!("{}_of_{}", rel.name, names[1]),
        rel.child,
        rel.parents,
        &rel.child_field,
        &names[1],
    ));
    // A filter whose first hop is the relationship now walks to the link
    // and on to the other side through the link's reference to it (books
    // with a tag: `tags` → `tags.tag`); one that reaches it later cannot
    // be said. Re-resolved once the model has its new shape.
    let hop = |entity: EntityId, f: &Filter| -> Option<Filter> {
        let first_hop = f.related.as_ref().is_some_and(|x| x.relationship == r);
        if !first_hop {
            return (!f.path.contains(&rel.name)).then(|| f.clone());
        }
        let first = f.path.first()?;
        let from_parent =
            entity == rel.parent && (*first == rel.parent_field || *first == rel.name);
        let from_child = entity == rel.child && *first == rel.child_field;
        let other = match (from_parent, from_child) {
            (true, _) => &names[1],
            (false, true) => &names[0],
            _ => return None,
        };
        let mut path = vec![first.clone(), other.clone()];
        path.extend(f.path[1..].iter().cloned());
        Some(Filter {
            path,
            related: None,
            ..f.clone()
        })
    };
    let hops = |entity: EntityId, filter: &[Filter]| -> Option<Vec<Filter>> {
        filter.iter().map(|f| hop(entity, f)).collect()
    };
    let mut kinds = Vec::new();
    let mut extra: Vec<(super::OperationId, super::Operation)> = Vec::new();
    for (i, op) in model.workload.operations.iter().enumerate() {
        let id = super::OperationId::from_index(i);
        let kind = match &op.kind {
            OperationKind::Read {
                entity,
                filter,
                sort,
                limit,
                fields,
                include,
                aggregates,
                family,
            } => {
                let filter = hops(*entity, filter)?;
                let mut aggs = Vec::new();
                for a in aggregates {
                    aggs.push(aggregate(r, from_child, a)?);
                }
                OperationKind::Read {
                    entity: *entity,
                    filter: filter.clone(),
                    sort: sort.clone(),
                    limit: *limit,
                    fields: fields.clone(),
                    include: includes((rel, [&names[0], &names[1]]), r, from_child, include)?,
                    aggregates: aggs,
                    family: family.clone(),
                }
            }
            // A new instance linked through the relationship: inserted,
            // then its links, one document each.
            OperationKind::Insert {
                entity,
                links,
                count,
            } if links.contains(&r) => {
                let per = if *entity == rel.parent {
                    rel.children.typical
                } else {
                    rel.parents.typical
                };
                extra.push(links_op(
                    id,
                    op,
                    &rel.name,
                    "the links of each new one",
                    OperationKind::Insert {
                        entity: link,
                        links: vec![r, from_child],
                        count: count.max(&1) * per.max(1),
                    },
                ));
                OperationKind::Insert {
                    entity: *entity,
                    links: links.iter().copied().filter(|x| *x != r).collect(),
                    count: *count,
                }
            }
            OperationKind::Update { relinks, .. } if relinks.contains(&r) => return None,
            OperationKind::Update {
                entity,
                filter,
                changes,
                relinks,
                multi,
            } => OperationKind::Update {
                entity: *entity,
                filter: hops(*entity, filter)?,
                changes: changes.clone(),
                relinks: relinks.clone(),
                multi: *multi,
            },
            // Deleting one side by its id deletes its links too (their
            // counters follow the links' own delete); by another filter,
            // which links go is not said by this rewrite.
            OperationKind::Delete { entity, filter }
                if *entity == rel.parent || *entity == rel.child =>
            {
                let by_id =
                    matches!(filter.as_slice(), [f] if f.path == ["_id"] && f.op == FilterOp::Eq);
                if !by_id {
                    return None;
                }
                let reference = if *entity == rel.parent {
                    &names[0]
                } else {
                    &names[1]
                };
                extra.push(links_op(
                    id,
                    op,
                    &rel.name,
                    "the links of the deleted one",
                    OperationKind::Delete {
                        entity: link,
                        filter: vec![Filter {
                            path: vec![reference.clone()],
                            op: FilterOp::Eq,
                            related: None,
                            selectivity: None,
                            age: None,
                            geo: None,
                        }],
                    },
                ));
                op.kind.clone()
            }
            OperationKind::Delete { entity, filter } => OperationKind::Delete {
                entity: *entity,
                filter: hops(*entity, filter)?,
            },
            OperationKind::Link {
                relationship,
                unlink: false,
            } if *relationship == r => OperationKind::Insert {
                entity: link,
                links: vec![r, from_child],
                count: 1,
            },
            // The two references find the link (filters resolved below,
            // once the model has its new shape).
            OperationKind::Link {
                relationship,
                unlink: true,
            } if *relationship == r => OperationKind::Delete {
                entity: link,
                filter: Vec::new(),
            },
            // The link's own fields are the link document's fields.
            OperationKind::UpdateLink {
                relationship,
                changes,
            } if *relationship == r => OperationKind::Update {
                entity: link,
                filter: Vec::new(),
                changes: changes.clone(),
                relinks: Vec::new(),
                multi: false,
            },
            other => other.clone(),
        };
        kinds.push(kind);
    }
    for (op, kind) in out.workload.operations.iter_mut().zip(kinds) {
        op.kind = kind;
    }
    // The links' own operations join the atomic groups of the operations
    // they follow.
    for (follows, x) in extra {
        let id = super::OperationId::from_index(out.workload.operations.len());
        for g in &mut out.workload.atomic_groups {
            if g.operations.contains(&follows) {
                g.operations.push(id);
            }
        }
        out.workload.operations.push(x);
    }
    // Paths rewritten to go through the link, resolved in the new model.
    let resolved: Vec<Vec<Option<super::Related>>> = out
        .workload
        .operations
        .iter()
        .map(|op| match &op.kind {
            OperationKind::Read { entity, filter, .. }
            | OperationKind::Update { entity, filter, .. }
            | OperationKind::Delete { entity, filter } => filter
                .iter()
                .map(|f| match &f.related {
                    None => out.related(*entity, &f.path),
                    some => some.clone(),
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    for (op, related) in out.workload.operations.iter_mut().zip(resolved) {
        if let OperationKind::Read { filter, .. }
        | OperationKind::Update { filter, .. }
        | OperationKind::Delete { filter, .. } = &mut op.kind
        {
            for (f, x) in filter.iter_mut().zip(related) {
                f.related = x;
            }
        }
    }
    let by_both: Vec<Filter> = [&names[0], &names[1]]
        .into_iter()
        .map(|f| Filter::new(&out, link, vec![f.clone()], FilterOp::Eq))
        .collect();
    for (i, op) in model.workload.operations.iter().enumerate() {
        match &op.kind {
            OperationKind::Link {
                relationship,
                unlink: true,
            } if *relationship == r => {
                out.workload.operations[i].kind = OperationKind::Delete {
                    entity: link,
                    filter: by_both.clone(),
                };
            }
            OperationKind::UpdateLink { relationship, .. } if *relationship == r => {
                if let OperationKind::Update { filter, .. } = &mut out.workload.operations[i].kind {
                    filter.clone_from(&by_both);
                }
            }
            _ => {}
        }
    }
    Some(out)
}

/// The operation on the links that follows `op` (`add_book_tags_links` after
/// `add_book`), at its rates.
fn links_op(
    id: super::OperationId,
    op: &super::Operation,
    rel: &str,
    what: &str,
    kind: OperationKind,
) -> (super::OperationId, super::Operation) {
    (
        id,
        super::Operation {
            terms: Default::default(),
            name: format!("{}_{rel}_links", op.name),
            kind,
            rates: op.rates.clone(),
            description: Some(format!("{what} of `{}`, in {rel}", op.name)),
            paging: op.paging,
            finds_tenant: op.finds_tenant,
            all_tenants: op.all_tenants,
            counts: op.counts,
        },
    )
}

/// `followers` → `follower`: a role's name from the plural of a field.
fn singular(field: &str) -> &str {
    field.strip_suffix('s').unwrap_or(field)
}

/// A count over the many-to-many from either side, over the side's new
/// one-to-many; `None` for other aggregates (their field is the other
/// side's, two hops away now).
fn aggregate(r: RelationshipId, from_child: RelationshipId, a: &Aggregate) -> Option<Aggregate> {
    if a.relationship != r {
        return Some(a.clone());
    }
    if a.function != AggregateFn::Count || a.field.is_some() {
        return None;
    }
    let relationship = if a.from_child { from_child } else { r };
    Some(Aggregate {
        relationship,
        from_child: false,
        ..a.clone()
    })
}

/// Includes through the many-to-many become an include of the links (with
/// the attributes they name, their limit, and conditions and order on
/// attributes) and, when other fields are asked, of the other side from
/// each link.
fn includes(
    (rel, names): (&Relationship, [&str; 2]),
    r: RelationshipId,
    from_child: RelationshipId,
    list: &[Include],
) -> Option<Vec<Include>> {
    let mut out = Vec::new();
    for inc in list {
        if inc.relationship != r {
            out.push(Include {
                include: includes((rel, names), r, from_child, &inc.include)?,
                ..inc.clone()
            });
            continue;
        }
        let is_attr = |name: &str| rel.attribute(name).is_some();
        let (links, other, other_ref) = if inc.to_children {
            (r, from_child, names[1])
        } else {
            (from_child, r, names[0])
        };
        // Conditions on attributes stay; one on the other side's `_id`
        // (has this user starred this repository) tests the link's
        // reference to it.
        let mut filter = Vec::new();
        for f in &inc.filter {
            if f.related.is_some() || f.path.len() != 1 {
                return None;
            }
            if is_attr(&f.path[0]) {
                filter.push(f.clone());
            } else if f.path[0] == "_id" {
                filter.push(Filter {
                    path: vec![other_ref.to_string()],
                    related: Some(super::Related {
                        relationship: other,
                        field: "_id".to_string(),
                        further: Vec::new(),
                    }),
                    ..f.clone()
                });
            } else {
                return None;
            }
        }
        if !inc.sort.iter().all(|s| is_attr(&s.field)) {
            return None;
        }
        let attrs: Vec<String> = inc.fields.iter().filter(|f| is_attr(f)).cloned().collect();
        let others: Vec<String> = inc.fields.iter().filter(|f| !is_attr(f)).cloned().collect();
        // Only the other side's ids (and attributes): the links answer it.
        let only_links =
            !inc.fields.is_empty() && others.iter().all(|f| f == "_id") && inc.include.is_empty();
        let mut nested = Vec::new();
        if !only_links {
            nested.push(Include {
                relationship: other,
                to_children: false,
                fields: others,
                limit: None,
                sort: Vec::new(),
                filter: Vec::new(),
                include: includes((rel, names), r, from_child, &inc.include)?,
                recursive: None,
                paging: None,
            });
        }
        out.push(Include {
            relationship: links,
            to_children: true,
            fields: if inc.fields.is_empty() || !attrs.is_empty() {
                attrs
            } else {
                vec!["_id".to_string()]
            },
            limit: inc.limit,
            sort: inc.sort.clone(),
            filter,
            include: nested,
            recursive: None,
            paging: inc.paging,
        });
    }
    Some(out)
}
