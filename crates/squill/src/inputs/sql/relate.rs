//! The relationships of a schema: each foreign key, each linking table
//! (a many-to-many, also between a table and itself: `follows(f1, f2)`),
//! and each reference a column's name suggests (`infer`). Their names and
//! the fields that hold them are the model's, unique where the model needs
//! them to be: two linking tables between the same pair of tables
//! (`dept_emp`, `dept_manager`) store their parent under two fields.

use super::ddl::{Schema, Table};
use super::infer::Targets;
use super::mapping::{Mapping, Rel, plural};
use super::names::Names;
use crate::words::visible as shown;
use rustc_hash::{FxHashMap, FxHashSet};

/// A table that only links two others (or one to itself): exactly two
/// foreign keys of one column each, whose columns make up its primary key
/// (or, between two tables, a unique key), and which no table references.
fn junction(schema: &Schema, t: &Table, referenced: &FxHashSet<&str>) -> Option<Vec<String>> {
    let [a, b] = t.foreign_keys.as_slice() else {
        return None;
    };
    if a.columns.len() != 1 || b.columns.len() != 1 || a.columns == b.columns {
        return None;
    }
    schema.table(&a.table)?;
    schema.table(&b.table)?;
    let mut pair = vec![a.columns[0].clone(), b.columns[0].clone()];
    pair.sort();
    let keyed = |k: &Vec<String>| {
        let mut k = k.clone();
        k.sort();
        k == pair
    };
    // A table between two others may be keyed by the pair through a unique
    // key beside its own id; a table between one and itself must have the
    // pair as its primary key (`follows(f1, f2)`): one with an id of its
    // own, as web frameworks make a follow, is an edge the application
    // reads and writes as a thing (a feed's follows), and stays an entity.
    let by_unique = a.table != b.table && t.unique.iter().any(keyed);
    if !keyed(&t.primary_key) && !by_unique {
        return None;
    }
    // Nothing else references it: a link, not a thing of its own.
    if referenced.contains(t.name.as_str()) {
        return None;
    }
    let attributes = t
        .columns
        .iter()
        .filter(|c| !pair.contains(&c.name) && !t.primary_key.contains(&c.name))
        .map(|c| c.name.clone())
        .collect();
    Some(attributes)
}

pub(super) fn relationships(schema: &Schema, names: &Names) -> (Vec<Rel>, Vec<String>) {
    let mut rels: Vec<Rel> = Vec::new();
    let mut junctions = Vec::new();
    let referenced: FxHashSet<&str> = schema
        .tables
        .iter()
        .flat_map(|t| t.foreign_keys.iter().map(|f| f.table.as_str()))
        .collect();
    let links: Vec<Option<Vec<String>>> = schema
        .tables
        .iter()
        .map(|t| junction(schema, t, &referenced))
        .collect();
    // Names are the model's: unique among relationships and entities. A
    // linking table is no entity: its name is free for its relationship.
    let mut taken: FxHashSet<String> = schema
        .tables
        .iter()
        .zip(&links)
        .filter(|(_, l)| l.is_none())
        .map(|(t, _)| names.entity(&t.name).to_string())
        .collect();
    let mut unique_name = |base: String, parent: &str| {
        let mut n = base.clone();
        if taken.contains(&n) {
            n = format!("{base}_of_{parent}");
        }
        let mut i = 2;
        while taken.contains(&n) {
            n = format!("{base}_of_{parent}_{i}");
            i += 1;
        }
        taken.insert(n.clone());
        n
    };
    for (t, link) in schema.tables.iter().zip(&links) {
        let entity = names.entity(&t.name);
        if let Some(attributes) = link {
            let (fa, fb) = (&t.foreign_keys[0], &t.foreign_keys[1]);
            let name = unique_name(entity.to_string(), names.entity(&fa.table));
            let why = if fa.table == fb.table {
                format!(
                    "table {} links {} to {} (its key is the two foreign keys): a many-to-many of {} with itself",
                    shown(&t.name),
                    shown(&fa.table),
                    shown(&fb.table),
                    shown(&fa.table)
                )
            } else {
                format!(
                    "table {} links {} and {} (its key is the two foreign keys)",
                    shown(&t.name),
                    shown(&fa.table),
                    shown(&fb.table)
                )
            };
            rels.push(Rel {
                name,
                kind: "many-to-many",
                parent: fa.table.clone(),
                child: fb.table.clone(),
                column: String::new(),
                parent_key: fa.referred_key(schema),
                link: Some((
                    fa.columns[0].clone(),
                    fb.columns[0].clone(),
                    fb.referred_key(schema),
                )),
                attributes: attributes.clone(),
                table: t.name.clone(),
                why,
                inferred: false,
                parent_field: String::new(),
                child_field: String::new(),
            });
            junctions.push(t.name.clone());
            continue;
        }
        for fk in &t.foreign_keys {
            if schema.table(&fk.table).is_none() {
                continue;
            }
            let Some(column) = fk.columns.first().cloned() else {
                continue;
            };
            let one = fk.columns == t.primary_key || t.unique.contains(&fk.columns);
            let parent = names.entity(&fk.table);
            let base = if t.name == fk.table {
                format!("{entity}_children")
            } else {
                let key = fk.referred_key(schema);
                let stem = names.field(&t.name, &column).trim_end_matches("_id");
                let stem = stem
                    .strip_suffix(&format!("_{}", names.field(&fk.table, &key)))
                    .unwrap_or(stem);
                if stem == parent
                    || plural(stem) == parent
                    || stem.is_empty()
                    || fk.columns.len() > 1
                {
                    plural(entity)
                } else {
                    format!("{}_by_{stem}", plural(entity))
                }
            };
            let mut why = format!(
                "foreign key {}({}) references {}",
                shown(&t.name),
                shown(&fk.columns.join(", ")),
                shown(&fk.table)
            );
            if fk.columns.len() > 1 {
                why.push_str(&format!(
                    "; a composite key: the model keeps `{}` as the reference",
                    shown(&column)
                ));
            }
            rels.push(Rel {
                name: unique_name(base, parent),
                kind: if one { "one-to-one" } else { "one-to-many" },
                parent: fk.table.clone(),
                child: t.name.clone(),
                column,
                parent_key: fk.referred_key(schema),
                link: None,
                attributes: Vec::new(),
                table: t.name.clone(),
                why,
                inferred: false,
                parent_field: String::new(),
                child_field: String::new(),
            });
        }
    }
    // Columns that name another table's key where no foreign key says so.
    let targets = Targets::of(schema);
    for (t, link) in schema.tables.iter().zip(&links) {
        if link.is_some() {
            continue;
        }
        let declared: FxHashSet<&String> = t.foreign_keys.iter().flat_map(|f| &f.columns).collect();
        for c in &t.columns {
            if declared.contains(&c.name) || t.primary_key == [c.name.clone()] {
                continue;
            }
            if let Some((target, evidence)) = targets.target(t, c) {
                let key = schema
                    .table(&target)
                    .and_then(Mapping::id_column)
                    .unwrap_or("id")
                    .to_string();
                let entity = names.entity(&t.name);
                let parent = names.entity(&target);
                let stem = names.field(&t.name, &c.name).trim_end_matches("_id");
                rels.push(Rel {
                    name: unique_name(
                        if stem == parent {
                            plural(entity)
                        } else {
                            format!("{}_by_{stem}", plural(entity))
                        },
                        parent,
                    ),
                    kind: "one-to-many",
                    parent: target,
                    child: t.name.clone(),
                    column: c.name.clone(),
                    parent_key: key,
                    link: None,
                    attributes: Vec::new(),
                    table: t.name.clone(),
                    why: shown(&evidence).into_owned(),
                    inferred: true,
                    parent_field: String::new(),
                    child_field: String::new(),
                });
            }
        }
    }
    fields(schema, names, &mut rels);
    (rels, junctions)
}

/// The fields each relationship is kept in: the parent's is the
/// relationship's name, the child's the reference column (a many-to-many:
/// the parent entity's name), as the model's defaults say, unless the
/// entity has a field of that name or another relationship took it; then
/// `{relationship}_{field}`, suffixed until free. The model refuses two
/// relationships that store one field of an entity ("both store …").
fn fields(schema: &Schema, names: &Names, rels: &mut [Rel]) {
    let mut used: FxHashMap<String, FxHashSet<String>> = FxHashMap::default();
    let references: FxHashSet<(String, String)> = rels
        .iter()
        .filter(|r| !r.column.is_empty())
        .map(|r| (r.child.clone(), r.column.clone()))
        .collect();
    // An entity's own fields: the `_id` and every column not a reference.
    let own = |table: &str| -> FxHashSet<String> {
        let mut out = FxHashSet::default();
        out.insert("_id".to_string());
        if let Some(t) = schema.table(table) {
            let key = Mapping::id_column(t);
            for c in &t.columns {
                if Some(c.name.as_str()) != key
                    && !references.contains(&(table.to_string(), c.name.clone()))
                {
                    out.insert(names.field(table, &c.name).to_string());
                }
            }
        }
        out
    };
    let mut claim = |table: &str, wanted: &str, rel: &str| -> String {
        let fields = used.entry(table.to_string()).or_insert_with(|| own(table));
        let base = if rel == wanted {
            wanted.to_string()
        } else {
            format!("{rel}_{wanted}")
        };
        let mut n = wanted.to_string();
        if fields.contains(&n) {
            n.clone_from(&base);
        }
        let mut i = 2;
        while fields.contains(&n) {
            n = format!("{base}_{i}");
            i += 1;
        }
        fields.insert(n.clone());
        n
    };
    for r in rels.iter_mut() {
        let wanted_child = if r.column.is_empty() {
            names.entity(&r.parent).to_string()
        } else {
            names.field(&r.child, &r.column).to_string()
        };
        r.child_field = claim(&r.child, &wanted_child, &r.name);
        r.parent_field = claim(&r.parent, &r.name, &r.name);
    }
}
