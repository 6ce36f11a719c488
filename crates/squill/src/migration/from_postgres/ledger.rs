//! What a run of changes needs to see deleted rows: per table the
//! documents are built from, each row's key and the values of its
//! references to other tables, as they were when the last run read the
//! database (`.squill-migrate.rows/`, one file per table). A row missing
//! at the next run was deleted; a row whose reference changed left the
//! row it referred to for another. Either way the row it referred to lost
//! a row of its document (and the one it moved to gained one), and counts
//! as changed (`Touched`); a deleted row that was a document of its own is
//! listed (`Diff::deleted`), and its document goes.
//!
//! The ledger is read in the run's own snapshot, so it describes exactly
//! the data the run wrote. A run of changes writes the new ledger beside
//! the old one and puts it in place only after the state is saved: a run
//! that fails leaves the old one, and the next run sees the same
//! deletions again (rebuilding a document twice is harmless).

use super::copy_rows::CopyRows;
use super::error::MigrateError;
use super::state::fingerprint;
use crate::inputs::postgres::Target;
use crate::inputs::postgres::connect::{literal, qualified, quote};
use crate::inputs::sql::ddl::{Schema, Table};
use crate::inputs::sql::map::Mapping;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The ledger's directory in the output directory.
pub const DIR: &str = ".squill-migrate.rows";

/// A value as the ledger keeps it: the column as text, `None` for null.
type Value = Option<String>;

/// A table's rows in the ledger: by key, the values of their references.
type Rows = HashMap<Vec<Value>, Vec<Value>>;

/// Rows that lost a row of their document since the last run, per table:
/// by the columns that name them, the values (as text).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Touched {
    tables: BTreeMap<String, BTreeMap<Vec<String>, BTreeSet<Vec<String>>>>,
}

impl Touched {
    /// The row of `table` whose `columns` hold `values`.
    pub fn touch(&mut self, table: &str, columns: &[String], values: Vec<String>) {
        self.tables
            .entry(table.to_string())
            .or_default()
            .entry(columns.to_vec())
            .or_default()
            .insert(values);
    }

    /// How many rows, over every table.
    pub fn rows(&self) -> usize {
        self.tables
            .values()
            .flat_map(|by| by.values())
            .map(BTreeSet::len)
            .sum()
    }

    /// SQL true for the rows of `table` (as `alias`) named here; `None`
    /// when none is.
    pub fn test(&self, table: &str, alias: &str) -> Option<String> {
        let by = self.tables.get(table)?;
        let tests: Vec<String> = by
            .iter()
            .map(|(columns, values)| {
                let exprs: Vec<String> = columns
                    .iter()
                    .map(|c| format!("{alias}.{}", quote(c)))
                    .collect();
                one_of(&exprs, values)
            })
            .collect();
        (!tests.is_empty()).then(|| format!("({})", tests.join(" OR ")))
    }

    /// SQL true where `exprs` hold the values of the rows of `table` named
    /// here by `columns` (a child's reference, tested for its parents);
    /// `None` when none is.
    pub fn test_as(&self, table: &str, columns: &[String], exprs: &[&str]) -> Option<String> {
        let values = self.values(table, columns)?;
        let exprs: Vec<String> = exprs.iter().map(|e| e.to_string()).collect();
        Some(format!("({})", one_of(&exprs, values)))
    }

    /// The rows of `table` named here by `columns`: their values.
    pub fn values(&self, table: &str, columns: &[String]) -> Option<&BTreeSet<Vec<String>>> {
        self.tables
            .get(table)?
            .get(columns)
            .filter(|v| !v.is_empty())
    }
}

/// SQL true where `exprs` (as text) hold one of `values`.
fn one_of(exprs: &[String], values: &BTreeSet<Vec<String>>) -> String {
    let lits = |v: &[String]| -> Vec<String> { v.iter().map(|x| literal(x)).collect() };
    match exprs {
        [e] => {
            let all: Vec<String> = values.iter().flat_map(|v| lits(v)).collect();
            format!("{e}::text = ANY(ARRAY[{}]::text[])", all.join(", "))
        }
        _ => {
            let cols: Vec<String> = exprs.iter().map(|e| format!("{e}::text")).collect();
            let rows: Vec<String> = values
                .iter()
                .map(|v| format!("({})", lits(v).join(", ")))
                .collect();
            format!("({}) IN (VALUES {})", cols.join(", "), rows.join(", "))
        }
    }
}

/// A reference from a table's rows to another table's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub columns: Vec<String>,
    pub table: String,
    /// The other table's columns the reference holds.
    pub referred: Vec<String>,
}

/// What the ledger keeps of one table: its key and its references, in the
/// order each row lists their values. The file's first line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    pub table: String,
    pub key: Vec<String>,
    pub references: Vec<Reference>,
}

impl Layout {
    fn width(&self) -> usize {
        self.key.len()
            + self
                .references
                .iter()
                .map(|r| r.columns.len())
                .sum::<usize>()
    }

    /// The file of this table's rows in `dir` (a fingerprint of its name:
    /// any name is a safe file name so).
    fn file(&self, dir: &Path) -> PathBuf {
        dir.join(DIR)
            .join(format!("{}.jsonl", fingerprint(&self.table)))
    }
}

/// The layouts of `tables`, and the tables that cannot be followed (no
/// primary key: a row has no name to be missed by).
pub fn layouts(
    schema: &Schema,
    mapping: &Mapping,
    tables: &BTreeSet<String>,
) -> (Vec<Layout>, Vec<String>) {
    let mut out = Vec::new();
    let mut untracked = Vec::new();
    for name in tables {
        let Some(t) = schema.table(name) else {
            continue;
        };
        if t.primary_key.is_empty() {
            untracked.push(name.clone());
            continue;
        }
        out.push(Layout {
            table: t.name.clone(),
            key: t.primary_key.clone(),
            references: references(schema, mapping, t),
        });
    }
    (out, untracked)
}

/// A table's declared foreign keys, and the references the import
/// inferred from its column names.
fn references(schema: &Schema, mapping: &Mapping, t: &Table) -> Vec<Reference> {
    let mut out: Vec<Reference> = t
        .foreign_keys
        .iter()
        .filter_map(|fk| {
            let referred = if fk.referred.is_empty() {
                schema.table(&fk.table)?.primary_key.clone()
            } else {
                fk.referred.clone()
            };
            (referred.len() == fk.columns.len()).then(|| Reference {
                columns: fk.columns.clone(),
                table: fk.table.clone(),
                referred,
            })
        })
        .collect();
    for r in mapping
        .relationships
        .iter()
        .filter(|r| r.inferred && r.table == t.name)
    {
        let mut add = |column: &str, table: &str, key: &str| {
            let reference = Reference {
                columns: vec![column.to_string()],
                table: table.to_string(),
                referred: vec![key.to_string()],
            };
            if schema.table(table).is_some() && !out.contains(&reference) {
                out.push(reference);
            }
        };
        match &r.link {
            Some((to_parent, to_child, child_key)) => {
                add(to_parent, &r.parent, &r.parent_key);
                add(to_child, &r.child, child_key);
            }
            None => add(&r.column, &r.parent, &r.parent_key),
        }
    }
    out
}

/// What changed in the rows since the ledger was written.
#[derive(Debug, Clone, Default)]
pub struct Diff {
    pub touched: Touched,
    /// Per table, the keys (as text) of its deleted rows.
    pub deleted: BTreeMap<String, Vec<Vec<String>>>,
    /// Rows whose reference changed (they left the row they referred to).
    pub moved: u64,
    /// Tables whose ledger was missing or of another layout: their
    /// deletions since the last run cannot be seen (this run starts them).
    pub unseen: Vec<String>,
}

/// Reads the rows of every table of `layouts` in the transaction's
/// snapshot, writes them as the next ledger (`NAME.next` until `commit`),
/// and compares them with the ledger in `dir` when `compare`.
pub fn read(
    tx: &mut postgres::Transaction<'_>,
    target: &Target,
    namespace: &str,
    dir: &Path,
    layouts: &[Layout],
    compare: bool,
) -> Result<Diff, MigrateError> {
    let folder = dir.join(DIR);
    std::fs::create_dir_all(&folder)
        .map_err(|e| MigrateError::Io(format!("{}: {e}", folder.display())))?;
    let mut diff = Diff::default();
    for layout in layouts {
        let file = layout.file(dir);
        let mut old = if compare {
            let old = load(&file, layout)?;
            if old.is_none() {
                diff.unseen.push(layout.table.clone());
            }
            old
        } else {
            None
        };
        let next = next_of(&file);
        let failed = |e: std::io::Error| MigrateError::Io(format!("{}: {e}", next.display()));
        let mut w = BufWriter::new(File::create(&next).map_err(failed)?);
        let header = serde_json::to_string(layout).map_err(|e| MigrateError::Io(e.to_string()))?;
        writeln!(w, "{header}").map_err(failed)?;
        let columns: Vec<String> = layout
            .key
            .iter()
            .chain(layout.references.iter().flat_map(|r| &r.columns))
            .map(|c| format!("{}::text", quote(c)))
            .collect();
        let sql = format!(
            "COPY ({} SELECT {} FROM {}) TO STDOUT (FORMAT binary)",
            crate::inputs::postgres::connect::MARK,
            columns.join(", "),
            qualified(namespace, &layout.table)
        );
        let reader = tx
            .copy_out(sql.as_str())
            .map_err(|e| target.classify(&e, &format!("reading the keys of {}", layout.table)))?;
        let mut rows = CopyRows::new(BufReader::with_capacity(1 << 20, reader), layout.width())
            .map_err(|e| MigrateError::Data(format!("{}: {e}", layout.table)))?;
        let read_error = |e: std::io::Error| {
            MigrateError::Data(format!("{}: reading the keys: {e}", layout.table))
        };
        while rows.next_row().map_err(read_error)? {
            let row: Vec<Value> = (0..layout.width())
                .map(|i| {
                    rows.field(i)
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                })
                .collect();
            let line = serde_json::to_string(&row).map_err(|e| MigrateError::Io(e.to_string()))?;
            writeln!(w, "{line}").map_err(failed)?;
            if let Some(old) = old.as_mut() {
                let (key, refs) = row.split_at(layout.key.len());
                if let Some(before) = old.remove(key)
                    && before != refs
                {
                    diff.moved += 1;
                    left(layout, &before, Some(refs), &mut diff.touched);
                }
            }
        }
        w.into_inner()
            .map_err(|e| failed(e.into_error()))?
            .sync_all()
            .map_err(failed)?;
        for (key, refs) in old.into_iter().flatten() {
            left(layout, &refs, None, &mut diff.touched);
            diff.deleted
                .entry(layout.table.clone())
                .or_default()
                .push(key.into_iter().map(Option::unwrap_or_default).collect());
        }
    }
    for keys in diff.deleted.values_mut() {
        keys.sort();
    }
    Ok(diff)
}

/// Puts the ledger `read` wrote in place.
pub fn commit(dir: &Path, layouts: &[Layout]) -> Result<(), MigrateError> {
    for layout in layouts {
        let file = layout.file(dir);
        let next = next_of(&file);
        std::fs::rename(&next, &file)
            .map_err(|e| MigrateError::Io(format!("{}: {e}", file.display())))?;
    }
    Ok(())
}

fn next_of(file: &Path) -> PathBuf {
    file.with_extension("jsonl.next")
}

/// The rows the ledger at `file` holds, by key; `None` when there is no
/// ledger for the table or it was written for another layout.
fn load(file: &Path, layout: &Layout) -> Result<Option<Rows>, MigrateError> {
    let f = match File::open(file) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(MigrateError::Io(format!("{}: {e}", file.display()))),
    };
    let mut lines = BufReader::new(f).lines();
    let bad = |n: usize, why: String| {
        MigrateError::State(format!(
            "{}:{n}: {why}; remove {} to start over",
            file.display(),
            DIR
        ))
    };
    let header = match lines.next() {
        Some(h) => h.map_err(|e| bad(1, e.to_string()))?,
        None => return Ok(None),
    };
    match serde_json::from_str::<Layout>(&header) {
        Ok(l) if l == *layout => {}
        _ => return Ok(None),
    }
    let mut rows = HashMap::new();
    for (i, line) in lines.enumerate() {
        let line = line.map_err(|e| bad(i + 2, e.to_string()))?;
        let row: Vec<Value> =
            serde_json::from_str(&line).map_err(|e| bad(i + 2, format!("not a row ({e})")))?;
        if row.len() != layout.width() {
            return Err(bad(
                i + 2,
                format!("{} values, not {}", row.len(), layout.width()),
            ));
        }
        let refs = row[layout.key.len()..].to_vec();
        let mut key = row;
        key.truncate(layout.key.len());
        rows.insert(key, refs);
    }
    Ok(Some(rows))
}

/// A row whose references held `before` (and now `now`, or deleted):
/// every row it referred to and no longer does lost it, and every row it
/// now refers to instead gained it. Both count as changed: the row's own
/// change may not tell the one it moved to (`--changed-by` a column the
/// move did not set), and a parent's buckets are rebuilt from both.
fn left(layout: &Layout, before: &[Value], now: Option<&[Value]>, touched: &mut Touched) {
    let mut at = 0;
    for r in &layout.references {
        let span = at..at + r.columns.len();
        at = span.end;
        let was = &before[span.clone()];
        let is = now.map(|n| &n[span.clone()]);
        if is == Some(was) {
            continue;
        }
        for values in [Some(was), is].into_iter().flatten() {
            let values: Option<Vec<String>> = values.iter().cloned().collect();
            if let Some(values) = values {
                touched.touch(&r.table, &r.referred, values);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orders() -> Layout {
        Layout {
            table: "order_lines".into(),
            key: vec!["order_id".into(), "line_no".into()],
            references: vec![
                Reference {
                    columns: vec!["order_id".into()],
                    table: "orders".into(),
                    referred: vec!["id".into()],
                },
                Reference {
                    columns: vec!["product_id".into()],
                    table: "products".into(),
                    referred: vec!["id".into()],
                },
            ],
        }
    }

    fn v(s: &str) -> Value {
        Some(s.to_string())
    }

    #[test]
    fn a_deleted_row_touches_every_row_it_referred_to() {
        let mut t = Touched::default();
        left(&orders(), &[v("7"), v("30")], None, &mut t);
        assert_eq!(t.rows(), 2);
        assert_eq!(
            t.test("orders", "t1").as_deref(),
            Some("(t1.\"id\"::text = ANY(ARRAY['7']::text[]))")
        );
        assert!(t.test("products", "t2").is_some());
        assert_eq!(t.test("customers", "t3"), None);
    }

    #[test]
    fn a_moved_row_touches_the_row_it_left_and_the_one_it_joined() {
        let mut t = Touched::default();
        left(
            &orders(),
            &[v("7"), v("30")],
            Some(&[v("8"), v("30")]),
            &mut t,
        );
        assert_eq!(t.rows(), 2);
        assert!(
            t.test("orders", "t1")
                .is_some_and(|s| s.contains("'7'") && s.contains("'8'"))
        );
        assert_eq!(t.test("products", "t2"), None);
    }

    #[test]
    fn a_parent_is_tested_through_its_childrens_reference() {
        let mut t = Touched::default();
        left(&orders(), &[v("7"), v("30")], None, &mut t);
        let id = ["id".to_string()];
        assert_eq!(
            t.test_as("orders", &id, &["t4.\"order_id\""]).as_deref(),
            Some("(t4.\"order_id\"::text = ANY(ARRAY['7']::text[]))")
        );
        assert_eq!(t.test_as("orders", &["no".to_string()], &["x"]), None);
        let values: Vec<_> = t.values("orders", &id).into_iter().flatten().collect();
        assert_eq!(values, [&vec!["7".to_string()]]);
    }

    #[test]
    fn a_null_reference_touches_nothing() {
        let mut t = Touched::default();
        left(&orders(), &[None, v("30")], None, &mut t);
        assert_eq!(t.rows(), 1);
        assert_eq!(t.test("orders", "t1"), None);
    }

    #[test]
    fn rows_named_by_two_columns_are_tested_as_pairs_and_quoted() {
        let mut t = Touched::default();
        let cols = vec!["a".to_string(), "b\"".to_string()];
        t.touch("x", &cols, vec!["1".into(), "it's".into()]);
        assert_eq!(
            t.test("x", "t9").as_deref(),
            Some("((t9.\"a\"::text, t9.\"b\"\"\"::text) IN (VALUES ('1', 'it''s')))")
        );
    }

    #[test]
    fn a_ledger_of_another_layout_is_no_ledger() {
        let dir = std::env::temp_dir().join(format!("squill-ledger-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(DIR)).unwrap();
        let layout = orders();
        let file = layout.file(&dir);
        std::fs::write(
            &file,
            "{\"table\":\"order_lines\",\"key\":[\"id\"],\"references\":[]}\n[\"1\"]\n",
        )
        .unwrap();
        assert_eq!(load(&file, &layout).unwrap(), None);
        let header = serde_json::to_string(&layout).unwrap();
        std::fs::write(&file, format!("{header}\n[\"7\",\"1\",\"7\",\"30\"]\n")).unwrap();
        let rows = load(&file, &layout).unwrap().unwrap();
        assert_eq!(
            rows.get(&vec![v("7"), v("1")]),
            Some(&vec![v("7"), v("30")])
        );
        std::fs::write(&file, format!("{header}\n[\"7\"]\n")).unwrap();
        let err = load(&file, &layout).unwrap_err().to_string();
        assert!(err.contains(":2: 1 values, not 4"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
