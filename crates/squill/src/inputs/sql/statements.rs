//! Statements a database ran (`pg_stat_statements`' normalized text, with
//! calls and rows) as the model's operations: a SELECT becomes a read of its
//! first table with the filter, sort and limit it has, the tables it joins
//! through foreign keys as `include`s or filter paths, `count`/`sum`/… over
//! joined children as aggregates; INSERT, UPDATE and DELETE become writes,
//! and on a linking table `link`/`unlink`. What a statement does that the
//! model cannot say is given as the reason it was not mapped.

use super::ddl::{Schema, Table};
use super::mapping::{Mapping, Rel};
use super::write::q_path as q;
use crate::words::visible as shown;
use sqlparser::ast::{
    AssignmentTarget, BinaryOperator, Expr, FromTable, FunctionArg, FunctionArgExpr,
    FunctionArguments, GroupByExpr, Ident, JoinConstraint, JoinOperator, LimitClause, ObjectName,
    OrderByKind, OrderBySort, Query, Select, SelectItem, SelectItemQualifiedWildcardKind, SetExpr,
    Statement, TableFactor, TableObject, TableWithJoins,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;
use std::collections::BTreeMap;

/// One statement as the database counted it.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// The normalized text (constants replaced by `$1`, `$2`, …).
    pub query: String,
    /// Executions per second over the time measured.
    pub per_second: f64,
    /// Executions counted.
    pub calls: u64,
    /// Rows returned or changed per execution, on average.
    pub rows_per_call: f64,
}

/// The operations section, and why the statements left out were.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Translated {
    /// Each operation's YAML lines (two-space indent), the first a comment
    /// saying what it was measured from.
    pub blocks: Vec<Vec<String>>,
    pub mapped: usize,
    /// (statement text, shortened; reason) of the reads and writes not
    /// mapped.
    pub skipped: Vec<(String, String)>,
    /// Statements that read or write no rows (SET, CREATE, ALTER, COPY, …).
    pub other: usize,
    /// Rows inserted per second, per table (a link's: its linking table).
    pub inserts: BTreeMap<String, f64>,
}

/// An operation before it is written.
#[derive(Debug, Default)]
struct Op {
    verb: &'static str,
    target: String,
    filter: BTreeMap<String, &'static str>,
    sort: Vec<String>,
    limit: Option<u64>,
    fields: Option<Vec<String>>,
    include: Include,
    aggregates: Vec<String>,
    links: Vec<String>,
    changes: Vec<String>,
    relinks: Vec<String>,
    count: Option<u64>,
    multi: bool,
}

/// Nested includes: step name → (fields, or all when `None`; deeper steps).
#[derive(Debug, Default)]
struct Include(BTreeMap<String, (Option<Vec<String>>, Include)>);

impl Include {
    fn at(&mut self, steps: &[String]) -> &mut (Option<Vec<String>>, Include) {
        let (first, rest) = steps.split_first().expect("a step");
        let entry = self
            .0
            .entry(first.clone())
            .or_insert_with(|| (Some(Vec::new()), Include::default()));
        if rest.is_empty() {
            entry
        } else {
            entry.1.at(rest)
        }
    }

    fn yaml(&self) -> String {
        let items: Vec<String> = self
            .0
            .iter()
            .map(|(step, (fields, inner))| {
                let mut parts = Vec::new();
                if let Some(f) = fields.as_ref().filter(|f| !f.is_empty()) {
                    let f: Vec<String> = f.iter().map(|x| q(x)).collect();
                    parts.push(format!("fields: [{}]", f.join(", ")));
                }
                if !inner.0.is_empty() {
                    parts.push(format!("include: {}", inner.yaml()));
                }
                format!("{}: {{{}}}", q(step), parts.join(", "))
            })
            .collect();
        format!("{{{}}}", items.join(", "))
    }
}

/// Maps every statement of `observed` it can, in the order given.
pub fn translate(schema: &Schema, mapping: &Mapping, observed: &[Observed]) -> Translated {
    let mut out = Translated::default();
    let mut names: Vec<String> = Vec::new();
    for o in observed {
        let text = shorten(&o.query);
        match operation(schema, mapping, o) {
            Ok(mut op) => {
                match op.verb {
                    "insert" => {
                        *out.inserts.entry(op.target.clone()).or_default() +=
                            o.per_second * op.count.unwrap_or(1) as f64;
                    }
                    "link" => {
                        if let Some(r) = mapping.relationships.iter().find(|r| r.name == op.target)
                        {
                            *out.inserts.entry(r.table.clone()).or_default() += o.per_second;
                        }
                    }
                    _ => {}
                }
                // A table's operations name its entity (a link, its relationship).
                if op.verb != "link" {
                    op.target = mapping.names.entity(&op.target).to_string();
                }
                let name = unique(op.name(), &mut names);
                let mut block = vec![format!(
                    "  # {} calls, {} row{} each: {}",
                    o.calls,
                    round(o.rows_per_call),
                    if o.rows_per_call == 1.0 { "" } else { "s" },
                    shown(&text)
                )];
                block.push(format!("  {name}:"));
                block.extend(op.yaml(o.per_second));
                out.blocks.push(block);
                out.mapped += 1;
            }
            Err(Skip::Other) => out.other += 1,
            Err(Skip::Because(reason)) => out.skipped.push((text, reason)),
        }
    }
    out
}

/// The statement on one line, at most 160 characters.
fn shorten(query: &str) -> String {
    let one: String = query.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 160 {
        format!("{}…", one.chars().take(159).collect::<String>())
    } else {
        one
    }
}

fn round(x: f64) -> String {
    if x >= 100.0 || x == x.trunc() {
        format!("{}", x.round())
    } else {
        format!("{x:.2}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// A rate with three significant digits.
fn rate(x: f64) -> String {
    if x <= 0.0 {
        return "0".into();
    }
    let digits = (2 - x.log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn unique(base: String, names: &mut Vec<String>) -> String {
    let mut n = base.clone();
    let mut i = 2;
    while names.contains(&n) {
        n = format!("{base}_{i}");
        i += 1;
    }
    names.push(n.clone());
    n
}

impl Op {
    fn name(&self) -> String {
        let mut n = if self.verb == "link" && !self.changes.is_empty() {
            // A change of a link's own fields: `set_product_tag_added_at`.
            format!("set_{}_{}", self.target, self.changes.join("_"))
        } else {
            format!("{}_{}", self.verb, self.target)
        };
        let keys: Vec<String> = self
            .filter
            .keys()
            .map(|k| k.replace('.', "_").trim_matches('_').to_string())
            .collect();
        if !keys.is_empty() {
            n.push_str("_by_");
            n.push_str(&keys.join("_and_"));
        }
        crate::words::snake(&n)
    }

    fn yaml(&self, per_second: f64) -> Vec<String> {
        let mut l = vec![format!("    {}: {}", self.verb, q(&self.target))];
        // Every name quoted as YAML needs (a field may hold `,` or `:`).
        let list = |v: &[String]| {
            format!(
                "[{}]",
                v.iter().map(|x| q(x)).collect::<Vec<_>>().join(", ")
            )
        };
        if !self.filter.is_empty() {
            let f: Vec<String> = self
                .filter
                .iter()
                .map(|(k, v)| format!("{}: {v}", q(k)))
                .collect();
            l.push(format!("    filter: {{{}}}", f.join(", ")));
        }
        if !self.sort.is_empty() {
            l.push(format!("    sort: {}", list(&self.sort)));
        }
        if let Some(n) = self.limit {
            l.push(format!("    limit: {n}"));
        }
        if let Some(f) = &self.fields {
            l.push(format!("    fields: {}", list(f)));
        }
        if !self.include.0.is_empty() {
            l.push(format!("    include: {}", self.include.yaml()));
        }
        if !self.aggregates.is_empty() {
            l.push(format!("    aggregates: {}", list(&self.aggregates)));
        }
        if !self.links.is_empty() {
            l.push(format!("    links: {}", list(&self.links)));
        }
        if let Some(n) = self.count {
            l.push(format!("    count: {n}"));
        }
        if !self.changes.is_empty() {
            l.push(format!("    changes: {}", list(&self.changes)));
        }
        if !self.relinks.is_empty() {
            l.push(format!("    relinks: {}", list(&self.relinks)));
        }
        if self.multi {
            l.push("    multi: true".into());
        }
        l.push(format!("    rate: {}", rate(per_second)));
        l
    }
}

/// A SELECT of no table (`SELECT setval(…)`, `SELECT 1`).
const NO_TABLE: &str = "reads no table";

/// A read of the system catalog (a tool's, not the application's).
const CATALOG: &str = "reads the catalog";

/// Why a statement is no operation.
enum Skip {
    /// It reads or writes no rows.
    Other,
    Because(String),
}

impl From<String> for Skip {
    fn from(s: String) -> Self {
        Skip::Because(s)
    }
}

impl From<&str> for Skip {
    fn from(s: &str) -> Self {
        Skip::Because(s.to_string())
    }
}

/// The first word of a statement, upper-cased.
fn verb(query: &str) -> String {
    query
        .trim_start_matches(|c: char| c.is_whitespace() || c == '(')
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("")
        .to_ascii_uppercase()
}

fn operation(schema: &Schema, mapping: &Mapping, o: &Observed) -> Result<Op, Skip> {
    if !matches!(
        verb(&o.query).as_str(),
        "SELECT" | "INSERT" | "UPDATE" | "DELETE" | "WITH" | "TABLE" | "VALUES"
    ) {
        return Err(Skip::Other);
    }
    let statements = Parser::parse_sql(&PostgreSqlDialect {}, &o.query)
        .map_err(|e| format!("not read as SQL: {e}"))?;
    let [statement] = statements.as_slice() else {
        return Err("several statements in one".into());
    };
    let cx = Cx { schema, mapping };
    match statement {
        Statement::Query(q) => match cx.read(q, o) {
            Err(e) if e == NO_TABLE || e.starts_with(CATALOG) => Err(Skip::Other),
            other => Ok(other?),
        },
        Statement::Insert(i) => {
            let TableObject::TableName(name) = &i.table else {
                return Err("INSERT into a function".into());
            };
            let table = cx.table(name)?;
            if let Some(r) = cx.junction(&table.name) {
                return Ok(Op {
                    verb: "link",
                    target: r.name.clone(),
                    ..Op::default()
                });
            }
            let columns: Vec<String> = i.columns.iter().map(object_last).collect();
            let links = mapping
                .relationships
                .iter()
                .filter(|r| r.child == table.name && !r.column.is_empty() && r.parent != r.child)
                .filter(|r| columns.is_empty() || columns.contains(&r.column))
                .map(|r| r.name.clone())
                .collect();
            let rows = o.rows_per_call.round() as u64;
            Ok(Op {
                verb: "insert",
                target: table.name.clone(),
                links,
                count: (rows > 1).then_some(rows),
                ..Op::default()
            })
        }
        Statement::Update(u) => {
            if u.from.is_some() {
                return Err("UPDATE … FROM another table".into());
            }
            let scope = cx.scope(std::slice::from_ref(&u.table))?;
            let table = scope.tables[0].1;
            let assigned = u.assignments.iter().flat_map(|a| match &a.target {
                AssignmentTarget::ColumnName(n) => vec![object_last(n)],
                AssignmentTarget::Tuple(ns) => ns.iter().map(object_last).collect(),
            });
            // A linking table's own columns are the link's attributes: a
            // change of them is a link with `changes` (the keys it moves are
            // an unlink and a link, which one statement does not say).
            if let Some(r) = cx.junction(&table.name) {
                let changes: Vec<String> = assigned
                    .filter(|c| r.attributes.contains(c))
                    .map(|c| super::write::attribute_name(cx.schema, cx.mapping, r, &c))
                    .collect();
                if changes.is_empty() {
                    return Err("moves a link to other rows (no attribute changes)".into());
                }
                return Ok(Op {
                    verb: "link",
                    target: r.name.clone(),
                    changes,
                    ..Op::default()
                });
            }
            let mut op = Op {
                verb: "update",
                target: table.name.clone(),
                multi: o.rows_per_call > 1.5,
                ..Op::default()
            };
            for a in &u.assignments {
                let cols: Vec<String> = match &a.target {
                    AssignmentTarget::ColumnName(n) => vec![object_last(n)],
                    AssignmentTarget::Tuple(ns) => ns.iter().map(object_last).collect(),
                };
                for c in cols {
                    if Mapping::id_column(table) == Some(c.as_str()) {
                        continue;
                    }
                    match cx.reference(&table.name, &c) {
                        Some(r) if r.kind == "one-to-many" => op.relinks.push(r.name.clone()),
                        Some(_) => {}
                        None => op
                            .changes
                            .push(cx.mapping.names.field(&table.name, &c).to_string()),
                    }
                }
            }
            if op.changes.is_empty() && op.relinks.is_empty() {
                return Err("changes no field the model keeps".into());
            }
            if let Some(w) = &u.selection {
                cx.filters(&scope, &[], w, &mut op.filter)?;
            }
            Ok(op)
        }
        Statement::Delete(d) => {
            let from = match &d.from {
                FromTable::WithFromKeyword(t) | FromTable::WithoutKeyword(t) => t,
            };
            if d.using.is_some() || from.len() != 1 {
                return Err("DELETE over several tables".into());
            }
            let scope = cx.scope(from)?;
            let table = scope.tables[0].1;
            if let Some(r) = cx.junction(&table.name) {
                return Ok(Op {
                    verb: "unlink",
                    target: r.name.clone(),
                    ..Op::default()
                });
            }
            let mut op = Op {
                verb: "delete",
                target: table.name.clone(),
                ..Op::default()
            };
            if let Some(w) = &d.selection {
                cx.filters(&scope, &[], w, &mut op.filter)?;
            }
            Ok(op)
        }
        _ => Err(Skip::Other),
    }
}

/// The tables of a statement, by the name or alias it uses for them.
struct Scope<'s> {
    tables: Vec<(String, &'s Table)>,
    /// Column pairs an ON condition equates, as (table, column) indexes.
    joins: Vec<((usize, String), (usize, String))>,
}

/// How a joined table is reached from the statement's first table.
#[derive(Debug, Clone)]
struct Reach {
    /// Step names through relationships, from the first table.
    steps: Vec<String>,
    /// Whether every step goes from a parent to its children.
    to_children: bool,
    /// A linking table entered from one side: the relationship, whether it
    /// was entered from its parent.
    link: Option<(usize, bool)>,
}

struct Cx<'s> {
    schema: &'s Schema,
    mapping: &'s Mapping,
}

fn ident(i: &Ident) -> String {
    // PostgreSQL folds unquoted names to lower case.
    if i.quote_style.is_some() {
        i.value.clone()
    } else {
        i.value.to_lowercase()
    }
}

fn object_last(n: &ObjectName) -> String {
    n.0.last()
        .and_then(|p| p.as_ident())
        .map(ident)
        .unwrap_or_default()
}

impl<'s> Cx<'s> {
    fn table(&self, name: &ObjectName) -> Result<&'s Table, String> {
        let n = object_last(name);
        let schema_part = (name.0.len() > 1)
            .then(|| name.0.first().and_then(|p| p.as_ident()).map(ident))
            .flatten();
        if matches!(
            schema_part.as_deref(),
            Some("pg_catalog" | "information_schema")
        ) || n.starts_with("pg_")
        {
            return Err(format!("{CATALOG} ({n})"));
        }
        self.schema
            .table(&n)
            .ok_or_else(|| format!("table {n} is not in the schema"))
    }

    fn junction(&self, table: &str) -> Option<&'s Rel> {
        self.mapping
            .relationships
            .iter()
            .find(|r| r.link.is_some() && r.table == table)
    }

    /// The relationship kept in column `column` of `table` (its reference).
    fn reference(&self, table: &str, column: &str) -> Option<&'s Rel> {
        self.mapping
            .relationships
            .iter()
            .find(|r| r.link.is_none() && r.child == table && r.column == column)
    }

    fn scope(&self, from: &[TableWithJoins]) -> Result<Scope<'s>, String> {
        let mut scope = Scope {
            tables: Vec::new(),
            joins: Vec::new(),
        };
        let mut ons = Vec::new();
        for twj in from {
            self.factor(&twj.relation, &mut scope)?;
            for j in &twj.joins {
                self.factor(&j.relation, &mut scope)?;
                let constraint = match &j.join_operator {
                    JoinOperator::Join(c)
                    | JoinOperator::Inner(c)
                    | JoinOperator::Left(c)
                    | JoinOperator::LeftOuter(c)
                    | JoinOperator::Right(c)
                    | JoinOperator::RightOuter(c) => c,
                    _ => return Err("a join other than inner, left or right".into()),
                };
                match constraint {
                    JoinConstraint::On(e) => ons.push(e),
                    JoinConstraint::Using(cols) => {
                        let right = scope.tables.len() - 1;
                        for c in cols {
                            let c = object_last(c);
                            let left = (0..right)
                                .find(|&i| scope.tables[i].1.columns.iter().any(|x| x.name == c))
                                .ok_or_else(|| format!("USING ({c}) matches no table"))?;
                            scope.joins.push(((left, c.clone()), (right, c)));
                        }
                    }
                    _ => return Err("a NATURAL or unconditioned join".into()),
                }
            }
        }
        for e in ons {
            for atom in conjuncts(e) {
                let pair = equal_columns(&scope, atom)?
                    .ok_or("a join condition other than equal columns")?;
                scope.joins.push(pair);
            }
        }
        Ok(scope)
    }

    fn factor(&self, f: &TableFactor, scope: &mut Scope<'s>) -> Result<(), String> {
        let TableFactor::Table { name, alias, .. } = f else {
            return Err("reads a subquery or a function in FROM".into());
        };
        let table = self.table(name)?;
        let by = alias
            .as_ref()
            .map_or_else(|| table.name.clone(), |a| ident(&a.name));
        scope.tables.push((by, table));
        Ok(())
    }

    /// How each table of `scope` is reached from table `root` through the
    /// join conditions, or why one is not.
    fn reach(&self, scope: &Scope<'s>, root: usize) -> Result<Vec<Option<Reach>>, String> {
        let mut reached: Vec<Option<Reach>> = vec![None; scope.tables.len()];
        reached[root] = Some(Reach {
            steps: Vec::new(),
            to_children: true,
            link: None,
        });
        let mut changed = true;
        while changed {
            changed = false;
            for ((i, ci), (j, cj)) in &scope.joins {
                for (a, ca, b, cb) in [(*i, ci, *j, cj), (*j, cj, *i, ci)] {
                    let (Some(from), None) = (reached[a].clone(), &reached[b]) else {
                        continue;
                    };
                    if let Some(next) = self.step(scope, &from, a, ca, b, cb) {
                        reached[b] = Some(next);
                        changed = true;
                    }
                }
            }
        }
        if let Some(i) = reached.iter().position(Option::is_none) {
            return Err(format!(
                "joins {} on columns that are no foreign key of the schema",
                scope.tables[i].1.name
            ));
        }
        Ok(reached)
    }

    /// The step from table `a` (reached as `from`) over `a.ca = b.cb` to `b`.
    fn step(
        &self,
        scope: &Scope<'s>,
        from: &Reach,
        a: usize,
        ca: &str,
        b: usize,
        cb: &str,
    ) -> Option<Reach> {
        let (ta, tb) = (&scope.tables[a].1.name, &scope.tables[b].1.name);
        let push = |name: &str, down: bool| Reach {
            steps: [from.steps.clone(), vec![name.to_string()]].concat(),
            to_children: from.to_children && down,
            link: None,
        };
        // Out of a linking table, to the side it was not entered from.
        if let Some((ri, from_parent)) = from.link {
            let r = &self.mapping.relationships[ri];
            let (pcol, ccol, ckey) = r.link.as_ref()?;
            return if from_parent && ca == ccol && tb == &r.child && cb == ckey {
                Some(push(&r.name, from.to_children))
            } else if !from_parent && ca == pcol && tb == &r.parent && cb == r.parent_key {
                Some(push(&r.name, false))
            } else {
                None
            };
        }
        for (ri, r) in self.mapping.relationships.iter().enumerate() {
            match &r.link {
                None => {
                    if ta == &r.child && ca == r.column && tb == &r.parent && cb == r.parent_key {
                        return Some(push(&r.child_field, false));
                    }
                    if ta == &r.parent && ca == r.parent_key && tb == &r.child && cb == r.column {
                        return Some(push(&r.name, true));
                    }
                }
                Some((pcol, ccol, ckey)) if tb == &r.table => {
                    let entered_from_parent = ta == &r.parent && ca == r.parent_key && cb == pcol;
                    let entered_from_child = ta == &r.child && ca == ckey && cb == ccol;
                    if entered_from_parent || entered_from_child {
                        return Some(Reach {
                            steps: from.steps.clone(),
                            to_children: from.to_children,
                            link: Some((ri, entered_from_parent)),
                        });
                    }
                }
                Some(_) => {}
            }
        }
        None
    }

    /// The model's path to column `col` of table `t` reached as `reach`.
    fn path(&self, t: &Table, reach: &Reach, col: &str) -> Option<String> {
        let mut steps = reach.steps.clone();
        if let Some((ri, from_parent)) = reach.link {
            let r = &self.mapping.relationships[ri];
            let (pcol, ccol, _) = r.link.as_ref()?;
            // A linking table's columns are the two sides' ids.
            if (from_parent && col == ccol) || (!from_parent && col == pcol) {
                steps.push(r.name.clone());
                steps.push("_id".into());
            } else if (from_parent && col == pcol) || (!from_parent && col == ccol) {
                steps.push("_id".into());
            } else {
                return None;
            }
            return Some(steps.join("."));
        }
        if Mapping::id_column(t) == Some(col) {
            steps.push("_id".into());
        } else if let Some(r) = self.reference(&t.name, col) {
            steps.push(r.child_field.clone());
        } else if t.columns.iter().any(|c| c.name == col) {
            steps.push(self.mapping.names.field(&t.name, col).to_string());
        } else {
            return None;
        }
        Some(steps.join("."))
    }

    /// Adds the filters of condition `w` to `out`; `reach` empty means
    /// every table is the first one (a single-table write).
    fn filters(
        &self,
        scope: &Scope<'s>,
        reach: &[Option<Reach>],
        w: &Expr,
        out: &mut BTreeMap<String, &'static str>,
    ) -> Result<(), String> {
        let root = Reach {
            steps: Vec::new(),
            to_children: true,
            link: None,
        };
        for atom in conjuncts(w) {
            let Some((col, op)) = predicate(scope, atom)? else {
                continue;
            };
            let (ti, name) = col;
            let r = reach.get(ti).and_then(Option::as_ref).unwrap_or(&root);
            let path = self
                .path(scope.tables[ti].1, r, &name)
                .ok_or_else(|| format!("filters on {name}, which the model does not keep"))?;
            let entry = out.entry(path).or_insert(op);
            // `a >= $1 AND a < $2` is one range; `=` wins over a range.
            if *entry == "range" && op == "eq" {
                *entry = "eq";
            }
        }
        Ok(())
    }

    fn read(&self, q: &Query, o: &Observed) -> Result<Op, String> {
        if q.with.is_some() {
            return Err("a WITH query".into());
        }
        let SetExpr::Select(select) = q.body.as_ref() else {
            return Err("a UNION, VALUES or nested query".into());
        };
        let select: &Select = select;
        if select.from.is_empty() {
            return Err(NO_TABLE.into());
        }
        let mut scope = self.scope(&select.from)?;
        // Comma joins: equal columns in WHERE join the tables.
        if let Some(w) = &select.selection {
            for atom in conjuncts(w) {
                if let Some(pair) = equal_columns(&scope, atom)?
                    && pair.0.0 != pair.1.0
                {
                    scope.joins.push(pair);
                }
            }
        }
        let root = scope
            .tables
            .iter()
            .position(|(_, t)| self.junction(&t.name).is_none())
            .ok_or("reads only a linking table")?;
        let reach = self.reach(&scope, root)?;
        let root_table = scope.tables[root].1;
        let mut op = Op {
            verb: "read",
            target: root_table.name.clone(),
            ..Op::default()
        };
        if let Some(w) = &select.selection {
            self.filters(&scope, &reach, w, &mut op.filter)?;
        }
        // What is returned: the first table's fields, included tables' fields,
        // aggregates over joined children.
        let mut root_fields: Option<Vec<String>> = Some(Vec::new());
        let mut counted_root = false;
        for item in &select.projection {
            match item {
                SelectItem::Wildcard(_) => {
                    root_fields = None;
                    for (i, r) in reach.iter().enumerate() {
                        let r = r.as_ref().expect("reached");
                        if i != root && r.link.is_none() {
                            op.include.at(&r.steps).0 = None;
                        }
                    }
                }
                SelectItem::QualifiedWildcard(
                    SelectItemQualifiedWildcardKind::ObjectName(n),
                    _,
                ) => {
                    let alias = object_last(n);
                    let i = scope
                        .tables
                        .iter()
                        .position(|(a, _)| *a == alias)
                        .ok_or_else(|| format!("{alias}.* names no table of FROM"))?;
                    let r = reach[i].as_ref().expect("reached");
                    if i == root {
                        root_fields = None;
                    } else if r.link.is_none() {
                        op.include.at(&r.steps).0 = None;
                    }
                }
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    if let Some((func, arg)) = aggregate(e) {
                        let col = match arg {
                            Some(a) => column(&scope, a)?,
                            None => None,
                        };
                        let target = col.as_ref().map(|c| c.0);
                        let on_root = target.is_none_or(|t| t == root)
                            && (target.is_some() || scope.tables.len() == 1);
                        if on_root {
                            counted_root = true;
                            continue;
                        }
                        let (ti, name) = match col {
                            Some(c) => c,
                            // count(*) over a join: the joined children.
                            None => {
                                let Some(i) = (0..scope.tables.len()).find(|&i| i != root) else {
                                    counted_root = true;
                                    continue;
                                };
                                (i, String::new())
                            }
                        };
                        let r = reach[ti].as_ref().expect("reached");
                        let one_down = r.to_children
                            && (r.steps.len() == 1 || (r.steps.is_empty() && r.link.is_some()));
                        if !one_down {
                            return Err(format!("{func}() over a table that is not a child"));
                        }
                        let rel = if r.steps.is_empty() {
                            let (ri, _) = r.link.expect("a link");
                            self.mapping.relationships[ri].name.clone()
                        } else {
                            r.steps[0].clone()
                        };
                        let field = if func == "count" || name.is_empty() {
                            None
                        } else {
                            self.path(
                                scope.tables[ti].1,
                                &Reach {
                                    steps: Vec::new(),
                                    to_children: true,
                                    link: None,
                                },
                                &name,
                            )
                        };
                        op.aggregates.push(match (func.as_str(), field) {
                            ("count", _) | (_, None) => format!("count({rel})"),
                            (f, Some(field)) => format!("{f}({rel}.{field})"),
                        });
                        continue;
                    }
                    for (ti, name) in columns(&scope, e)? {
                        let r = reach[ti].as_ref().expect("reached");
                        if ti == root {
                            if let (Some(f), Some(p)) =
                                (root_fields.as_mut(), self.path(root_table, r, &name))
                                && self.reference(&root_table.name, &name).is_none()
                                && !f.contains(&p)
                            {
                                f.push(p);
                            }
                        } else if r.link.is_none() {
                            let t = scope.tables[ti].1;
                            let leaf = Reach {
                                steps: Vec::new(),
                                to_children: true,
                                link: None,
                            };
                            let entry = op.include.at(&r.steps);
                            if let (Some(f), Some(p)) =
                                (entry.0.as_mut(), self.path(t, &leaf, &name))
                                && self.reference(&t.name, &name).is_none()
                                && !f.contains(&p)
                            {
                                f.push(p);
                            }
                        }
                    }
                }
                _ => return Err("a select item squill does not read".into()),
            }
        }
        if counted_root && op.aggregates.is_empty() {
            // A count of the matches: their ids are what is read.
            root_fields = Some(vec!["_id".into()]);
        }
        op.fields = root_fields.filter(|f| !f.is_empty());
        if !op.aggregates.is_empty() {
            // A GROUP BY of the first table with aggregates of its children.
            if let GroupByExpr::Expressions(g, _) = &select.group_by
                && g.is_empty()
                && op.fields.is_none()
                && op.include.0.is_empty()
            {
                return Err("aggregates over a whole join, not per row".into());
            }
            // The children counted are not returned one by one.
            op.include = Include::default();
        }
        if let Some(ob) = &q.order_by
            && let OrderByKind::Expressions(list) = &ob.kind
        {
            for e in list {
                if let Some((ti, name)) = column(&scope, &e.expr)?
                    && ti == root
                    && let Some(p) =
                        self.path(root_table, reach[root].as_ref().expect("root"), &name)
                {
                    let desc = matches!(e.options.sort, Some(OrderBySort::Desc));
                    op.sort.push(if desc { format!("-{p}") } else { p });
                }
            }
        }
        if let Some(
            LimitClause::LimitOffset { limit: Some(_), .. } | LimitClause::OffsetCommaLimit { .. },
        ) = &q.limit_clause
        {
            // The limit itself is a parameter: the rows returned per call say it.
            op.limit = Some(o.rows_per_call.round().max(1.0) as u64);
        }
        Ok(op)
    }
}

/// The parts of an AND.
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => [conjuncts(left), conjuncts(right)].concat(),
        Expr::Nested(inner) => conjuncts(inner),
        other => vec![other],
    }
}

/// `a.x = b.y`: the two columns an equality between columns names.
#[allow(clippy::type_complexity)] // two (table index, column) pairs
fn equal_columns(
    scope: &Scope<'_>,
    atom: &Expr,
) -> Result<Option<((usize, String), (usize, String))>, String> {
    let Expr::BinaryOp {
        left,
        op: BinaryOperator::Eq,
        right,
    } = atom
    else {
        return Ok(None);
    };
    Ok(match (column(scope, left)?, column(scope, right)?) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    })
}

/// The column an expression names, as (table index, column), when it is one.
fn column(scope: &Scope<'_>, e: &Expr) -> Result<Option<(usize, String)>, String> {
    match e {
        Expr::Identifier(i) => {
            let c = ident(i);
            let mut found = scope
                .tables
                .iter()
                .enumerate()
                .filter(|(_, (_, t))| t.columns.iter().any(|x| x.name == c));
            match (found.next(), found.next()) {
                (Some((ti, _)), None) => Ok(Some((ti, c))),
                (Some(_), Some(_)) => Err(format!("column {c} is in several tables")),
                _ => Ok(None),
            }
        }
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
            let alias = ident(&parts[parts.len() - 2]);
            let c = ident(&parts[parts.len() - 1]);
            let ti = scope
                .tables
                .iter()
                .position(|(a, t)| *a == alias || t.name == alias)
                .ok_or_else(|| format!("{alias} names no table of FROM"))?;
            Ok(Some((ti, c)))
        }
        Expr::Nested(inner) => column(scope, inner),
        Expr::Cast { expr, .. } => column(scope, expr),
        _ => Ok(None),
    }
}

/// Every column an expression reads.
fn columns(scope: &Scope<'_>, e: &Expr) -> Result<Vec<(usize, String)>, String> {
    if let Some(c) = column(scope, e)? {
        return Ok(vec![c]);
    }
    Ok(match e {
        Expr::BinaryOp { left, right, .. } => {
            [columns(scope, left)?, columns(scope, right)?].concat()
        }
        Expr::UnaryOp { expr, .. } | Expr::Nested(expr) | Expr::Cast { expr, .. } => {
            columns(scope, expr)?
        }
        Expr::Function(f) => {
            let mut out = Vec::new();
            if let FunctionArguments::List(l) = &f.args {
                for a in &l.args {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) = a {
                        out.extend(columns(scope, x)?);
                    }
                }
            }
            out
        }
        _ => Vec::new(),
    })
}

/// `count(x)`, `sum(x.y)`, …: the function and its argument (`None` for `*`).
fn aggregate(e: &Expr) -> Option<(String, Option<&Expr>)> {
    let Expr::Function(f) = e else {
        return None;
    };
    let name = object_last(&f.name);
    if !matches!(name.as_str(), "count" | "sum" | "avg" | "min" | "max") {
        return None;
    }
    let FunctionArguments::List(l) = &f.args else {
        return Some((name, None));
    };
    match l.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(x))] => Some((name, Some(x))),
        _ => Some((name, None)),
    }
}

/// Whether an expression holds no column of the scope (a parameter, a
/// constant, a function of them).
fn is_value(scope: &Scope<'_>, e: &Expr) -> Result<bool, String> {
    Ok(match e {
        Expr::Subquery(_) | Expr::Exists { .. } => false,
        _ => columns(scope, e)?.is_empty(),
    })
}

type Predicate = ((usize, String), &'static str);

/// A filter atom: which column it tests and how (`eq`, `range`, `in`);
/// `None` for what filters nothing the model prices (a join, `<>`).
fn predicate(scope: &Scope<'_>, e: &Expr) -> Result<Option<Predicate>, String> {
    let one = |col: &Expr, value: &Expr, op: &'static str| -> Result<Option<Predicate>, String> {
        match column(scope, col)? {
            Some(c) if is_value(scope, value)? => Ok(Some((c, op))),
            _ => Ok(None),
        }
    };
    match e {
        Expr::BinaryOp { left, op, right } => {
            let kind = match op {
                BinaryOperator::Eq => "eq",
                BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq => "range",
                BinaryOperator::Or => return Err("an OR in the condition".into()),
                _ => return Ok(None),
            };
            // Equal columns are joins, handled apart.
            if column(scope, left)?.is_some() && column(scope, right)?.is_some() {
                return Ok(None);
            }
            match one(left, right, kind)? {
                Some(p) => Ok(Some(p)),
                None => one(right, left, kind),
            }
        }
        Expr::InList {
            expr,
            negated: false,
            ..
        } => Ok(column(scope, expr)?.map(|c| (c, "in"))),
        Expr::AnyOp { left, right, .. } => one(left, right, "in"),
        Expr::Between {
            expr,
            negated: false,
            ..
        } => Ok(column(scope, expr)?.map(|c| (c, "range"))),
        Expr::Like {
            expr,
            negated: false,
            ..
        }
        | Expr::ILike {
            expr,
            negated: false,
            ..
        } => Ok(column(scope, expr)?.map(|c| (c, "range"))),
        Expr::IsNull(expr) => Ok(column(scope, expr)?.map(|c| (c, "eq"))),
        Expr::InSubquery { .. } | Expr::Exists { .. } => Err("a subquery in the condition".into()),
        _ => Ok(None),
    }
}
