//! The shape of each collection's documents (field tree with origins) and an
//! example document at typical cardinality, built from the same walk so they
//! always agree.

use super::example;
use crate::candidates::facts::Facts;
use crate::candidates::placement::{Home, Placement};
use crate::candidates::space::Space;
use crate::candidates::{EntityCandidate, fn_name};
use crate::design::{BucketBy, BucketPart, Layout, Side};
use crate::design::{FieldOrigin, Shape, ShapeField, ShapeType};
use crate::model::{AggregateFn, EntityId, FieldType, RelationshipId, RelationshipKind};
use serde_json::{Map, Value, json};

pub(super) struct DocBuilder<'a> {
    pub facts: &'a Facts<'a>,
    pub space: &'a Space,
    pub p: &'a Placement<'a>,
    /// Embedded sub-documents an example may still hold beyond the first of
    /// each array. Typical cardinality at every level of a deep chain of
    /// embedding would make an example of 5^800 documents (issue 18: 24 GB
    /// for a chain of 800); past the budget each array shows its first item.
    pub budget: std::cell::Cell<u64>,
}

/// Sub-documents an example document holds beyond each array's first item.
pub(super) const EXAMPLE_BUDGET: u64 = 10_000;

fn scalar(t: &str) -> ShapeType {
    ShapeType::Scalar {
        bson_type: t.to_string(),
        enum_values: Vec::new(),
    }
}

fn field(name: &str, ty: ShapeType, required: bool, origin: FieldOrigin) -> ShapeField {
    ShapeField {
        name: name.to_string(),
        ty,
        required,
        origin,
    }
}

/// `side`'s reference through `rel`: which side it is is written down only
/// for a relationship of an entity with itself, whose two sides' fields
/// share one document and nothing else tells apart.
fn reference(rel: &crate::model::Relationship, side: Side) -> FieldOrigin {
    FieldOrigin::Reference {
        relationship: rel.name.clone(),
        side: (rel.parent == rel.child).then_some(side),
    }
}

/// The shape of a field of type `ty`; `origin` is the field's, which the
/// names and values of an `attributes` field share.
fn field_type(ty: &FieldType, enum_values: &[String], origin: &FieldOrigin) -> ShapeType {
    match ty {
        FieldType::Array(item) => ShapeType::Array {
            items: Box::new(field_type(item, &[], origin)),
            max_items: None,
        },
        FieldType::Object => ShapeType::Object {
            shape: Shape::default(),
        },
        // `[{k, v}]`: the names and values of the attribute pattern.
        FieldType::Attributes { .. } => ShapeType::Array {
            items: Box::new(ShapeType::Object {
                shape: Shape {
                    fields: ["k", "v"]
                        .into_iter()
                        .map(|name| field(name, scalar("string"), true, origin.clone()))
                        .collect(),
                },
            }),
            max_items: None,
        },
        FieldType::Point | FieldType::Polygon => geojson(ty, origin),
        t => ShapeType::Scalar {
            bson_type: t.bson_type().to_string(),
            enum_values: enum_values.to_vec(),
        },
    }
}

/// A GeoJSON object as MongoDB stores it: `{type: "Point", coordinates:
/// [longitude, latitude]}`, or a Polygon's `coordinates`: rings of such
/// positions. The validator then checks the shape a `2dsphere` index needs.
fn geojson(ty: &FieldType, origin: &FieldOrigin) -> ShapeType {
    let position = ShapeType::Array {
        items: Box::new(scalar("double")),
        max_items: Some(2),
    };
    let (name, coordinates) = match ty {
        FieldType::Polygon => (
            crate::design::GEOJSON_POLYGON,
            ShapeType::Array {
                items: Box::new(ShapeType::Array {
                    items: Box::new(position),
                    max_items: None,
                }),
                max_items: None,
            },
        ),
        _ => (crate::design::GEOJSON_POINT, position),
    };
    ShapeType::Object {
        shape: Shape {
            fields: vec![
                field(
                    "type",
                    ShapeType::Scalar {
                        bson_type: "string".into(),
                        enum_values: vec![name.into()],
                    },
                    true,
                    origin.clone(),
                ),
                field("coordinates", coordinates, true, origin.clone()),
            ],
        },
    }
}

impl DocBuilder<'_> {
    fn name(&self, e: EntityId) -> &str {
        &self.facts.model.entity(e).name
    }

    fn array_max(&self) -> u64 {
        self.facts.settings.design.example_array_max
    }

    fn typical_items(&self, r: RelationshipId, cap: Option<u64>) -> u64 {
        let t = self.facts.model.relationship(r).children.typical;
        let t = cap.map_or(t, |c| t.min(c));
        t.min(self.array_max())
    }

    /// The type of entity `e`'s `_id`, and of every reference to it: the
    /// `_id` field the model declares (a table's integer key), else an
    /// ObjectId.
    pub(super) fn id_of(&self, e: EntityId) -> ShapeType {
        let declared = self.facts.model.entity(e).field("_id").map(|f| &f.ty);
        match declared {
            Some(ty) if !matches!(ty, crate::model::FieldType::Array(_)) => scalar(ty.bson_type()),
            _ => scalar("objectId"),
        }
    }

    /// Shape and example of entity `e`, instance `n`, as a document or sub-document.
    pub(super) fn entity(
        &self,
        e: EntityId,
        n: u64,
        with_id: bool,
    ) -> (Vec<ShapeField>, Map<String, Value>) {
        let f = self.facts;
        let model = f.model;
        let entity = model.entity(e);
        let ename = entity.name.as_str();
        let mut shape = Vec::new();
        let mut doc = Map::new();
        if with_id {
            shape.push(field("_id", self.id_of(e), true, FieldOrigin::Id));
            doc.insert("_id".into(), example::object_id(ename, n));
        }
        if let Some(i) = self.p.poly[e.index()]
            && let EntityCandidate::Polymorphic {
                discriminator,
                entities,
                ..
            } = &self.space.entity[i]
        {
            shape.push(field(
                discriminator,
                ShapeType::Scalar {
                    bson_type: "string".into(),
                    enum_values: entities
                        .iter()
                        .map(|x| model.entity(*x).name.clone())
                        .collect(),
                },
                true,
                FieldOrigin::Discriminator,
            ));
            doc.insert(discriminator.clone(), Value::String(ename.to_string()));
        }
        for fd in entity.fields.iter().filter(|x| x.name != "_id") {
            let own = FieldOrigin::Own {
                entity: ename.to_string(),
                field: fd.name.clone(),
            };
            shape.push(field(
                &fd.name,
                field_type(&fd.ty, &fd.enum_values, &own),
                fd.required,
                own,
            ));
            doc.insert(
                fd.name.clone(),
                example::value(ename, fd, n, self.array_max()),
            );
        }
        for r in self.facts.rels_from[e.index()].iter().copied() {
            self.parent_side(r, n, &mut shape, &mut doc);
        }
        for r in self.facts.rels_to[e.index()].iter().copied() {
            self.child_side(r, n, &mut shape, &mut doc);
        }
        for &i in &self.p.computed {
            if let EntityCandidate::Computed {
                relationship,
                function,
                field: agg_field,
                name,
                count,
                filter,
                ..
            } = &self.space.entity[i]
                && model.relationship(*relationship).parent == e
            {
                let rel = model.relationship(*relationship);
                // An average is its sum here and the count beside it.
                let average = *function == AggregateFn::Avg;
                let (function, extra) = match function {
                    AggregateFn::Avg => (AggregateFn::Sum, count.as_ref()),
                    f => (*f, None),
                };
                let kept = std::iter::once((function, agg_field.clone(), name))
                    .chain(extra.map(|c| (AggregateFn::Count, None, c)));
                for (function, agg_field, name) in kept {
                    let mut desc = match &agg_field {
                        Some(x) => {
                            format!("{} of {}.{x}", fn_name(function), self.name(rel.child))
                        }
                        None => format!("count of {}", rel.parent_field),
                    };
                    if let (true, Some(x), Some(c)) = (average, &agg_field, count) {
                        desc = format!("{desc}: the average of {x} is it over {c}");
                    }
                    if let Some(c) = filter {
                        desc = format!("{desc} where {}", c.written());
                    }
                    // A first, last, min or max value is one of the rows'
                    // values: it keeps its field's type (a timestamp stays
                    // a date, the greatest of int ratings an int, which the
                    // plan sets from the rating it reads again: issue 41);
                    // a count is a whole number, a sum of the type
                    // `sum_type` gives (a bucket's figures follow the same
                    // rule).
                    let over = agg_field
                        .as_deref()
                        .and_then(|x| model.entity(rel.child).field(x));
                    let picked = over.filter(|_| picks_a_value(function));
                    let origin = FieldOrigin::Computed {
                        function,
                        field: agg_field,
                        relationship: rel.name.clone(),
                        description: desc,
                        filter: filter.as_ref().map(|c| crate::design::StepCondition {
                            path: c.field.clone(),
                            plus: None,
                            test: c.test,
                            value: c.value.clone(),
                        }),
                    };
                    let (ty, v) = match (function, picked) {
                        (AggregateFn::Count, _) => (scalar("long"), json!(rel.children.typical)),
                        (_, Some(fd)) => (
                            field_type(&fd.ty, &fd.enum_values, &origin),
                            example::value(self.name(rel.child), fd, n, self.array_max()),
                        ),
                        _ => {
                            let ty = sum_type(over.map(|f| &f.ty));
                            (scalar(ty), typed_number(ty, ((n % 97) as f64) * 1.5))
                        }
                    };
                    shape.push(field(name, ty, true, origin));
                    doc.insert(name.clone(), v);
                }
            }
        }
        (shape, doc)
    }

    fn embedded_child_with_id(&self, r: RelationshipId) -> bool {
        self.facts.rel(r).child_own_ops > 0.0
    }

    fn parent_side(
        &self,
        r: RelationshipId,
        n: u64,
        shape: &mut Vec<ShapeField>,
        doc: &mut Map<String, Value>,
    ) {
        let f = self.facts;
        let rel = f.model.relationship(r);
        let child = self.name(rel.child).to_string();
        let name = rel.parent_field.as_str();
        // An outlier layout embeds up to its threshold.
        let max = match self.p.layouts[r.index()] {
            Layout::Outlier { threshold } => Some(*threshold),
            _ => rel.children.max.finite(),
        };
        let typ = rel.children.typical.max(1);
        let emb = FieldOrigin::Embedded {
            relationship: rel.name.clone(),
        };
        let refo = reference(rel, Side::Parent);
        match self.p.layouts[r.index()] {
            Layout::Embed if rel.kind == RelationshipKind::OneToOne => {
                let (s, d) = self.entity(rel.child, n, self.embedded_child_with_id(r));
                shape.push(field(
                    name,
                    ShapeType::Object {
                        shape: Shape { fields: s },
                    },
                    rel.children.min > 0,
                    emb,
                ));
                doc.insert(name.into(), Value::Object(d));
            }
            Layout::Embed | Layout::Outlier { .. } => {
                let with_id = self.embedded_child_with_id(r)
                    || matches!(self.p.layouts[r.index()], Layout::Outlier { .. });
                let (s, first) = self.entity(rel.child, n.wrapping_mul(typ), with_id);
                let wanted = self.typical_items(r, None);
                let mut items = Vec::with_capacity(wanted.min(16) as usize);
                if wanted > 0 {
                    items.push(Value::Object(first));
                }
                for i in 1..wanted {
                    let left = self.budget.get();
                    if left == 0 {
                        break;
                    }
                    self.budget.set(left - 1);
                    let item = self.entity(rel.child, n.wrapping_mul(typ).wrapping_add(i), with_id);
                    items.push(Value::Object(item.1));
                }
                shape.push(field(
                    name,
                    ShapeType::Array {
                        items: Box::new(ShapeType::Object {
                            shape: Shape { fields: s },
                        }),
                        max_items: max,
                    },
                    true,
                    emb,
                ));
                doc.insert(name.into(), Value::Array(items));
            }
            Layout::ChildReferences | Layout::TwoWayReferences
                if rel.kind == crate::model::RelationshipKind::OneToOne =>
            {
                // One child: its id as a plain field, absent while there is none.
                shape.push(field(
                    name,
                    self.id_of(rel.child),
                    rel.children.min > 0,
                    refo,
                ));
                doc.insert(name.into(), example::object_id(&child, n.wrapping_mul(typ)));
            }
            l @ (Layout::ManyToManyTwoWay
            | Layout::ManyToManyOneWay { .. }
            | Layout::ExtendedReference { .. }
            | Layout::TwoWayExtendedReference { .. }) => {
                if let Some((Some(copies), _)) = l.many_sides() {
                    let items = self.typical_items(r, None);
                    let first = n.wrapping_mul(typ);
                    self.link_array(r, Side::Parent, copies, (n, first), items, shape, doc);
                }
            }
            Layout::ChildReferences | Layout::TwoWayReferences => {
                shape.push(field(
                    name,
                    ShapeType::Array {
                        items: Box::new(self.id_of(rel.child)),
                        max_items: max,
                    },
                    true,
                    refo,
                ));
                let ids = (0..self.typical_items(r, None))
                    .map(|i| example::object_id(&child, n.wrapping_mul(typ).wrapping_add(i)))
                    .collect();
                doc.insert(name.into(), Value::Array(ids));
            }
            Layout::Subset { k, fields, .. } => {
                let fields: Vec<String> = if fields.is_empty() {
                    f.model
                        .entity(rel.child)
                        .fields
                        .iter()
                        .map(|x| x.name.clone())
                        .collect()
                } else {
                    fields.clone()
                };
                let (s, items) = self.copies(
                    rel.child,
                    &fields,
                    &rel.name,
                    n.wrapping_mul(typ),
                    self.typical_items(r, Some(*k)),
                );
                shape.push(field(
                    name,
                    ShapeType::Array {
                        items: Box::new(ShapeType::Object {
                            shape: Shape { fields: s },
                        }),
                        max_items: Some(*k),
                    },
                    true,
                    emb,
                ));
                doc.insert(name.into(), Value::Array(items));
            }
            _ => {}
        }
    }

    /// The array one side of many-to-many `r` keeps of the other side: bare
    /// ids, or objects with the id, copies of `copies` and the link's
    /// attributes this side keeps. `holder` is the instance whose array it
    /// is, `first` the first instance of the other side it holds.
    #[allow(clippy::too_many_arguments)] // one array, described in full
    fn link_array(
        &self,
        r: RelationshipId,
        side: Side,
        copies: &[String],
        (holder, first): (u64, u64),
        count: u64,
        shape: &mut Vec<ShapeField>,
        doc: &mut Map<String, Value>,
    ) {
        let f = self.facts;
        let rel = f.model.relationship(r);
        let layout = self.p.layouts[r.index()];
        let (name, other, max) = match side {
            Side::Parent => (&rel.parent_field, rel.child, rel.children.max.finite()),
            Side::Child => (&rel.child_field, rel.parent, rel.parents.max.finite()),
        };
        let refo = reference(rel, side);
        let attrs: Vec<&crate::model::Field> = f.attributes_on(r, side, layout).collect();
        if copies.is_empty() && attrs.is_empty() {
            shape.push(field(
                name,
                ShapeType::Array {
                    items: Box::new(self.id_of(other)),
                    max_items: max,
                },
                true,
                refo,
            ));
            let other = self.name(other).to_string();
            let ids = (0..count)
                .map(|i| example::object_id(&other, first.wrapping_add(i)))
                .collect();
            doc.insert(name.clone(), Value::Array(ids));
            return;
        }
        let (mut s, mut items) = self.copies(other, copies, &rel.name, first, count);
        for a in &attrs {
            let origin = FieldOrigin::Attribute {
                relationship: rel.name.clone(),
                field: a.name.clone(),
            };
            s.push(field(
                &a.name,
                field_type(&a.ty, &a.enum_values, &origin),
                a.required,
                origin,
            ));
        }
        for (i, item) in items.iter_mut().enumerate() {
            if let Value::Object(m) = item {
                // One value per pair of instances, whichever side shows it.
                let other = first.wrapping_add(i as u64);
                let pair = holder.min(other).wrapping_mul(1_000_003) ^ holder.max(other);
                for a in &attrs {
                    let v = example::value(&rel.name, a, pair, self.array_max());
                    m.insert(a.name.clone(), v);
                }
            }
        }
        shape.push(field(
            name,
            ShapeType::Array {
                items: Box::new(ShapeType::Object {
                    shape: Shape { fields: s },
                }),
                max_items: max,
            },
            true,
            refo,
        ));
        doc.insert(name.clone(), Value::Array(items));
    }

    /// `_id` plus copies of `fields` of `entity` for `count` instances from `first`.
    fn copies(
        &self,
        entity: EntityId,
        fields: &[String],
        relationship: &str,
        first: u64,
        count: u64,
    ) -> (Vec<ShapeField>, Vec<Value>) {
        let model = self.facts.model;
        let e = model.entity(entity);
        let snapshot: &[String] = model
            .relationship_by_name(relationship)
            .map_or(&[], |r| &model.relationship(r).snapshot);
        let mut shape = vec![field(
            "_id",
            self.id_of(entity),
            true,
            // The item's own id; the array holding it says whose side it is.
            FieldOrigin::Reference {
                relationship: relationship.to_string(),
                side: None,
            },
        )];
        // A field of the entity, or its own reference to a parent (the
        // seller's region id copied into an item).
        let parent_ref = |x: &str| {
            model
                .parent_reference(entity, x)
                .map(|o| model.relationship(o).parent)
        };
        for x in fields {
            let copy = FieldOrigin::Copy {
                relationship: relationship.to_string(),
                entity: e.name.clone(),
                field: x.clone(),
                snapshot: snapshot.contains(x),
            };
            if let Some(f) = e.field(x) {
                shape.push(field(
                    x,
                    field_type(&f.ty, &f.enum_values, &copy),
                    f.required,
                    copy,
                ));
            } else if parent_ref(x).is_some() {
                shape.push(field(
                    x,
                    self.id_of(parent_ref(x).expect("checked")),
                    true,
                    copy,
                ));
            }
        }
        let items = (0..count)
            .map(|i| {
                let n = first + i;
                let mut m = Map::new();
                m.insert("_id".into(), example::object_id(&e.name, n));
                for x in fields {
                    if let Some(f) = e.field(x) {
                        m.insert(x.clone(), example::value(&e.name, f, n, self.array_max()));
                    } else if let Some(p) = parent_ref(x) {
                        m.insert(x.clone(), example::object_id(&model.entity(p).name, n));
                    }
                }
                Value::Object(m)
            })
            .collect();
        (shape, items)
    }

    fn child_side(
        &self,
        r: RelationshipId,
        n: u64,
        shape: &mut Vec<ShapeField>,
        doc: &mut Map<String, Value>,
    ) {
        let f = self.facts;
        // The tenant's id a bucket holds once for its children
        // (`Model::bucket_tenant`, written by `bucket`), not each element.
        if matches!(self.p.home[rel_child(f, r).index()], Home::Bucketed { rel: b }
            if f.model.bucket_tenant(b) == Some(r))
        {
            return;
        }
        let rel = f.model.relationship(r);
        let parent = self.name(rel.parent).to_string();
        let name = rel.child_field.as_str();
        let refo = reference(rel, Side::Child);
        let typ = rel.children.typical.max(1);
        let many_parents = rel.kind == RelationshipKind::ManyToMany || rel.shared;
        let parent_n = n / typ;
        let id_array = |shape: &mut Vec<ShapeField>, doc: &mut Map<String, Value>| {
            shape.push(field(
                name,
                ShapeType::Array {
                    items: Box::new(self.id_of(rel.parent)),
                    max_items: rel.parents.max.finite(),
                },
                true,
                refo.clone(),
            ));
            let m = rel.parents.typical.max(1).min(self.array_max());
            doc.insert(
                name.into(),
                Value::Array(
                    (0..m)
                        .map(|i| example::object_id(&parent, parent_n + i))
                        .collect(),
                ),
            );
        };
        match self.p.layouts[r.index()] {
            // The `_id` is the parent's: it says so, and no field is added.
            Layout::SharedId => {
                if let Some(id) = shape.iter_mut().find(|x| x.name == "_id") {
                    id.origin = refo;
                }
                doc.insert("_id".into(), example::object_id(&parent, parent_n));
            }
            Layout::ParentReference
            | Layout::TwoWayReferences
            | Layout::Subset { .. }
            | Layout::Outlier { .. } => {
                if many_parents {
                    id_array(shape, doc);
                } else {
                    // A tree's roots have no parent; a child an insert
                    // writes without one has none either, whatever the
                    // model's minimum says (`unlinked-parent`).
                    let required = rel.parents.min > 0
                        && rel.parent != rel.child
                        && crate::model::inserts_without_parent(f.model, r).is_empty();
                    shape.push(field(name, self.id_of(rel.parent), required, refo));
                    doc.insert(name.into(), example::object_id(&parent, parent_n));
                }
            }
            Layout::ExtendedReference {
                copies_into: Side::Child,
                fields,
            } if !many_parents => {
                let (s, mut items) = self.copies(rel.parent, fields, &rel.name, parent_n, 1);
                shape.push(field(
                    name,
                    ShapeType::Object {
                        shape: Shape { fields: s },
                    },
                    true,
                    refo,
                ));
                doc.insert(name.into(), items.pop().unwrap_or(Value::Null));
            }
            l @ (Layout::ManyToManyTwoWay
            | Layout::ManyToManyOneWay { .. }
            | Layout::ExtendedReference { .. }
            | Layout::TwoWayExtendedReference { .. }) => {
                if let Some((_, Some(copies))) = l.many_sides() {
                    let m = rel.parents.typical.max(1).min(self.array_max());
                    self.link_array(r, Side::Child, copies, (n, parent_n), m, shape, doc);
                }
            }
            // The parent's id, then the path from the root: the node's
            // own (itself last, with copies), or its parent's ids.
            Layout::TreePath { fields } => {
                // Another instance than the node itself for its parent.
                let parent_n = n + 1;
                shape.push(field(name, self.id_of(rel.parent), false, refo));
                doc.insert(name.into(), example::object_id(&parent, parent_n));
                let model = f.model;
                let levels = rel.levels.map(u64::from);
                // A grandparent, the parent, the node itself.
                let (s, _) = self.copies(rel.parent, fields, &rel.name, n, 0);
                let items: Vec<Value> = [parent_n + 1, parent_n, n]
                    .into_iter()
                    .flat_map(|i| self.copies(rel.parent, fields, &rel.name, i, 1).1)
                    .collect();
                let pf = model.tree_path_field(r);
                shape.push(field(
                    &pf,
                    ShapeType::Array {
                        items: Box::new(ShapeType::Object {
                            shape: Shape { fields: s },
                        }),
                        max_items: levels,
                    },
                    true,
                    FieldOrigin::Path {
                        tree: rel.name.clone(),
                        via: None,
                    },
                ));
                doc.insert(pf, Value::Array(items));
            }
            Layout::PathReference => {
                shape.push(field(name, self.id_of(rel.parent), true, refo));
                doc.insert(name.into(), example::object_id(&parent, parent_n));
                let model = f.model;
                let tree = model.tree_of(rel.parent);
                let levels = tree
                    .and_then(|t| model.relationship(t).levels)
                    .map(u64::from);
                shape.push(field(
                    &model.path_reference_field(r),
                    ShapeType::Array {
                        items: Box::new(self.id_of(rel.parent)),
                        max_items: levels,
                    },
                    true,
                    FieldOrigin::Path {
                        tree: tree.map_or(String::new(), |t| model.relationship(t).name.clone()),
                        via: Some(rel.name.clone()),
                    },
                ));
                doc.insert(
                    model.path_reference_field(r),
                    Value::Array(
                        [parent_n + 2, parent_n + 1, parent_n]
                            .into_iter()
                            .map(|i| example::object_id(&parent, i))
                            .collect(),
                    ),
                );
            }
            Layout::EmbedParentInChild => {
                let (s, d) = self.entity(rel.parent, parent_n, true);
                shape.push(field(
                    name,
                    ShapeType::Object {
                        shape: Shape { fields: s },
                    },
                    true,
                    FieldOrigin::Embedded {
                        relationship: rel.name.clone(),
                    },
                ));
                doc.insert(name.into(), Value::Object(d));
            }
            _ => {}
        }
    }

    /// A bucket document of `r`: the parent's id, the bucket's key, its count and
    /// aggregates, and the children.
    pub(super) fn bucket(
        &self,
        r: RelationshipId,
        n: u64,
    ) -> (Vec<ShapeField>, Map<String, Value>) {
        let f = self.facts;
        let rel = f.model.relationship(r);
        let parent = self.name(rel.parent).to_string();
        let Layout::Bucket {
            by,
            per_bucket,
            aggregates,
        } = self.p.layouts[r.index()]
        else {
            return (Vec::new(), Map::new());
        };
        let bname = format!("{}_{}", parent, rel.parent_field);
        let bo = |part: BucketPart, d: &str| FieldOrigin::Bucket {
            part,
            description: d.to_string(),
        };
        let mut shape = vec![
            field("_id", scalar("objectId"), true, FieldOrigin::Id),
            field(
                &rel.child_field,
                self.id_of(rel.parent),
                true,
                reference(rel, Side::Child),
            ),
        ];
        let mut doc = Map::new();
        doc.insert("_id".into(), example::object_id(&bname, n));
        doc.insert(rel.child_field.clone(), example::object_id(&parent, n));
        // The tenant of the bucket's parent, and so of all its children.
        if let Some(t) = f.model.bucket_tenant(r) {
            let trel = f.model.relationship(t);
            shape.push(field(
                &trel.child_field,
                self.id_of(trel.parent),
                true,
                reference(trel, Side::Child),
            ));
            let tenant = self.name(trel.parent).to_string();
            doc.insert(
                trel.child_field.clone(),
                // The example parent `n`'s tenant, as its own example
                // numbers it (`child_side`: one parent per `typical`).
                example::object_id(
                    &tenant,
                    f.model.tenant_chain_of_parent(r).iter().fold(n, |k, &x| {
                        k / f.model.relationship(x).children.typical.max(1)
                    }),
                ),
            );
        }
        match by {
            BucketBy::Count => {
                shape.push(field(
                    "page",
                    scalar("int"),
                    true,
                    bo(BucketPart::Page, "page number, from 0"),
                ));
                doc.insert("page".into(), json!(n % 7));
            }
            BucketBy::Time { field: tf, unit } => {
                shape.push(field(
                    unit,
                    scalar("date"),
                    true,
                    bo(BucketPart::Start, &format!("{tf} truncated to the {unit}")),
                ));
                doc.insert(unit.clone(), truncated(example::date(n), unit));
            }
        }
        let items = (self.p.bucket_items(f, r) as u64).min(self.array_max());
        shape.push(field(
            "count",
            scalar("int"),
            true,
            bo(BucketPart::Count, "children in this bucket"),
        ));
        doc.insert("count".into(), json!(items));
        if matches!(by, BucketBy::Count) {
            shape.push(field(
                crate::design::ARRIVED,
                scalar("int"),
                true,
                bo(
                    BucketPart::Arrived,
                    "children ever added to this bucket, which the insert fills until they reach its size",
                ),
            ));
            doc.insert(crate::design::ARRIVED.into(), json!(items));
        }
        // The bucket's children, and its aggregates computed from them.
        let list: Vec<Value> = (0..items)
            .map(|i| Value::Object(self.entity(rel.child, n * 1000 + i, false).1))
            .collect();
        let numbers = |x: &str| -> Vec<f64> {
            list.iter()
                .filter_map(|c| c.get(x).and_then(number))
                .collect()
        };
        let child_fields = f.model.entity(rel.child);
        for a in aggregates {
            let Some(x) = &a.field else { continue };
            // An average is kept as a sum: the count is there to divide by.
            let (key, function) = match a.function {
                AggregateFn::Sum | AggregateFn::Avg => (format!("sum_{x}"), AggregateFn::Sum),
                AggregateFn::Min => (format!("min_{x}"), AggregateFn::Min),
                AggregateFn::Max => (format!("max_{x}"), AggregateFn::Max),
                AggregateFn::First => (format!("first_{x}"), AggregateFn::First),
                AggregateFn::Last => (format!("last_{x}"), AggregateFn::Last),
                AggregateFn::Count => continue,
            };
            if !shape.iter().any(|s| s.name == key) {
                let origin = FieldOrigin::Computed {
                    function,
                    field: Some(x.clone()),
                    relationship: rel.name.clone(),
                    description: format!("{} of {x} in this bucket", fn_name(function)),
                    filter: None,
                };
                // The same types as a parent's figures: the insert's `$min`,
                // `$max`, `$set` and the edits' pipeline store the child's
                // own value, in its type (issue 41).
                let over = child_fields.field(x);
                let (ty, v) = match over.filter(|_| picks_a_value(function)) {
                    Some(fd) => {
                        let mut values = list.iter().filter_map(|c| c.get(x));
                        let v = match function {
                            AggregateFn::First => values.next(),
                            AggregateFn::Last => values.next_back(),
                            AggregateFn::Min => values.min_by(|a, b| ordered(a, b)),
                            _ => values.max_by(|a, b| ordered(a, b)),
                        };
                        (
                            field_type(&fd.ty, &fd.enum_values, &origin),
                            v.cloned().unwrap_or(Value::Null),
                        )
                    }
                    None => {
                        let ty = sum_type(over.map(|f| &f.ty));
                        let sum: f64 = numbers(x).iter().sum();
                        (scalar(ty), typed_number(ty, sum))
                    }
                };
                shape.push(field(&key, ty, true, origin));
                doc.insert(key, v);
            }
        }
        let _ = per_bucket;
        let capacity = self.p.layouts[r.index()].bucket_capacity();
        let (s, _) = self.entity(rel.child, n, false);
        shape.push(field(
            &rel.parent_field,
            ShapeType::Array {
                items: Box::new(ShapeType::Object {
                    shape: Shape { fields: s },
                }),
                max_items: capacity,
            },
            true,
            FieldOrigin::Embedded {
                relationship: rel.name.clone(),
            },
        ));
        doc.insert(rel.parent_field.clone(), Value::Array(list));
        (shape, doc)
    }
}

/// Whether a figure is one of the children's values (a first, last, min
/// or max), kept in its field's type, rather than a count or a sum.
fn picks_a_value(function: AggregateFn) -> bool {
    matches!(
        function,
        AggregateFn::First | AggregateFn::Last | AggregateFn::Min | AggregateFn::Max
    )
}

/// The BSON type a sum of the values of a field of type `ty` is kept in, on
/// a parent and in a bucket (issue 41). A double for int and double values:
/// it never overflows, as an int sum does past 2^31 (the server then
/// stores a long, which a validator typed `int` refuses), and adds whole
/// numbers exactly while the total stays within 2^53. A long for long
/// values, which a double would round past 2^53; a decimal for decimal
/// values, whose fractions (cents) a double would round.
pub(crate) fn sum_type(ty: Option<&FieldType>) -> &'static str {
    match ty {
        Some(FieldType::Long) => "long",
        Some(FieldType::Decimal) => "decimal",
        _ => "double",
    }
}

/// An example figure `v` in the BSON type `ty` (`sum_type`'s): a whole
/// number for a long, a `$numberDecimal` for a decimal, a double rounded
/// to cents otherwise.
fn typed_number(ty: &str, v: f64) -> Value {
    let v = if v.is_finite() { v } else { 0.0 };
    match ty {
        "long" => json!(v.round() as i64),
        "decimal" => json!({ "$numberDecimal": format!("{:.2}", v) }),
        _ => json!((v * 100.0).round() / 100.0),
    }
}

/// The order of two example values of one field: by number, else by their
/// text (an example date's is ISO 8601, which sorts as the dates do).
fn ordered(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        _ => a.to_string().cmp(&b.to_string()),
    }
}

/// A number of an example value (a plain number or a `$numberDecimal`).
fn number(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| {
        v.get("$numberDecimal")
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok())
    })
}

/// An example date (`{"$date": "2026-01-02T07:13:00Z"}`) truncated to `unit`,
/// as a time bucket's key is.
fn truncated(date: Value, unit: &str) -> Value {
    let Some(text) = date.get("$date").and_then(Value::as_str) else {
        return date;
    };
    // YYYY-MM-DDTHH:MM:SSZ
    let (keep, rest) = match unit {
        "month" => (8, "01T00:00:00Z"),
        "day" => (11, "00:00:00Z"),
        "hour" => (14, "00:00Z"),
        "minute" => (17, "00Z"),
        _ => return date,
    };
    match text.get(..keep) {
        Some(head) => json!({ "$date": format!("{head}{rest}") }),
        None => date,
    }
}

/// The child of relationship `r`.
fn rel_child(f: &Facts<'_>, r: RelationshipId) -> EntityId {
    f.model.relationship(r).child
}
