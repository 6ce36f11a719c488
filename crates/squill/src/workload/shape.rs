//! Query shapes: what an operation does with its collection, without its
//! values. Two operations have one shape when they are the same kind, filter
//! the same fields with the same class of operator, sort the same way, and
//! (for aggregations and updates) run the same stages or touch the same
//! fields with the same operators. `Shape` is the grouping key; `Observed`
//! carries what differs between executions of one shape (the length of an
//! `$in` list, whether a regex was anchored).

use super::node::{Node, RegexFlags, Scalar};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum OpKind {
    Find,
    Aggregate,
    Count,
    Distinct,
    Insert,
    Update,
    Delete,
    FindAndModify,
    GetMore,
}

impl OpKind {
    /// The command's name, as mongod logs it.
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Find => "find",
            OpKind::Aggregate => "aggregate",
            OpKind::Count => "count",
            OpKind::Distinct => "distinct",
            OpKind::Insert => "insert",
            OpKind::Update => "update",
            OpKind::Delete => "delete",
            OpKind::FindAndModify => "findAndModify",
            OpKind::GetMore => "getMore",
        }
    }

    pub fn is_write(self) -> bool {
        matches!(
            self,
            OpKind::Insert | OpKind::Update | OpKind::Delete | OpKind::FindAndModify
        )
    }
}

/// The class of a filter operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpClass {
    Eq,
    Range,
    In,
    Exists,
    Regex,
    NeNin,
    /// `$near`, `$nearSphere`: the places nearest a point, nearest first.
    Near,
    /// `$geoWithin` (and the old `$within`): the places inside an area.
    Within,
    /// `$geoIntersects`: the shapes that meet a point or a shape.
    Intersects,
    Other,
}

impl OpClass {
    pub fn as_str(self) -> &'static str {
        match self {
            OpClass::Eq => "eq",
            OpClass::Range => "range",
            OpClass::In => "in",
            OpClass::Exists => "exists",
            OpClass::Regex => "regex",
            OpClass::NeNin => "ne/nin",
            OpClass::Near => "near",
            OpClass::Within => "within",
            OpClass::Intersects => "intersects",
            OpClass::Other => "other",
        }
    }

    /// Whether the class searches by place (a `2dsphere` index serves it).
    pub fn is_geo(self) -> bool {
        matches!(self, OpClass::Near | OpClass::Within | OpClass::Intersects)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FieldUse {
    pub path: String,
    pub op: OpClass,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SortKey {
    pub path: String,
    pub descending: bool,
}

/// One aggregation stage: its name and what the shape needs of it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Stage {
    pub name: String,
    /// `$match`: the fields it filters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldUse>,
    /// `$sort`: its keys.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sort: Vec<SortKey>,
    /// `$lookup` and `$graphLookup`: the collection joined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// `$unwind`: the array unwound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A field an update touches, and with which operator (`$set`, `$push`, …;
/// `replacement` for a whole-document replacement, `pipeline` for an
/// update pipeline).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct UpdateUse {
    pub op: String,
    pub path: String,
    /// `$push` with `$slice`: the array keeps a bounded length.
    pub bounded: bool,
}

impl UpdateUse {
    /// `$push` or `$addToSet` without `$slice`: the array only grows.
    pub fn grows_array(&self) -> bool {
        (self.op == "$push" || self.op == "$addToSet") && !self.bounded
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Shape {
    pub kind: OpKind,
    /// Sorted by path: `{a, b}` and `{b, a}` are one shape.
    pub filter: Vec<FieldUse>,
    /// The filter has `$or` or `$nor` (its fields are listed with the others).
    pub or: bool,
    /// In the order given: the order is part of the sort.
    pub sort: Vec<SortKey>,
    pub projection: bool,
    pub limit: bool,
    pub stages: Vec<Stage>,
    pub update: Vec<UpdateUse>,
    /// `distinct`'s key.
    pub key: Option<String>,
}

/// What varies between executions of one shape.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Observed {
    /// The command's `limit` (a find's, an aggregation's `$limit`), when
    /// the log shows its value (a redacted log does not).
    pub limit: Option<u64>,
    /// The radius of a geo search, in metres, when the log shows it: a
    /// `$near`'s or `$nearSphere`'s `$maxDistance`, a `$geoNear`'s
    /// `maxDistance`, a `$geoWithin`'s `$centerSphere` (`geo_radius`).
    pub radius_m: Option<f64>,
    /// `radius_m` is a flat (`2d`) search's, whose units were taken as
    /// degrees (`FlatRadius`).
    pub radius_flat: Option<FlatRadius>,
    /// The area of a `$geoWithin`'s `$box`, `$polygon` or `$geometry`
    /// polygon, km², when the log shows its corners (`geo_area`).
    pub area_km2: Option<f64>,
    /// The longest `$in` (or `$nin`) list in the filter.
    pub largest_in: u64,
    pub unanchored_regex: bool,
    pub case_insensitive_regex: bool,
    /// An update with `multi: true`, or a delete with `limit: 0` (or no
    /// limit, as a legacy `remove` logs it): it may write many documents.
    pub multi: bool,
}

/// The commands that read or write a collection: the ones with a shape.
pub const COMMANDS: &[&str] = &[
    "find",
    "aggregate",
    "count",
    "distinct",
    "insert",
    "update",
    "delete",
    "findAndModify",
    "findandmodify",
    "getMore",
];

/// The shape of a command, or `None` for commands that are not reads or
/// writes of a collection (`hello`, `createIndexes`, …).
pub fn of(command: &Node, folded_getmore: bool) -> Option<(Shape, Observed)> {
    let name = command.first_key()?;
    let kind = match name {
        "find" => OpKind::Find,
        "aggregate" => OpKind::Aggregate,
        "count" => OpKind::Count,
        "distinct" => OpKind::Distinct,
        "insert" => OpKind::Insert,
        "update" => OpKind::Update,
        "delete" => OpKind::Delete,
        "findAndModify" | "findandmodify" => OpKind::FindAndModify,
        "getMore" if !folded_getmore => OpKind::GetMore,
        _ => return None,
    };
    let mut shape = Shape {
        kind,
        filter: Vec::new(),
        or: false,
        sort: Vec::new(),
        projection: false,
        limit: false,
        stages: Vec::new(),
        update: Vec::new(),
        key: None,
    };
    let mut seen = Observed::default();
    let filter_key = match kind {
        OpKind::Find => Some("filter"),
        OpKind::Count | OpKind::Distinct | OpKind::FindAndModify => Some("query"),
        _ => None,
    };
    if let Some(filter) = filter_key.and_then(|k| command.get(k)) {
        filter_fields(filter, &mut shape.filter, &mut shape.or, &mut seen, 0);
    }
    if let Some(sort) = command.get("sort") {
        shape.sort = sort_keys(sort);
    }
    shape.projection = ["projection", "fields"]
        .iter()
        .any(|k| command.get(k).is_some_and(|p| !p.fields().is_empty()));
    // A delete's `limit` is in its statements and says one or many, not a page size.
    shape.limit = kind != OpKind::Delete && command.get("limit").is_some();
    if shape.limit {
        seen.limit = command.get("limit").and_then(count);
    }
    match kind {
        OpKind::Aggregate => {
            if let Some(Node::Array(stages)) = command.get("pipeline") {
                shape.stages = stages.iter().filter_map(|s| stage(s, &mut seen)).collect();
            }
        }
        OpKind::Distinct => {
            shape.key = command
                .get("key")
                .and_then(Node::as_str)
                .map(normalize_path);
        }
        OpKind::Update | OpKind::Delete => {
            let list = if kind == OpKind::Update {
                "updates"
            } else {
                "deletes"
            };
            if let Some(Node::Array(statements)) = command.get(list)
                && let Some(first) = statements.first()
            {
                if let Some(q) = first.get("q") {
                    filter_fields(q, &mut shape.filter, &mut shape.or, &mut seen, 0);
                }
                if let Some(u) = first.get("u") {
                    shape.update = update_uses(u);
                }
                seen.multi = if kind == OpKind::Update {
                    first.get("multi") == Some(&Node::Other(Scalar::Bool(true)))
                } else {
                    first
                        .get("limit")
                        .is_none_or(|l| matches!(l, Node::Number { zero: true, .. }))
                };
            }
        }
        OpKind::FindAndModify => {
            if let Some(u) = command.get("update") {
                shape.update = update_uses(u);
            } else if command.get("remove").is_some() {
                shape.update = vec![UpdateUse {
                    op: "remove".into(),
                    path: String::new(),
                    bounded: false,
                }];
            }
        }
        _ => {}
    }
    shape.filter.sort();
    shape.filter.dedup();
    Some((shape, seen))
}

/// Array positions (`items.3.qty`) vary between executions; they read `#`
/// so one shape covers them all.
fn normalize_path(path: &str) -> String {
    if !path.bytes().any(|b| b.is_ascii_digit()) {
        return path.to_string();
    }
    path.split('.')
        .map(|part| {
            if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
                "#"
            } else {
                part
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn filter_fields(
    filter: &Node,
    out: &mut Vec<FieldUse>,
    or: &mut bool,
    seen: &mut Observed,
    depth: usize,
) {
    if depth > 32 {
        return;
    }
    for (key, value) in filter.fields() {
        match key.as_str() {
            "$and" | "$or" | "$nor" => {
                if key != "$and" {
                    *or = true;
                }
                if let Node::Array(items) = value {
                    for item in items {
                        filter_fields(item, out, or, seen, depth + 1);
                    }
                }
            }
            "$comment" => {}
            k if k.starts_with('$') => out.push(FieldUse {
                path: k.to_string(),
                op: OpClass::Other,
            }),
            path => {
                let path = normalize_path(path);
                for op in classes(value, seen) {
                    out.push(FieldUse {
                        path: path.clone(),
                        op,
                    });
                }
            }
        }
    }
}

fn note_regex(flags: RegexFlags, seen: &mut Observed) {
    seen.unanchored_regex |= !flags.anchored;
    seen.case_insensitive_regex |= flags.case_insensitive;
}

/// The operator classes a field's condition uses (`{$gte: 1, $lt: 5}` is one
/// range; `{$in: […], $exists: true}` is two).
fn classes(value: &Node, seen: &mut Observed) -> Vec<OpClass> {
    let operators = match value {
        Node::Regex(flags) => {
            note_regex(*flags, seen);
            return vec![OpClass::Regex];
        }
        Node::Object(fields) if fields.first().is_some_and(|(k, _)| k.starts_with('$')) => fields,
        _ => return vec![OpClass::Eq],
    };
    let mut out = Vec::new();
    for (op, operand) in operators {
        let class = match op.as_str() {
            "$eq" => OpClass::Eq,
            "$gt" | "$gte" | "$lt" | "$lte" => OpClass::Range,
            "$in" | "$nin" => {
                if let Node::Array(items) = operand {
                    seen.largest_in = seen.largest_in.max(items.len() as u64);
                    for item in items {
                        if let Node::Regex(flags) = item {
                            note_regex(*flags, seen);
                        }
                    }
                }
                if op == "$in" {
                    OpClass::In
                } else {
                    OpClass::NeNin
                }
            }
            "$ne" | "$not" => OpClass::NeNin,
            "$exists" => OpClass::Exists,
            "$regex" => {
                let flags = match operand {
                    Node::Regex(flags) => *flags,
                    Node::Str(pattern) => {
                        let options = operators
                            .iter()
                            .find(|(k, _)| k == "$options")
                            .and_then(|(_, v)| v.as_str())
                            .unwrap_or("");
                        RegexFlags::new(pattern, options)
                    }
                    _ => RegexFlags::default(),
                };
                note_regex(flags, seen);
                OpClass::Regex
            }
            "$options" => continue,
            "$near" | "$nearSphere" => {
                note_radius(geo_radius(op, operand, operators), seen);
                OpClass::Near
            }
            "$geoWithin" | "$within" => {
                // `$centerSphere: [[x, y], r]` in radians; `$center`, a
                // flat (`2d`) circle, in the coordinates' units.
                let circle = |name: &str| match operand.get(name) {
                    Some(Node::Array(parts)) => Some((parts.first(), number(parts.get(1)?)?)),
                    _ => None,
                };
                let radius = match (circle("$centerSphere"), circle("$center")) {
                    (Some((_, r)), _) => Some(Radius::metres(r * EARTH_RADIUS_M)),
                    (None, Some((centre, r))) => Some(Radius::degrees(r, centre)),
                    (None, None) => None,
                };
                note_radius(radius, seen);
                if let Some(a) = super::geo_area::area_km2(operand)
                    .filter(|a| seen.area_km2.is_none_or(|s| *a > s))
                {
                    seen.area_km2 = Some(a);
                }
                OpClass::Within
            }
            "$geoIntersects" => OpClass::Intersects,
            // The bounds of a legacy `$near: [x, y]`, beside it.
            "$maxDistance" | "$minDistance" => continue,
            _ => OpClass::Other,
        };
        if !out.contains(&class) {
            out.push(class);
        }
    }
    if out.is_empty() {
        out.push(OpClass::Other);
    }
    out
}

fn sort_keys(sort: &Node) -> Vec<SortKey> {
    sort.fields()
        .iter()
        .map(|(path, dir)| SortKey {
            path: normalize_path(path),
            descending: matches!(dir, Node::Number { negative: true, .. }),
        })
        .collect()
}

fn stage(node: &Node, seen: &mut Observed) -> Option<Stage> {
    let (name, body) = node.fields().first()?;
    if !name.starts_with('$') {
        return None;
    }
    let mut stage = Stage {
        name: name.clone(),
        fields: Vec::new(),
        sort: Vec::new(),
        from: None,
        path: None,
    };
    match name.as_str() {
        "$match" => {
            let mut or = false;
            filter_fields(body, &mut stage.fields, &mut or, seen, 0);
            stage.fields.sort();
            stage.fields.dedup();
        }
        "$sort" => stage.sort = sort_keys(body),
        "$limit" => seen.limit = count(body).or(seen.limit),
        // The nearest documents first: its `query` filters as a `$match`
        // would, and its `key` (the 2dsphere field) is searched near a
        // point. Without `key` the server takes the collection's one
        // geospatial index: the field is then not in the command, and the
        // shape says so with an empty path (`GEO_NEAR_UNNAMED`).
        "$geoNear" => {
            let mut or = false;
            if let Some(q) = body.get("query") {
                filter_fields(q, &mut stage.fields, &mut or, seen, 0);
            }
            // Beside a legacy pair the units are the coordinates' own
            // (flat, degrees) unless `spherical: true` asks for radians;
            // beside a GeoJSON point they are metres.
            let spherical = matches!(body.get("spherical"), Some(Node::Other(Scalar::Bool(true))));
            let radius = body.get("maxDistance").and_then(number);
            note_radius(
                radius.map(|r| match body.get("near") {
                    Some(Node::Array(_)) if spherical => Radius::metres(r * EARTH_RADIUS_M),
                    near @ Some(Node::Array(_)) => Radius::degrees(r, near),
                    _ => Radius::metres(r),
                }),
                seen,
            );
            let key = body.get("key").and_then(Node::as_str).map(normalize_path);
            stage.fields.push(FieldUse {
                path: key.unwrap_or_else(|| GEO_NEAR_UNNAMED.to_string()),
                op: OpClass::Near,
            });
            stage.fields.sort();
            stage.fields.dedup();
        }
        "$lookup" | "$graphLookup" => {
            stage.from = body.get("from").and_then(Node::as_str).map(str::to_string)
        }
        "$unwind" => {
            let path = body
                .as_str()
                .or_else(|| body.get("path").and_then(Node::as_str));
            stage.path = path.map(|p| normalize_path(p.trim_start_matches('$')));
        }
        _ => {}
    }
    Some(stage)
}

/// The Earth's radius MongoDB's documentation converts radians with
/// (6378.1 km, "Calculate Distance Using Spherical Geometry"), in metres.
pub const EARTH_RADIUS_M: f64 = 6_378_100.0;

/// The metres of one degree of arc on the sphere a scan measures places
/// on (the mean radius, 6371.0088 km, of `scan::profile::density`, whose
/// densities per km² price the search), for a flat (`2d`) search whose
/// radius is in the coordinates' units: a degree of latitude. A degree of
/// longitude is cos φ of it, so a flat circle of `d` degrees is `d` of
/// these north–south and cos φ as wide east–west (`FlatRadius`).
pub const METRES_PER_DEGREE: f64 = 6_371_008.8 * std::f64::consts::PI / 180.0;

/// A number's value, when the log shows it.
fn number(node: &Node) -> Option<f64> {
    match node {
        Node::Number { value, .. } => value.filter(|v| v.is_finite()),
        _ => None,
    }
}

/// A `limit`'s value as a count: its magnitude (a legacy negative limit
/// is one batch of that many), none for 0 (no limit).
fn count(node: &Node) -> Option<u64> {
    number(node)
        .map(f64::abs)
        .filter(|n| *n >= 1.0 && *n <= u64::MAX as f64)
        .map(|n| n as u64)
}

/// The radius of `op` (`$near` or `$nearSphere`) on `operand`, in
/// metres: `$maxDistance` inside it, beside a GeoJSON `$geometry`
/// (metres), or among the field's `operators`, beside a GeoJSON point
/// (metres) or a legacy pair. Beside a legacy pair `$nearSphere` measures
/// in radians, and `$near` (a `2d` index, flat) in the coordinates' units,
/// degrees: MongoDB's `$maxDistance` page ("10 or fewer units from the
/// point") and "Calculate Distance Using Spherical Geometry" ("these three
/// queries use radians … other query types do not") say so, and a server
/// returns a point 0.005° away, not one 0.05° away, for `$near` with
/// `$maxDistance: 0.01` (its `$near` page's "distance in radians" is
/// wrong).
fn geo_radius(op: &str, operand: &Node, operators: &[(String, Node)]) -> Option<Radius> {
    if let Some(r) = operand.get("$maxDistance").and_then(number) {
        return Some(Radius::metres(r));
    }
    let r = operators
        .iter()
        .find(|(k, _)| k == "$maxDistance")
        .and_then(|(_, v)| number(v))?;
    Some(match operand {
        Node::Array(_) if op == "$nearSphere" => Radius::metres(r * EARTH_RADIUS_M),
        Node::Array(_) => Radius::degrees(r, Some(operand)),
        _ => Radius::metres(r),
    })
}

/// A flat (`2d`) search's radius as the command gives it, in the
/// coordinates' units taken as degrees of longitude and latitude, and the
/// latitude of its centre when the command gives one (a legacy pair's
/// second number, within ±90).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlatRadius {
    pub degrees: f64,
    pub latitude: Option<f64>,
}

impl FlatRadius {
    /// The radius in metres of the circle with the flat search's area: a
    /// flat circle of `d` degrees at latitude φ is `d` degrees of latitude
    /// north–south and `d` degrees of longitude, cos φ as long, east–west,
    /// so its area is π·(d·`METRES_PER_DEGREE`)²·cos φ, the circle's whose
    /// radius is d·`METRES_PER_DEGREE`·√cos φ. Without a latitude, the
    /// north–south radius (the area overstated by 1/cos φ).
    pub fn metres(self) -> f64 {
        let m = self.degrees * METRES_PER_DEGREE;
        self.latitude
            .map_or(m, |lat| m * lat.to_radians().cos().max(0.0).sqrt())
    }
}

/// A radius read from a command, in metres, and the flat search's own
/// when it was one (`FlatRadius`): the emitted model says so beside it.
#[derive(Debug, Clone, Copy)]
struct Radius {
    m: f64,
    flat: Option<FlatRadius>,
}

impl Radius {
    fn metres(m: f64) -> Self {
        Radius { m, flat: None }
    }

    /// `d` in the coordinates' units around `centre`, a legacy pair
    /// `[x, y]` whose `y` is the latitude.
    fn degrees(d: f64, centre: Option<&Node>) -> Self {
        let latitude = match centre {
            Some(Node::Array(pair)) => pair.get(1).and_then(number),
            _ => None,
        }
        .filter(|lat| lat.abs() <= 90.0);
        let flat = FlatRadius {
            degrees: d,
            latitude,
        };
        Radius {
            m: flat.metres(),
            flat: Some(flat),
        }
    }
}

/// The largest radius of one command (it has one geo search).
fn note_radius(radius: Option<Radius>, seen: &mut Observed) {
    if let Some(r) = radius.filter(|r| r.m > 0.0 && seen.radius_m.is_none_or(|s| r.m > s)) {
        seen.radius_m = Some(r.m);
        seen.radius_flat = r.flat;
    }
}

/// The path of a `$geoNear` without `key`: the collection's one
/// geospatial index decides the field, which the log does not show.
pub const GEO_NEAR_UNNAMED: &str = "";

fn update_uses(u: &Node) -> Vec<UpdateUse> {
    let mut out = Vec::new();
    match u {
        Node::Array(_) => out.push(UpdateUse {
            op: "pipeline".into(),
            path: String::new(),
            bounded: false,
        }),
        Node::Object(ops) if ops.first().is_some_and(|(k, _)| k.starts_with('$')) => {
            for (op, fields) in ops {
                for (path, value) in fields.fields() {
                    out.push(UpdateUse {
                        op: op.clone(),
                        path: normalize_path(path),
                        bounded: value.get("$slice").is_some(),
                    });
                }
            }
        }
        _ => out.push(UpdateUse {
            op: "replacement".into(),
            path: String::new(),
            bounded: false,
        }),
    }
    out.sort();
    out.dedup();
    out
}

impl std::fmt::Display for Shape {
    /// A compact notation of the shape (`find {status: eq, qty: range}
    /// sort {qty: -1} limit`): names and operator classes only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind.as_str())?;
        if !self.filter.is_empty() || self.or {
            write!(f, " {}", fields_text(&self.filter))?;
            if self.or {
                f.write_str(" with $or")?;
            }
        }
        if let Some(key) = &self.key {
            write!(f, " key {key}")?;
        }
        if !self.sort.is_empty() {
            write!(f, " sort {}", sort_text(&self.sort))?;
        }
        if self.projection {
            f.write_str(" projection")?;
        }
        if self.limit {
            f.write_str(" limit")?;
        }
        if !self.stages.is_empty() {
            let stages: Vec<String> = self.stages.iter().map(stage_text).collect();
            write!(f, " [{}]", stages.join(" | "))?;
        }
        let mut ops: Vec<(String, Vec<String>)> = Vec::new();
        for u in &self.update {
            let label = if u.bounded {
                format!("{}+$slice", u.op)
            } else {
                u.op.clone()
            };
            match ops.iter_mut().find(|(op, _)| *op == label) {
                Some((_, paths)) => paths.push(u.path.clone()),
                None => ops.push((label, vec![u.path.clone()])),
            }
        }
        for (op, paths) in ops {
            let paths: Vec<String> = paths.into_iter().filter(|p| !p.is_empty()).collect();
            if paths.is_empty() {
                write!(f, " {op}")?;
            } else {
                write!(f, " {op} {{{}}}", paths.join(", "))?;
            }
        }
        Ok(())
    }
}

fn fields_text(fields: &[FieldUse]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .map(|u| match u.path.as_str() {
            GEO_NEAR_UNNAMED => format!("<2dsphere key>: {}", u.op.as_str()),
            path => format!("{path}: {}", u.op.as_str()),
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// `{qty: -1, _id: 1}`.
pub fn sort_text(keys: &[SortKey]) -> String {
    let parts: Vec<String> = keys
        .iter()
        .map(|k| format!("{}: {}", k.path, if k.descending { -1 } else { 1 }))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn stage_text(s: &Stage) -> String {
    let mut t = s.name.clone();
    if !s.fields.is_empty() {
        t.push(' ');
        t.push_str(&fields_text(&s.fields));
    }
    if !s.sort.is_empty() {
        t.push(' ');
        t.push_str(&sort_text(&s.sort));
    }
    for name in [&s.from, &s.path].into_iter().flatten() {
        t.push(' ');
        t.push_str(name);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::shell_syntax::parse_value_at;

    fn shape(command: &str) -> (Shape, Observed) {
        let (node, _) = parse_value_at(command, 0).unwrap();
        of(&node, false).unwrap()
    }

    #[test]
    fn filter_operator_classes_and_order() {
        let (s, seen) = shape(
            r#"{ find: "c", filter: { b: 1, a: { $gte: 1, $lt: 5 }, c: { $in: [1, 2, 3] }, d: { $exists: true },
                 e: /abc/i, f: { $ne: 2 }, g: { $elemMatch: { x: 1 } }, "items.3.qty": 2, $and: [ { h: null } ] },
                 sort: { a: -1, b: 1 }, projection: { a: 1 }, limit: 10 }"#,
        );
        assert_eq!(
            s.to_string(),
            "find {a: range, b: eq, c: in, d: exists, e: regex, f: ne/nin, g: other, h: eq, items.#.qty: eq} sort {a: -1, b: 1} projection limit"
        );
        assert_eq!(seen.largest_in, 3);
        assert!(seen.unanchored_regex && seen.case_insensitive_regex);
        let (t, _) = shape(
            r#"{ find: "c", filter: { a: { $lt: 9, $gt: 0 }, b: 7 }, sort: { a: -1, b: 1 }, projection: { a: 1 }, limit: 3 }"#,
        );
        let (u, _) = shape(
            r#"{ find: "c", filter: { b: 1, a: { $gte: 1, $lt: 5 } }, sort: { a: -1, b: 1 }, projection: { a: 1 }, limit: 10 }"#,
        );
        assert_eq!(t, u, "values and key order do not make a new shape");
        let (v, _) = shape(
            r#"{ find: "c", filter: { b: 1, a: { $gte: 1, $lt: 5 } }, sort: { b: 1, a: -1 } }"#,
        );
        assert_ne!(t, v, "sort order does");
    }

    #[test]
    fn regex_operator_form_and_or() {
        let (s, seen) = shape(
            r#"{ find: "c", filter: { $or: [ { name: { $regex: "^ab", $options: "" } }, { nick: "x" } ] } }"#,
        );
        assert_eq!(s.to_string(), "find {name: regex, nick: eq} with $or");
        assert!(!seen.unanchored_regex && !seen.case_insensitive_regex);
    }

    #[test]
    fn aggregate_stages() {
        let (s, _) = shape(
            r#"{ aggregate: "orders", pipeline: [ { $match: { status: "A" } }, { $lookup: { from: "users", localField: "u", foreignField: "_id", as: "user" } },
                 { $unwind: "$user" }, { $group: { _id: "$user.city", n: { $sum: 1 } } }, { $sort: { n: -1 } } ], cursor: {} }"#,
        );
        assert_eq!(
            s.to_string(),
            "aggregate [$match {status: eq} | $lookup users | $unwind user | $group | $sort {n: -1}]"
        );
    }

    #[test]
    fn updates_name_fields_and_operators() {
        let (s, _) = shape(
            r#"{ update: "posts", updates: [ { q: { _id: 1 }, u: { $set: { title: "x" }, $push: { comments: { a: 1 } }, $inc: { n: 1 } } } ] }"#,
        );
        assert_eq!(
            s.to_string(),
            "update {_id: eq} $inc {n} $push {comments} $set {title}"
        );
        assert!(s.update.iter().any(UpdateUse::grows_array));
        let (b, _) = shape(
            r#"{ update: "posts", updates: [ { q: { _id: 1 }, u: { $push: { recent: { $each: [1], $slice: -10 } } } } ] }"#,
        );
        assert_eq!(b.to_string(), "update {_id: eq} $push+$slice {recent}");
        assert!(!b.update.iter().any(UpdateUse::grows_array));
        let (r, _) = shape(r#"{ findAndModify: "c", query: { a: 1 }, update: { b: 2 } }"#);
        assert_eq!(r.to_string(), "findAndModify {a: eq} replacement");
        let (d, _) = shape(r#"{ delete: "c", deletes: [ { q: { a: { $lt: 3 } }, limit: 0 } ] }"#);
        assert_eq!(d.to_string(), "delete {a: range}");
    }

    #[test]
    fn other_commands_have_no_shape() {
        let (node, _) = parse_value_at("{ hello: 1 }", 0).unwrap();
        assert!(of(&node, false).is_none());
        let (gm, _) = parse_value_at(r#"{ getMore: 1, collection: "c" }"#, 0).unwrap();
        assert_eq!(of(&gm, false).map(|s| s.0.kind), Some(OpKind::GetMore));
    }
}
