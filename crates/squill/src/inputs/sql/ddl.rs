//! SQL DDL read with `sqlparser` into tables, columns, keys and indexes.
//! Statements are parsed one at a time: one the parser cannot read is
//! reported at its line and column and skipped up to the next `;`, and the
//! rest of the file is still read.

use sqlparser::ast::{
    AlterTableOperation, ColumnDef, ColumnOption, CreateIndex, CreateTable, Expr, ObjectName,
    Statement, TableConstraint,
};
use sqlparser::dialect::{
    Dialect, GenericDialect, MsSqlDialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect,
};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

/// The SQL dialects `squill import sql` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlDialect {
    Postgres,
    MySql,
    Sqlite,
    MsSql,
    /// Whatever most dialects accept.
    Generic,
}

impl SqlDialect {
    /// The dialect a dump is most likely written in, from marks only one
    /// dialect uses (`ENGINE=` and backquotes for MySQL, `::` casts and
    /// `OWNER TO` for PostgreSQL, `[dbo].` for SQL Server, `PRAGMA` and
    /// `AUTOINCREMENT` for SQLite); `Generic` when none is found.
    pub fn detect(text: &str) -> SqlDialect {
        let upper = text.to_ascii_uppercase();
        let has = |m: &str| upper.contains(m);
        if has("ENGINE=") || has("AUTO_INCREMENT") || text.contains('`') {
            SqlDialect::MySql
        } else if has("OWNER TO") || text.contains("::") || has("SET SEARCH_PATH") || has(" SERIAL")
        {
            SqlDialect::Postgres
        } else if has("[DBO]") || has("NVARCHAR") || has("\nGO\n") {
            SqlDialect::MsSql
        } else if has("PRAGMA") || has("AUTOINCREMENT") {
            SqlDialect::Sqlite
        } else {
            SqlDialect::Generic
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SqlDialect::Postgres => "postgres",
            SqlDialect::MySql => "mysql",
            SqlDialect::Sqlite => "sqlite",
            SqlDialect::MsSql => "mssql",
            SqlDialect::Generic => "generic",
        }
    }

    fn parser_dialect(self) -> Box<dyn Dialect> {
        match self {
            SqlDialect::Postgres => Box::new(PostgreSqlDialect {}),
            SqlDialect::MySql => Box::new(MySqlDialect {}),
            SqlDialect::Sqlite => Box::new(SQLiteDialect {}),
            SqlDialect::MsSql => Box::new(MsSqlDialect {}),
            SqlDialect::Generic => Box::new(GenericDialect {}),
        }
    }
}

/// A place in the file, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

/// A note about the input: a statement not understood (skipped), or one
/// read and deliberately ignored (a view).
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub at: Position,
    pub message: String,
    /// `true` when something could not be read; `false` for a remark.
    pub problem: bool,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Column {
    pub name: String,
    /// The declared type as the file writes it (`varchar(45)`).
    pub sql_type: String,
    pub not_null: bool,
}

impl ForeignKey {
    /// The referenced column: the one named, or the referenced table's
    /// one-column primary key (`id` when neither is known).
    pub fn referred_key(&self, schema: &Schema) -> String {
        if let [k] = self.referred.as_slice() {
            return k.clone();
        }
        match schema.table(&self.table).map(|t| t.primary_key.as_slice()) {
            Some([k]) => k.clone(),
            _ => "id".to_string(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ForeignKey {
    pub columns: Vec<String>,
    pub table: String,
    /// Empty: the referenced table's primary key.
    pub referred: Vec<String>,
    pub at: Position,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
    pub primary_key: Vec<String>,
    /// Column sets declared unique (constraints and unique indexes).
    pub unique: Vec<Vec<String>>,
    pub foreign_keys: Vec<ForeignKey>,
    /// Column lists of the other indexes (hints of what is searched).
    pub indexes: Vec<Vec<String>>,
    pub at: Position,
}

/// What a DDL file declares.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Schema {
    pub tables: Vec<Table>,
    pub notes: Vec<Note>,
    /// Partitions and the table they hold rows of: their constraints and
    /// indexes are the parent's.
    pub partitions: Vec<(String, String)>,
}

impl Schema {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    fn table_mut(&mut self, name: &str) -> Option<&mut Table> {
        let name = self
            .partitions
            .iter()
            .find(|(p, _)| p == name)
            .map_or(name, |(_, parent)| parent.as_str())
            .to_string();
        self.tables.iter_mut().find(|t| t.name == name)
    }
}

/// The last part of a possibly qualified name, unquoted and lower-cased
/// (`public."Film"` → `film`).
fn last_name(name: &ObjectName) -> String {
    name.0
        .last()
        .map(|p| {
            p.to_string()
                .trim_matches(['"', '`', '[', ']'])
                .to_lowercase()
        })
        .unwrap_or_default()
}

fn ident(s: &sqlparser::ast::Ident) -> String {
    s.value.to_lowercase()
}

/// The column an index column names, when it is a plain column.
fn index_column(c: &sqlparser::ast::IndexColumn) -> Option<String> {
    match &c.column.expr {
        Expr::Identifier(i) => Some(ident(i)),
        Expr::CompoundIdentifier(parts) => parts.last().map(ident),
        _ => None,
    }
}

/// Lines meant for a client, not the server, blanked out (line and column
/// numbers kept): psql's backslash commands (`\connect`) and MySQL's
/// `DELIMITER` blocks, which hold triggers and procedures written with
/// another statement terminator.
fn client_commands(text: &str, notes: &mut Vec<Note>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut delimiter: Option<(u64, String)> = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let n = i as u64 + 1;
        let trimmed = line.trim();
        let blank = |line: &str| -> String {
            line.chars()
                .map(|c| if c == '\n' || c == '\r' { c } else { ' ' })
                .collect()
        };
        let word = trimmed.split_whitespace().next().unwrap_or_default();
        if word.eq_ignore_ascii_case("delimiter") {
            let d = trimmed[word.len()..].trim().to_string();
            match &delimiter {
                None if d != ";" => delimiter = Some((n, d)),
                Some((from, _)) if d == ";" => {
                    notes.push(Note {
                        at: Position { line: *from, column: 1 },
                        message: format!(
                            "lines {from}-{n}: a MySQL DELIMITER block (triggers, procedures) skipped"
                        ),
                        problem: false,
                    });
                    delimiter = None;
                }
                _ => {}
            }
            out.push_str(&blank(line));
        } else if delimiter.is_some() {
            out.push_str(&blank(line));
        } else if trimmed.starts_with('\\') {
            notes.push(Note {
                at: Position { line: n, column: 1 },
                message: format!("psql command `{word}` skipped"),
                problem: false,
            });
            out.push_str(&blank(line));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Reads every statement of `text`.
pub fn parse(text: &str, dialect: SqlDialect) -> Schema {
    let d = dialect.parser_dialect();
    let mut schema = Schema::default();
    let text = client_commands(text, &mut schema.notes);
    let mut parser = match Parser::new(d.as_ref()).try_with_sql(&text) {
        Ok(p) => p,
        Err(e) => {
            schema.notes.push(Note {
                at: error_position(&e.to_string()).unwrap_or_default(),
                message: format!(
                    "the file cannot be split into SQL tokens: {}",
                    clean_error(&e.to_string())
                ),
                problem: true,
            });
            return schema;
        }
    };
    loop {
        while parser.consume_token(&Token::SemiColon) {}
        let start = parser.peek_token();
        if start.token == Token::EOF {
            break;
        }
        let at = Position {
            line: start.span.start.line,
            column: start.span.start.column,
        };
        match parser.parse_statement() {
            Ok(statement) => {
                // A statement read in part (options the parser does not
                // know after what it read): kept, the rest skipped.
                let next = parser.peek_token();
                if !matches!(next.token, Token::SemiColon | Token::EOF) {
                    schema.notes.push(Note {
                        at: Position {
                            line: next.span.start.line,
                            column: next.span.start.column,
                        },
                        message: format!(
                            "the statement that starts at {}:{} is read up to here; `{}` and what follows up to `;` not understood and skipped",
                            at.line, at.column, next.token
                        ),
                        problem: true,
                    });
                    loop {
                        let t = parser.next_token();
                        if matches!(t.token, Token::SemiColon | Token::EOF) {
                            break;
                        }
                    }
                }
                read_statement(&mut schema, statement, at);
            }
            Err(e) => {
                let error = e.to_string();
                // Skip to the end of the statement.
                let end = loop {
                    let t = parser.next_token();
                    if matches!(t.token, Token::SemiColon | Token::EOF) {
                        break Position {
                            line: t.span.start.line,
                            column: t.span.start.column,
                        };
                    }
                };
                let failed_at = error_position(&error).unwrap_or(at);
                if let Some((statement, dropped)) =
                    without_unknown_words(&text, at, end, failed_at, d.as_ref())
                {
                    schema.notes.push(Note {
                        at: failed_at,
                        message: format!(
                            "{} not understood and left out; the rest of the table is read (check it)",
                            dropped
                                .iter()
                                .map(|(w, p)| format!("`{w}` at {}:{}", p.line, p.column))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        problem: true,
                    });
                    read_statement(&mut schema, statement, at);
                    continue;
                }
                schema.notes.push(Note {
                    at: failed_at,
                    message: format!(
                        "statement skipped: {} (statement starts at {}:{})",
                        clean_error(&error),
                        at.line,
                        at.column
                    ),
                    problem: true,
                });
            }
        }
    }
    schema
}

/// Byte offset of a 1-based line and character column, if in `text`.
fn offset(text: &str, p: Position) -> Option<usize> {
    let line_start = if p.line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(p.line as usize - 2)?.0 + 1
    };
    let line = &text[line_start..];
    let col = line
        .char_indices()
        .nth(p.column.saturating_sub(1) as usize)
        .map_or(line.len(), |(i, _)| i);
    Some(line_start + col)
}

/// A CREATE TABLE the parser stopped in, read again without the words it
/// did not understand (MySQL's `VARCHAR(40) BINARY`): up to three words,
/// each named in a warning. `None` for other statements or when that is
/// not enough.
fn without_unknown_words(
    text: &str,
    from: Position,
    to: Position,
    mut failed: Position,
    dialect: &dyn Dialect,
) -> Option<(Statement, Vec<(String, Position)>)> {
    let (start, end) = (offset(text, from)?, offset(text, to)?);
    let mut statement = text.get(start..end)?.to_string();
    let head: String = statement
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    if !head.eq_ignore_ascii_case("create table") {
        return None;
    }
    let mut dropped = Vec::new();
    for _ in 0..3 {
        let at = offset(text, failed)?.checked_sub(start)?;
        let word_len = statement
            .get(at..)?
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(statement.len() - at);
        if word_len == 0 {
            return None;
        }
        dropped.push((statement[at..at + word_len].to_string(), failed));
        statement.replace_range(at..at + word_len, &" ".repeat(word_len));
        let parsed = Parser::new(dialect)
            .try_with_sql(&statement)
            .and_then(|mut p| p.parse_statement());
        match parsed {
            Ok(s) => return Some((s, dropped)),
            Err(e) => {
                // Positions in the statement, back to the file's.
                let rel = error_position(&e.to_string())?;
                failed = Position {
                    line: from.line + rel.line - 1,
                    column: if rel.line == 1 {
                        from.column + rel.column - 1
                    } else {
                        rel.column
                    },
                };
            }
        }
    }
    None
}

/// `sql parser error: Expected …, found: x at Line: 3, Column: 7` → `Expected …, found: x`.
fn clean_error(text: &str) -> String {
    let text = text.trim_start_matches("sql parser error: ");
    match text.find(" at Line: ") {
        Some(i) => text[..i].to_string(),
        None => text.to_string(),
    }
}

fn error_position(text: &str) -> Option<Position> {
    let i = text.find("Line: ")?;
    let rest = &text[i + 6..];
    let (line, rest) = rest.split_once(", Column: ")?;
    let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some(Position {
        line: line.trim().parse().ok()?,
        column: column.parse().ok()?,
    })
}

fn read_statement(schema: &mut Schema, statement: Statement, at: Position) {
    match statement {
        Statement::CreateTable(t) => create_table(schema, t, at),
        Statement::AlterTable(a) => {
            let name = last_name(&a.name);
            for op in a.operations {
                match op {
                    AlterTableOperation::AddConstraint { constraint, .. } => {
                        match schema.table_mut(&name) {
                            Some(table) => constraint_into(table, constraint, at),
                            None => schema.notes.push(Note {
                                at,
                                message: format!("ALTER TABLE {name}: no CREATE TABLE {name} before it; constraint skipped"),
                                problem: true,
                            }),
                        }
                    }
                    AlterTableOperation::AddColumn { column_def, .. } => {
                        if let Some(table) = schema.table_mut(&name) {
                            column_into(table, column_def, at);
                        }
                    }
                    // Ownership, defaults, triggers: nothing a design uses.
                    _ => {}
                }
            }
        }
        Statement::CreateIndex(i) => create_index(schema, i, at),
        Statement::CreateView(v) => schema.notes.push(Note {
            at,
            message: format!(
                "view {} ignored: a view is a query over tables, not data of its own",
                last_name(&v.name)
            ),
            problem: false,
        }),
        // Data, settings, functions, sequences, grants: not the schema's shape.
        _ => {}
    }
}

fn create_table(schema: &mut Schema, t: CreateTable, at: Position) {
    let name = last_name(&t.name);
    // A partition holds rows of its parent table: the same entity.
    let parent = t
        .partition_of
        .as_ref()
        .or(t.inherits.as_ref().and_then(|i| i.first()))
        .map(last_name);
    if let Some(parent) = parent {
        schema.notes.push(Note {
            at,
            message: format!("table {name} is a partition of {parent}: read as {parent}"),
            problem: false,
        });
        schema.partitions.push((name, parent));
        return;
    }
    let mut table = Table {
        name: name.clone(),
        at,
        ..Table::default()
    };
    for c in t.columns {
        column_into(&mut table, c, at);
    }
    for c in t.constraints {
        constraint_into(&mut table, c, at);
    }
    match schema.tables.iter().position(|x| x.name == name) {
        Some(i) => {
            let first = schema.tables[i].at;
            schema.notes.push(Note {
                at,
                message: format!(
                    "table {name} is created twice (first at {}:{}); the second is kept",
                    first.line, first.column
                ),
                problem: false,
            });
            schema.tables[i] = table;
        }
        None => schema.tables.push(table),
    }
}

fn column_into(table: &mut Table, c: ColumnDef, at: Position) {
    let name = ident(&c.name);
    let mut column = Column {
        name: name.clone(),
        sql_type: c.data_type.to_string().to_lowercase(),
        not_null: false,
    };
    for option in c.options {
        match option.option {
            ColumnOption::NotNull => column.not_null = true,
            ColumnOption::PrimaryKey(_) => {
                column.not_null = true;
                table.primary_key = vec![name.clone()];
            }
            ColumnOption::Unique(_) => table.unique.push(vec![name.clone()]),
            ColumnOption::ForeignKey(fk) => table.foreign_keys.push(ForeignKey {
                columns: vec![name.clone()],
                table: last_name(&fk.foreign_table),
                referred: fk.referred_columns.iter().map(ident).collect(),
                at,
            }),
            _ => {}
        }
    }
    table.columns.push(column);
}

fn constraint_into(table: &mut Table, c: TableConstraint, at: Position) {
    match c {
        TableConstraint::PrimaryKey(pk) => {
            table.primary_key = pk.columns.iter().filter_map(index_column).collect();
            for col in &mut table.columns {
                if table.primary_key.contains(&col.name) {
                    col.not_null = true;
                }
            }
        }
        TableConstraint::Unique(u) => {
            let cols: Vec<String> = u.columns.iter().filter_map(index_column).collect();
            if !cols.is_empty() && !table.unique.contains(&cols) {
                table.unique.push(cols);
            }
        }
        TableConstraint::ForeignKey(fk) => {
            let key = ForeignKey {
                columns: fk.columns.iter().map(ident).collect(),
                table: last_name(&fk.foreign_table),
                referred: fk.referred_columns.iter().map(ident).collect(),
                at,
            };
            // The same key declared inline and again by ALTER TABLE.
            if !table
                .foreign_keys
                .iter()
                .any(|f| f.columns == key.columns && f.table == key.table)
            {
                table.foreign_keys.push(key);
            }
        }
        TableConstraint::Index(i) => {
            let cols: Vec<String> = i.columns.iter().filter_map(index_column).collect();
            if !cols.is_empty() {
                table.indexes.push(cols);
            }
        }
        _ => {}
    }
}

fn create_index(schema: &mut Schema, i: CreateIndex, at: Position) {
    let name = last_name(&i.table_name);
    let cols: Vec<String> = i.columns.iter().filter_map(index_column).collect();
    let Some(table) = schema.table_mut(&name) else {
        schema.notes.push(Note {
            at,
            message: format!("CREATE INDEX on {name}: no CREATE TABLE {name} before it; skipped"),
            problem: true,
        });
        return;
    };
    if cols.is_empty() {
        return;
    }
    if i.unique {
        if !table.unique.contains(&cols) {
            table.unique.push(cols);
        }
    } else if !table.indexes.contains(&cols) {
        table.indexes.push(cols);
    }
}
