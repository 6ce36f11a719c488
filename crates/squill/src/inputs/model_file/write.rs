//! `to_yaml`: a `Model` written back as a model file that `parse` reads to an
//! equal `Model` (`scan --emit-model` uses it). It writes the long forms where a
//! short one would lose information, and every rate per mix explicitly.

use super::compact;
use super::scalar::{block as block_type, flow as s};
use crate::model::{
    Cardinality, Filter, FilterOp, Include, Model, OperationKind, RelationshipKind, SortKey,
};
use std::fmt::Write as _;

/// `name: type`, or `name: {type, keys, distinct, enum, description}` when
/// the field has more to say: an entity's field or a link's attribute.
fn field_line(f: &crate::model::Field) -> String {
    let ty = compact::write_type(&f.ty, f.avg_size, f.element_size, f.required);
    let keys = match f.ty {
        crate::model::FieldType::Attributes { keys } => Some(keys),
        _ => None,
    };
    if f.distinct.is_none() && f.enum_values.is_empty() && f.description.is_none() && keys.is_none()
    {
        return format!("{}: {}", s(&f.name), block_type(&ty));
    }
    let mut parts = vec![format!("type: {}", s(&ty))];
    if let Some(k) = keys {
        parts.push(format!("keys: {k}"));
    }
    if let Some(d) = f.distinct {
        parts.push(format!("distinct: {d}"));
    }
    if !f.enum_values.is_empty() {
        parts.push(format!(
            "enum: {}",
            list(
                f.enum_values
                    .iter()
                    .map(|v| serde_json::to_string(v).unwrap_or_default())
            )
        ));
    }
    if let Some(d) = &f.description {
        parts.push(format!("description: {}", s(d)));
    }
    format!("{}: {{{}}}", s(&f.name), parts.join(", "))
}

fn num(v: f64) -> String {
    // Rust prints the shortest text that reads back to the same f64.
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

fn cardinality(c: &Cardinality) -> String {
    let mut out = format!("{{min: {}, typical: {}, max: {}", c.min, c.typical, c.max);
    match c.growth {
        Some(g) if !g.has_spread() && g.per == crate::model::Period::Day => {
            let _ = write!(out, ", growth_per_day: {}", num(g.typical));
        }
        Some(g) => {
            // In the period the model stated, as it was written.
            let figures: Vec<String> = g
                .figures()
                .iter()
                .map(|(p, v)| format!("{}: {}", p.name(), num(g.per.from_per_day(*v))))
                .collect();
            let _ = write!(
                out,
                ", growth: {{{}, per: {}}}",
                figures.join(", "),
                g.per.name()
            );
        }
        None => {}
    }
    for (name, p) in [("p95", c.p95), ("p99", c.p99)] {
        if let Some(p) = p {
            let _ = write!(out, ", {name}: {p}");
        }
    }
    out.push('}');
    out
}

fn sort(keys: &[SortKey]) -> String {
    list(keys.iter().map(|k| {
        s(&format!(
            "{}{}",
            if k.descending { "-" } else { "" },
            k.field
        ))
    }))
}

fn filter(filters: &[Filter]) -> String {
    // The test of an expiring entity's life is squill's, made again from
    // `expires:` when the file is read (`model::expiry`).
    let items: Vec<String> = filters
        .iter()
        .filter(|f| !f.age.is_some_and(|a| a.expiry))
        .map(|f| {
            let op = match (f.op, f.selectivity) {
                // The age, not the share it keeps: the share follows from it.
                _ if f.age.is_some() => {
                    let age = f.age.unwrap_or(crate::model::Age {
                        days: 0.0,
                        older: false,
                        expiry: false,
                    });
                    let word = if age.older { "before" } else { "since" };
                    format!("{word}({} days)", age.days)
                }
                (FilterOp::Eq, _) => "eq".to_string(),
                (FilterOp::Range, None) => "range".to_string(),
                (FilterOp::Range, Some(x)) => format!("range({x})"),
                (FilterOp::In, _) => "in".to_string(),
                (FilterOp::Under, _) => "under".to_string(),
                (FilterOp::Intersects, _) => "intersects".to_string(),
                (FilterOp::Near | FilterOp::Within, _) => {
                    let word = if f.op == FilterOp::Near {
                        "near"
                    } else {
                        "within"
                    };
                    match f.geo {
                        Some(crate::model::GeoArea {
                            radius_km: Some(r), ..
                        }) => format!("{word}({r} km)"),
                        Some(a) => format!("{word}({} km2)", a.km2),
                        None => word.to_string(),
                    }
                }
            };
            format!("{}: {op}", s(&f.path.join(".")))
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}

fn include(model: &Model, out: &mut String, includes: &[Include], indent: usize) {
    let pad = " ".repeat(indent);
    for inc in includes {
        let r = model.relationship(inc.relationship);
        // From the parent the relationship's name walks to the children; from the
        // child it walks to the parent; for a relationship of an entity to itself
        // the child's field names the way up.
        let name = if inc.to_children || r.parent != r.child {
            &r.name
        } else {
            &r.child_field
        };
        let _ = writeln!(out, "{pad}{}:", s(name));
        let inner = " ".repeat(indent + 2);
        let mut wrote = false;
        if !inc.fields.is_empty() {
            let _ = writeln!(
                out,
                "{inner}fields: {}",
                list(inc.fields.iter().map(|f| s(f)))
            );
            wrote = true;
        }
        if let Some(l) = inc.limit {
            let _ = writeln!(out, "{inner}limit: {l}");
            wrote = true;
        }
        if let Some(p) = &inc.paging {
            let _ = writeln!(out, "{inner}paging: {}", paging(p));
            wrote = true;
        }
        if let Some(n) = inc.recursive {
            let _ = writeln!(out, "{inner}recursive: {n}");
            wrote = true;
        }
        if !inc.sort.is_empty() {
            let _ = writeln!(out, "{inner}sort: {}", sort(&inc.sort));
            wrote = true;
        }
        if !inc.filter.is_empty() {
            let _ = writeln!(out, "{inner}filter: {}", filter(&inc.filter));
            wrote = true;
        }
        if !inc.include.is_empty() {
            let _ = writeln!(out, "{inner}include:");
            include(model, out, &inc.include, indent + 4);
            wrote = true;
        }
        if !wrote {
            // `name:` alone is null: the whole related entity.
            out.truncate(out.len() - 1);
            out.push_str(" {}\n");
        }
    }
}

/// Writes `model` as a model file.
/// A write's `when`, `otherwise` and `increments`.
fn terms(out: &mut String, model: &Model, t: &crate::model::WriteTerms) {
    if !t.conditions.is_empty() {
        let items = t.conditions.iter().map(|c| {
            let value = match &c.value {
                crate::model::Literal::Number(n) => num(*n),
                crate::model::Literal::Text(w) => w.clone(),
                crate::model::Literal::Bool(b) => b.to_string(),
                crate::model::Literal::Amount(a) | crate::model::Literal::Field(a) => a.clone(),
                // `:name` reads back as the caller's value whatever the field holds.
                crate::model::Literal::Param(p) => format!(":{p}"),
            };
            s(&format!("{} {} {value}", c.left(), c.test.symbol()))
        });
        let _ = writeln!(out, "    when: {}", list(items));
    }
    if t.is_conditional() || t.upserts() {
        let _ = writeln!(out, "    otherwise: {}", t.otherwise.name());
    }
    if let Some(share) = t.inserts {
        let _ = writeln!(out, "    inserts: {}", num(share));
    }
    if !t.increments.is_empty() {
        let items: Vec<String> = t
            .increments
            .iter()
            .map(|i| match &i.per {
                Some(a) => {
                    let sign = if i.by < 0.0 { "-" } else { "" };
                    let rel = &model.relationship(a.relationship).name;
                    format!(
                        "{}: {}",
                        s(&i.field),
                        s(&format!("{sign}{rel}.{}", a.field))
                    )
                }
                None => match &i.amount {
                    Some(a) => {
                        let sign = if i.by < 0.0 { "-" } else { "" };
                        format!("{}: {}", s(&i.field), s(&format!("{sign}{a}")))
                    }
                    None => format!("{}: {}", s(&i.field), num(i.by)),
                },
            })
            .collect();
        let _ = writeln!(out, "    increments: {{{}}}", items.join(", "));
    }
}

/// `    assumed: [count]`: the figures of `name` the model marks as assumed.
fn assumed(out: &mut String, model: &Model, kind: &str, name: &str) {
    let prefix = format!("{kind}.{name}.");
    let figures: Vec<&str> = model
        .assumed
        .iter()
        .filter_map(|p| p.strip_prefix(&prefix))
        .collect();
    if !figures.is_empty() {
        let _ = writeln!(out, "    assumed: [{}]", figures.join(", "));
    }
}

/// The model's `deployment:`, each size in the largest unit that holds it
/// whole, so it reads back to the same bytes.
fn deployment(out: &mut String, d: &crate::model::Deployment) {
    if d.is_empty() {
        return;
    }
    let size = |n: u64| {
        let units = [
            ("TiB", 1u64 << 40),
            ("GiB", 1 << 30),
            ("MiB", 1 << 20),
            ("KiB", 1 << 10),
        ];
        units
            .iter()
            .find(|(_, k)| n.is_multiple_of(*k))
            .map_or_else(|| format!("{n}B"), |(u, k)| format!("{}{u}", n / k))
    };
    let mut parts = Vec::new();
    if let Some(r) = d.ram_bytes {
        parts.push(format!("ram: {}", size(r)));
    }
    if let Some(r) = d.disk_bytes {
        parts.push(format!("disk: {}", size(r)));
    }
    if let Some(n) = d.shards {
        parts.push(format!("shards: {n}"));
    }
    if let Some(c) = d.compression {
        parts.push(format!("compression: {c}"));
    }
    let _ = writeln!(out, "deployment: {{{}}}", parts.join(", "));
}

pub fn to_yaml(model: &Model) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# A squill model (reference: docs/model-file.md, JSON Schema: schema/squill-model.schema.json)"
    );
    let _ = writeln!(out, "name: {}", s(&model.name));
    let mixes = &model.workload.mixes;
    let implicit_mix =
        mixes.len() == 1 && mixes[0].name == "default" && mixes[0].description.is_none();
    if !implicit_mix {
        let _ = writeln!(out, "mixes:");
        for m in mixes {
            match &m.description {
                Some(d) => {
                    let _ = writeln!(out, "  {}: {{description: {}}}", s(&m.name), s(d));
                }
                None => {
                    let _ = writeln!(out, "  {}: {{}}", s(&m.name));
                }
            }
        }
    }
    if let Some(t) = model.tenant {
        let tenant = s(&model.entity(t.entity).name);
        let _ = match t.largest {
            Some(share) => writeln!(out, "tenant: {{entity: {tenant}, largest: {share}}}"),
            None => writeln!(out, "tenant: {tenant}"),
        };
    }
    deployment(&mut out, &model.deployment);
    let _ = writeln!(out, "entities:");
    for e in &model.entities {
        let _ = writeln!(out, "  {}:", s(&e.name));
        let _ = writeln!(out, "    count: {}", e.count);
        match e.growth {
            Some(crate::model::CountGrowth::Percent { percent, per }) => {
                let _ = writeln!(
                    out,
                    "    growth: {{percent: {percent}, per: {}}}",
                    per.name()
                );
            }
            Some(crate::model::CountGrowth::Added { count, per }) => {
                let _ = writeln!(out, "    growth: {{add: {count}, per: {}}}", per.name());
            }
            None => {}
        }
        assumed(&mut out, model, "entities", &e.name);
        if let Some(d) = &e.description {
            let _ = writeln!(out, "    description: {}", s(d));
        }
        if !e.unique.is_empty() {
            let key = |k: &crate::model::KeyPart| match k {
                crate::model::KeyPart::Field(f) => s(f),
                crate::model::KeyPart::Parent(r) => s(&model.relationship(*r).name),
            };
            let combos: Vec<String> = e
                .unique
                .iter()
                .map(|c| format!("[{}]", c.iter().map(key).collect::<Vec<_>>().join(", ")))
                .collect();
            let _ = writeln!(out, "    unique: [{}]", combos.join(", "));
        }
        if let Some(d) = &e.density {
            let share = d
                .densest_share
                .map_or(String::new(), |s| format!(", densest_share: {s}"));
            let _ = writeln!(
                out,
                "    density: {{typical: {}, max: {}{share}}}",
                d.typical, d.max
            );
        }
        if let Some(x) = &e.expires {
            let _ = writeln!(
                out,
                "    expires: {{from: {}, after: {} seconds}}",
                s(&x.field),
                x.seconds
            );
        }
        if e.fields.is_empty() {
            let _ = writeln!(out, "    fields: {{}}");
            continue;
        }
        let _ = writeln!(out, "    fields:");
        for f in &e.fields {
            let _ = writeln!(out, "      {}", field_line(f));
        }
    }
    if !model.relationships.is_empty() {
        let _ = writeln!(out, "relationships:");
    }
    for r in &model.relationships {
        let _ = writeln!(out, "  {}:", s(&r.name));
        let kind = match r.kind {
            RelationshipKind::OneToOne => "one-to-one",
            RelationshipKind::OneToMany => "one-to-many",
            RelationshipKind::ManyToMany => "many-to-many",
        };
        let _ = writeln!(out, "    kind: {kind}");
        let _ = writeln!(out, "    parent: {}", s(&model.entity(r.parent).name));
        let _ = writeln!(out, "    child: {}", s(&model.entity(r.child).name));
        let _ = writeln!(out, "    children: {}", cardinality(&r.children));
        // As the model stated it, not as `model::agree_sides` derived it.
        let parents = crate::model::Cardinality {
            mean: None,
            typical: r.stated_parents.unwrap_or(r.parents.typical),
            ..r.parents
        };
        let _ = writeln!(out, "    parents: {}", cardinality(&parents));
        let _ = writeln!(out, "    standalone: {}", r.child_standalone);
        let _ = writeln!(out, "    shared: {}", r.shared);
        let _ = writeln!(out, "    parent_field: {}", s(&r.parent_field));
        let _ = writeln!(out, "    child_field: {}", s(&r.child_field));
        if let Some(layout) = r.layout {
            let _ = writeln!(out, "    layout: {}", layout.name());
        }
        assumed(&mut out, model, "relationships", &r.name);
        if let Some(levels) = r.levels {
            let _ = writeln!(out, "    levels: {levels}");
        }
        if !r.snapshot.is_empty() {
            let _ = writeln!(
                out,
                "    snapshot: {}",
                list(r.snapshot.iter().map(|f| s(f)))
            );
        }
        if !r.attributes.is_empty() {
            let _ = writeln!(out, "    attributes:");
            for f in &r.attributes {
                let _ = writeln!(out, "      {}", field_line(f));
            }
        }
        if let Some(d) = &r.description {
            let _ = writeln!(out, "    description: {}", s(d));
        }
    }
    if !model.workload.operations.is_empty() {
        let _ = writeln!(out, "operations:");
    }
    for op in &model.workload.operations {
        let _ = writeln!(out, "  {}:", s(&op.name));
        let target = s(&model.entity(op.entity_in(model)).name);
        let (verb, target) = match &op.kind {
            OperationKind::Read { family, .. } if !family.is_empty() => (
                "read",
                format!(
                    "[{target}, {}]",
                    family
                        .iter()
                        .map(|e| s(&model.entity(*e).name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            OperationKind::Read { .. } => ("read", target),
            OperationKind::Insert { .. } => ("insert", target),
            OperationKind::Update { .. } if op.terms.claim.is_some() => ("claim", target),
            OperationKind::Update { .. } => ("update", target),
            OperationKind::Delete { .. } => ("delete", target),
            OperationKind::Link {
                relationship,
                unlink,
            } => (
                if *unlink { "unlink" } else { "link" },
                s(&model.relationship(*relationship).name),
            ),
            OperationKind::UpdateLink { relationship, .. } => {
                ("link", s(&model.relationship(*relationship).name))
            }
        };
        let _ = writeln!(out, "    {verb}: {target}");
        if implicit_mix {
            let _ = writeln!(out, "    rate: {}", num(op.rate(0)));
        } else {
            let rates: Vec<String> = mixes
                .iter()
                .enumerate()
                .map(|(i, m)| format!("{}: {}", s(&m.name), num(op.rate(i))))
                .collect();
            let _ = writeln!(out, "    rates: {{{}}}", rates.join(", "));
        }
        if let Some(d) = &op.description {
            let _ = writeln!(out, "    description: {}", s(d));
        }
        if op.all_tenants {
            let _ = writeln!(out, "    all_tenants: true");
        }
        let rel_name = |id| s(&model.relationship(id).name);
        match &op.kind {
            OperationKind::Read {
                filter: f,
                sort: so,
                limit,
                fields,
                include: inc,
                aggregates,
                ..
            } => {
                if !f.is_empty() {
                    let _ = writeln!(out, "    filter: {}", filter(f));
                }
                if !so.is_empty() {
                    let _ = writeln!(out, "    sort: {}", sort(so));
                }
                if let Some(l) = limit {
                    let _ = writeln!(out, "    limit: {l}");
                }
                if let Some(p) = &op.paging {
                    let _ = writeln!(out, "    paging: {}", paging(p));
                }
                if op.finds_tenant {
                    let _ = writeln!(out, "    finds_tenant: true");
                }
                if op.counts {
                    let _ = writeln!(out, "    returns: count");
                }
                if !fields.is_empty() {
                    let _ = writeln!(out, "    fields: {}", list(fields.iter().map(|f| s(f))));
                }
                if !inc.is_empty() {
                    let _ = writeln!(out, "    include:");
                    include(model, &mut out, inc, 6);
                }
                if !aggregates.is_empty() {
                    let items = aggregates.iter().map(|a| {
                        let rel = model.relationship(a.relationship);
                        let r = if a.from_child {
                            &rel.child_field
                        } else {
                            &rel.name
                        };
                        let inner = match &a.field {
                            Some(f) => format!("{r}.{f}"),
                            None => r.clone(),
                        };
                        let within = a
                            .tolerance
                            .map(|t| format!(" within {t}"))
                            .unwrap_or_default();
                        serde_json::to_string(&format!(
                            "{}({inner}){within}",
                            compact::aggregate_name(a.function)
                        ))
                        .unwrap_or_default()
                    });
                    let _ = writeln!(out, "    aggregates: {}", list(items));
                    if let Some(w) = aggregates.iter().find_map(|a| a.window.as_ref()) {
                        let _ = writeln!(
                            out,
                            "    window: {{per: {}, last: {}, by: {}}}",
                            w.unit, w.last, w.field
                        );
                    }
                }
            }
            OperationKind::Insert { links, count, .. } => {
                if !links.is_empty() {
                    let _ = writeln!(
                        out,
                        "    links: {}",
                        list(links.iter().map(|l| rel_name(*l)))
                    );
                }
                let _ = writeln!(out, "    count: {count}");
            }
            OperationKind::Update {
                filter: f,
                changes,
                relinks,
                multi,
                ..
            } => {
                if !f.is_empty() {
                    let _ = writeln!(out, "    filter: {}", filter(f));
                }
                if !changes.is_empty() {
                    // A field set to the caller's named value is written
                    // as it was read (`current_price = :offer`).
                    let _ = writeln!(
                        out,
                        "    changes: {}",
                        list(changes.iter().map(|c| match op.terms.value_of(c) {
                            Some(v) => s(&format!("{c} = :{v}")),
                            None => s(c),
                        }))
                    );
                }
                if !relinks.is_empty() {
                    let _ = writeln!(
                        out,
                        "    relinks: {}",
                        list(relinks.iter().map(|l| rel_name(*l)))
                    );
                }
                match &op.terms.claim {
                    Some(so) if !so.is_empty() => {
                        let _ = writeln!(out, "    sort: {}", sort(so));
                    }
                    Some(_) => {}
                    None => {
                        let _ = writeln!(out, "    multi: {multi}");
                    }
                }
            }
            OperationKind::Delete { filter: f, .. } => {
                if !f.is_empty() {
                    let _ = writeln!(out, "    filter: {}", filter(f));
                }
            }
            OperationKind::Link { .. } => {}
            OperationKind::UpdateLink { changes, .. } => {
                let _ = writeln!(out, "    changes: {}", list(changes.iter().map(|c| s(c))));
            }
        }
        terms(&mut out, model, &op.terms);
    }
    if !model.workload.atomic_groups.is_empty() {
        let _ = writeln!(out, "atomic:");
        for g in &model.workload.atomic_groups {
            let ops = list(g.operations.iter().map(|o| s(&model.operation(*o).name)));
            match g.same {
                Some(e) => {
                    let same = s(&model.entity(e).name);
                    let _ = writeln!(out, "  {}: {{writes: {ops}, same: {same}}}", s(&g.name));
                }
                None => {
                    let _ = writeln!(out, "  {}: {ops}", s(&g.name));
                }
            }
        }
    }
    if !model.current.is_empty() || !model.without.is_empty() {
        let _ = writeln!(out, "current:");
        for c in &model.current {
            let name = s(&model.relationship(c.relationship).name);
            if c.copies.is_empty() {
                let _ = writeln!(out, "  {name}: {}", c.layout.name());
            } else {
                let _ = writeln!(
                    out,
                    "  {name}: {{layout: {}, copies: {}}}",
                    c.layout.name(),
                    list(c.copies.iter().map(|f| s(f)))
                );
            }
        }
        let patterns: Vec<String> = model
            .without
            .patterns()
            .iter()
            .filter_map(|(pattern, scope)| {
                let names = scope.names(model)?;
                Some(if names.is_empty() {
                    format!("{pattern}: all")
                } else {
                    format!("{pattern}: {}", list(names.into_iter().map(s)))
                })
            })
            .collect();
        if !patterns.is_empty() {
            let _ = writeln!(out, "  without: {{{}}}", patterns.join(", "));
        }
    }
    out
}

/// `{by: skip, past_first: 0.05, depth: {typical: 20, max: 1000}}`.
fn paging(p: &crate::model::Paging) -> String {
    let by = match p.by {
        crate::model::PagingBy::Keyset => "keyset",
        crate::model::PagingBy::Skip => "skip",
    };
    let share = p
        .deepest_share
        .map_or_else(String::new, |s| format!(", max_share: {s}"));
    format!(
        "{{by: {by}, past_first: {}, depth: {{typical: {}, max: {}{share}}}}}",
        p.past_first, p.depth, p.deepest
    )
}
