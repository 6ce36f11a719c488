//! SQL names as model names. A database accepts almost any name in quotes
//! (`"order.lines"`, `"$total"`, a name holding a newline); a model name
//! may not hold a `.` (it separates the steps of a path), start with `$`
//! (an operator to MongoDB), be blank, or hold control characters or line
//! separators (invisible, and they end a comment in the scripts generated
//! from the model). Each name the model would refuse is mapped to one it
//! accepts, unique among its neighbours (the tables; a table's columns,
//! where `_id` is the key's), and the SQL name is kept in the model's
//! `description:` and reported, so that `squill check` accepts every model
//! the importers write.

use super::ddl::{Position, Schema, Table};
use rustc_hash::{FxHashMap, FxHashSet};
use std::borrow::Cow;

/// One SQL name the model spells differently.
#[derive(Debug, Clone, PartialEq)]
pub struct Renamed {
    /// The table, as SQL names it.
    pub table: String,
    /// The column, as SQL names it; `None` when the table itself is renamed.
    pub column: Option<String>,
    /// The model's name.
    pub model: String,
    /// Where the table is created.
    pub at: Position,
}

impl Renamed {
    /// The change in words, for the user.
    pub fn message(&self) -> String {
        let what = match &self.column {
            None => format!("table {:?} is entity `{}`", self.table, self.model),
            Some(c) => format!(
                "column {c:?} of table {:?} is field `{}`",
                self.table, self.model
            ),
        };
        format!(
            "{what} in the model (a model name has no `.`, no leading `$`, no control character, at most {MAX_NAME_CHARS} characters, and only the key is `_id`); the SQL name is its description"
        )
    }
}

/// The model's names of a schema's tables and columns.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// Only the names that change: most schemas have none.
    entities: FxHashMap<String, String>,
    fields: FxHashMap<(String, String), String>,
    /// Every change, in the schema's order.
    pub renamed: Vec<Renamed>,
}

/// Whether a character may not stand in a model name at byte `i`.
fn refused(i: usize, c: char) -> bool {
    c == '.' || c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') || (i == 0 && c == '$')
}

/// The longest model name an import writes, in characters. The longest
/// identifier a SQL database takes is 128 characters (SQL Server;
/// PostgreSQL 63 bytes, MySQL 64): only broken or hostile DDL has longer
/// names, and YAML refuses a mapping key over 1,024 characters, so a name
/// that long could not even be read back from the model file.
pub const MAX_NAME_CHARS: usize = 128;

/// `name` as the model accepts it: each refused character an `_`, cut to
/// `MAX_NAME_CHARS`; a blank name `unnamed`. Borrowed when it is accepted
/// already.
pub fn model_name(name: &str) -> Cow<'_, str> {
    let long = name.chars().nth(MAX_NAME_CHARS).is_some();
    if !long && !name.trim().is_empty() && !name.char_indices().any(|(i, c)| refused(i, c)) {
        return Cow::Borrowed(name);
    }
    let mapped: String = name
        .char_indices()
        .take(MAX_NAME_CHARS)
        .map(|(i, c)| if refused(i, c) { '_' } else { c })
        .collect();
    if mapped.trim().is_empty() {
        Cow::Owned("unnamed".into())
    } else {
        Cow::Owned(mapped)
    }
}

/// Names `wanted` in order: an accepted name not taken keeps itself, then
/// each other gets its mapped form, suffixed `_2`, `_3`, … until free.
/// Returns the changed ones as (index, new name).
fn assign<'a>(
    wanted: impl Iterator<Item = &'a str> + Clone,
    taken: &mut FxHashSet<String>,
) -> Vec<(usize, String)> {
    let mut later = Vec::new();
    for (i, n) in wanted.clone().enumerate() {
        match model_name(n) {
            Cow::Borrowed(n) if !taken.contains(n) => {
                taken.insert(n.to_string());
            }
            _ => later.push(i),
        }
    }
    let mut out = Vec::new();
    let names: Vec<&str> = wanted.collect();
    for i in later {
        let base = model_name(names[i]).into_owned();
        let mut n = base.clone();
        let mut k = 2;
        while taken.contains(&n) {
            n = format!("{base}_{k}");
            k += 1;
        }
        taken.insert(n.clone());
        out.push((i, n));
    }
    out
}

impl Names {
    pub fn of(schema: &Schema) -> Names {
        let mut names = Names::default();
        let mut taken = FxHashSet::default();
        for (i, n) in assign(schema.tables.iter().map(|t| t.name.as_str()), &mut taken) {
            let t = &schema.tables[i];
            names.entities.insert(t.name.clone(), n.clone());
            names.renamed.push(Renamed {
                table: t.name.clone(),
                column: None,
                model: n,
                at: t.at,
            });
        }
        for t in &schema.tables {
            names.columns(t);
        }
        names
    }

    fn columns(&mut self, t: &Table) {
        let key = t.id_column();
        // The key is the `_id`; no other column may take that name.
        let mut taken: FxHashSet<String> = FxHashSet::default();
        taken.insert("_id".into());
        let others = t
            .columns
            .iter()
            .map(|c| c.name.as_str())
            .filter(|c| Some(*c) != key);
        let others: Vec<&str> = others.collect();
        for (i, n) in assign(others.iter().copied(), &mut taken) {
            self.fields
                .insert((t.name.clone(), others[i].to_string()), n.clone());
            self.renamed.push(Renamed {
                table: t.name.clone(),
                column: Some(others[i].to_string()),
                model: n,
                at: t.at,
            });
        }
    }

    /// The entity of table `table`.
    pub fn entity<'a>(&'a self, table: &'a str) -> &'a str {
        self.entities.get(table).map_or(table, String::as_str)
    }

    /// The field of column `column` of table `table` (not the key's `_id`:
    /// the caller knows which column is the key).
    pub fn field<'a>(&'a self, table: &str, column: &'a str) -> &'a str {
        if self.fields.is_empty() {
            return column;
        }
        self.fields
            .get(&(table.to_string(), column.to_string()))
            .map_or(column, String::as_str)
    }

    /// Whether table `table` or its column `column` has another name in the
    /// model.
    pub fn is_renamed(&self, table: &str, column: Option<&str>) -> bool {
        match column {
            None => self.entities.contains_key(table),
            Some(c) => self
                .fields
                .contains_key(&(table.to_string(), c.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_names_are_mapped_and_kept_unique() {
        assert_eq!(model_name("film"), "film");
        assert_eq!(model_name("a.b"), "a_b");
        assert_eq!(model_name("$x"), "_x");
        assert_eq!(model_name("x$"), "x$");
        assert_eq!(model_name("a\nb\u{2028}"), "a_b_");
        assert_eq!(model_name("  "), "unnamed");
        assert_eq!(model_name(""), "unnamed");
        let long = "é".repeat(MAX_NAME_CHARS + 1);
        assert_eq!(model_name(&long), "é".repeat(MAX_NAME_CHARS));
        assert_eq!(model_name(&long[2..]), long[2..]);
        let mut taken = FxHashSet::default();
        let wanted = ["a_b", "a.b", "a.b ", "$a_b", "ok"];
        // `a_b` keeps its name; `a.b` and `$a_b` would take it: suffixed.
        assert_eq!(
            assign(wanted.iter().copied(), &mut taken),
            [
                (1, "a_b_2".to_string()),
                (2, "a_b ".to_string()),
                (3, "_a_b".to_string())
            ]
        );
    }
}
