//! The cookbook's language-independent form: each operation of the design as
//! named parameters and steps whose filters and updates are expressions. The
//! three renderers (mongosh, Python, Node.js) only spell these out, so the
//! three versions of an operation cannot drift apart.

use crate::design::{
    Action, Collection, Design, FilterOp, OperationPlan, ShapeType, Step, StepFilter, UpdateOp,
    ValueSource,
};

#[derive(Debug, Clone, PartialEq)]
pub struct OpCode {
    pub name: String,
    pub function: String,
    pub rate: f64,
    pub transaction: bool,
    pub warnings: Vec<String>,
    pub params: Vec<Param>,
    pub steps: Vec<StepCode>,
}

/// What a parameter stands for, so a caller (or a test) can supply a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A value of the field at `path`.
    Value,
    /// A list of such values (`$in`).
    List,
    /// The low and high end of a range of the field at `path`.
    From,
    To,
    /// A whole new document of the collection.
    Document,
    /// Several new documents of the collection.
    Documents,
    /// One element of the array at `path`.
    Item,
}

impl ParamKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamKind::Value => "value",
            ParamKind::List => "list",
            ParamKind::From => "from",
            ParamKind::To => "to",
            ParamKind::Document => "document",
            ParamKind::Documents => "documents",
            ParamKind::Item => "item",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub collection: String,
    pub path: String,
    pub kind: ParamKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Param(String),
    /// `{"$in": param}`.
    In(String),
    /// `{"$gte": from, "$lt": to}`.
    Range(String, String),
    /// `{"$in": ids}` with the values at `path` in an earlier step's documents
    /// (ids of embedded objects are taken from their `_id`).
    IdsFrom {
        step: String,
        path: String,
    },
    /// A literal number.
    Number(i64),
    /// `{"$lt": n}`: a bucket that still has room.
    Below(u64),
    /// `{"$exists": false}`: an array with no element at that index.
    Missing,
    /// `{"_id": param}`: the element of an array of objects with that id
    /// (what `$pull` removes from an array of references with copies).
    IdIs(String),
    /// `{"$elemMatch": {"k": name, "v": value}}`: one name of an
    /// `attributes` field with its value, in the same pair.
    Pair(String, String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    Set(String, Expr),
    SetOnInsert(String, Expr),
    Unset(String),
    Inc(String, Expr),
    Min(String, Expr),
    Max(String, Expr),
    Push {
        path: String,
        item: String,
        sort: Option<(String, i32)>,
        slice: Option<i64>,
    },
    AddToSet(String, Expr),
    Pull(String, Expr),
}

#[derive(Debug, Clone, PartialEq)]
pub struct StepCode {
    /// Variable holding the step's result (the collection's name, made unique).
    pub key: String,
    pub collection: String,
    pub action: Action,
    pub filter: Vec<(String, Expr)>,
    pub sort: Vec<(String, i32)>,
    pub limit: Option<u64>,
    pub projection: Vec<String>,
    pub updates: Vec<Update>,
    /// Array filters for updates of elements of an array (`$[e]`).
    pub array_filters: Vec<(String, Expr)>,
    /// The document parameter of an insert.
    pub insert: Option<String>,
    pub index: Option<String>,
    pub documents: f64,
    pub purpose: String,
    /// The key of the write this step stands in for when that write
    /// matched nothing (an outlier's child when its parent has no room).
    pub fallback_of: Option<String>,
    /// Runs once every so many executions (a rare or batched step).
    pub every: Option<u64>,
    /// The walk of a `$graphLookup` step.
    pub graph: Option<Box<crate::design::GraphWalk>>,
}

/// A name usable in Python and JavaScript.
pub fn ident(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    let out = out.trim_matches('_').to_string();
    let out = if out.is_empty() {
        "value".to_string()
    } else {
        out
    };
    if out.starts_with(|c: char| c.is_ascii_digit())
        || matches!(
            out.as_str(),
            "db" | "in"
                | "for"
                | "if"
                | "class"
                | "def"
                | "return"
                | "new"
                | "delete"
                | "function"
                | "import"
                | "from"
                | "with"
                | "var"
                | "let"
                | "const"
                | "async"
                | "await"
                | "default"
                | "lambda"
                | "pass"
                | "is"
                | "not"
                | "and"
                | "or"
                | "none"
                | "true"
                | "false"
                | "null"
                | "this"
                | "session"
                | "client"
        )
    {
        format!("p_{out}")
    } else {
        out
    }
}

/// Whether the first segment of `path` is an array in the collection's shape.
fn array_prefix(coll: Option<&Collection>, path: &str) -> Option<String> {
    let coll = coll?;
    let (head, rest) = path.split_once('.')?;
    let _ = rest;
    let field = coll.shape.fields.iter().find(|f| f.name == head)?;
    matches!(field.ty, ShapeType::Array { .. }).then(|| head.to_string())
}

struct Builder<'d> {
    design: &'d Design,
    params: Vec<Param>,
    /// Meaning of each parameter (see `param_named`), with its name.
    keys: Vec<(String, String)>,
    steps: Vec<StepCode>,
}

impl Builder<'_> {
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
                crate::design::FieldOrigin::Reference { relationship } => rel_child(relationship),
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
            let src = self.source_path(&from, step, path);
            if !from.projection.is_empty() && !from.projection.contains(&src) && src != "_id" {
                self.steps[n - 1].projection.push(src.clone());
            }
            return Expr::IdsFrom {
                step: from.key,
                path: src,
            };
        }
        // A value of its own gets a parameter named after what it is.
        let own = match &f.value_from {
            ValueSource::Param | ValueSource::FromStep { .. } => None,
            ValueSource::Below { limit } => return Expr::Below(*limit),
            ValueSource::Missing => return Expr::Missing,
            ValueSource::Old { field } => Some(format!("old_{field}")),
            ValueSource::New { field } => Some(format!("new_{field}")),
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

    fn update(&mut self, step: &Step, op: &UpdateOp) -> Update {
        let c = step.collection.clone();
        match op {
            UpdateOp::Set { path } => Update::Set(
                path.clone(),
                Expr::Param(self.param(&c, path, ParamKind::Value, "new_")),
            ),
            UpdateOp::Unset { path } => Update::Unset(path.clone()),
            UpdateOp::SetOnInsert { path } => Update::SetOnInsert(
                path.clone(),
                Expr::Param(self.param(&c, path, ParamKind::Value, "")),
            ),
            // A batched counter adds what the application added up.
            UpdateOp::Inc { path } if step.every.is_some() => Update::Inc(
                path.clone(),
                Expr::Param(self.param(&c, path, ParamKind::Value, "added_")),
            ),
            UpdateOp::Inc { path } => {
                let by = if is_counter(path) {
                    Expr::Number(1)
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
                Expr::Param(self.param(&c, path, ParamKind::Value, "")),
            ),
            UpdateOp::Max { path } => Update::Max(
                path.clone(),
                Expr::Param(self.param(&c, path, ParamKind::Value, "")),
            ),
            UpdateOp::Push { path, sort, slice } => Update::Push {
                path: path.clone(),
                item: self.param(&c, path, ParamKind::Item, ""),
                sort: sort.clone(),
                slice: *slice,
            },
            UpdateOp::AddToSet { path } => Update::AddToSet(
                path.clone(),
                Expr::Param(self.param(&c, path, ParamKind::Item, "")),
            ),
            // PENDING(cookbook): the pipeline that rebases a path.
            UpdateOp::Rebase { path } => Update::Set(
                path.clone(),
                Expr::Param(self.param(&c, path, ParamKind::Value, "new_")),
            ),
            // An id inside objects (`tracks._id`): `$pull` takes the array
            // and a condition on its elements.
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

/// Turns a path of an update into its positional form when it goes through an
/// array of the collection: `parts.name` → `parts.$[e].name`.
fn positional(path: &str, prefix: &str) -> String {
    format!("{prefix}.$[e].{}", &path[prefix.len() + 1..])
}

/// The cookbook form of one operation plan.
pub fn op_code(design: &Design, plan: &OperationPlan) -> OpCode {
    let mut b = Builder {
        design,
        params: Vec::new(),
        keys: Vec::new(),
        steps: Vec::new(),
    };
    for step in &plan.steps {
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
        let mut filter = Vec::new();
        for f in &step.filter {
            if let Some((counter, max)) = &bound
                && f.path == *counter
            {
                filter.push((counter.clone(), Expr::Below(*max)));
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
        if let Some((counter, max)) = &bound
            && !filter.iter().any(|(p, _)| p == counter)
        {
            filter.push((counter.clone(), Expr::Below(*max)));
        }
        let mut updates: Vec<Update> = step.updates.iter().map(|u| b.update(step, u)).collect();
        let mut array_filters = Vec::new();
        for u in &mut updates {
            // A `$push` into an array the design bounds (and does not keep
            // as the latest K, which `$slice` trims) only writes while the
            // array has room: the document whose array is full is not
            // matched, and the caller sees it, rather than an element
            // silently dropped (a member, an address) or a write the
            // validator refuses.
            if let Update::Push { path, slice, .. } = u
                && slice.is_none()
                && bound.is_none()
                && let Some(max) = coll.as_ref().and_then(|c| array_bound(c, path))
                && max > 0
            {
                let last = format!("{path}.{}", max - 1);
                if !filter.iter().any(|(p, _)| *p == last) {
                    filter.push((last, Expr::Missing));
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
        b.steps.push(StepCode {
            key,
            collection: step.collection.clone(),
            action: step.action,
            filter,
            sort: step.sort.clone(),
            limit: step.limit,
            projection: step.projection.clone(),
            updates,
            array_filters,
            insert,
            index: step.index.clone(),
            documents: step.documents,
            fallback_of: if step.fallback {
                b.steps.last().map(|s| s.key.clone())
            } else {
                None
            },
            every: step.every,
            graph: step.graph.clone(),
            purpose: match step.every {
                Some(n) if step.fallback => format!(
                    "{} — only when the write before matched nothing (about once every {n} runs)",
                    crate::design::Purpose::texts(&step.purpose)
                ),
                Some(n) => format!(
                    "{} — once every {n} runs, by the number added up since the last write",
                    crate::design::Purpose::texts(&step.purpose)
                ),
                None => crate::design::Purpose::texts(&step.purpose),
            },
        });
    }
    let mut warnings: Vec<String> = plan.warnings.iter().map(|w| w.text()).collect();
    let writes = plan
        .steps
        .iter()
        .filter(|s| s.action != Action::Find && !s.fallback)
        .count();
    if writes > 1 && !plan.transaction && warnings.is_empty() {
        warnings.push(format!(
            "these {writes} writes are separate commands, not one transaction: a failure between them leaves the copies out of step until the operation is retried"
        ));
    }
    OpCode {
        name: plan.operation.clone(),
        function: ident(&plan.operation),
        rate: plan.rate,
        transaction: plan.transaction,
        warnings,
        params: b.params,
        steps: b.steps,
    }
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
            (FieldOrigin::Reference { .. }, true) if in_reference => {
                return Some((entity, "_id".into()));
            }
            (FieldOrigin::Reference { relationship }, true) => {
                return matches!(ty, ShapeType::Scalar { .. })
                    .then(|| other(relationship, &entity).map(|e| (e, "_id".to_string())))
                    .flatten();
            }
            (FieldOrigin::Reference { relationship }, false) => {
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

/// For a bucket upsert: the counter it increments by one and the bound of the
/// array it pushes into.
fn bucket_bound(coll: &Collection, step: &Step) -> Option<(String, u64)> {
    let max = step.updates.iter().find_map(|u| match u {
        UpdateOp::Push { path, .. } => array_bound(coll, path),
        _ => None,
    })?;
    let counter = step.updates.iter().find_map(|u| match u {
        UpdateOp::Inc { path } if !path.contains('.') && is_counter(path) => Some(path.clone()),
        _ => None,
    })?;
    Some((counter, max))
}

/// Whether a field name reads as a count (incremented by one).
fn is_counter(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path).to_ascii_lowercase();
    last.contains("count") || last.starts_with("num") || last.starts_with("n_")
}

/// A path without positional operators (`parts.$.name` → `parts.name`).
pub fn plain_path(path: &str) -> String {
    path.split('.')
        .filter(|seg| !seg.starts_with('$'))
        .collect::<Vec<_>>()
        .join(".")
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
}
