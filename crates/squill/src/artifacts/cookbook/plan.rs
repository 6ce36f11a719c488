//! Each operation's plan of the design turned into its cookbook code
//! (`code`): named parameters, and steps whose filters and updates are
//! expressions.

use super::code::{
    EachCode, EachSource, Expr, NewPath, OpCode, Param, ParamKind, StepCode, UnderTest, Update,
    ident,
};
use crate::design::{
    Action, Collection, Design, FilterOp, OperationPlan, ShapeType, Step, StepFilter, UpdateOp,
    ValueSource,
};

/// The name of a batch's chunk in the code that upserts it into a bucket
/// (`code::Chunks`); `code::ident` keeps parameters off it.
pub(super) const CHUNK: &str = "chunk";

/// Whether the first segment of `path` is an array in the collection's shape.
fn array_prefix(coll: Option<&Collection>, path: &str) -> Option<String> {
    let coll = coll?;
    let (head, rest) = path.split_once('.')?;
    let _ = rest;
    let field = coll.shape.fields.iter().find(|f| f.name == head)?;
    matches!(field.ty, ShapeType::Array { .. }).then(|| head.to_string())
}

/// An upsert's key "held by no element" (`NotEqual`), as one test of the
/// array where the key has several fields or the elements expire: no
/// element holds them all together, alive (`{lines: {$not: {$elemMatch:
/// {sku, size}}}}`). A `$ne` per field would refuse a line whose sku
/// another line shares in another size, an `$elemMatch` of `$ne`s would
/// refuse an empty array, and an expired element holding the key would
/// refuse the push while the `$inc` skips it.
fn held_by_none(coll: Option<&Collection>, filter: &mut Vec<(String, Expr)>) {
    let mut arrays: Vec<String> = Vec::new();
    for (p, e) in filter.iter() {
        if matches!(e, Expr::NotEqual(_))
            && let Some(a) = array_prefix(coll, p)
            && !arrays.contains(&a)
        {
            arrays.push(a);
        }
    }
    for array in arrays {
        let inside = format!("{array}.");
        let of_element = |p: &str, e: &Expr| {
            matches!(e, Expr::NotEqual(_) | Expr::Unexpired(_)) && p.starts_with(&inside)
        };
        let tests: Vec<(String, Expr)> = filter
            .iter()
            .filter(|(p, e)| of_element(p, e))
            .filter_map(|(p, e)| {
                let leaf = p.strip_prefix(&inside)?.to_string();
                Some(match e {
                    Expr::NotEqual(param) => (leaf, Expr::Param(param.clone())),
                    other => (leaf, other.clone()),
                })
            })
            .collect();
        if tests.len() < 2 {
            continue;
        }
        let at = filter
            .iter()
            .position(|(p, e)| of_element(p, e))
            .unwrap_or(filter.len());
        filter.retain(|(p, e)| !of_element(p, e));
        filter.insert(at.min(filter.len()), (array, Expr::HeldByNone(tests)));
    }
}

/// The array two or more of a filter's tests are on elements of
/// (`seats.label`, `seats.state`), if any. A position (`members.49`, a
/// bounded array's room) is a test of the array, not of an element.
fn element_tested_twice(coll: Option<&Collection>, filter: &[(String, Expr)]) -> Option<String> {
    let arrays: Vec<String> = filter
        .iter()
        .filter(|(_, e)| !matches!(e, Expr::After { .. }))
        .filter_map(|(p, _)| {
            let array = array_prefix(coll, p)?;
            let field = p[array.len() + 1..].split('.').next().unwrap_or("");
            (!field.is_empty() && !field.bytes().all(|c| c.is_ascii_digit())).then_some(array)
        })
        .collect();
    arrays
        .iter()
        .find(|a| arrays.iter().filter(|b| b == a).count() > 1)
        .cloned()
}

struct Builder<'d> {
    design: &'d Design,
    params: Vec<Param>,
    /// Meaning of each parameter (see `param_named`), with its name.
    keys: Vec<(String, String)>,
    steps: Vec<StepCode>,
    /// The list of documents an earlier step inserted at once, while a
    /// step that keeps their parent's figures is built: a count goes up
    /// by their number, not by one.
    batch: Option<String>,
    /// The list a batch step pushes with `$each` (its children, or its
    /// chunk of them), while that step is built.
    batch_items: Option<String>,
    /// The key of an earlier step that inserted documents at once, while
    /// a step that adds their ids to their parent's array is built: it
    /// pushes every id the insert gave (audit43 L), not one the caller
    /// passes.
    batch_ids: Option<(String, u64)>,
    /// The document parameter of the one child an earlier step inserted
    /// (`new_entry`), with its collection, while a step that keeps its
    /// parent's figures is built: a sum moves by the child's own amount,
    /// a least or greatest by its own value, never by one the caller
    /// passes beside it (audit44 G: a ledger's balance 99 over entries
    /// summing to 10).
    inserted: Option<(String, String)>,
    /// For a link's write: the earlier step that read the linked
    /// instance's fields to copy (its index in `steps`), so the element
    /// pushed is built from its id and what that read found, not an item
    /// the caller passes (audit44 F: a guard tested one channel and the
    /// user joined another).
    copied: Option<(usize, String, Vec<String>)>,
    /// A link's write is being built: an id it adds to an array is the
    /// linked instance's, the parameter that names it (`user_id`), not
    /// an item the caller passes beside it.
    linking: bool,
    /// The fields the operation sets to the caller's named value
    /// (`current_price = :offer`): their `$set`, in every copy, takes
    /// that parameter, the one the conditions test.
    set_to: &'d [crate::design::SetTo],
}

impl Builder<'_> {
    /// The caller's named value `path` of `collection` is set to, as the
    /// parameter the conditions name it by (`offer`), if the model gives
    /// one for the field it holds.
    fn set_value(&mut self, collection: &str, path: &str) -> Option<String> {
        let coll = self.collection(collection)?;
        let (entity, field) = canonical(self.design, coll, &plain_path(path))?;
        let value = self
            .set_to
            .iter()
            .find(|v| v.entity == entity && v.field == field)?
            .value
            .clone();
        Some(self.param_named(collection, path, ParamKind::Value, "", Some(&value)))
    }

    /// The parameter for a value of `path` in `collection`. Parameters that
    /// mean the same thing share one name: the same field of the same entity
    /// (a part's id in `parts` and in `products.parts._id`; a host's ip and
    /// its copy in each message), in the same role (matching vs new value).
    /// A step filter whose value is its own (the old or new value of a
    /// field, a truncated time) gets a parameter of its own named after it.
    fn param(&mut self, collection: &str, path: &str, kind: ParamKind, hint: &str) -> String {
        self.param_named(collection, path, kind, hint, None)
    }

    fn param_named(
        &mut self,
        collection: &str,
        path: &str,
        kind: ParamKind,
        hint: &str,
        phrase: Option<&str>,
    ) -> String {
        let plain = plain_path(path);
        let path = plain.as_str();
        let canonical = self
            .collection(collection)
            .and_then(|c| canonical(self.design, c, path));
        let key = match (phrase, &canonical) {
            (Some(p), _) => format!("phrase:{p}"),
            (None, Some((e, f))) => format!("{hint}|{e}.{f}|{}", kind.as_str()),
            (None, None) => format!("{hint}|{collection}:{path}|{}", kind.as_str()),
        };
        if let Some((_, name)) = self.keys.iter().find(|(k, _)| *k == key) {
            return name.clone();
        }
        let field = canonical.as_ref().map(|(e, f)| {
            if f == "_id" {
                format!("{e}_id")
            } else {
                f.clone()
            }
        });
        let base = match (phrase, kind) {
            (Some(p), _) => p.to_string(),
            (None, ParamKind::From) => format!("{}_from", field.as_deref().unwrap_or(path)),
            (None, ParamKind::To) => format!("{}_to", field.as_deref().unwrap_or(path)),
            (None, ParamKind::Document) => format!("new_{collection}"),
            (None, ParamKind::Documents) => format!("new_{collection}_list"),
            // An element pushed is new; one pulled names its hint (`old_`).
            (None, ParamKind::Item) if hint.is_empty() => format!("new_{path}_item"),
            (None, ParamKind::Item) => format!("{hint}{path}_item"),
            (None, ParamKind::Items) => format!("new_{path}_list"),
            (None, ParamKind::Page) => "page".to_string(),
            (None, ParamKind::Batch) => "batch".to_string(),
            (None, _) => match (path, &field) {
                ("_id", None) => format!("{hint}{collection}_id"),
                (_, Some(f)) => format!("{hint}{f}"),
                (_, None) => format!("{hint}{path}"),
            },
        };
        let mut name = ident(&base);
        // A different value under the same name: number it.
        if self.params.iter().any(|p| p.name == name) {
            let mut n = 2;
            while self.params.iter().any(|p| p.name == format!("{name}_{n}")) {
                n += 1;
            }
            name = format!("{name}_{n}");
        }
        self.keys.push((key, name.clone()));
        self.params.push(Param {
            name: name.clone(),
            collection: collection.to_string(),
            path: path.to_string(),
            kind,
        });
        name
    }

    fn collection(&self, name: &str) -> Option<&Collection> {
        self.design.collections.iter().find(|c| c.name == name)
    }

    /// The figure a field at `path` of `collection` keeps over its
    /// children's field (a bucket's `sum_value`, a post's
    /// `comments_sum_votes`): the function and the children's field, from
    /// the shape (`FieldOrigin::Computed`); `None` for a count, for any
    /// other field, or when the shape does not say.
    fn computed_field(
        &self,
        collection: &str,
        path: &str,
    ) -> Option<(crate::model::AggregateFn, String)> {
        match &self.field_at(collection, path)?.origin {
            crate::design::FieldOrigin::Computed {
                function,
                field: Some(field),
                ..
            } => Some((*function, field.clone())),
            _ => None,
        }
    }

    /// The subset a figure at `path` of `collection` is over (`Some` for a
    /// filtered figure: `count(tickets where status = open)`).
    fn subset_at(&self, collection: &str, path: &str) -> Option<super::code::Subset> {
        match &self.field_at(collection, path)?.origin {
            crate::design::FieldOrigin::Computed {
                function,
                field,
                filter: Some(c),
                ..
            } => Some(super::code::Subset {
                field: c.path.clone(),
                test: c.test,
                value: c.value.clone(),
                amount: field
                    .clone()
                    .filter(|_| *function != crate::model::AggregateFn::Count),
            }),
            _ => None,
        }
    }

    /// What a write moves a parent's figure over a subset by, from the
    /// child documents it has: those a batch inserts, the one an insert
    /// inserts, those a delete found (`down`), or the child an update
    /// returned as it was, with the update's changes. `None` for a figure
    /// over all the children, or when no such document is at hand.
    fn subset_amount(&mut self, step: &Step, path: &str, down: bool) -> Option<Expr> {
        let subset = self.subset_at(&step.collection, path)?;
        let bson_type = self.bson_type(&step.collection, path);
        if !down {
            if let Some(list) = self.batch.clone() {
                return Some(Expr::Shares {
                    list,
                    subset,
                    negative: false,
                    bson_type,
                });
            }
            if let Some((doc, _)) = self.inserted.clone() {
                return Some(Expr::Share {
                    doc,
                    subset,
                    bson_type,
                });
            }
        }
        // The earlier step whose documents name the parent: a delete's
        // find, or an update's write that returned the child as it was.
        let n = step.filter.iter().find_map(|f| match f.value_from {
            ValueSource::FromStep { step: n } if n >= 1 && n <= self.steps.len() => Some(n),
            _ => None,
        })?;
        // The fields the share reads, returned by that step.
        let from = &mut self.steps[n - 1];
        for x in std::iter::once(&subset.field).chain(subset.amount.as_ref()) {
            if !from.projection.is_empty() && !from.projection.contains(x) {
                from.projection.push(x.clone());
            }
        }
        let from = self.steps[n - 1].clone();
        if from.before {
            let changes = from
                .updates
                .iter()
                .filter_map(|u| match u {
                    Update::Set(p, e) => Some((p.clone(), e.clone())),
                    _ => None,
                })
                .collect();
            return Some(Expr::Moved {
                before: from.key,
                changes,
                subset,
                bson_type,
            });
        }
        down.then_some(Expr::Shares {
            list: from.key,
            subset,
            negative: true,
            bson_type,
        })
    }

    /// The field of `collection`'s shape at `path`, through its objects
    /// and arrays of objects (`None` where the shape has none there).
    fn field_at(&self, collection: &str, path: &str) -> Option<&crate::design::ShapeField> {
        let mut fields = &self.collection(collection)?.shape.fields;
        let plain = plain_path(path);
        let mut segments = plain.split('.').peekable();
        while let Some(seg) = segments.next() {
            let f = fields.iter().find(|f| f.name == seg)?;
            if segments.peek().is_none() {
                return Some(f);
            }
            fields = match &f.ty {
                ShapeType::Object { shape } => &shape.fields,
                ShapeType::Array { items, .. } => match items.as_ref() {
                    ShapeType::Object { shape } => &shape.fields,
                    _ => return None,
                },
                ShapeType::Scalar { .. } => return None,
            };
        }
        None
    }

    /// A figure a batch moves, from its children (`Expr::OfItems`): after
    /// a batch, over the list `self.batch`; `None` outside a batch, or for
    /// a field that keeps no figure of a field of the children.
    fn of_batch(
        &self,
        collection: &str,
        path: &str,
        function: Option<crate::model::AggregateFn>,
    ) -> Option<Expr> {
        use crate::model::AggregateFn;
        let list = self.batch.clone()?;
        let (kept, field) = self.computed_field(collection, path)?;
        // An `$inc` of a figure is its sum (an average's too); `$min` and
        // `$max` their own; a `$set` the last child's, `$setOnInsert`
        // the first's, as the figure says.
        let function = function.unwrap_or(match kept {
            AggregateFn::First => AggregateFn::First,
            _ => AggregateFn::Last,
        });
        Some(Expr::OfItems {
            list,
            field,
            function,
            bson_type: self.bson_type(collection, path),
        })
    }

    /// A figure one inserted child moves (`Expr::FieldOf`): its own value
    /// of the field the figure is kept over, when the figure's
    /// relationship has that child's collection as its child.
    fn of_inserted(
        &self,
        collection: &str,
        path: &str,
        function: Option<crate::model::AggregateFn>,
    ) -> Option<Expr> {
        let (param, child_collection) = self.inserted.clone()?;
        let (kept, field) = self.computed_field(collection, path)?;
        let relationship = self.computed_relationship(collection, path)?;
        let child = &self
            .design
            .relationships
            .iter()
            .find(|r| r.relationship == relationship)?
            .child;
        self.collection(&child_collection)?
            .entities
            .contains(child)
            .then(|| Expr::OwnValue {
                param,
                field,
                function: function.unwrap_or(kept),
                bson_type: self.bson_type(collection, path),
            })
    }

    /// The element a link pushes into array `path` of `collection`, built
    /// from the linked instance's id, the copies the earlier read found
    /// (`copied`, which then must find it) and the link's own fields as
    /// parameters. `None` when the element holds anything else, or no
    /// read came before.
    fn linked_item(&mut self, collection: &str, path: &str) -> Option<Expr> {
        let (found, entity, read) = self.copied.clone()?;
        let (key, source) = {
            let s = self.steps.get(found)?;
            (s.key.clone(), s.collection.clone())
        };
        let items = self
            .collection(collection)?
            .shape
            .fields
            .iter()
            .find_map(|f| match &f.ty {
                ShapeType::Array { items, .. } if f.name == path => match items.as_ref() {
                    ShapeType::Object { shape } => Some(shape.fields.clone()),
                    _ => None,
                },
                _ => None,
            })?;
        let mut doc = Vec::new();
        for f in &items {
            let value = match &f.origin {
                crate::design::FieldOrigin::Id | crate::design::FieldOrigin::Reference { .. }
                    if f.name == "_id" =>
                {
                    Expr::Param(self.param(&source, "_id", ParamKind::Value, ""))
                }
                // A copy of the instance that read found, and only of it
                // (an author's name read for the book is no copy of the
                // book's title).
                crate::design::FieldOrigin::Copy {
                    entity: of, field, ..
                } if *of == entity && read.contains(field) => Expr::FoundField {
                    step: key.clone(),
                    field: field.clone(),
                },
                crate::design::FieldOrigin::Attribute { .. } => {
                    let at = format!("{path}.{}", f.name);
                    Expr::Param(self.param(collection, &at, ParamKind::Value, ""))
                }
                _ => return None,
            };
            doc.push((f.name.clone(), value));
        }
        // Without a copy of that instance the read was for another one.
        let copies = items
            .iter()
            .any(|f| matches!(&f.origin, crate::design::FieldOrigin::Copy { entity: of, .. } if *of == entity));
        if !copies {
            return None;
        }
        self.steps.get_mut(found)?.must_find = true;
        Some(Expr::Doc(doc))
    }

    /// The element an insert's link pushes into array `path` of
    /// `collection` (a new task into its person's `tasks`), built from the
    /// document the earlier `insertOne` inserted: its id as the insert gave
    /// it and each copied field from that document (`new_task["title"]`),
    /// so the copy cannot disagree with the task (writes45's notes, item
    /// 6: the caller passed the element beside the task). `None` when the
    /// element holds anything else (a link's own field), a copy the
    /// inserted document may lack (`required: false`), or no copy of it.
    fn inserted_item(&mut self, collection: &str, path: &str) -> Option<Expr> {
        let (key, param, source) = self.steps.iter().rev().find_map(|s| {
            (s.action == Action::InsertOne)
                .then(|| Some((s.key.clone(), s.insert.clone()?, s.collection.clone())))
                .flatten()
        })?;
        let entities = self.collection(&source)?.entities.clone();
        let array = self
            .collection(collection)?
            .shape
            .fields
            .iter()
            .find(|f| f.name == path)?
            .clone();
        let ShapeType::Array { items, .. } = &array.ty else {
            return None;
        };
        let items = match items.as_ref() {
            ShapeType::Object { shape } => shape.fields.clone(),
            // Bare ids of the relationship's other side: the inserted
            // document's own id, when it is that side.
            ShapeType::Scalar { .. } => {
                let crate::design::FieldOrigin::Reference { relationship, .. } = &array.origin
                else {
                    return None;
                };
                let rel = self
                    .design
                    .relationships
                    .iter()
                    .find(|r| r.relationship == *relationship)
                    // With itself (a new user following another), the id
                    // pushed is the other instance's, not the inserted one.
                    .filter(|r| r.parent != r.child)?;
                let other = self.collection(collection)?;
                let theirs = if other.entities.contains(&rel.parent) {
                    &rel.child
                } else {
                    &rel.parent
                };
                return entities
                    .contains(theirs)
                    .then(|| Expr::InsertedId { step: key.clone() });
            }
            _ => return None,
        };
        let mut doc = Vec::new();
        let mut copies = false;
        for f in &items {
            let value = match &f.origin {
                crate::design::FieldOrigin::Id | crate::design::FieldOrigin::Reference { .. }
                    if f.name == "_id" =>
                {
                    Expr::InsertedId { step: key.clone() }
                }
                crate::design::FieldOrigin::Copy {
                    entity: of, field, ..
                } if entities.contains(of) && f.required => {
                    copies = true;
                    Expr::FieldOf {
                        param: param.clone(),
                        field: field.clone(),
                    }
                }
                _ => return None,
            };
            doc.push((f.name.clone(), value));
        }
        copies.then_some(Expr::Doc(doc))
    }

    /// The element an upsert adds to array `path` when no element holds
    /// its key (the step's filter tests the key with `$ne`): a new `_id`,
    /// the key's values from the same parameters the filter compares, and
    /// the amounts the `$inc` before it adds and the values its `$set`
    /// gives (`{_id: ObjectId(), kind: kind, qty: amount}`). The whole element is built, so the caller
    /// passes none; the model file refused a required field neither gives.
    fn upserted_item(&mut self, step: &Step, path: &str) -> Option<Expr> {
        let inside = format!("{path}.");
        let keys: Vec<String> = step
            .filter
            .iter()
            .filter(|f| f.value_from == ValueSource::NotHeld && f.path.starts_with(&inside))
            .map(|f| f.path.clone())
            .collect();
        if keys.is_empty() {
            return None;
        }
        let c = step.collection.clone();
        let items = match &self
            .collection(&c)?
            .shape
            .fields
            .iter()
            .find(|f| f.name == path)?
            .ty
        {
            ShapeType::Array { items, .. } => match items.as_ref() {
                ShapeType::Object { shape } => shape.fields.clone(),
                _ => return None,
            },
            _ => return None,
        };
        // The `$inc` the push stands in for, the write just before it.
        let positional = format!("{path}.$.");
        let added: Vec<(String, Expr)> = self
            .steps
            .iter()
            .rev()
            .find(|s| s.collection == c)
            .map(|s| {
                s.updates
                    .iter()
                    .filter_map(|u| match u {
                        // The amounts it adds, and the values its `$set`
                        // gives the changed fields (a grant's date).
                        Update::Inc(p, e) | Update::Set(p, e) => p
                            .strip_prefix(&positional)
                            .map(|leaf| (leaf.to_string(), e.clone())),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut doc = Vec::new();
        for f in &items {
            let at = format!("{inside}{}", f.name);
            let value = if f.name == "_id" {
                Expr::NewId
            } else if keys.contains(&at) {
                Expr::Param(self.param_named(&c, &at, ParamKind::Value, "", None))
            } else if let Some((_, e)) = added.iter().find(|(leaf, _)| *leaf == f.name) {
                e.clone()
            } else {
                continue;
            };
            doc.push((f.name.clone(), value));
        }
        Some(Expr::Doc(doc))
    }

    /// The id a link adds to array `path` of `collection` (ids of the
    /// other side, no copies): the parameter for the linked instance's
    /// `_id` in its own collection. `None` outside a link, for a
    /// relationship of an entity with itself (both ids would share one
    /// name), or where the other side has no collection of its own.
    fn linked_id(&mut self, collection: &str, path: &str) -> Option<Expr> {
        if !self.linking {
            return None;
        }
        let here = self.collection(collection)?;
        let relationship = here
            .shape
            .fields
            .iter()
            .find_map(|f| match (&f.ty, &f.origin) {
                (
                    ShapeType::Array { items, .. },
                    crate::design::FieldOrigin::Reference { relationship, .. },
                ) if f.name == path && matches!(items.as_ref(), ShapeType::Scalar { .. }) => {
                    Some(relationship.clone())
                }
                _ => None,
            })?;
        let rel = self
            .design
            .relationships
            .iter()
            .find(|r| r.relationship == relationship)?;
        if rel.parent == rel.child {
            return None;
        }
        let other = if here.entities.contains(&rel.parent) {
            &rel.child
        } else {
            &rel.parent
        };
        let home = self
            .design
            .collections
            .iter()
            .find(|c| c.entities.first() == Some(other))?
            .name
            .clone();
        Some(Expr::Param(self.param(&home, "_id", ParamKind::Value, "")))
    }

    /// The relationship a computed field of `collection` at `path` is kept over.
    fn computed_relationship(&self, collection: &str, path: &str) -> Option<String> {
        match &self.field_at(collection, path)?.origin {
            crate::design::FieldOrigin::Computed { relationship, .. } => Some(relationship.clone()),
            _ => None,
        }
    }

    /// The BSON type the shape of collection `name` gives its top-level
    /// field `path` (`None` when the shape does not say).
    fn bson_type(&self, name: &str, path: &str) -> Option<String> {
        self.collection(name).and_then(|c| {
            c.shape.fields.iter().find_map(|f| match &f.ty {
                crate::design::ShapeType::Scalar { bson_type, .. } if f.name == path => {
                    Some(bson_type.clone())
                }
                _ => None,
            })
        })
    }

    /// For a filter fed by an earlier step: which field of that step's
    /// documents holds the values.
    fn source_path(&self, from: &StepCode, target: &Step, filter_path: &str) -> String {
        if filter_path != "_id" && !filter_path.ends_with("._id") {
            // Children that point at the parent: the parent's `_id`, or,
            // when the earlier step read other documents (the follows of a
            // reader, for the posts of the accounts followed), the
            // reference they hold to that parent — not the one that step
            // matched on, which is the value it was given.
            let wanted = self
                .collection(&target.collection)
                .and_then(|c| canonical(self.design, c, filter_path));
            if let (Some((entity, _)), Some(src)) = (wanted, self.collection(&from.collection))
                && src.entities.first() != Some(&entity)
            {
                let matched: Vec<&String> = from.filter.iter().map(|(p, _)| p).collect();
                let mut refs = src.shape.fields.iter().filter(|f| {
                    matches!(f.origin, crate::design::FieldOrigin::Reference { .. })
                        && canonical(self.design, src, &f.name).as_ref()
                            == Some(&(entity.clone(), "_id".to_string()))
                });
                if let Some(f) = refs
                    .clone()
                    .find(|f| !matched.contains(&&f.name))
                    .or(refs.next())
                {
                    return f.name.clone();
                }
            }
            return "_id".to_string();
        }
        let Some(src) = self.collection(&from.collection) else {
            return "_id".to_string();
        };
        // The entity whose ids the filter wants, and a field of the earlier
        // step's documents that holds ids of that entity.
        let wanted = self
            .collection(&target.collection)
            .and_then(|c| canonical(self.design, c, filter_path));
        if let Some((entity, _)) = &wanted {
            if src.entities.first() == Some(entity) {
                return "_id".to_string();
            }
            // The field the plan has the earlier step return for it (the
            // products an order's items name: `items.product`).
            if let Some(p) = from.projection.iter().find(|p| {
                canonical(self.design, src, p).as_ref()
                    == Some(&(entity.clone(), "_id".to_string()))
            }) {
                return p.clone();
            }
            if let Some(f) = src.shape.fields.iter().find(|f| {
                matches!(f.origin, crate::design::FieldOrigin::Reference { .. })
                    && canonical(self.design, src, &f.name).as_ref()
                        == Some(&(entity.clone(), "_id".to_string()))
            }) {
                return f.name.clone();
            }
        }
        let target_entities: Vec<&String> = self
            .collection(&target.collection)
            .map(|c| c.entities.iter().collect())
            .unwrap_or_default();
        let rel_child = |rel: &str| -> bool {
            self.design.relationships.iter().any(|d| {
                d.relationship == rel
                    && (target_entities.contains(&&d.child) || target_entities.contains(&&d.parent))
            })
        };
        src.shape
            .fields
            .iter()
            .find(|f| match &f.origin {
                crate::design::FieldOrigin::Reference { relationship, .. } => {
                    rel_child(relationship)
                }
                _ => false,
            })
            .map(|f| f.name.clone())
            .unwrap_or_else(|| "_id".to_string())
    }

    fn filter_expr(&mut self, step: &Step, f: &StepFilter) -> Expr {
        let path = f.path.as_str();
        // A value read by an earlier step of the plan.
        if let ValueSource::FromStep { step: n } = f.value_from
            && n >= 1
            && n <= self.steps.len()
        {
            let from = self.steps[n - 1].clone();
            // A subtree's ids: the node's own and those found below it.
            if from.subtree
                && let Some(g) = &from.graph
            {
                return Expr::SubtreeIds {
                    step: from.key,
                    into: g.into.clone(),
                };
            }
            let src = self.source_path(&from, step, path);
            if !from.projection.is_empty() && !from.projection.contains(&src) && src != "_id" {
                self.steps[n - 1].projection.push(src.clone());
            }
            return Expr::IdsFrom {
                step: from.key,
                path: src,
            };
        }
        // Values several earlier steps read, matched together.
        if let ValueSource::FromSteps { steps } = &f.value_from {
            let mut all = Vec::new();
            let known = self.steps.len();
            for &n in steps.iter().filter(|&&n| n >= 1 && n <= known) {
                let from = self.steps[n - 1].clone();
                let src = self.source_path(&from, step, path);
                if !from.projection.is_empty() && !from.projection.contains(&src) && src != "_id" {
                    self.steps[n - 1].projection.push(src.clone());
                }
                all.push((from.key, src));
            }
            return Expr::IdsFromAll(all);
        }
        // The new parent's id is the value the child's reference takes
        // with this operation: the `$set` of that reference names the same
        // parameter (`new_person_id`), so the caller passes it once.
        if matches!(f.value_from, ValueSource::New { .. }) && f.op == FilterOp::Eq {
            return Expr::Param(self.param_named(
                &step.collection,
                path,
                ParamKind::Value,
                "new_",
                None,
            ));
        }
        // A value of its own gets a parameter named after what it is.
        let own = match &f.value_from {
            ValueSource::Param | ValueSource::FromStep { .. } | ValueSource::FromSteps { .. } => {
                None
            }
            ValueSource::Below { limit } => return Expr::Below(*limit),
            ValueSource::Unexpired { seconds } => return Expr::Unexpired(*seconds),
            ValueSource::RoomFor { limit } => {
                return Expr::RoomFor {
                    max: *limit,
                    list: CHUNK.to_string(),
                };
            }
            ValueSource::Above { limit } => return Expr::Above(*limit),
            ValueSource::Missing => return Expr::Missing,
            // The same parameter as the write before it names the key by.
            ValueSource::NotHeld => {
                return Expr::NotEqual(self.param_named(
                    &step.collection,
                    path,
                    ParamKind::Value,
                    "",
                    None,
                ));
            }
            // A bucket's dates against the window its children are tested
            // by: the same parameters (`ts_from`, `ts_to`).
            ValueSource::WindowStart { field } => {
                let p = self.param_named(&step.collection, field, ParamKind::From, "", None);
                return Expr::AtLeast(p);
            }
            ValueSource::WindowEnd { field } => {
                let p = self.param_named(&step.collection, field, ParamKind::To, "", None);
                return Expr::Under(p);
            }
            // A time bucket's key in the window: the children's own
            // parameters, the start truncated to the bucket's unit.
            ValueSource::WindowKey { field, unit } => {
                return Expr::KeyInWindow {
                    from: self.param_named(&step.collection, field, ParamKind::From, "", None),
                    to: self.param_named(&step.collection, field, ParamKind::To, "", None),
                    unit: unit.clone(),
                };
            }
            ValueSource::Old { field } => Some(format!("old_{field}")),
            ValueSource::New { field } => Some(format!("new_{field}")),
            ValueSource::LinkId { field } => Some(format!("{field}_id")),
            ValueSource::Truncated { field, unit } => Some(format!("{field}_{unit}")),
            ValueSource::Literal { value } => Some(value.clone()),
        };
        let own = own.as_deref();
        match f.op {
            FilterOp::In => {
                Expr::In(self.param_named(&step.collection, path, ParamKind::List, "", own))
            }
            FilterOp::Range => Expr::Range(
                self.param(&step.collection, path, ParamKind::From, ""),
                self.param(&step.collection, path, ParamKind::To, ""),
            ),
            FilterOp::Eq if self.is_attributes(&step.collection, path) => {
                let leaf = path.rsplit('.').next().unwrap_or(path);
                let (k, v) = (format!("{path}.k"), format!("{path}.v"));
                let (kn, vn) = (format!("{leaf}_name"), format!("{leaf}_value"));
                Expr::Pair(
                    self.param_named(&step.collection, &k, ParamKind::Value, "", Some(&kn)),
                    self.param_named(&step.collection, &v, ParamKind::Value, "", Some(&vn)),
                )
            }
            FilterOp::Eq | FilterOp::Under => {
                Expr::Param(self.param_named(&step.collection, path, ParamKind::Value, "", own))
            }
            // A point the caller gives (GeoJSON), as a value of the field.
            FilterOp::Near | FilterOp::Within | FilterOp::Intersects => {
                let metres = f.radius_m.map(|m| m.round() as u64);
                match (f.op, metres) {
                    (FilterOp::Near, m) => Expr::Near {
                        point: self.param_named(&step.collection, path, ParamKind::Value, "", own),
                        metres: m.unwrap_or(0),
                    },
                    (FilterOp::Within, Some(metres)) => Expr::WithinCircle {
                        point: self.param_named(&step.collection, path, ParamKind::Value, "", own),
                        metres,
                    },
                    (FilterOp::Within, None) => Expr::WithinArea(self.param_named(
                        &step.collection,
                        path,
                        ParamKind::Value,
                        "",
                        Some(&format!("{}_area", plain_path(path))),
                    )),
                    _ => Expr::Intersects(self.param_named(
                        &step.collection,
                        path,
                        ParamKind::Value,
                        "",
                        Some("point"),
                    )),
                }
            }
        }
    }

    /// Whether `path` of `collection`'s documents is an `attributes` field.
    fn is_attributes(&self, collection: &str, path: &str) -> bool {
        let Some(c) = self
            .design
            .collections
            .iter()
            .find(|c| c.name == collection)
        else {
            return false;
        };
        let mut fields = &c.shape.fields;
        let mut segments = path.split('.').peekable();
        while let Some(seg) = segments.next() {
            let Some(f) = fields.iter().find(|f| f.name == seg) else {
                return false;
            };
            if segments.peek().is_none() {
                return f.is_attributes();
            }
            fields = match &f.ty {
                crate::design::ShapeType::Object { shape } => &shape.fields,
                crate::design::ShapeType::Array { items, .. } => match items.as_ref() {
                    crate::design::ShapeType::Object { shape } => &shape.fields,
                    _ => return false,
                },
                crate::design::ShapeType::Scalar { .. } => return false,
            };
        }
        false
    }

    /// The value a condition compares with, as the cookbook writes it: a
    /// constant as it is; the caller's amount as the parameter its
    /// `$inc` takes too (one parameter, the same value in both).
    fn tested(
        &mut self,
        collection: &str,
        path: &str,
        value: &crate::model::Literal,
    ) -> crate::model::Literal {
        match value {
            crate::model::Literal::Amount(a) => crate::model::Literal::Amount(self.param_named(
                collection,
                path,
                ParamKind::Amount,
                "",
                Some(a),
            )),
            // A value the caller passes for the test alone, under the
            // name the model gives it (`expected`).
            crate::model::Literal::Param(p) => crate::model::Literal::Param(self.param_named(
                collection,
                path,
                ParamKind::Value,
                "",
                Some(p),
            )),
            v => v.clone(),
        }
    }

    fn update(&mut self, step: &Step, op: &UpdateOp) -> Update {
        let c = step.collection.clone();
        if let UpdateOp::Inc {
            path,
            by: None,
            amount: None,
        }
        | UpdateOp::Dec { path } = op
            && step.every.is_none()
            && let Some(by) = self.subset_amount(step, path, matches!(op, UpdateOp::Dec { .. }))
        {
            return Update::Inc(path.clone(), by);
        }
        match op {
            UpdateOp::Set { path } => Update::Set(
                path.clone(),
                self.of_batch(&c, path, None)
                    .or_else(|| self.of_inserted(&c, path, None))
                    .or_else(|| self.set_value(&c, path).map(Expr::Param))
                    .unwrap_or_else(|| Expr::Param(self.param(&c, path, ParamKind::Value, "new_"))),
            ),
            UpdateOp::Unset { path } => Update::Unset(path.clone()),
            // The value the filter tests the figure against: the parameter
            // the test takes, so the write changes nothing.
            UpdateOp::SetOld { path, field } => {
                let old = format!("old_{field}");
                Update::Set(
                    path.clone(),
                    Expr::Param(self.param_named(&c, path, ParamKind::Value, "", Some(&old))),
                )
            }
            UpdateOp::SetOnInsert { path } => Update::SetOnInsert(
                path.clone(),
                self.of_batch(&c, path, Some(crate::model::AggregateFn::First))
                    .or_else(|| self.of_inserted(&c, path, Some(crate::model::AggregateFn::First)))
                    .unwrap_or_else(|| Expr::Param(self.param(&c, path, ParamKind::Value, ""))),
            ),
            // The amount the model states, written as a literal: no caller
            // can pass another (a `+1` or a `-5` under a guard for `-1`).
            // The caller's amount, the one parameter the write's condition
            // compares with (`available >= quantity`), negated where the
            // model takes it away.
            UpdateOp::Inc {
                path,
                by,
                amount: Some(amount),
            } => {
                let name = self.param_named(&c, path, ParamKind::Amount, "", Some(amount));
                if by.is_some_and(|b| b < 0.0) {
                    Update::Inc(path.clone(), Expr::Negated(name))
                } else {
                    Update::Inc(path.clone(), Expr::Param(name))
                }
            }
            UpdateOp::Inc {
                path, by: Some(by), ..
            } => Update::Inc(path.clone(), Expr::Amount(*by)),
            // A batched counter adds what the application added up.
            UpdateOp::Inc { path, .. } if step.every.is_some() => Update::Inc(
                path.clone(),
                Expr::Param(self.param(&c, path, ParamKind::Value, "added_")),
            ),
            // After a batch insert, a count of the children goes up by the
            // batch's number (a sum by its sum, which the caller passes as
            // for one child); a guard's version still by one.
            UpdateOp::Inc { path, .. }
                if is_counter(path) && path != crate::design::VERSION && self.batch.is_some() =>
            {
                Update::Inc(
                    path.clone(),
                    Expr::LengthOf(self.batch.clone().unwrap_or_default()),
                )
            }
            UpdateOp::Inc { path, .. } => {
                let by = if is_counter(path) {
                    Expr::Number(1)
                } else if let Some(sum) =
                    self.of_batch(&c, path, Some(crate::model::AggregateFn::Sum))
                {
                    // A sum after a batch: the children's amounts added up.
                    sum
                } else if let Some(own) =
                    self.of_inserted(&c, path, Some(crate::model::AggregateFn::Sum))
                {
                    // After one child's insert: its own amount.
                    own
                } else {
                    Expr::Param(self.param(&c, path, ParamKind::Value, "add_"))
                };
                Update::Inc(path.clone(), by)
            }
            // A count falls by one; a sum by the removed child's value,
            // which the caller passes negated.
            UpdateOp::Dec { path } => {
                let by = if is_counter(path) {
                    Expr::Number(-1)
                } else {
                    Expr::Param(self.param(&c, path, ParamKind::Value, "minus_"))
                };
                Update::Inc(path.clone(), by)
            }
            UpdateOp::Min { path } => Update::Min(
                path.clone(),
                self.of_batch(&c, path, Some(crate::model::AggregateFn::Min))
                    .or_else(|| self.of_inserted(&c, path, Some(crate::model::AggregateFn::Min)))
                    .unwrap_or_else(|| Expr::Param(self.param(&c, path, ParamKind::Value, ""))),
            ),
            UpdateOp::Max { path } => Update::Max(
                path.clone(),
                self.of_batch(&c, path, Some(crate::model::AggregateFn::Max))
                    .or_else(|| self.of_inserted(&c, path, Some(crate::model::AggregateFn::Max)))
                    .unwrap_or_else(|| Expr::Param(self.param(&c, path, ParamKind::Value, ""))),
            ),
            // The ids a batch insert just gave, all of them.
            UpdateOp::Push {
                path,
                sort: None,
                slice: None,
            } if self.batch_ids.is_some() => Update::Push {
                path: path.clone(),
                item: Expr::InsertedIds {
                    step: self.batch_ids.clone().unwrap_or_default().0,
                },
                sort: None,
                slice: None,
            },
            // A batch's children pushed at once, `$each` of their list.
            UpdateOp::Push { path, sort, slice } => Update::Push {
                path: path.clone(),
                item: match &self.batch_items {
                    Some(list) => Expr::Items(list.clone()),
                    None => self
                        .upserted_item(step, path)
                        .or_else(|| self.linked_item(&c, path))
                        .or_else(|| self.inserted_item(&c, path))
                        .unwrap_or_else(|| Expr::Param(self.param(&c, path, ParamKind::Item, ""))),
                },
                sort: sort.clone(),
                slice: *slice,
            },
            UpdateOp::AddToSet { path } => Update::AddToSet(
                path.clone(),
                self.linked_id(&c, path)
                    .unwrap_or_else(|| Expr::Param(self.param(&c, path, ParamKind::Item, ""))),
            ),
            // The moved node is the one the step's filter names (its id in
            // the path); the new parent's path was read by an earlier step.
            UpdateOp::Rebase { path } => {
                let coll = self.collection(&c);
                let objects = coll.is_some_and(|c| array_of_objects(c, path));
                let tree = coll.and_then(|c| path_tree(c, path));
                let node_path = if objects {
                    format!("{path}._id")
                } else {
                    path.clone()
                };
                let node = self.param(&c, &node_path, ParamKind::Value, "");
                match tree.and_then(|t| self.new_path_source(&t)) {
                    Some(from) => Update::Rebase {
                        path: path.clone(),
                        node,
                        objects,
                        from,
                    },
                    // No step read it: the caller passes the new path.
                    None => Update::Set(
                        path.clone(),
                        Expr::Param(self.param(&c, path, ParamKind::Value, "new_")),
                    ),
                }
            }
            // A bucket's elements changed and its figures computed again, in
            // one update pipeline: the values set are parameters, as a
            // `$set` through the positional `$` took them.
            UpdateOp::SetElements { path, fields, adds } => Update::SetElements {
                path: path.clone(),
                fields: fields
                    .iter()
                    .map(|f| {
                        let at = format!("{path}.{f}");
                        (
                            f.clone(),
                            Expr::Param(self.param(&c, &at, ParamKind::Value, "new_")),
                        )
                    })
                    .collect(),
                // An amount added to each matched element: the model's
                // constant, or the caller's amount by its name (negated
                // where the model takes it away), as an `$inc` writes it.
                adds: adds
                    .iter()
                    .filter_map(|a| match a {
                        UpdateOp::Inc {
                            path: f,
                            by,
                            amount: Some(amount),
                        } => {
                            let at = format!("{path}.{f}");
                            let name =
                                self.param_named(&c, &at, ParamKind::Amount, "", Some(amount));
                            Some((
                                f.clone(),
                                if by.is_some_and(|b| b < 0.0) {
                                    Expr::Negated(name)
                                } else {
                                    Expr::Param(name)
                                },
                            ))
                        }
                        UpdateOp::Inc {
                            path: f,
                            by: Some(by),
                            ..
                        } => Some((f.clone(), Expr::Amount(*by))),
                        _ => None,
                    })
                    .collect(),
            },
            UpdateOp::DropElements { path } => Update::DropElements(path.clone()),
            UpdateOp::PullExpired {
                path,
                field,
                seconds,
            } => Update::PullExpired {
                path: path.clone(),
                field: field.clone(),
                seconds: *seconds,
            },
            // The figure an earlier find read from the children.
            UpdateOp::SetFrom {
                path,
                step: n,
                field,
                function,
            } => match self.steps.get(n.wrapping_sub(1)) {
                Some(found) => Update::Set(
                    path.clone(),
                    Expr::FirstOf {
                        step: found.key.clone(),
                        path: field.clone(),
                        function: *function,
                    },
                ),
                None => Update::Set(
                    path.clone(),
                    Expr::Param(self.param(&c, path, ParamKind::Value, "new_")),
                ),
            },
            // The new parent as the find before read it: the write fails
            // there when it found none (`must_find`).
            UpdateOp::CopyFrom {
                path,
                step: n,
                field,
            } => match self.steps.get_mut(n.wrapping_sub(1)) {
                Some(found) if found.action == Action::Find => {
                    found.must_find = true;
                    Update::Set(
                        path.clone(),
                        Expr::FoundField {
                            step: found.key.clone(),
                            field: field.clone(),
                        },
                    )
                }
                _ => Update::Set(
                    path.clone(),
                    Expr::Param(self.param(&c, path, ParamKind::Value, "new_")),
                ),
            },
            UpdateOp::Recompute {
                path,
                function,
                over,
                by,
            } => Update::Recompute {
                path: path.clone(),
                function: *function,
                over: over.clone(),
                by: by.clone(),
                bson_type: self.bson_type(&step.collection, path),
            },
            UpdateOp::Reset { path, function } => Update::Reset {
                path: path.clone(),
                function: *function,
                bson_type: self.bson_type(&step.collection, path),
            },
            // An id inside objects (`tracks._id`): `$pull` takes the array
            // and a condition on its elements.
            // Elements the filter tests (an embedded child deleted by its
            // id, the children a deleted parent owns by its id in each):
            // those tests pick them.
            UpdateOp::Pull { path }
                if step.filter.iter().any(|f| {
                    f.path
                        .strip_prefix(path.as_str())
                        .is_some_and(|r| r.starts_with('.'))
                }) =>
            {
                Update::PullWhere(path.clone())
            }
            UpdateOp::Pull { path } => match path.strip_suffix("._id") {
                Some(array) => Update::Pull(
                    array.to_string(),
                    Expr::IdIs(self.param(&c, path, ParamKind::Item, "old_")),
                ),
                None => Update::Pull(
                    path.clone(),
                    Expr::Param(self.param(&c, path, ParamKind::Item, "old_")),
                ),
            },
        }
    }
}

impl Builder<'_> {
    /// A bulk write's objects: the related instances in the documents the
    /// earlier step found (the order's items), each holding the written
    /// document's id and its amounts, or a list the caller passes (each
    /// object the document's `_id` and its amount under the field's name).
    fn each(&mut self, step: &Step, each: &crate::design::StepEach) -> EachCode {
        let found = each
            .from_step
            .and_then(|n| self.steps.get(n.wrapping_sub(1)))
            .map(|s| s.key.clone());
        match found {
            Some(key) => {
                // The objects: the deepest path the id and the amounts share.
                let mut common: Vec<&str> = each.id.split('.').collect();
                common.pop();
                for a in &each.amounts {
                    let segs: Vec<&str> = a.from.split('.').collect();
                    let n = common
                        .iter()
                        .zip(&segs[..segs.len().saturating_sub(1)])
                        .take_while(|(x, y)| x == y)
                        .count();
                    common.truncate(n);
                }
                let elements = common.join(".");
                let rel = |p: &str| {
                    if elements.is_empty() {
                        p.to_string()
                    } else {
                        p.strip_prefix(&format!("{elements}."))
                            .unwrap_or(p)
                            .to_string()
                    }
                };
                // Every parent the ids name, its values from its group.
                let touched = each.ids_from.as_ref().and_then(|i| {
                    let ids = self.steps.get(i.step.wrapping_sub(1))?.key.clone();
                    Some(EachSource::Touched {
                        ids,
                        path: i.path.clone(),
                        groups: key.clone(),
                    })
                });
                EachCode {
                    id: rel(&each.id),
                    amounts: each
                        .amounts
                        .iter()
                        .map(|a| (a.path.clone(), rel(&a.from), a.negative))
                        .collect(),
                    sets: each
                        .sets
                        .iter()
                        .map(|x| {
                            (
                                x.path.clone(),
                                rel(&x.from),
                                x.zero.then(|| {
                                    self.bson_type(&step.collection, &x.path)
                                        .unwrap_or_default()
                                }),
                            )
                        })
                        .collect(),
                    source: touched.unwrap_or(EachSource::Step {
                        step: key,
                        elements,
                    }),
                }
            }
            None => {
                let name = self.param_named(
                    &step.collection,
                    "",
                    ParamKind::Documents,
                    "",
                    Some("amounts"),
                );
                EachCode {
                    id: "_id".to_string(),
                    amounts: each
                        .amounts
                        .iter()
                        .map(|a| (a.path.clone(), a.path.clone(), a.negative))
                        .collect(),
                    sets: each
                        .sets
                        .iter()
                        .map(|x| (x.path.clone(), x.path.clone(), None))
                        .collect(),
                    source: EachSource::Param(name),
                }
            }
        }
    }

    /// The latest earlier step that read a node's path of tree `tree`: a
    /// `find` returning the path the nodes keep, or a walk up to the root.
    fn new_path_source(&self, tree: &str) -> Option<NewPath> {
        self.steps.iter().rev().find_map(|s| {
            let coll = self.collection(&s.collection)?;
            match (s.action, &s.graph) {
                (Action::Find, _) => {
                    let field = own_path_field(coll, tree)?;
                    s.projection.contains(&field).then(|| NewPath::Field {
                        step: s.key.clone(),
                        field,
                    })
                }
                (Action::GraphLookup, Some(g))
                    if g.into == "ancestors"
                        && tree_parent_field(coll, tree).as_deref()
                            == Some(g.connect_from.as_str()) =>
                {
                    Some(NewPath::Walk {
                        step: s.key.clone(),
                        into: g.into.clone(),
                        parent: g.connect_from.clone(),
                    })
                }
                _ => None,
            }
        })
    }

    /// What a check needs of a filter on `path` of `collection` when it is
    /// a path from a tree's root.
    fn under_test(&self, collection: &str, path: &str) -> Option<UnderTest> {
        let coll = self.collection(collection)?;
        let head = path.split('.').next()?;
        let field = coll.shape.fields.iter().find(|f| f.name == head)?;
        let crate::design::FieldOrigin::Path { tree, via } = &field.origin else {
            return None;
        };
        let d = self
            .design
            .relationships
            .iter()
            .find(|d| d.relationship == *tree)?;
        let tree_coll = self
            .design
            .collections
            .iter()
            .find(|c| c.entities.first() == Some(&d.parent))?;
        let node_field = match via {
            None => "_id".to_string(),
            Some(v) => reference_field(coll, v)?,
        };
        Some(UnderTest {
            path: path.to_string(),
            tree_collection: tree_coll.name.clone(),
            parent_field: tree_parent_field(tree_coll, tree)?,
            node_field,
        })
    }
}

/// Whether top-level `path` of the collection is an array of objects.
fn array_of_objects(coll: &Collection, path: &str) -> bool {
    coll.shape.fields.iter().any(|f| {
        f.name == path
            && matches!(&f.ty, ShapeType::Array { items, .. } if matches!(items.as_ref(), ShapeType::Object { .. }))
    })
}

/// The tree whose path top-level field `path` keeps.
fn path_tree(coll: &Collection, path: &str) -> Option<String> {
    coll.shape.fields.iter().find_map(|f| match &f.origin {
        crate::design::FieldOrigin::Path { tree, .. } if f.name == path => Some(tree.clone()),
        _ => None,
    })
}

/// The field a tree's node keeps its own path from the root in.
fn own_path_field(coll: &Collection, tree: &str) -> Option<String> {
    coll.shape.fields.iter().find_map(|f| match &f.origin {
        crate::design::FieldOrigin::Path { tree: t, via: None } if t == tree => {
            Some(f.name.clone())
        }
        _ => None,
    })
}

/// The scalar reference of a top-level field through `relationship`.
fn reference_field(coll: &Collection, relationship: &str) -> Option<String> {
    coll.shape.fields.iter().find_map(|f| match &f.origin {
        crate::design::FieldOrigin::Reference {
            relationship: r, ..
        } if r == relationship && matches!(f.ty, ShapeType::Scalar { .. }) => Some(f.name.clone()),
        _ => None,
    })
}

/// The field a tree's node keeps its parent's id in (`parent`).
fn tree_parent_field(coll: &Collection, tree: &str) -> Option<String> {
    reference_field(coll, tree)
}

/// Turns a path of an update into its positional form when it goes through an
/// array of the collection: `parts.name` → `parts.$[e].name`.
fn positional(path: &str, prefix: &str) -> String {
    format!("{prefix}.$[e].{}", &path[prefix.len() + 1..])
}

/// Whether the index of `step` keys `_id` right after `key`: items that
/// tie on the key come in `_id` order, so a page's edge can fall between
/// them.
fn id_after(coll: Option<&Collection>, step: &Step, key: &str) -> bool {
    coll.and_then(|c| {
        c.indexes
            .iter()
            .find(|i| step.index.as_ref() == Some(&i.name))
    })
    .is_some_and(|i| i.keys.windows(2).any(|w| w[0].0 == key && w[1].0 == "_id"))
}

/// The field an unwound child's position in its bucket comes in.
const POSITION: &str = "_position";

/// A keyset page of children kept in buckets (`BucketKeyset`): the
/// cursor's keys past the sort's (the bucket's `_id`, then the child's
/// position in it, each with its parameter), and the test of the buckets
/// that can hold a child past the cursor, on the bucket's first (last)
/// date where the bucket keeps them (a count bucket; a time bucket's own
/// key is left to the children's test).
fn bucket_cursor(
    b: &mut Builder,
    coll: Option<&Collection>,
    step: &Step,
    after: &str,
    param: &str,
    descending: bool,
) -> (super::code::BucketKeyset, Vec<(String, String)>) {
    let bucket = b.param_named(
        &step.collection,
        "_id",
        ParamKind::Value,
        "",
        Some("after_bucket"),
    );
    let position = b.param_named(
        &step.collection,
        POSITION,
        ParamKind::Value,
        "",
        Some("after_position"),
    );
    let field = after.rsplit('.').next().unwrap_or(after);
    let (first, last) = (format!("first_{field}"), format!("last_{field}"));
    let holds = |f: &str| coll.is_some_and(|c| c.example.get(f).is_some());
    // A time bucket is keyed by the start of its unit (`hour`).
    let unit = step
        .bucket_order
        .as_ref()
        .and_then(|o| o.sort.first())
        .map(|(k, _)| k.clone())
        .filter(|k| crate::model::TIME_UNITS.iter().any(|(u, _)| u == k));
    let buckets = if holds(&first) && holds(&last) {
        Some(super::code::BucketCursor {
            field: if descending { first } else { last },
            at: param.to_string(),
            bucket: Some(bucket.clone()),
            unit: None,
            descending,
        })
    } else {
        unit.map(|u| super::code::BucketCursor {
            field: u.clone(),
            at: param.to_string(),
            bucket: None,
            unit: Some(u),
            descending,
        })
    };
    (
        super::code::BucketKeyset {
            position: POSITION.to_string(),
            buckets,
        },
        vec![
            ("_id".to_string(), bucket),
            (POSITION.to_string(), position),
        ],
    )
}

/// Whether the elements of `array` in the collection's example document
/// carry an `_id` of their own (children embedded one by one do; a
/// bucket's children do not).
fn element_has_id(coll: Option<&Collection>, array: &str) -> bool {
    coll.and_then(|c| c.example.get(array))
        .and_then(|a| a.as_array())
        .and_then(|a| a.first())
        .is_some_and(|e| e.get("_id").is_some())
}

/// The cookbook form of one operation plan.
pub fn op_code(design: &Design, plan: &OperationPlan) -> OpCode {
    let mut b = Builder {
        design,
        params: Vec::new(),
        keys: Vec::new(),
        steps: Vec::new(),
        batch: None,
        batch_items: None,
        inserted: None,
        copied: None,
        linking: false,
        batch_ids: None,
        set_to: &plan.set_to,
    };
    let new_parent_read = new_parent_read(design, plan);
    for (at, step) in plan.steps.iter().enumerate() {
        let mut key = ident(&step.collection);
        if b.steps.iter().any(|s| s.key == key) {
            key = format!("{key}_{}", b.steps.len() + 1);
        }
        let coll = b.collection(&step.collection).cloned();
        // A bucket upsert only adds to a bucket with room: the counter is
        // bounded by the array's maxItems instead of matched on a value, or
        // the `$push` would grow the array past the validator's bound.
        let bound = if step.action == Action::Upsert {
            coll.as_ref().and_then(|c| bucket_bound(c, step))
        } else {
            None
        };
        // A batch's children: their list, pushed whole into the host, or
        // into buckets a chunk at a time (`Chunks`), the bound then the
        // room for the whole chunk (issue 41).
        let batch_list = step
            .batch
            .then(|| {
                step.updates.iter().find_map(|u| match u {
                    UpdateOp::Push { path, .. } => Some(path.clone()),
                    _ => None,
                })
            })
            .flatten()
            .map(|path| b.param(&step.collection, &path, ParamKind::Items, ""));
        let chunks = match (&batch_list, &bound) {
            (Some(list), Some((counter, max))) => Some(super::code::Chunks {
                list: list.clone(),
                per: *max,
                close: step
                    .filter
                    .iter()
                    .any(|f| {
                        f.path == *counter && matches!(f.value_from, ValueSource::RoomFor { .. })
                    })
                    .then(|| counter.clone()),
            }),
            _ => None,
        };
        let room = |max: u64| match &chunks {
            Some(_) => Expr::RoomFor {
                max,
                list: CHUNK.to_string(),
            },
            None => Expr::Below(max),
        };
        let mut filter = Vec::new();
        let mut sort = step.sort.clone();
        for f in &step.filter {
            if let Some((counter, max)) = &bound
                && f.path == *counter
            {
                filter.push((counter.clone(), room(*max)));
                continue;
            }
            // The read of a moved node's new parent: its id is the value
            // the move sets the node's reference to (`new_category_id`).
            if let Some((read, relink)) = &new_parent_read
                && *read == at
                && f.path == "_id"
            {
                let p = b.param(&step.collection, relink, ParamKind::Value, "new_");
                filter.push((f.path.clone(), Expr::Param(p)));
                continue;
            }
            // A condition that fixes the path to a constant (a claim's
            // `status = pending` on its `{status: eq}` filter) is the test:
            // no parameter asks the caller for a value the write ignores.
            if let Some(c) = step.conditions.iter().find(|c| {
                c.path == f.path
                    && c.test == crate::model::Test::Eq
                    && !matches!(c.value, crate::model::Literal::Field(_))
                    && c.plus.is_none()
            }) {
                let value = b.tested(&step.collection, &c.path, &c.value);
                filter.push((f.path.clone(), Expr::Test(c.test, value)));
                continue;
            }
            let mut e = b.filter_expr(step, f);
            // Two paths of one step that stand for the same entity's field
            // (a follow's `follower._id` and `following._id`, both a
            // user's id) take two values: the second is named after its path.
            if let Expr::Param(name) = &e
                && filter
                    .iter()
                    .any(|(_, x): &(String, Expr)| matches!(x, Expr::Param(n) if n == name))
            {
                let own = plain_path(&f.path).replace('.', "_");
                e = Expr::Param(b.param_named(
                    &step.collection,
                    &f.path,
                    ParamKind::Value,
                    "",
                    Some(&own),
                ));
            }
            filter.push((f.path.clone(), e));
        }
        held_by_none(coll.as_ref(), &mut filter);
        // Keyset paging: the next page is a range from the sort key of the
        // last item seen, never a `skip` (unless the filter tests that key
        // already, as a range of its own).
        // Children kept in buckets (`bucket_order`) are tested by the
        // window on the same date at both levels: the cursor comes beside
        // it (audit48 A10).
        let bucketed = step.elements.is_some() && step.bucket_order.is_some();
        let mut bucket_keyset = None;
        if step.action == Action::Find
            && let Some(p) = &step.paging
            && p.by == crate::model::PagingBy::Keyset
            && let Some(after) = &p.after
            && (bucketed || !filter.iter().any(|(x, _)| x == after))
        {
            let descending = step
                .sort
                .iter()
                .find(|(k, _)| k == after)
                .is_some_and(|(_, d)| *d < 0);
            let param = b.param(&step.collection, after, ParamKind::Value, "after_");
            // A sort of several keys: the page starts after the last
            // item's value of each (`a` past it, or `a` equal and `b` past
            // it, …); the first key alone would skip the rest of its value.
            let mut then: Vec<(String, String, bool)> = p
                .then
                .iter()
                .map(|k| {
                    let desc = step
                        .sort
                        .iter()
                        .find(|(s, _)| s == k)
                        .is_some_and(|(_, d)| *d < 0);
                    let param = b.param(&step.collection, k, ParamKind::Value, "after_");
                    (k.clone(), param, desc)
                })
                .collect();
            let last = p.then.last().unwrap_or(after);
            let last_desc = then.last().map_or(descending, |(_, _, d)| *d);
            // Items that tie on the keys come in `_id` order where the
            // design's index keys `_id` after the last, in its direction,
            // so a page starts after all of them. A key no two items share
            // (a bucket's page number) has no such key and needs none.
            let ties = !bucketed && id_after(coll.as_ref(), step, last);
            let id = ties.then(|| b.param(&step.collection, "_id", ParamKind::Value, "after_"));
            let dir = if last_desc { -1 } else { 1 };
            if ties && !sort.iter().any(|(k, _)| k == "_id") {
                sort.push(("_id".to_string(), dir));
            }
            if bucketed {
                let (keyset, more) =
                    bucket_cursor(&mut b, coll.as_ref(), step, after, &param, descending);
                for (k, v) in more {
                    sort.push((k.clone(), dir));
                    then.push((k, v, last_desc));
                }
                bucket_keyset = Some(keyset);
            }
            filter.push((
                after.clone(),
                Expr::After {
                    param,
                    id,
                    descending,
                    then,
                },
            ));
        }
        // Paging by `skip`: page N skips the N - 1 pages before it, in an
        // order that must not change between two pages' queries. Items
        // that tie on the sort's keys come in `_id` order where the
        // design's index keys `_id` after the sort's last key (as for
        // keyset pages); otherwise the last key is unique (a bucket's
        // page number) and needs none.
        let skip = if step.action == Action::Find
            && step.limit.is_some()
            && step
                .paging
                .as_ref()
                .is_some_and(|p| p.by == crate::model::PagingBy::Skip)
        {
            // Unwound elements are sorted after the unwinding, in no
            // index's order: their own `_id`, where they have one, breaks
            // the ties.
            let own_id = step
                .elements
                .as_ref()
                .filter(|a| element_has_id(coll.as_ref(), a));
            let tie = own_id.map_or_else(|| "_id".to_string(), |a| format!("{a}._id"));
            if let Some((last, dir)) = sort.last().cloned()
                && last != tie
                && (own_id.is_some() || id_after(coll.as_ref(), step, &last))
            {
                sort.push((tie, dir));
            }
            Some(b.param(&step.collection, "", ParamKind::Page, ""))
        } else {
            None
        };
        if let Some((counter, max)) = &bound
            && !filter.iter().any(|(p, _)| p == counter)
        {
            filter.push((counter.clone(), room(*max)));
        }
        // A conditional write tests its constants in the same filter; a
        // claim's equality on the claimed state is that constant. Another
        // test of a path the filter already tests is a pair of its own
        // (`status = status` and `status != retired`): both hold, and the
        // renderer puts a path tested twice under one `$and`
        // (render.rs, `and_repeated`).
        // Conditions on fields of an element the step writes one by one
        // (`lines.$.qty`, or a pipeline's rewrite of `lines`), by array.
        let mut in_elements: Vec<(String, super::code::ElementCompare)> = Vec::new();
        for c in &step.conditions {
            let amount_of = |b: &mut Builder, plus: &crate::model::Plus| {
                let amount = crate::model::Literal::Amount(plus.amount.clone());
                match b.tested(&step.collection, &c.path, &amount) {
                    crate::model::Literal::Amount(amount) => Some(amount),
                    _ => None,
                }
            };
            // Two fields of an element, or one with the caller's amount
            // added: `$expr` cannot go in the element's `$elemMatch`, and
            // on the top-level document `"$lines.qty"` is the array of
            // every element's value (`$add` of it fails, a comparison of
            // two arrays compares them whole). So the test is of the
            // element itself, over the array (`Expr::ElementFields`, after
            // the loop), with the filter's other tests of that element
            // (audit44 M, review47 item 2, issue 41).
            let compared = c.plus.is_some() || matches!(c.value, crate::model::Literal::Field(_));
            if compared && let Some(array) = element_array(step, &c.path) {
                let inside = format!("{array}.");
                let value = match &c.value {
                    crate::model::Literal::Field(other) => other
                        .strip_prefix(&inside)
                        .map(|f| crate::model::Literal::Field(format!("$e.{f}"))),
                    v => Some(b.tested(&step.collection, &c.path, v)),
                };
                let plus = match &c.plus {
                    Some(p) => amount_of(&mut b, p).map(|a| Some((a, p.negative))),
                    None => Some(None),
                };
                if let (Some(value), Some(plus)) = (value, plus) {
                    in_elements.push((
                        array.clone(),
                        super::code::ElementCompare {
                            test: c.test,
                            a: c.path[inside.len()..].to_string(),
                            plus,
                            value,
                        },
                    ));
                }
                continue;
            }
            // Two fields of the document: `$expr`, beside the other tests
            // (two of them go under one `$and`, as a path tested twice).
            // The field with the write's amount added: `$expr` too.
            if let Some(plus) = &c.plus {
                let Some(amount) = amount_of(&mut b, plus) else {
                    continue;
                };
                let value = b.tested(&step.collection, &c.path, &c.value);
                filter.push((
                    "$expr".to_string(),
                    Expr::Added {
                        test: c.test,
                        path: c.path.clone(),
                        amount,
                        negative: plus.negative,
                        value,
                    },
                ));
                continue;
            }
            if let crate::model::Literal::Field(other) = &c.value {
                filter.push((
                    "$expr".to_string(),
                    Expr::Fields(c.test, c.path.clone(), other.clone()),
                ));
                continue;
            }
            let e = Expr::Test(c.test, b.tested(&step.collection, &c.path, &c.value));
            match filter.iter_mut().find(|(p, _)| *p == c.path) {
                Some(slot) if c.test == crate::model::Test::Eq => slot.1 = e,
                _ => filter.push((c.path.clone(), e)),
            }
        }
        // One test per array, with every test of the filter of that
        // element (its key, its tier, a condition on a constant): the
        // document holds an element that passes them all.
        let mut arrays: Vec<&String> = in_elements.iter().map(|(a, _)| a).collect();
        arrays.dedup();
        let mut element_tests = Vec::new();
        for array in arrays {
            let inside = format!("{array}.");
            element_tests.push((
                "$expr".to_string(),
                Expr::ElementFields {
                    array: array.clone(),
                    tests: filter
                        .iter()
                        .filter_map(|(p, e)| {
                            p.strip_prefix(&inside).map(|f| (f.to_string(), e.clone()))
                        })
                        .collect(),
                    compares: in_elements
                        .iter()
                        .filter(|(a, _)| a == array)
                        .map(|(_, c)| c.clone())
                        .collect(),
                },
            ));
        }
        filter.extend(element_tests);
        // A bulk write's amounts per document come from its objects (each
        // `updateOne` its own): no parameter asks the caller for them.
        let per_document = |u: &&UpdateOp| match (u, step.each.as_deref()) {
            (UpdateOp::Inc { path, .. } | UpdateOp::Dec { path }, Some(each)) => {
                each.amounts.iter().any(|a| a.path == *path)
            }
            (UpdateOp::Set { path }, Some(each)) => each.sets.iter().any(|x| x.path == *path),
            _ => false,
        };
        // A parent's figures kept after a batch insert, written once per
        // run into one parent (an archive's batch spread over parents is
        // an `$in` of them, and each parent's share is not known here).
        // A batch pushed into buckets or into its host (`Step::batch`)
        // counts the same way, in the parent's step after it; the batch
        // step's own figures move by its list (the host's), or by its
        // chunk (a bucket's).
        b.batch = plan.steps[..at]
            .iter()
            .rposition(|s| s.action == Action::InsertMany || s.batch)
            .filter(|_| {
                step.every.is_none()
                    && !step.filter.iter().any(|f| f.op == FilterOp::In)
                    && step
                        .purpose
                        .iter()
                        .any(|p| matches!(p, crate::design::Purpose::KeepComputed { .. }))
            })
            .and_then(|i| b.steps.get(i))
            .and_then(|s| {
                s.insert
                    .clone()
                    .or_else(|| s.chunks.as_ref().map(|c| c.list.clone()))
                    .or_else(|| {
                        s.updates.iter().find_map(|u| match u {
                            Update::Push {
                                item: Expr::Items(list),
                                ..
                            } => Some(list.clone()),
                            _ => None,
                        })
                    })
            });
        if let Some(list) = &batch_list {
            let own = if chunks.is_some() { CHUNK } else { list };
            b.batch = Some(own.to_string());
            b.batch_items = Some(own.to_string());
        }
        // The bare ids of a batch's children added to their one parent.
        b.batch_ids = plan.steps[..at]
            .iter()
            .rposition(|s| s.action == Action::InsertMany)
            .filter(|_| {
                !step.filter.iter().any(|f| f.op == FilterOp::In)
                    && step.purpose.iter().any(|p| {
                        matches!(p, crate::design::Purpose::AddId { fields, .. } if fields.is_empty())
                    })
            })
            .and_then(|i| {
                let n = plan.steps[i].documents.round().max(1.0) as u64;
                b.steps.get(i).map(|s| (s.key.clone(), n))
            });
        // The one child an earlier step inserted, for the figures this
        // step keeps of its parent (none after a batch, which `batch` has).
        // It is the document an `insertOne` took, or the item a step
        // pushed into its parent or its bucket.
        let keeps_figures = b.batch.is_none()
            && step.every.is_none()
            && !step.filter.iter().any(|f| f.op == FilterOp::In)
            && step
                .purpose
                .iter()
                .any(|p| matches!(p, crate::design::Purpose::KeepComputed { .. }));
        b.inserted = (0..at.min(b.steps.len()))
            .rev()
            .filter(|_| keeps_figures)
            .find_map(|i| {
                let s = &b.steps[i];
                if plan.steps[i].action == Action::InsertOne {
                    return Some((s.insert.clone()?, s.collection.clone()));
                }
                s.updates.iter().find_map(|u| match u {
                    Update::Push {
                        item: Expr::Param(item),
                        ..
                    } => Some((item.clone(), s.collection.clone())),
                    _ => None,
                })
            });
        // Or the one child this step pushes (a reading into its bucket,
        // a comment into its post): the figures kept beside it move by
        // the pushed item's own values.
        if b.inserted.is_none()
            && b.batch.is_none()
            && b.batch_ids.is_none()
            && step.every.is_none()
        {
            let pushed = step.updates.iter().find_map(|u| match u {
                UpdateOp::Push { path, .. } => Some(path.clone()),
                _ => None,
            });
            if let Some(path) = pushed {
                let item = b.param(&step.collection, &path, ParamKind::Item, "");
                b.inserted = Some((item, step.collection.clone()));
            }
        }
        // A link's write after the read of the linked instance's copies.
        b.linking = step
            .purpose
            .iter()
            .any(|p| matches!(p, crate::design::Purpose::Link { .. }));
        b.copied = b
            .linking
            .then(|| {
                plan.steps[..at]
                    .iter()
                    .enumerate()
                    .rev()
                    .find_map(|(i, s)| {
                        s.purpose.iter().find_map(|p| match p {
                            crate::design::Purpose::ReadCopies { entity, fields }
                                if s.action == Action::Find =>
                            {
                                Some((i, entity.clone(), fields.clone()))
                            }
                            _ => None,
                        })
                    })
            })
            .flatten()
            .filter(|(i, ..)| *i < b.steps.len());
        let mut updates: Vec<Update> = step
            .updates
            .iter()
            .filter(|u| !per_document(u))
            .map(|u| b.update(step, u))
            .collect();
        b.copied = None;
        b.linking = false;
        b.batch = None;
        b.batch_items = None;
        b.inserted = None;
        // A push of a batch's ids needs room for all of them.
        let pushed = b.batch_ids.take().map_or(1, |(_, n)| n);
        let mut array_filters = Vec::new();
        for u in &mut updates {
            // A `$push` into an array the design bounds (and does not keep
            // as the latest K, which `$slice` trims) only writes while the
            // array has room: the document whose array is full is not
            // matched, and the caller sees it, rather than an element
            // silently dropped (a member, an address) or a write the
            // validator refuses.
            // A batch needs room for its whole list: the array's size
            // tested under `$expr` (a position to test depends on the
            // list's length).
            if let Update::Push {
                path, slice, item, ..
            } = u
                && slice.is_none()
                && bound.is_none()
                && let Some(max) = coll.as_ref().and_then(|c| array_bound(c, path))
                && max > 0
            {
                // The same write drops the expired elements: room is
                // counted among the live ones.
                if let Some((field, seconds)) = step.updates.iter().find_map(|x| match x {
                    UpdateOp::PullExpired {
                        path: p,
                        field,
                        seconds,
                    } if p == path => Some((field.clone(), *seconds)),
                    _ => None,
                }) {
                    if !filter.iter().any(|(p, _)| p == "$expr") {
                        filter.push((
                            "$expr".to_string(),
                            Expr::LiveRoomIn {
                                array: path.clone(),
                                field,
                                seconds,
                                max,
                                list: match item {
                                    Expr::Items(list) => Some(list.clone()),
                                    _ => None,
                                },
                            },
                        ));
                    }
                } else if let Expr::Items(list) = item {
                    if !filter.iter().any(|(p, _)| p == "$expr") {
                        filter.push((
                            "$expr".to_string(),
                            Expr::RoomIn {
                                array: path.clone(),
                                max,
                                list: list.clone(),
                            },
                        ));
                    }
                } else {
                    // Room for every id of a batch: at most `max - n` there.
                    let n = if matches!(item, Expr::InsertedIds { .. }) {
                        pushed
                    } else {
                        1
                    };
                    let last = format!("{path}.{}", max.saturating_sub(n));
                    if !filter.iter().any(|(p, _)| *p == last) {
                        filter.push((last, Expr::Missing));
                    }
                }
            }
            // Updates of fields inside array elements use `$[e]`, restricted
            // by the step's filter on the same array when it has one. A path
            // that already names a positional operator (`$`, `$[]`) is kept.
            let path = match u {
                Update::Set(p, _)
                | Update::SetOnInsert(p, _)
                | Update::Inc(p, _)
                | Update::Min(p, _)
                | Update::Max(p, _) => p,
                Update::Unset(p) => p,
                _ => continue,
            };
            // A copy inside a tree's path (`path.$.name`): `$[e]` on the
            // element with the node's id, as for other arrays.
            if let Some(c) = coll.as_ref()
                && let Some(prefix) =
                    path.strip_suffix(&format!(".{}", path.rsplit('.').next().unwrap_or("")))
                && let Some(array) = prefix.strip_suffix(".$")
                && path_tree(c, array).is_some()
            {
                *path = format!("{array}.{}", &path[prefix.len() + 1..]);
            }
            // Many elements the plan writes at once (`lines.$[e].qty`, an
            // update of many embedded children): `e` stands for the
            // elements that pass the filter's tests of that array (the
            // planner writes `$[]` where it has none).
            if let Some((array, _)) = path.split_once(".$[e].") {
                if array_filters.is_empty() {
                    for (fp, e) in &filter {
                        if let Some(rest) = fp.strip_prefix(&format!("{array}.")) {
                            array_filters.push((format!("e.{rest}"), e.clone()));
                        }
                    }
                }
                continue;
            }
            if path.split('.').any(|seg| seg.starts_with('$')) {
                continue;
            }
            if let Some(prefix) = array_prefix(coll.as_ref(), path) {
                *path = positional(path, &prefix);
                if array_filters.is_empty() {
                    for (fp, e) in &filter {
                        if let Some(rest) = fp.strip_prefix(&format!("{prefix}.")) {
                            array_filters.push((format!("e.{rest}"), e.clone()));
                        }
                    }
                    if array_filters.is_empty() {
                        // No element named: every element is updated.
                        *path = path.replace("$[e]", "$[]");
                    }
                }
            }
        }
        let insert = match step.action {
            Action::InsertOne => Some(b.param(&step.collection, "", ParamKind::Document, "")),
            Action::InsertMany => Some(b.param(&step.collection, "", ParamKind::Documents, "")),
            _ => None,
        };
        let each = step.each.as_deref().map(|e| b.each(step, e));
        let next_page = if step.action == Action::Upsert {
            coll.as_ref()
                .and_then(|c| page_taken_retry(c, &filter, &updates))
        } else {
            None
        };
        // A write that tests an element's old value (a bucketed child's
        // edit, issue 41): that test and the element's key hold for one
        // element, or another child holding the old value would let the
        // write through.
        // Likewise a write whose filter tests two fields of one array's
        // elements (an embedded seat's label and its `when: state = free`):
        // apart, a show with some seat A1 and some free seat matches, and the
        // positional `$` has no one element to name (issue 41).
        let elem_match = step
            .filter
            .iter()
            .find(|t| matches!(t.value_from, ValueSource::Old { .. }))
            .and_then(|t| array_prefix(coll.as_ref(), &t.path))
            .or_else(|| {
                (step.action != Action::Find)
                    .then(|| element_tested_twice(coll.as_ref(), &filter))
                    .flatten()
            })
            // A read of an array's elements on its own: its tests of them
            // hold for one element too (a stock line low in *this*
            // warehouse, not a product low in another; issue 41, audit C).
            .or_else(|| step.elements.clone());
        let skip_duplicates =
            step.action == Action::InsertMany && is_archive(b.design, &step.collection);
        let limit_param = (step.action == Action::Find
            && step.limit.is_some()
            && is_archive_find(design, &plan.operation))
        .then(|| b.param(&step.collection, "", ParamKind::Batch, ""));
        // The tests of the elements of arrays returned filtered (an
        // outlier's children of one kind), with the caller's values.
        let slice_filters: Vec<(String, Expr)> = step
            .slices
            .iter()
            .flat_map(|x| x.filter.iter())
            .map(|f| (f.path.clone(), b.filter_expr(step, f)))
            .collect();
        b.steps.push(StepCode {
            slice_filters,
            elem_match,
            each,
            chunks,
            next_page,
            skip_duplicates,
            counts: step.count.is_some(),
            before: step.before,
            must_find: false,
            not_in_tenant: None,
            skip,
            limit_param,
            otherwise: step.otherwise,
            key,
            collection: step.collection.clone(),
            action: step.action,
            filter,
            sort,
            limit: step.limit,
            projection: sliced_projection(design, step),
            slices: step.slices.clone(),
            elements_within: step.elements_within.clone(),
            updates,
            array_filters,
            insert,
            insert_doc: None,
            // Only when an earlier conditional write matched (a parent's
            // figure read again only when the changed child held it).
            // Or when the delete of a time bucket just before that write
            // deleted the bucket with the child in it.
            when: step
                .if_deleted_all
                .as_ref()
                .and_then(|g| {
                    let key = |n: usize| b.steps.get(n.wrapping_sub(1)).map(|s| s.key.clone());
                    Some(super::code::When::DeletedAll {
                        delete: key(g.delete)?,
                        found: key(g.found)?,
                        holds: g.holds,
                    })
                })
                .or_else(|| {
                    let f = step.if_full.as_deref()?;
                    let from = b.steps.get(f.step.wrapping_sub(1))?;
                    Some(super::code::When::Full {
                        step: from.key.clone(),
                        path: f.array.clone(),
                        n: f.threshold,
                        each: f.each,
                        // The array came back filtered: its stored length
                        // came beside it.
                        size: from
                            .slices
                            .iter()
                            .find(|x| x.path == f.array && x.stored)
                            .map(crate::design::ArraySlice::stored_key),
                    })
                })
                .or_else(|| step
                .if_matched
                .and_then(|k| b.steps.get(k.wrapping_sub(1)).map(|s| (k, s)))
                .map(|(k, s)| super::code::When::Matched {
                    changed: step.if_changed,
                    step: s.key.clone(),
                    or_deleted: dropped_before(plan, k)
                        .and_then(|d| b.steps.get(d - 1))
                        .map(|x| x.key.clone()),
                })),
            group: step.group_first.clone(),
            group_sums: step
                .group_sums
                .iter()
                .map(|g| (g.name.clone(), g.field.clone()))
                .collect(),
            figures: step.figures.as_deref().cloned(),
            elements: step.elements.clone(),
            bucket_order: step.bucket_order.as_deref().cloned(),
            bucket_keyset,
            index: step.index.clone(),
            documents: step.documents,
            fallback_of: if step.fallback {
                b.steps.last().map(|s| s.key.clone())
            } else {
                None
            },
            fallback_chained: step.fallback
                && b.steps.last().is_some_and(|s| s.fallback_of.is_some()),
            retry_duplicate: step.action == Action::Upsert
                && step
                    .purpose
                    .iter()
                    .any(|p| matches!(p, crate::design::Purpose::Update { .. })),
            every: step.every,
            graph: step.graph.clone(),
            subtree: step.action == Action::GraphLookup
                && step
                    .purpose
                    .iter()
                    .any(|p| matches!(p, crate::design::Purpose::Subtree { .. })),
            under: step
                .filter
                .iter()
                .filter_map(|f| b.under_test(&step.collection, &f.path))
                .collect(),
            purpose: match step.every.map(|n| crate::words::num(n as f64)) {
                Some(n) if step.if_full.is_some() && step.count.is_some() => format!(
                    "{} — only for a document whose array is full (about once every {n} runs); added to the array's count",
                    crate::design::Purpose::texts(&step.purpose)
                ),
                // A figure's rest: the application adds its children's
                // figure to the array's (no order, no limit to merge in).
                Some(n)
                    if step.if_full.is_some()
                        && step
                            .purpose
                            .iter()
                            .any(|p| matches!(p, crate::design::Purpose::ComputeOverChildren { .. })) =>
                {
                    format!(
                        "{} — only for a document whose array is full (about once every {n} runs); the figure of these children is added to the array's",
                        crate::design::Purpose::texts(&step.purpose)
                    )
                }
                Some(n) if step.if_full.is_some() => format!(
                    "{} — only for a document whose array is full (about once every {n} runs); merged with the array's, in order, to the limit",
                    crate::design::Purpose::texts(&step.purpose)
                ),
                Some(n) if step.if_matched.is_some() => format!(
                    "{} — only when the conditional write before matched (about once every {n} runs)",
                    crate::design::Purpose::texts(&step.purpose)
                ),
                Some(n) if step.fallback => format!(
                    "{} — only when the write before matched nothing (about once every {n} runs)",
                    crate::design::Purpose::texts(&step.purpose)
                ),
                None if step.fallback => format!(
                    "{} — only when the write before matched nothing too (a racing caller added it first)",
                    crate::design::Purpose::texts(&step.purpose)
                ),
                Some(n) => format!(
                    "{} — once every {n} runs, by the number added up since the last write",
                    crate::design::Purpose::texts(&step.purpose)
                ),
                None if step.if_deleted_all.is_some() => {
                    let g = step.if_deleted_all.as_ref().map_or((0, 0, true), |g| {
                        (g.delete, g.found, g.holds)
                    });
                    if g.2 {
                        format!(
                            "{} — only when step {} deleted every document step {} found (another run deleted none of them twice)",
                            crate::design::Purpose::texts(&step.purpose),
                            g.0,
                            g.1
                        )
                    } else {
                        format!(
                            "{} — only when step {} deleted fewer than step {} found (another delete took some of them first)",
                            crate::design::Purpose::texts(&step.purpose),
                            g.0,
                            g.1
                        )
                    }
                }
                None if step.if_changed => format!(
                    "{} — only when the write of step {} changed its document (retried, or of a child that is not there, it changes nothing)",
                    crate::design::Purpose::texts(&step.purpose),
                    step.if_matched.unwrap_or_default()
                ),
                None if step.if_matched.is_some() => {
                    let k = step.if_matched.unwrap_or_default();
                    match dropped_before(plan, k) {
                        Some(d) => format!(
                            "{} — only when the write of step {k} matched, or step {d} deleted the bucket with the child in it",
                            crate::design::Purpose::texts(&step.purpose),
                        ),
                        None => format!(
                            "{} — only when the write of step {k} matched ({})",
                            crate::design::Purpose::texts(&step.purpose),
                            why_gated(plan, k),
                        ),
                    }
                }
                None => crate::design::Purpose::texts(&step.purpose),
            },
        });
        tenant_checks(&mut b, plan, at);
    }
    let mut warnings: Vec<String> = plan.warnings.iter().map(|w| w.text()).collect();
    let writes = plan
        .steps
        .iter()
        .filter(|s| s.action != Action::Find && !s.instead_of_another())
        .count();
    if writes > 1 && !plan.transaction && warnings.is_empty() {
        warnings.push(format!(
            "these {writes} writes are separate commands, not one transaction: a failure between them leaves the copies out of step until the operation is retried"
        ));
    }
    let mut op = OpCode {
        name: plan.operation.clone(),
        function: ident(&plan.operation),
        rate: plan.rate,
        transaction: plan.transaction,
        warnings,
        params: b.params,
        steps: b.steps,
        merge: None,
        total: None,
        merged_away: plan.warnings.iter().find_map(|w| match w {
            crate::design::Warning::MergedWrite {
                group,
                into,
                carries: false,
                ..
            } => Some(format!(
                "{}: its write is part of {into}'s one update: call the function of atomic group {group}",
                plan.operation
            )),
            _ => None,
        }),
    };
    super::timeline::fix(design, plan, &mut op);
    op.merge = op.merge.take().or_else(|| outlier_merge(&op.steps));
    op.total = outlier_total(&op.steps);
    op
}

/// An outlier's children counted in both places: the step that returned
/// each parent's array as the number of its matching elements
/// (`ArraySlice::count`), and the count of those kept apart, run only
/// for a full parent. The caller wants one number, their sum.
fn outlier_total(steps: &[StepCode]) -> Option<super::code::Total> {
    let apart = steps
        .iter()
        .find(|s| s.counts && matches!(s.when, Some(super::code::When::Full { .. })))?;
    let Some(super::code::When::Full { step, path, .. }) = &apart.when else {
        return None;
    };
    let holders = steps.iter().find(|s| s.key == *step)?;
    holders
        .slices
        .iter()
        .any(|x| x.path == *path && x.count)
        .then(|| super::code::Total {
            name: ident(&format!("{path}_count")),
            holders: step.clone(),
            path: path.clone(),
            apart: apart.key.clone(),
        })
}

/// A step's projection beside the arrays it returns cut
/// (`Step::slices`). A cut in an order is a computed field (`$sortArray`),
/// which makes a find's projection list what it returns: a step that
/// returned whole documents then lists every top-level field of the
/// collection's example. A `$slice` alone keeps the other fields.
fn sliced_projection(design: &Design, step: &crate::design::Step) -> Vec<String> {
    if !step.projection.is_empty()
        || step.slices.iter().all(|x| {
            x.sort.is_empty()
                && x.unexpired.is_none()
                && x.filter.is_empty()
                && !x.count
                && !x.stored
                && x.figures.is_empty()
        })
    {
        return step.projection.clone();
    }
    let Some(serde_json::Value::Object(example)) = design
        .collections
        .iter()
        .find(|c| c.name == step.collection)
        .map(|c| &c.example)
    else {
        return step.projection.clone();
    };
    example
        .keys()
        .filter(|k| *k != "_id" && !step.slices.iter().any(|x| x.path == **k))
        .cloned()
        .collect()
}

/// An outlier's children read in an order up to a limit: the array's
/// and, for a document whose array is full, the rest read apart, merged
/// in that order and cut to the limit (`logistics` `track`: the newest
/// 50 scans of a parcel, embedded or not; audit45 gap 2). Read once for
/// each full parent (`each`), a list per parent, each cut to the limit:
/// the first `limit` of them all once left a parent with none (embed46).
fn outlier_merge(steps: &[StepCode]) -> Option<super::code::Merge> {
    steps.iter().find_map(|s| match (&s.when, s.limit) {
        (Some(super::code::When::Full { step, path, each, .. }), Some(limit))
            if !s.sort.is_empty() =>
        {
            let each = each
                .then(|| {
                    s.filter.iter().find_map(|(p, e)| match e {
                        super::code::Expr::IdsFrom { step: from, .. } if from == step => {
                            Some(p.clone())
                        }
                        _ => None,
                    })
                })
                .flatten();
            Some(super::code::Merge {
                name: ident(&format!("{path}_merged")),
                says: if each.is_some() {
                    format!(
                        "the {path} of each document of {step}, in its order: its own and those kept apart, in the read's order"
                    )
                } else {
                    format!("the {path}: the document's and those kept apart, in the read's order")
                },
                each,
                timeline: step.clone(),
                path: path.clone(),
                items: s.key.clone(),
                sort: s.sort.clone(),
                limit,
            })
        }
        _ => None,
    })
}

/// In a plan that moves a node of a tree (rebases the paths under it): the
/// step that reads the new parent's path, and the reference to the parent
/// the move sets (`parent`), whose new value is the id that step reads.
fn new_parent_read(design: &Design, plan: &OperationPlan) -> Option<(usize, String)> {
    let first = plan.steps.iter().position(|s| {
        s.updates
            .iter()
            .any(|u| matches!(u, UpdateOp::Rebase { .. }))
    })?;
    let coll = |name: &str| design.collections.iter().find(|c| c.name == name);
    let (read, tree) = plan.steps[..first]
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, s)| {
            let c = coll(&s.collection)?;
            let one_id = s.filter.len() == 1
                && s.filter[0].path == "_id"
                && s.filter[0].op == FilterOp::Eq
                && matches!(
                    s.filter[0].value_from,
                    ValueSource::Param | ValueSource::New { .. }
                );
            if !one_id {
                return None;
            }
            let tree = match (s.action, &s.graph) {
                (Action::Find, _) => c.shape.fields.iter().find_map(|f| match &f.origin {
                    crate::design::FieldOrigin::Path { tree, via: None }
                        if s.projection.contains(&f.name) =>
                    {
                        Some(tree.clone())
                    }
                    _ => None,
                })?,
                (Action::GraphLookup, Some(g)) if g.into == "ancestors" => {
                    c.shape.fields.iter().find_map(|f| match &f.origin {
                        crate::design::FieldOrigin::Reference { relationship, .. }
                            if f.name == g.connect_from =>
                        {
                            Some(relationship.clone())
                        }
                        _ => None,
                    })?
                }
                _ => return None,
            };
            Some((i, tree))
        })?;
    let c = coll(&plan.steps[read].collection)?;
    let parent = tree_parent_field(c, &tree)?;
    // The move itself: a write that sets the node's parent.
    plan.steps
        .iter()
        .any(|s| {
            s.collection == plan.steps[read].collection
                && s.updates
                    .iter()
                    .any(|u| matches!(u, UpdateOp::Set { path } if *path == parent))
        })
        .then_some((read, parent))
}

/// The entity field a path of a collection holds: `(entity, field)` for the
/// entity's own field or a copy of it, `(entity, "_id")` for an id or a
/// reference to that entity.
fn canonical(design: &Design, coll: &Collection, path: &str) -> Option<(String, String)> {
    use crate::design::FieldOrigin;
    let other = |rel: &str, current: &str| -> Option<String> {
        let d = design
            .relationships
            .iter()
            .find(|d| d.relationship == rel)?;
        Some(if d.parent == current {
            d.child.clone()
        } else {
            d.parent.clone()
        })
    };
    let mut entity = coll.entities.first()?.clone();
    let mut shape = &coll.shape;
    // Inside a reference's object (`tracks.…`, `customer.…`): its `_id` is
    // the referenced entity's, which `entity` already names.
    let mut in_reference = false;
    let segments: Vec<&str> = path.split('.').collect();
    for (i, seg) in segments.iter().enumerate() {
        let field = shape.fields.iter().find(|f| f.name == *seg)?;
        let last = i + 1 == segments.len();
        let mut ty = &field.ty;
        if let ShapeType::Array { items, .. } = ty {
            ty = items;
        }
        match (&field.origin, last) {
            (FieldOrigin::Id, true) => return Some((entity, "_id".into())),
            (FieldOrigin::Own { entity, field }, true)
            | (FieldOrigin::Copy { entity, field, .. }, true) => {
                return Some((entity.clone(), field.clone()));
            }
            // A path of bare ids (a product's `category_path`): the tree's
            // node's ids.
            (FieldOrigin::Path { tree, via: Some(_) }, true) => {
                let d = design
                    .relationships
                    .iter()
                    .find(|d| d.relationship == *tree)?;
                return Some((d.parent.clone(), "_id".into()));
            }
            (FieldOrigin::Reference { .. }, true) if in_reference => {
                return Some((entity, "_id".into()));
            }
            (FieldOrigin::Reference { relationship, .. }, true) => {
                return matches!(ty, ShapeType::Scalar { .. })
                    .then(|| other(relationship, &entity).map(|e| (e, "_id".to_string())))
                    .flatten();
            }
            (FieldOrigin::Reference { relationship, .. }, false) => {
                entity = other(relationship, &entity)?;
                in_reference = true;
            }
            (FieldOrigin::Embedded { relationship }, false) => {
                entity = other(relationship, &entity)?;
                in_reference = false;
            }
            (_, true) => return None,
            (_, false) => {}
        }
        match ty {
            ShapeType::Object { shape: inner } => shape = inner,
            _ if !last => return None,
            _ => {}
        }
    }
    None
}

/// The `maxItems` of a top-level array field.
fn array_bound(coll: &Collection, path: &str) -> Option<u64> {
    coll.shape.fields.iter().find_map(|f| match &f.ty {
        ShapeType::Array { max_items, .. } if f.name == path => *max_items,
        _ => None,
    })
}

/// For a count bucket's upsert that opens a bucket with the caller's page
/// number (`$setOnInsert` of `design::PAGE`) on a collection whose unique
/// index on its parent and page refuses a page taken twice: that
/// parameter, which the cookbook's retry moves on from a page another
/// writer opened first (`StepCode::next_page`).
fn page_taken_retry(
    coll: &Collection,
    filter: &[(String, Expr)],
    updates: &[Update],
) -> Option<String> {
    let page = updates.iter().find_map(|u| match u {
        Update::SetOnInsert(path, Expr::Param(name)) if path == crate::design::PAGE => {
            Some(name.clone())
        }
        _ => None,
    })?;
    let (parent, _) = filter.first()?;
    coll.indexes
        .iter()
        .any(|i| {
            i.unique
                && i.partial.is_empty()
                && i.keys.len() == 2
                && i.keys[0].0 == *parent
                && i.keys[1].0 == crate::design::PAGE
        })
        .then_some(page)
}

/// Whether `operation` is the find of the archiving job of an entity
/// split by age (`model::archive_job_operation`): its batch is the
/// caller's to choose.
fn is_archive_find(design: &Design, operation: &str) -> bool {
    design.entities.iter().any(|d| {
        matches!(d, crate::design::EntityDecision::Archive { entity, .. }
            if crate::model::archive_job_operation(entity, "find") == operation)
    })
}

/// Whether `collection` is the archive of an entity split by age: its job
/// copies the live documents with their ids.
fn is_archive(design: &Design, collection: &str) -> bool {
    design.entities.iter().any(|d| {
        matches!(d, crate::design::EntityDecision::Archive { archive, .. } if archive == collection)
    })
}

/// For a bucket upsert: the counter it increments by one and the bound of the
/// array it pushes into.
fn bucket_bound(coll: &Collection, step: &Step) -> Option<(String, u64)> {
    let max = step.updates.iter().find_map(|u| match u {
        UpdateOp::Push { path, .. } => array_bound(coll, path),
        _ => None,
    })?;
    // The counter the plan bounds (a count bucket's children ever added),
    // else the first one it increments.
    let bounded = step.filter.iter().find_map(|f| match f.value_from {
        ValueSource::Below { .. } | ValueSource::RoomFor { .. } => Some(f.path.clone()),
        _ => None,
    });
    let counter = bounded.or_else(|| {
        step.updates.iter().find_map(|u| match u {
            UpdateOp::Inc { path, .. } if !path.contains('.') && is_counter(path) => {
                Some(path.clone())
            }
            _ => None,
        })
    })?;
    Some((counter, max))
}

/// The step (1-based) just before write `k` that deletes a time bucket
/// with its last child, when there is one: the child is then gone with the
/// bucket, write `k` matches nothing, and what waits on `k` runs anyway.
fn dropped_before(plan: &crate::design::OperationPlan, k: usize) -> Option<usize> {
    let d = k.checked_sub(1).filter(|&d| d >= 1)?;
    let x = plan.steps.get(d - 1)?;
    (x.action == Action::DeleteOne
        && x.purpose
            .iter()
            .any(|p| matches!(p, crate::design::Purpose::DropEmptyBucket { .. })))
    .then_some(d)
}

/// Why a step waits for the write of step `n` (1-based) to match: a guard
/// of the operation's conditions, or a write that a retry, or a child no
/// longer there, leaves unchanged.
fn why_gated(plan: &crate::design::OperationPlan, n: usize) -> String {
    let guard = plan.steps.get(n.wrapping_sub(1)).and_then(|s| {
        s.purpose.iter().find_map(|p| match p {
            crate::design::Purpose::GuardConditions { entity, .. } => Some(entity),
            _ => None,
        })
    });
    match guard {
        Some(entity) => format!(
            "the {} met the operation's conditions",
            crate::words::singular(entity)
        ),
        None => "retried, or of a child that is not there, it changes nothing".to_string(),
    }
}

/// Whether a field name reads as a count (incremented by one): a count
/// bucket's children ever added is one, and a guard's version.
fn is_counter(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path).to_ascii_lowercase();
    path == crate::design::ARRIVED
        || path == crate::design::VERSION
        || last.contains("count")
        || last.starts_with("num")
        || last.starts_with("n_")
}

/// A path without positional operators (`parts.$.name` → `parts.name`).
pub(super) fn plain_path(path: &str) -> String {
    path.split('.')
        .filter(|seg| !seg.starts_with('$'))
        .collect::<Vec<_>>()
        .join(".")
}

/// A find of an insert's parent in the caller's tenant
/// (`Purpose::CheckParent`) fails the operation when it finds none; the
/// insert after it (`at`, just pushed) sets the new document's tenant and
/// parent references to the ids those finds were given, so the document
/// cannot name another tenant than its parent's. A reference inside an
/// object (an extended reference's `patient._id`) is left as the caller
/// wrote it: setting its one key would replace the copies beside it.
fn tenant_checks(b: &mut Builder, plan: &OperationPlan, at: usize) {
    let step = &plan.steps[at];
    if let Some((parent, tenant)) = step.purpose.iter().find_map(|p| match p {
        crate::design::Purpose::CheckParent { parent, tenant, .. } => {
            Some((parent.clone(), tenant.clone()))
        }
        _ => None,
    }) {
        if let Some(s) = b.steps.last_mut() {
            s.must_find = true;
            s.not_in_tenant = Some((parent, tenant));
        }
        return;
    }
    if step.action != Action::InsertOne {
        return;
    }
    let mut fields: Vec<(String, Expr)> = Vec::new();
    for (i, s) in plan.steps[..at].iter().enumerate() {
        for p in &s.purpose {
            let crate::design::Purpose::CheckParent {
                field,
                tenant_field,
                ..
            } = p
            else {
                continue;
            };
            let Some(found) = b.steps.get(i) else {
                continue;
            };
            // The find tests the tenant first, then the parent's id.
            let [(_, tenant), (_, id)] = found.filter.as_slice() else {
                continue;
            };
            let (tenant, id) = (Some(tenant.clone()), Some(id.clone()));
            // A parent that keeps the new document's id (its push follows)
            // has no reference in the document to set.
            let pairs = [(Some(tenant_field), tenant), (field.as_ref(), id)];
            for (key, value) in pairs {
                if let (Some(key), Some(v)) = (key, value)
                    && !key.contains('.')
                    && !fields.iter().any(|(k, _)| k == key)
                {
                    fields.push((key.clone(), v));
                }
            }
        }
    }
    let Some(last) = b.steps.last_mut() else {
        return;
    };
    if fields.is_empty() || last.insert_doc.is_some() {
        return;
    }
    if let Some(param) = last.insert.clone() {
        last.insert_doc = Some(Expr::WithFields { param, fields });
    }
}

/// The array whose element holds `path` (`lines` of `lines.qty`), where
/// the step writes its elements one by one: through the positional `$`
/// (`lines.$.qty`), or by an update pipeline's rewrite of the array.
fn element_array(step: &crate::design::Step, path: &str) -> Option<String> {
    let (array, _) = path.rsplit_once('.')?;
    let one = format!("{array}.$.");
    step.updates
        .iter()
        .any(|u| match u {
            UpdateOp::SetElements { path, .. } => path == array,
            u => u.path().starts_with(&one),
        })
        .then(|| array.to_string())
}

#[cfg(test)]
mod tests {
    use super::op_code;

    /// A refresh of copies inside a reference's object filters on the
    /// referenced entity's id, and shares the caller's parameter for it:
    /// `rename_part(part_id, new_name)`, not a third parameter named after
    /// the product that holds the copies (which invited passing a product id
    /// where the part's belongs).
    #[test]
    fn a_reference_id_names_the_referenced_entity() {
        for (fixture, op, want) in [
            ("product-parts", "rename_part", vec!["part_id", "new_name"]),
            ("host-logs", "change_host_ip", vec!["host_id", "new_ipaddr"]),
            ("host-logs", "recent_logs", vec!["host_id"]),
        ] {
            let (_, d) = crate::fixtures::load(fixture);
            let plan = d.operations.iter().find(|p| p.operation == op).unwrap();
            let code = op_code(&d, plan);
            let names: Vec<&str> = code.params.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(names, want, "{fixture} {op}");
        }
    }

    /// A claim's equality on the state it claims (`filter: {status: eq}`
    /// with `when: ["status = pending"]`) is the constant: the function
    /// asks for the new values only, not for a `status` it never uses.
    #[test]
    fn a_claim_asks_for_no_value_its_condition_fixes() {
        use super::Expr;
        let model = crate::advise::tests::golden::example("scenarios/s17-job-queue");
        let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let plan = d
            .operations
            .iter()
            .find(|p| p.operation == "claim_next")
            .unwrap();
        let claim = op_code(&d, plan);
        let names: Vec<&str> = claim.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["new_status", "new_worker", "new_claimed_at"]);
        assert!(
            matches!(&claim.steps[0].filter[..], [(p, Expr::Test(..))] if p == "status"),
            "{:?}",
            claim.steps[0].filter
        );
    }

    fn code(fixture: &str, op: &str) -> super::OpCode {
        let (_, d) = crate::fixtures::load(fixture);
        let plan = d.operations.iter().find(|p| p.operation == op).unwrap();
        op_code(&d, plan)
    }

    /// A move reads the new parent's path (by the id the node's `parent`
    /// is set to, not the moved node's) and rebases the paths through the
    /// node on it, the node's id the one the filter names.
    #[test]
    fn a_move_rebases_the_paths_on_the_new_parents() {
        use super::{Expr, NewPath, Update};
        let m = code("category-paths", "move_category");
        let names: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["new_category_id", "category_id"]);
        assert_eq!(
            m.steps[0].filter,
            [("_id".to_string(), Expr::Param("new_category_id".into()))]
        );
        let rebases: Vec<(&str, bool, &NewPath)> = m
            .steps
            .iter()
            .flat_map(|s| &s.updates)
            .filter_map(|u| match u {
                Update::Rebase {
                    path,
                    node,
                    objects,
                    from,
                } => {
                    assert_eq!(node, "category_id");
                    Some((path.as_str(), *objects, from))
                }
                _ => None,
            })
            .collect();
        let read = NewPath::Field {
            step: "category".into(),
            field: "path".into(),
        };
        assert_eq!(
            rebases,
            [("path", true, &read), ("category_path", false, &read)]
        );
    }

    /// `under` on a path takes the node's id; a rename of a copy in the
    /// paths updates the element with that id (`$[e]`).
    #[test]
    fn paths_are_filtered_and_renamed_by_the_nodes_id() {
        use super::{Expr, Update};
        let page = code("category-paths", "category_page");
        assert_eq!(
            page.steps[0].filter,
            [(
                "category_path".to_string(),
                Expr::Param("category_id".into())
            )]
        );
        assert_eq!(page.steps[0].under[0].node_field, "category");
        let rename = code("category-paths", "rename_category");
        let refresh = &rename.steps[1];
        assert_eq!(
            refresh.updates,
            [Update::Set(
                "path.$[e].name".into(),
                Expr::Param("new_name".into())
            )]
        );
        assert_eq!(
            refresh.array_filters,
            [("e._id".to_string(), Expr::Param("category_id".into()))]
        );
    }

    /// Under parent references, the query after the subtree's walk takes
    /// the node's own id and every id found below it.
    #[test]
    fn a_subtree_walk_feeds_every_id_it_found() {
        use super::Expr;
        let page = code("category-subtree", "category_subtree");
        assert!(page.steps[0].subtree);
        assert_eq!(
            page.steps[1].filter,
            [(
                "_id".to_string(),
                Expr::SubtreeIds {
                    step: "category".into(),
                    into: "descendants".into()
                }
            )]
        );
    }
}
