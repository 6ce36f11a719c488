//! The model's YAML from a schema and its mapping: entities with their
//! fields, unique keys and the indexes SQL has, relationships with the
//! fields that hold them, and every figure DDL cannot know marked as an
//! assumption (or, from a live database, measured). Names are the model's
//! (`names`); SQL names appear only in comments and descriptions, escaped
//! so that each comment stays on its line.

use super::ddl::Schema;
use super::evidence::Evidence;
use super::mapping::{ASSUMED_CHILDREN, ASSUMED_COUNT, Mapping, Rel};
use super::types::{field_type, growth, measured_type};
use crate::words::visible as shown;
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt::Write as _;

/// A field's type as a block-context value (`tags: string[5]`).
use crate::inputs::model_file::scalar::block;
/// A key or a value: the model file's one scalar writer, safe inside
/// `{…}` and `[…]` (`model_file::scalar`).
pub use crate::inputs::model_file::scalar::flow as q;
/// A path, a sort key or an aggregate (`seller.region`, `-placed_at`,
/// `sum(lines.qty)`): the same writer.
pub use crate::inputs::model_file::scalar::flow as q_path;

pub fn write(
    name: &str,
    schema: &Schema,
    mapping: &Mapping,
    evidence: Option<&Evidence>,
) -> String {
    let (rels, names) = (&mapping.relationships, &mapping.names);
    let junctions: FxHashSet<&str> = mapping.junctions.iter().map(String::as_str).collect();
    // Each table's references, and the tables other tables reference.
    let mut references: FxHashMap<&str, FxHashMap<&str, &Rel>> = FxHashMap::default();
    let mut referenced_by: FxHashMap<&str, usize> = FxHashMap::default();
    for r in rels {
        if !r.column.is_empty() {
            references
                .entry(r.child.as_str())
                .or_default()
                .entry(r.column.as_str())
                .or_insert(r);
        }
        *referenced_by.entry(r.parent.as_str()).or_default() += 1;
    }
    let mut out = String::new();
    match evidence {
        None => {
            let _ = writeln!(
                out,
                "# yaml-language-server: $schema=https://squill.dev/schema/squill-model.schema.json\n#\n# Written by `squill import sql` from the DDL of {name}. DDL says which\n# tables, keys and references exist; it cannot say how many rows there\n# are, how many children a parent has, or what the application reads and\n# writes. Those figures are assumptions, each marked `assumed` below:\n# replace them with real ones (or import from a live database), and add\n# the operations under `operations:` before trusting `squill advise`.",
                name = shown(name)
            );
        }
        Some(e) => {
            let _ = writeln!(
                out,
                "# yaml-language-server: $schema=https://squill.dev/schema/squill-model.schema.json\n#\n# Written by `squill import` from the live database {}. Row counts,\n# children per parent, field sizes and null shares are measured (each\n# says how); the operations are the statements the database ran, with\n# their measured rates. Figures it could not measure are marked `assumed`.",
                shown(&e.source)
            );
        }
    }
    let _ = writeln!(out, "name: {}", q(name));
    let _ = writeln!(out, "entities:");
    for t in schema
        .tables
        .iter()
        .filter(|t| !junctions.contains(t.name.as_str()))
    {
        let _ = writeln!(out, "  {}:", q(names.entity(&t.name)));
        if names.is_renamed(&t.name, None) {
            let _ = writeln!(
                out,
                "    description: {}",
                q(&format!("table {:?} in SQL", t.name))
            );
        }
        let rows = evidence.and_then(|e| e.counts.get(&t.name).copied());
        match rows {
            Some(n) => {
                let _ = writeln!(out, "    count: {n}  # measured: rows in the table");
            }
            None => {
                let _ = writeln!(
                    out,
                    "    count: {ASSUMED_COUNT}  # assumed: DDL has no row counts"
                );
                let _ = writeln!(out, "    assumed: [count]");
            }
        }
        let references = references.get(t.name.as_str());
        let reference = |c: &str| references.and_then(|r| r.get(c));
        let single_key = Mapping::id_column(t);
        let mut fields = String::new();
        for c in &t.columns {
            if reference(&c.name).is_some() {
                continue;
            }
            let stats = evidence.and_then(|e| e.columns.get(&(t.name.clone(), c.name.clone())));
            let (mut ty, mut note) = match stats {
                Some(st) => measured_type(&c.sql_type, st),
                None => field_type(&c.sql_type),
            };
            // A column of listed values is a string of one of them: sized
            // by their average length unless measured.
            if !c.values.is_empty() && (stats.is_none() || !ty.starts_with("string")) {
                let chars: usize = c.values.iter().map(|v| v.chars().count()).sum();
                ty = format!("string({})", chars.div_ceil(c.values.len()).max(1));
                note = None;
            }
            let is_id = Some(c.name.as_str()) == single_key;
            // Measured: optional only when some rows lack it.
            let optional = !is_id
                && match stats {
                    Some(st) => !c.not_null && st.null_frac > 0.0,
                    None => !c.not_null,
                };
            let (field, ty) = if is_id {
                ("_id".to_string(), ty)
            } else {
                (
                    names.field(&t.name, &c.name).to_string(),
                    if optional { format!("{ty}?") } else { ty },
                )
            };
            let distinct = match (stats, rows) {
                (Some(st), Some(n)) if !is_id && !ty.contains('[') => st.distinct(n),
                _ => None,
            };
            // Listed values say how many there are; otherwise the measured
            // count of distinct values, when there is one.
            let mut detail = if !c.values.is_empty() && !is_id {
                // Always quoted: a label such as `null` or `true` stays text.
                let values: Vec<String> = c
                    .values
                    .iter()
                    .map(|v| serde_json::to_string(v).unwrap_or_default())
                    .collect();
                Some(format!("enum: [{}]", values.join(", ")))
            } else {
                distinct.map(|d| format!("distinct: {d}"))
            };
            if !is_id && names.is_renamed(&t.name, Some(&c.name)) {
                let sql = q(&format!("column {:?} in SQL", c.name));
                detail = Some(match detail {
                    Some(d) => format!("{d}, description: {sql}"),
                    None => format!("description: {sql}"),
                });
            }
            let _ = match detail {
                Some(d) => write!(fields, "      {}: {{type: {}, {d}}}", q(&field), q(&ty)),
                None => write!(fields, "      {}: {}", q(&field), block(&ty)),
            };
            match note {
                Some(n) => {
                    let _ = writeln!(fields, "  # {}", shown(&n));
                }
                None => fields.push('\n'),
            }
        }
        if !fields.is_empty() {
            let _ = writeln!(out, "    fields:");
            out.push_str(&fields);
        }
        // Unique keys (besides the `_id`), on the fields and references kept.
        let kept = |col: &String| {
            t.columns.iter().any(|c| &c.name == col) && Some(col.as_str()) != single_key
        };
        let mut unique: Vec<&Vec<String>> =
            t.unique.iter().filter(|u| u.iter().all(kept)).collect();
        if t.primary_key.len() > 1 && t.primary_key.iter().all(kept) {
            unique.push(&t.primary_key);
        }
        if !unique.is_empty() {
            let keys: Vec<String> = unique
                .iter()
                .map(|u| {
                    format!(
                        "[{}]",
                        u.iter()
                            .map(|c| match reference(c) {
                                Some(r) => q(&r.child_field),
                                None => q(names.field(&t.name, c)),
                            })
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
                .collect();
            let _ = writeln!(out, "    unique: [{}]", keys.join(", "));
        }
        for i in &t.indexes {
            let _ = writeln!(out, "    # indexed in SQL: ({})", shown(&i.join(", ")));
        }
    }
    if !rels.is_empty() {
        let _ = writeln!(out, "relationships:");
    }
    for r in rels {
        let _ = writeln!(out, "  {}:", q(&r.name));
        let _ = writeln!(out, "    # {}", shown(&r.why));
        let key = (
            r.table.clone(),
            r.link.as_ref().map_or(r.column.clone(), |l| l.0.clone()),
        );
        if let Some((tested, matched)) = evidence.and_then(|e| e.matched.get(&key)) {
            let _ = writeln!(
                out,
                "    # measured: {} of {} values tested match a {} key",
                crate::words::int(*matched),
                crate::words::int(*tested),
                shown(&r.parent)
            );
        }
        if r.kind != "one-to-many" {
            let _ = writeln!(out, "    kind: {}", r.kind);
        }
        let _ = writeln!(out, "    parent: {}", q(names.entity(&r.parent)));
        let _ = writeln!(out, "    child: {}", q(names.entity(&r.child)));
        let children = evidence.and_then(|e| e.children.get(&key));
        let parents = evidence.and_then(|e| e.parents.get(&key));
        match r.kind {
            "one-to-one" => {
                // Some parents have none (a profile not every customer has).
                if let Some(c) = children.filter(|c| c.min == 0) {
                    let _ = writeln!(
                        out,
                        "    children: {{min: 0, typical: {}, max: 1}}  # measured: some {} have none ({})",
                        c.p50.min(1),
                        shown(&r.parent),
                        c.how()
                    );
                }
                if let Some(p) = parents.filter(|p| p.min == 0) {
                    let _ = writeln!(
                        out,
                        "    parents: {{min: 0, typical: 1, max: 1}}  # measured: some {} have none (of {} rows read)",
                        shown(&r.child),
                        crate::words::int(p.over)
                    );
                }
            }
            "many-to-many" if children.is_some() || parents.is_some() => {
                let mut assumed = Vec::new();
                for (side, spread) in [("children", children), ("parents", parents)] {
                    match spread {
                        Some(s) => {
                            let _ = writeln!(out, "    {side}: {}  # {}", s.yaml(), s.how());
                        }
                        None => {
                            let _ = writeln!(
                                out,
                                "    {side}: {{typical: {ASSUMED_CHILDREN}, max: unbounded}}  # assumed"
                            );
                            assumed.push(side);
                        }
                    }
                }
                if !assumed.is_empty() {
                    let _ = writeln!(out, "    assumed: [{}]", assumed.join(", "));
                }
            }
            // No parent has a child today (a reference column left null):
            // the fan-out it will have is unknown, not zero.
            "one-to-many" if children.is_some_and(|s| s.max == 0) => {
                let _ = writeln!(
                    out,
                    "    children: {{min: 0, typical: 0, max: unbounded}}  # assumed: no {} has {} set today",
                    shown(&r.child),
                    shown(&r.column)
                );
                let _ = writeln!(
                    out,
                    "    parents: {{min: 0, typical: 1, max: 1}}  # measured: the reference is null"
                );
                let _ = writeln!(out, "    assumed: [children]");
            }
            "one-to-many" if children.is_some() => {
                let s = children.expect("checked");
                match growth(evidence, &r.child, &r.parent) {
                    Some((g, per_second)) => {
                        let _ = writeln!(
                            out,
                            "    children: {}  # {}; the largest holds {} today, and {} rows arrive at {}/s",
                            s.yaml_growing(Some(g)),
                            s.how(),
                            s.max,
                            shown(&r.child),
                            crate::words::num(per_second)
                        );
                    }
                    None => {
                        let _ = writeln!(out, "    children: {}  # {}", s.yaml(), s.how());
                    }
                }
                if let Some(p) = parents.filter(|p| p.min == 0) {
                    let _ = writeln!(
                        out,
                        "    parents: {{min: 0, typical: 1, max: 1}}  # measured: some {} have none (of {} rows read)",
                        shown(&r.child),
                        crate::words::int(p.over)
                    );
                }
            }
            "many-to-many" => {
                let _ = writeln!(
                    out,
                    "    children: {{typical: {ASSUMED_CHILDREN}, max: unbounded}}  # assumed"
                );
                let _ = writeln!(
                    out,
                    "    parents: {{typical: {ASSUMED_CHILDREN}, max: unbounded}}  # assumed"
                );
                let _ = writeln!(out, "    assumed: [children, parents]");
            }
            _ => {
                let _ = writeln!(
                    out,
                    "    children: {{min: 0, typical: {ASSUMED_CHILDREN}, max: unbounded}}  # assumed: DDL has no fan-out"
                );
                let _ = writeln!(out, "    assumed: [children]");
            }
        }
        // The model's defaults: the relationship's name in the parent, the
        // parent entity's in the child; written when another name is kept.
        if r.parent_field != r.name {
            let _ = writeln!(out, "    parent_field: {}", q(&r.parent_field));
        }
        if !r.column.is_empty() || r.child_field != names.entity(&r.parent) {
            let _ = writeln!(out, "    child_field: {}", q(&r.child_field));
        }
        if r.kind != "many-to-many" && r.parent != r.child {
            // Another table that references the child needs it on its own.
            let referenced = referenced_by.get(r.child.as_str()).copied().unwrap_or(0)
                > usize::from(r.parent == r.child);
            if referenced {
                let _ = writeln!(
                    out,
                    "    standalone: true  # other tables reference {}",
                    shown(&r.child)
                );
            }
        }
        if !r.attributes.is_empty() {
            let _ = writeln!(out, "    attributes:");
            let link = schema.table(&r.table);
            for a in &r.attributes {
                let attribute = attribute_name(schema, mapping, r, a);
                let sql = link
                    .and_then(|t| t.columns.iter().find(|c| &c.name == a))
                    .map_or("text".to_string(), |c| c.sql_type.clone());
                let (ty, _) = field_type(&sql);
                let _ = writeln!(out, "      {}: {}", q(&attribute), block(&ty));
            }
        }
    }
    if let Some(e) = evidence.filter(|e| !e.operations.is_empty()) {
        // Comments alone would leave `operations:` empty (null).
        if e.operations
            .iter()
            .any(|l| !l.trim_start().starts_with('#'))
        {
            let _ = writeln!(out, "operations:");
        }
        for line in &e.operations {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// The model's name of column `a` of many-to-many `r`'s linking table: the
/// column's field, or `{table}_{field}` when a side has a field of that
/// name (an attribute may not share a side's field name).
pub fn attribute_name(schema: &Schema, mapping: &Mapping, r: &Rel, a: &str) -> String {
    let names = &mapping.names;
    let field = names.field(&r.table, a);
    let on_side = |e: &str| {
        schema
            .table(e)
            .is_some_and(|t| t.columns.iter().any(|c| names.field(e, &c.name) == field))
    };
    if on_side(&r.parent) || on_side(&r.child) {
        format!("{}_{field}", names.entity(&r.table))
    } else {
        field.to_string()
    }
}
