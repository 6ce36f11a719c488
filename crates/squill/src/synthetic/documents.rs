//! Builds the documents of a collection by walking the design's `Shape`: each
//! field's origin says where its value comes from (the entity's own field, the
//! embedded children, the ids of related documents, a copy of a related
//! document's field, a computed aggregate, a bucket's bookkeeping). Which
//! instances exist and how they relate is `population`'s job.

use super::plan::{FieldPlan, Origin, ShapePlan, ValuePlan, scalar_type};
use super::population::{Population, Rng, is_shared, name_hash, unit_ms};
use super::roots::Root;
use super::sink::{Name, Sink, TreeSink};
use super::value::{Document, Scalar, Value};
use super::values::{self, Generated, NumType, Scratch, number};
use crate::design::{BucketBy, BucketPart, Layout, Side};
use crate::design::{Collection, FieldOrigin, ShapeType};
use crate::model::{AggregateFn, EntityId, Relationship, RelationshipId};

/// Children per parent used when building a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fanout {
    /// Drawn from the relationship's cardinality (synthetic data).
    Drawn,
    /// The model's typical cardinality (an example document).
    Typical,
    /// The model's maximum, capped at `EXAMPLE_CAP` (an example document).
    Max,
}

pub(super) use super::numbering::EXAMPLE_CAP;

/// Where a value is being built: an instance, or a bucket, inside another.
#[derive(Clone, Copy)]
struct Ctx<'c> {
    entity: Option<EntityId>,
    key: u64,
    parent: Option<(RelationshipId, u64)>,
    /// A bucket's relationship, its place among its parent's buckets and
    /// its children.
    bucket: Option<(RelationshipId, u64, &'c [u64])>,
    outer: Option<&'c Ctx<'c>>,
    /// The element is an embedded child itself (not a reference standing
    /// for a related instance): its references are its parents' ids.
    embedded: bool,
}

/// What `items` builds each element from.
struct Item<'f, 'c> {
    f: &'f FieldPlan<'f>,
    entity: Option<EntityId>,
    ctx: &'c Ctx<'c>,
    r: RelationshipId,
}

pub struct Builder<'p, 'a> {
    pub pop: &'p Population<'a>,
    pub fanout: Fanout,
    /// For an example (`Typical`, `Max`): the children its arrays may still
    /// hold beyond each one's first. Typical or maximum cardinality at every
    /// level of a long chain of embedded one-to-manys would make an example
    /// of 50^11 documents (it ran for minutes); past the budget each array
    /// shows its first child.
    pub budget: std::cell::Cell<u64>,
}

/// Children an example's arrays hold beyond each one's first, in all.
pub(super) const EXAMPLE_BUDGET: u64 = 100_000;

impl<'p, 'a> Builder<'p, 'a> {
    pub fn new(pop: &'p Population<'a>, fanout: Fanout) -> Self {
        Builder {
            pop,
            fanout,
            budget: std::cell::Cell::new(EXAMPLE_BUDGET),
        }
    }
}

impl Builder<'_, '_> {
    fn children_of(&self, r: RelationshipId, parent: u64) -> Vec<u64> {
        let pop = self.pop;
        let rel = pop.model.relationship(r);
        let n = match self.fanout {
            Fanout::Drawn => return pop.children(r, parent),
            Fanout::Typical => rel.children.typical,
            Fanout::Max => super::population::effective_max(&rel.children).min(EXAMPLE_CAP),
        };
        let left = self.budget.get();
        let extra = n.saturating_sub(1).min(left);
        self.budget.set(left - extra);
        let n = n.min(1 + extra);
        // Examples: consecutive instances of the child from the parent's first one.
        let first = pop.first_child_of(r, parent).unwrap_or(0);
        (first..first + n).collect()
    }

    /// Builds the top-level document for `root`.
    pub fn document(&self, coll: &Collection, root: &Root) -> Document {
        let plan = ShapePlan::of_collection(self.pop, coll);
        let mut sink = TreeSink::default();
        self.encode(&plan, root, &mut sink, &mut Scratch::default());
        sink.finish()
    }

    /// Builds the top-level document for `root` into `sink`; `plan` is
    /// `ShapePlan::of_collection` of the collection `root` is in.
    pub fn encode<S: Sink>(
        &self,
        plan: &ShapePlan<'_>,
        root: &Root,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        let ctx = match root {
            Root::Entity {
                entity,
                index,
                parent,
            } => Ctx {
                entity: Some(*entity),
                key: *index,
                parent: *parent,
                bucket: None,
                outer: None,
                embedded: false,
            },
            Root::Bucket {
                relationship,
                parent,
                children,
                number,
                page,
            } => Ctx {
                entity: None,
                key: (1 << 46) + number,
                parent: Some((*relationship, *parent)),
                bucket: Some((*relationship, *page, children.as_slice())),
                outer: None,
                embedded: false,
            },
        };
        self.object(plan, &ctx, plan.id_entity, Name::Top, sink, scratch);
    }

    /// Whether optional field `f` is absent from instance `key` (one in ten).
    #[inline]
    pub(super) fn absent(&self, key: u64, f: &FieldPlan<'_>) -> bool {
        f.optional && Rng::resume(self.pop.optional_prefix, &[key, f.name_hash]).below(10) == 0
    }

    fn object<S: Sink>(
        &self,
        plan: &ShapePlan<'_>,
        ctx: &Ctx<'_>,
        id_entity: Option<EntityId>,
        name: Name<'_>,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        sink.open(name, false);
        for f in &plan.fields {
            if !self.absent(ctx.key, f) {
                self.field(f, ctx, id_entity, sink, scratch);
            }
        }
        sink.close();
    }

    pub(super) fn entity_name(&self, e: Option<EntityId>) -> &str {
        e.map(|e| self.pop.model.entity(e).name.as_str())
            .unwrap_or("bucket")
    }

    /// The id of instance `key` of `entity`, in the type `ty` asks for.
    fn id_value<'s>(
        &self,
        ty: &ShapeType,
        entity: Option<EntityId>,
        key: u64,
        scratch: &'s mut Scratch,
    ) -> Scalar<'s> {
        self.id_scalar(IdType::of(ty), entity, key, scratch)
    }

    /// The id of instance `key` of `entity`, as `id` says.
    #[inline(always)]
    pub(super) fn id_scalar<'s>(
        &self,
        id: IdType,
        entity: Option<EntityId>,
        key: u64,
        scratch: &'s mut Scratch,
    ) -> Scalar<'s> {
        match id {
            IdType::Text => {
                let text = scratch.text();
                text.push_str(self.entity_name(entity));
                text.push('-');
                text.push_str(itoa::Buffer::new().format(key));
                Scalar::Str(text)
            }
            IdType::Number(n) => n.scalar(key as f64),
            IdType::ObjectId => Scalar::ObjectId(
                self.pop
                    .object_id(entity.unwrap_or(EntityId::from_index(0)), key),
            ),
        }
    }

    fn field<S: Sink>(
        &self,
        f: &FieldPlan<'_>,
        ctx: &Ctx<'_>,
        id_entity: Option<EntityId>,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        let name = Name::Field(&f.key);
        let ty = &f.field.ty;
        match &f.origin {
            Origin::Id => {
                let entity = ctx.entity.or(id_entity);
                sink.scalar(name, self.id_value(ty, entity, ctx.key, scratch));
            }
            Origin::Value(v) => {
                let (e, key) = self.instance_of(v.entity, ctx);
                match (&f.field.origin, ty) {
                    (FieldOrigin::Own { field, .. }, ShapeType::Array { .. })
                        if let Some((names, spread)) = v.attributes
                            && let Some([k, val]) = f.sub.as_ref().map(|s| s.fields.as_slice()) =>
                    {
                        let pair = [&k.key, &val.key];
                        let counts = (names, spread, v.items);
                        self.attributes(field, counts, pair, key, name, sink, scratch);
                    }
                    (FieldOrigin::Own { field, .. }, ShapeType::Array { max_items, items }) => {
                        let n = max_items.map_or(v.items, |m| v.items.min(m));
                        // An array of places (a chain's shops): each
                        // element valid GeoJSON, as its `2dsphere` index
                        // and validator require.
                        let geometry = items.geojson();
                        // Polygons of the corners the model gives each
                        // element (`polygon(12)[3]`).
                        let corners = e
                            .and_then(|e| self.pop.model.entity(e).field(field))
                            .and_then(|x| x.element_size)
                            .map_or(crate::model::POLYGON_CORNERS, u64::from);
                        sink.open(name, true);
                        for i in 0..n {
                            let key = key.wrapping_mul(31).wrapping_add(i);
                            let at = Name::Index(i as usize);
                            match geometry {
                                Some(g) => {
                                    sink.value(at, &super::geo::value(g, field, key, corners));
                                }
                                None => self.scalar_of(v, key, at, sink, scratch),
                            }
                        }
                        sink.close();
                    }
                    // A place: valid positions, clustered, rings closed.
                    (FieldOrigin::Own { field, .. }, ShapeType::Object { .. })
                        if let Some(geometry) = ty.geojson() =>
                    {
                        let corners = e
                            .and_then(|e| self.pop.model.entity(e).field(field))
                            .and_then(|x| x.avg_size)
                            .map_or(crate::model::POLYGON_CORNERS, u64::from);
                        let value = super::geo::value(geometry, field, key, corners);
                        sink.value(name, &value);
                    }
                    (FieldOrigin::Own { .. }, ShapeType::Object { .. }) => {
                        if let Some(sub) = &f.sub {
                            self.object(sub, ctx, e, name, sink, scratch);
                        }
                    }
                    _ => self.scalar_of(v, key, name, sink, scratch),
                }
            }
            Origin::Embedded {
                relationship,
                layout,
            } => match relationship {
                Some(r) => self.embedded(*r, *layout, f, ctx, sink, scratch),
                None => sink.scalar(name, Scalar::Null),
            },
            Origin::Reference { relationship } => match relationship {
                Some(r) => self.reference(*r, f, ctx, sink, scratch),
                None => sink.scalar(name, Scalar::Null),
            },
            Origin::Path { tree, via } => self.path(*tree, *via, f, ctx, sink, scratch),
            Origin::CopiedReference {
                entity,
                relationship,
            } => {
                let (_, key) = self.instance_of(Some(*entity), ctx);
                let parent = self.pop.parent_of(*relationship, key);
                let of = self.pop.model.relationship(*relationship).parent;
                sink.scalar(name, self.id_value(ty, Some(of), parent, scratch));
            }
            // The same pair of instances from either side: the element's
            // instance and the one whose array holds it.
            Origin::Attribute(v) => {
                let outer = ctx.outer.map_or(0, |o| o.key);
                let (a, b) = (ctx.key.min(outer), ctx.key.max(outer));
                let key = a.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17) ^ b;
                self.scalar_of(v, key, name, sink, scratch);
            }
            Origin::Timeline { timeline, item } => {
                sink.open(name, true);
                let t = self.pop.timelines.get(*timeline);
                let plan = item.as_deref().or(f.sub.as_ref());
                if let (Some(t), Some(plan)) = (t, plan) {
                    let (_, reader) = self.instance_of(Some(t.reader), ctx);
                    for (i, doc) in self
                        .timeline_items(t, plan, reader, scratch)
                        .into_iter()
                        .enumerate()
                    {
                        sink.value(Name::Index(i), &Value::Document(doc));
                    }
                }
                sink.close();
            }
            Origin::Outliers { timeline } => {
                sink.open(name, true);
                if let Some(t) = self.pop.timelines.get(*timeline) {
                    let (_, reader) = self.instance_of(Some(t.reader), ctx);
                    let id = match ty {
                        ShapeType::Array { items, .. } => IdType::of(items),
                        other => IdType::of(other),
                    };
                    let outliers = super::feeds::outliers(self.pop, t, reader);
                    for (i, p) in outliers.into_iter().enumerate() {
                        let s = self.id_scalar(id, Some(t.parent), p, scratch);
                        sink.scalar(Name::Index(i), s);
                    }
                }
                sink.close();
            }
            Origin::Other => {
                let v = match &f.field.origin {
                    FieldOrigin::Computed {
                        function,
                        field,
                        relationship,
                        filter,
                        ..
                    } => self.computed(
                        &f.field.name,
                        (*function, field.as_deref(), relationship),
                        filter.as_ref(),
                        ty,
                        ctx,
                    ),
                    FieldOrigin::Bucket { description, part } => {
                        self.bucket_field(description, *part, ty, ctx)
                    }
                    _ => Value::String(self.entity_name(ctx.entity).to_string()),
                };
                sink.value(name, &v);
            }
        }
    }

    /// One value of an entity's own field (or a copy of it).
    fn scalar_of<S: Sink>(
        &self,
        v: &ValuePlan<'_>,
        key: u64,
        name: Name<'_>,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        match Self::value_of(v, key, scratch) {
            Generated::Scalar(s) => sink.scalar(name, s),
            Generated::Value(value) => sink.value(name, &value),
        }
    }

    /// The value of an entity's own field (or a copy of it) for instance
    /// `key`.
    #[inline]
    pub(super) fn value_of<'s>(
        v: &'s ValuePlan<'_>,
        key: u64,
        scratch: &'s mut Scratch,
    ) -> Generated<'s> {
        // One value per instance for a field of a unique combination.
        match v.unique {
            Some("int") => return Generated::Scalar(Scalar::Int(key as i32)),
            Some("long") => return Generated::Scalar(Scalar::Long(key as i64)),
            Some("double") => return Generated::Scalar(Scalar::Double(key as f64)),
            Some("date") => {
                return Generated::Scalar(Scalar::Date(
                    super::values::EPOCH_2024_MS + key as i64 * 1000,
                ));
            }
            Some("string") => {
                // In the scratch buffer, as a scalar: the flat encoder takes
                // scalars only (an owned value there came out as null).
                let text = scratch.text();
                let _ = std::fmt::Write::write_fmt(text, format_args!("K{key:09}"));
                return Generated::Scalar(Scalar::Str(text));
            }
            _ => {}
        }
        let generated = v.spec.generate(key, scratch);
        // The design's enum wins over the model's when they differ.
        let allowed = |g: &Generated<'_>| match g {
            Generated::Scalar(s) => super::values::enum_allows(v.design_enum, s),
            Generated::Value(_) => false,
        };
        if v.check_enum && !allowed(&generated) {
            let pick = &v.design_enum[(key % v.design_enum.len() as u64) as usize];
            return Generated::Scalar(super::values::enum_scalar(v.spec.bson_type(), pick));
        }
        generated
    }

    /// The parent through `r` (whose children are not shared, or which
    /// the instance was enumerated under) of instance `key`, enumerated
    /// under `parent`.
    #[inline]
    pub(super) fn sole_parent(
        &self,
        r: RelationshipId,
        key: u64,
        parent: Option<(RelationshipId, u64)>,
    ) -> u64 {
        match parent {
            Some((pr, p)) if pr == r => p,
            _ => self.pop.first_parent(r, key),
        }
    }

    /// `instance_of` for a top-level instance (`key` of `entity`, under
    /// `parent`).
    pub(super) fn instance_of_root(
        &self,
        wanted: Option<EntityId>,
        entity: EntityId,
        key: u64,
        parent: Option<(RelationshipId, u64)>,
    ) -> u64 {
        let ctx = Ctx {
            entity: Some(entity),
            key,
            parent,
            bucket: None,
            outer: None,
            embedded: false,
        };
        self.instance_of(wanted, &ctx).1
    }

    /// The instance of `entity` that `ctx` is about: itself, an enclosing
    /// instance, its parent, or (when unrelated) a reproducible random one.
    fn instance_of(&self, entity: Option<EntityId>, ctx: &Ctx<'_>) -> (Option<EntityId>, u64) {
        let pop = self.pop;
        let Some(e) = entity else {
            return (None, ctx.key);
        };
        let mut c = Some(ctx);
        while let Some(cur) = c {
            if cur.entity == Some(e) {
                return (Some(e), cur.key);
            }
            if let Some((r, p)) = cur.parent
                && pop.model.relationship(r).parent == e
            {
                return (Some(e), p);
            }
            if let Some(cur_e) = cur.entity
                && let Some(r) = pop
                    .model
                    .relationships_to(cur_e)
                    .find(|r| pop.model.relationship(*r).parent == e)
            {
                return (Some(e), pop.first_parent(r, cur.key));
            }
            c = cur.outer;
        }
        let name = &pop.model.entity(e).name;
        let mut rng = Rng::new(&[pop.seed, 0xa11, ctx.key, name_hash(name)]);
        let of = ctx.entity.map(|o| (o, ctx.key));
        (Some(e), pop.unrelated(e, of, &mut rng))
    }

    fn embedded<S: Sink>(
        &self,
        r: RelationshipId,
        layout: Option<&Layout>,
        f: &FieldPlan<'_>,
        ctx: &Ctx<'_>,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        let pop = self.pop;
        let rel = pop.model.relationship(r);
        if ctx.entity == Some(rel.child) && ctx.entity != Some(rel.parent) {
            // The parent embedded in the child (embed-parent-in-child).
            let (_, p) = self.instance_of(Some(rel.parent), ctx);
            let child_ctx = Ctx {
                entity: Some(rel.parent),
                key: p,
                parent: None,
                bucket: None,
                outer: Some(ctx),
                embedded: false,
            };
            self.items(f, &[p], Some(rel.parent), &child_ctx, r, sink, scratch);
            return;
        }
        let children: Vec<u64> = match (ctx.bucket, layout) {
            (Some((br, _, kids)), _) if br == r => kids.to_vec(),
            (_, Some(Layout::Subset { k, .. })) => {
                let all = self.children_of(r, ctx.key);
                let keep = all.len().saturating_sub(*k as usize);
                // Newest first: dates rise with the child's number.
                all[keep..].iter().rev().copied().collect()
            }
            _ => self.children_of(r, ctx.key),
        };
        let parent_ctx = Ctx {
            parent: Some((r, ctx.key)),
            ..*ctx
        };
        self.items(f, &children, Some(rel.child), &parent_ctx, r, sink, scratch);
    }

    /// An array (or one object) of related instances built from the field's
    /// type.
    #[allow(clippy::too_many_arguments)]
    fn items<S: Sink>(
        &self,
        f: &FieldPlan<'_>,
        keys: &[u64],
        entity: Option<EntityId>,
        ctx: &Ctx<'_>,
        r: RelationshipId,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        let name = Name::Field(&f.key);
        let item = Item { f, entity, ctx, r };
        match &f.field.ty {
            ShapeType::Array { items, max_items } => {
                let n = max_items.map_or(keys.len(), |m| keys.len().min(m as usize));
                sink.open(name, true);
                for (i, k) in keys[..n].iter().enumerate() {
                    self.item(&item, *k, items, Name::Index(i), sink, scratch);
                }
                sink.close();
            }
            other => match keys.first() {
                Some(k) => self.item(&item, *k, other, name, sink, scratch),
                None => sink.scalar(name, Scalar::Null),
            },
        }
    }

    /// One related instance: an object built from the field's sub-plan, or
    /// its id (the usual reference: no context is built for it).
    fn item<S: Sink>(
        &self,
        item: &Item<'_, '_>,
        key: u64,
        item_ty: &ShapeType,
        name: Name<'_>,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        match (item_ty, &item.f.sub) {
            (ShapeType::Object { .. }, Some(sub)) => {
                let item_ctx = Ctx {
                    entity: item.entity,
                    key,
                    parent: if item.entity == Some(self.pop.model.relationship(item.r).child) {
                        Some((item.r, item.ctx.key))
                    } else {
                        None
                    },
                    bucket: None,
                    outer: Some(item.ctx),
                    embedded: matches!(item.f.field.origin, FieldOrigin::Embedded { .. }),
                };
                self.object(sub, &item_ctx, item.entity, name, sink, scratch);
            }
            (ShapeType::Object { .. }, None) => {}
            (scalar, _) => sink.scalar(name, self.id_value(scalar, item.entity, key, scratch)),
        }
    }

    /// An `attributes` field: `per` pairs `{k, v}` of consecutive names
    /// from a point the instance picks (`specs_17`, `specs_18`, …), each
    /// value one of `spread` of its name's (`specs_17-4`).
    #[allow(clippy::too_many_arguments)]
    fn attributes<S: Sink>(
        &self,
        field: &str,
        (names, spread, per): (u64, u64, u64),
        pair: [&super::sink::Key; 2],
        key: u64,
        name: Name<'_>,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        let start = super::population::mix(key ^ 0xa77) % names;
        sink.open(name, true);
        for i in 0..per.min(names) {
            let n = (start + i) % names;
            let value = super::population::mix(key.wrapping_mul(31).wrapping_add(i)) % spread;
            sink.open(Name::Index(i as usize), false);
            let text = scratch.text();
            text.push_str(field);
            text.push('_');
            text.push_str(itoa::Buffer::new().format(n));
            let cut = text.len();
            sink.scalar(Name::Field(pair[0]), Scalar::Str(&text[..cut]));
            text.push('-');
            text.push_str(itoa::Buffer::new().format(value));
            sink.scalar(Name::Field(pair[1]), Scalar::Str(text));
            sink.close();
        }
        sink.close();
    }

    fn reference<S: Sink>(
        &self,
        r: RelationshipId,
        f: &FieldPlan<'_>,
        ctx: &Ctx<'_>,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        let pop = self.pop;
        let ty = &f.field.ty;
        let rel = pop.model.relationship(r);
        // Inside an element that stands for the related instance itself (an
        // extended reference `{_id, name}` in the other side's array), the
        // reference is that instance's own id. An embedded child's other
        // references (an attendee's `event`, a follow's `follower`) are its
        // parents' ids: it once wrote its own id there.
        if let (Some(outer), Some(e), ShapeType::Scalar { .. }) = (ctx.outer, ctx.entity, ty)
            && !(ctx.embedded && rel.child == e && f.field.name != "_id")
            && outer.entity.is_some_and(|o| stands_for_itself(rel, e, o))
        {
            let id = self.id_value(ty, Some(e), ctx.key, scratch);
            sink.scalar(Name::Field(&f.key), id);
            return;
        }
        // In a tree the document is on both sides: the reference to its
        // parent is the one the design marks as the child's (a design
        // built by hand may not: the field named after the child's side);
        // a root has none.
        let child_side = rel.parent == rel.child
            && match &f.field.origin {
                FieldOrigin::Reference { side: Some(s), .. } => *s == Side::Child,
                _ => f.field.name == rel.child_field,
            };
        if child_side && pop.tree_parent(r, ctx.key).is_none() && pop.tree(r).is_some() {
            return;
        }
        if ctx.entity == Some(rel.parent) && !child_side {
            let children = self.children_of(r, ctx.key);
            self.items(f, &children, Some(rel.child), ctx, r, sink, scratch);
            return;
        }
        // A bucket's tenant (`Model::bucket_tenant`): the one of the
        // bucket's parent, and so of every child it holds.
        if ctx.entity.is_none()
            && let (Some((br, _, _)), Some((pr, p))) = (ctx.bucket, ctx.parent)
            && pr == br
            && pop.model.bucket_tenant(br) == Some(r)
            && let Some(t) = pop.tenant_of(pop.model.relationship(br).parent, p)
        {
            self.items(f, &[t], Some(rel.parent), ctx, r, sink, scratch);
            return;
        }
        // The child side (or a bucket of children): the parent(s), without
        // allocating for the usual one.
        let (one, many);
        let enumerated_under = ctx.parent.is_some_and(|(pr, _)| pr == r);
        let parents: &[u64] = if enumerated_under || (ctx.entity.is_some() && !is_shared(rel)) {
            one = [self.sole_parent(r, ctx.key, ctx.parent)];
            &one
        } else if ctx.entity.is_some() {
            many = pop.parents(r, ctx.key);
            &many
        } else {
            &[0]
        };
        self.items(f, parents, Some(rel.parent), ctx, r, sink, scratch);
    }

    /// The path from the root of tree `tree` to a node: the document's own
    /// node (`via` is `None`), or the node it references through `via` (the
    /// same one `reference` writes). The nodes are those of the walk up
    /// `tree_parent`, root first, the node itself last, so the path agrees
    /// with the `parent` references written; each item is the node's id, or
    /// an object of its id and copies of its own values.
    fn path<S: Sink>(
        &self,
        tree: RelationshipId,
        via: Option<RelationshipId>,
        f: &FieldPlan<'_>,
        ctx: &Ctx<'_>,
        sink: &mut S,
        scratch: &mut Scratch,
    ) {
        let pop = self.pop;
        let node_entity = pop.model.relationship(tree).parent;
        let node = match via {
            Some(v)
                if ctx.entity.is_some() && ctx.entity == Some(pop.model.relationship(v).child) =>
            {
                self.sole_parent(v, ctx.key, ctx.parent)
            }
            _ => self.instance_of(Some(node_entity), ctx).1,
        };
        let nodes = pop.tree_path(tree, node);
        let name = Name::Field(&f.key);
        let ShapeType::Array { items, .. } = &f.field.ty else {
            sink.scalar(name, Scalar::Null);
            return;
        };
        sink.open(name, true);
        for (i, &k) in nodes.iter().enumerate() {
            match (items.as_ref(), &f.sub) {
                (ShapeType::Object { .. }, Some(sub)) => {
                    let item_ctx = Ctx {
                        entity: Some(node_entity),
                        key: k,
                        parent: None,
                        bucket: None,
                        outer: Some(ctx),
                        embedded: false,
                    };
                    sink.open(Name::Index(i), false);
                    for g in &sub.fields {
                        if self.absent(k, g) {
                            continue;
                        }
                        match &g.origin {
                            // The item's id: the node's own.
                            Origin::Id => {
                                let id = self.id_value(&g.field.ty, Some(node_entity), k, scratch);
                                sink.scalar(Name::Field(&g.key), id);
                            }
                            Origin::Reference {
                                relationship: Some(r),
                            } if *r == tree => {
                                let id = self.id_value(&g.field.ty, Some(node_entity), k, scratch);
                                sink.scalar(Name::Field(&g.key), id);
                            }
                            _ => self.field(g, &item_ctx, Some(node_entity), sink, scratch),
                        }
                    }
                    sink.close();
                }
                (ShapeType::Object { .. }, None) => {}
                (scalar, _) => {
                    let id = self.id_value(scalar, Some(node_entity), k, scratch);
                    sink.scalar(Name::Index(i), id);
                }
            }
        }
        sink.close();
    }

    /// Children the computed field summarizes: the bucket's, or the children
    /// of the relationship it is over.
    fn computed(
        &self,
        name: &str,
        (function, field, relationship): (AggregateFn, Option<&str>, &str),
        filter: Option<&crate::design::StepCondition>,
        ty: &ShapeType,
        ctx: &Ctx<'_>,
    ) -> Value {
        let pop = self.pop;
        let bson_type = scalar_type(ty);
        // In a bucket, its children; in a parent, the children through the
        // relationship the aggregate is over.
        let source = ctx
            .bucket
            .map(|(r, _, kids)| (r, kids.to_vec()))
            .or_else(|| {
                let r = pop.model.relationship_by_name(relationship)?;
                Some((r, self.children_of(r, ctx.key)))
            });
        let Some((r, kids)) = source else {
            return values::scalar(pop.seed, "", ctx.key, name, bson_type, None, &[]);
        };
        let child = pop.model.relationship(r).child;
        // A figure over a subset (`where status = open`) is over the
        // children whose generated value passes the test, so the kept
        // figure equals what a read of those children computes.
        let kids: Vec<u64> = match filter {
            Some(c) => {
                let ty = pop
                    .model
                    .entity(child)
                    .field(&c.path)
                    .map_or("string", |f| f.ty.bson_type());
                kids.into_iter()
                    .filter(|k| meets(&pop.field_value(child, *k, &c.path, ty), c))
                    .collect()
            }
            None => kids,
        };
        // A first or last value that is no number (a date, a string) is the
        // first or last child's own value, in its field's type; without
        // children, a value of that type, as 0 is for a number (the
        // validator requires the field).
        if let (AggregateFn::First | AggregateFn::Last, Some(field)) = (function, field)
            && !matches!(bson_type, "int" | "long" | "decimal" | "double")
        {
            let kid = if function == AggregateFn::First {
                kids.first()
            } else {
                kids.last()
            };
            return kid.map_or_else(
                || values::scalar(pop.seed, "", ctx.key, name, bson_type, None, &[]),
                |k| pop.field_value(child, *k, field, bson_type),
            );
        }
        let xs: Vec<f64> = match (function, field) {
            (AggregateFn::Count, _) | (_, None) => {
                return number(bson_type, kids.len() as f64);
            }
            (_, Some(field)) => {
                let ty = pop
                    .model
                    .entity(child)
                    .field(field)
                    .map_or("double", |f| f.ty.bson_type());
                let spec = pop.field_spec(child, field, ty);
                let mut scratch = Scratch::default();
                kids.iter()
                    .filter_map(|k| as_f64(&spec.value(*k, &mut scratch)))
                    .collect()
            }
        };
        let sum: f64 = xs.iter().sum();
        let x = match function {
            AggregateFn::Min => xs.iter().copied().fold(f64::INFINITY, f64::min),
            AggregateFn::Max => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            AggregateFn::Avg if xs.is_empty() => 0.0,
            AggregateFn::Avg => sum / xs.len() as f64,
            // The children in the order they arrived.
            AggregateFn::First => xs.first().copied().unwrap_or(0.0),
            AggregateFn::Last => xs.last().copied().unwrap_or(0.0),
            AggregateFn::Sum | AggregateFn::Count => sum,
        };
        number(bson_type, if x.is_finite() { x } else { 0.0 })
    }

    fn bucket_field(
        &self,
        description: &str,
        part: BucketPart,
        ty: &ShapeType,
        ctx: &Ctx<'_>,
    ) -> Value {
        let pop = self.pop;
        let bson_type = scalar_type(ty);
        let Some((r, page, kids)) = ctx.bucket else {
            return values::scalar(pop.seed, "", ctx.key, description, bson_type, None, &[]);
        };
        match bson_type {
            "date" => {
                let child = pop.model.relationship(r).child;
                // A bucket by time unit is keyed by the unit's start: the
                // upsert of a new child truncates its time the same way.
                let unit_ms = match pop.layout(r) {
                    Some(Layout::Bucket {
                        by: BucketBy::Time { unit, .. },
                        ..
                    }) => Some(unit_ms(unit)),
                    _ => None,
                };
                let time_field = match pop.layout(r) {
                    Some(Layout::Bucket {
                        by: BucketBy::Time { field, .. },
                        ..
                    }) => Some(field.clone()),
                    _ => pop
                        .model
                        .entity(child)
                        .fields
                        .iter()
                        .find(|f| f.ty.bson_type() == "date")
                        .map(|f| f.name.clone()),
                };
                match (time_field, kids.first()) {
                    (Some(f), Some(k)) => match (pop.field_value(child, *k, &f, "date"), unit_ms) {
                        (Value::Date(ms), Some(u)) => Value::Date(ms.div_euclid(u) * u),
                        (v, _) => v,
                    },
                    _ => Value::Date(values::EPOCH_2024_MS),
                }
            }
            // The page number is the bucket's place among its parent's
            // (the reads sort by it, a new bucket's upsert sets the next);
            // the count, its children.
            "int" | "long" | "double" | "decimal" if part == BucketPart::Page => {
                number(bson_type, page as f64)
            }
            "int" | "long" | "double" | "decimal" => number(bson_type, kids.len() as f64),
            _ => self
                .id_value(ty, None, ctx.key, &mut Scratch::default())
                .to_value(),
        }
    }
}

/// Whether, inside an element that stands for an instance of `e` (an
/// extended reference in a document of `outer`), a reference through `rel`
/// is `e`'s own id: `rel` links the two.
pub(super) fn stands_for_itself(rel: &Relationship, e: EntityId, outer: EntityId) -> bool {
    let sides = [rel.parent, rel.child];
    sides.contains(&e) && sides.contains(&outer) && outer != e
}

/// How an id is written, from the type the shape gives it.
#[derive(Debug, Clone, Copy)]
pub(super) enum IdType {
    /// `entity-123`.
    Text,
    Number(NumType),
    ObjectId,
}

impl IdType {
    pub(super) fn of(ty: &ShapeType) -> Self {
        match scalar_type(ty) {
            "string" => IdType::Text,
            n @ ("int" | "long" | "double" | "decimal") => IdType::Number(NumType::of(n)),
            _ => IdType::ObjectId,
        }
    }
}

/// Whether a generated value passes a figure's test on a constant, as
/// the server compares them (a missing value passes only `!=`).
fn meets(v: &Value, c: &crate::design::StepCondition) -> bool {
    use crate::model::{Literal, Test};
    use std::cmp::Ordering;
    let order = match (&c.value, v) {
        (Literal::Text(t), Value::String(s)) => Some(s.as_str().cmp(t.as_str())),
        (Literal::Bool(b), Value::Bool(x)) => Some(x.cmp(b)),
        (Literal::Number(n), x) => as_f64(x).and_then(|x| x.partial_cmp(n)),
        _ => None,
    };
    match (order, c.test) {
        (None, Test::Ne) => true,
        (None, _) => false,
        (Some(o), Test::Eq) => o == Ordering::Equal,
        (Some(o), Test::Ne) => o != Ordering::Equal,
        (Some(o), Test::Gt) => o == Ordering::Greater,
        (Some(o), Test::Gte) => o != Ordering::Less,
        (Some(o), Test::Lt) => o == Ordering::Less,
        (Some(o), Test::Lte) => o != Ordering::Greater,
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(f64::from(*i)),
        Value::Long(i) => Some(*i as f64),
        Value::Double(f) => Some(*f),
        Value::Decimal {
            coefficient,
            exponent,
        } => Some(*coefficient as f64 * 10f64.powi(*exponent)),
        _ => None,
    }
}
