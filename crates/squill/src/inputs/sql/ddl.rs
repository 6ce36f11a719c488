//! SQL DDL read with `sqlparser` into tables, columns, keys and indexes.
//! Statements are parsed one at a time: one the parser cannot read is
//! reported at its line and column and skipped up to the next `;`, and the
//! rest of the file is still read.

pub use super::dialect::SqlDialect;
use crate::words::visible as shown;
use rustc_hash::FxHashMap;
use sqlparser::ast::{
    AlterTableOperation, BinaryOperator, ColumnDef, ColumnOption, CreateIndex, CreateTable,
    DataType, EnumMember, Expr, ObjectName, Statement, TableConstraint,
    UserDefinedTypeRepresentation, Value,
};
use sqlparser::dialect::{Dialect, PostgreSqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::parser::ParserError;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

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
    /// The only values the column takes, when the schema lists them: a
    /// MySQL `ENUM(…)`, a PostgreSQL enum type, or `CHECK (col IN (…))`.
    /// Empty when it does not.
    pub values: Vec<String>,
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

impl Table {
    /// The single-column primary key, which becomes the `_id`.
    pub fn id_column(&self) -> Option<&str> {
        match self.primary_key.as_slice() {
            [k] => Some(k.as_str()),
            _ => None,
        }
    }
}

/// A PostgreSQL domain: a type with constraints.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Domain {
    pub name: String,
    /// The base type, as the file writes it (`varchar(50)`).
    pub sql_type: String,
    /// The values its check lists (`CHECK (VALUE IN (…))`); empty when none.
    pub values: Vec<String>,
    pub not_null: bool,
}

/// What a DDL file declares.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Schema {
    pub tables: Vec<Table>,
    pub notes: Vec<Note>,
    /// Partitions and the table they hold rows of: their constraints and
    /// indexes are the parent's.
    pub partitions: Vec<(String, String)>,
    /// PostgreSQL enum types (`CREATE TYPE mpaa_rating AS ENUM (…)`) and
    /// their labels: a column of that type takes only those values.
    pub enum_types: Vec<(String, Vec<String>)>,
    /// PostgreSQL domains (`CREATE DOMAIN year AS integer CHECK …`): a
    /// column of a domain has its base type and its constraints.
    pub domains: Vec<Domain>,
    /// Each table's place in `tables`, by name, and each partition's
    /// parent: a schema of 50,000 tables is looked up in constant time
    /// (issue 40, item 18). Kept by `add_table`; `reindex` rebuilds it
    /// after `tables` is filled by hand.
    index: FxHashMap<String, usize>,
    parents: FxHashMap<String, String>,
}

impl Schema {
    pub fn table(&self, name: &str) -> Option<&Table> {
        if self.index.len() == self.tables.len() {
            return self.index.get(name).map(|&i| &self.tables[i]);
        }
        self.tables.iter().find(|t| t.name == name)
    }

    /// Adds `table`, or replaces the table of its name (returned).
    pub fn add_table(&mut self, table: Table) -> Option<Table> {
        if self.index.len() != self.tables.len() {
            self.reindex();
        }
        match self.index.get(&table.name) {
            Some(&i) => Some(std::mem::replace(&mut self.tables[i], table)),
            None => {
                self.index.insert(table.name.clone(), self.tables.len());
                self.tables.push(table);
                None
            }
        }
    }

    /// Rebuilds the lookup by name after `tables` or `partitions` were
    /// changed by hand (the first of two tables of one name is found).
    pub fn reindex(&mut self) {
        self.index.clear();
        for (i, t) in self.tables.iter().enumerate() {
            self.index.entry(t.name.clone()).or_insert(i);
        }
        self.parents = self.partitions.iter().cloned().collect();
    }

    fn add_partition(&mut self, partition: String, parent: String) {
        self.parents.insert(partition.clone(), parent.clone());
        self.partitions.push((partition, parent));
    }

    pub fn table_mut(&mut self, name: &str) -> Option<&mut Table> {
        if self.index.len() != self.tables.len() {
            self.reindex();
        }
        let name = self.parents.get(name).map_or(name, String::as_str);
        let i = *self.index.get(name)?;
        self.tables.get_mut(i)
    }
}

/// The last part of a possibly qualified name, unquoted and lower-cased
/// (`public."Film"` → `film`).
fn last_name(name: &ObjectName) -> String {
    // The identifier's value: a quote inside it (`"a""b"`) is one quote.
    name.0
        .last()
        .map(|p| match p.as_ident() {
            Some(i) => i.value.to_lowercase(),
            None => p
                .to_string()
                .trim_matches(['"', '`', '[', ']'])
                .to_lowercase(),
        })
        .unwrap_or_default()
}

/// The name of a user-defined type as a column declares it, without its
/// schema and quotes (`public."Name"` → `name`).
fn type_name(sql_type: &str) -> &str {
    sql_type
        .rsplit('.')
        .next()
        .unwrap_or(sql_type)
        .trim_matches(['"', '`', '[', ']'])
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
/// another statement terminator; SQL Server's `GO` lines end a batch, so
/// each becomes a `;`.
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
        } else if word.eq_ignore_ascii_case("go")
            && trimmed[word.len()..]
                .trim()
                .chars()
                .all(|c| c.is_ascii_digit())
        {
            // SQL Server's batch separator (sqlcmd, SSMS scripts): a `;`.
            let at = line.len() - line.trim_start().len();
            out.push_str(&line[..at]);
            out.push(';');
            out.push_str(&blank(&line[at + 1..]));
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

/// Words that start a statement. A statement read whole and followed by
/// one of them is followed by another statement, not by words not
/// understood: SQL Server needs no `;` between statements, and
/// PostgreSQL's `CREATE SCHEMA s CREATE TABLE a (…) CREATE TABLE b (…);`
/// holds its tables (schema elements) in one statement.
const STARTS: [Keyword; 8] = [
    Keyword::CREATE,
    Keyword::ALTER,
    Keyword::DROP,
    Keyword::GRANT,
    Keyword::INSERT,
    Keyword::SET,
    Keyword::USE,
    Keyword::COMMENT,
];

/// Reads every statement of `text`. The tokens are split at each `;`
/// first, and each statement parsed on its own: one the parser cannot
/// read is reported at its line and column (with the tables it held) and
/// the next is read from its first word, whatever the parser consumed.
pub fn parse(text: &str, dialect: SqlDialect) -> Schema {
    let d = dialect.parser_dialect();
    let mut schema = Schema::default();
    let text = client_commands(text, &mut schema.notes);
    let tokens = match Tokenizer::new(d.as_ref(), &text).tokenize_with_location() {
        Ok(t) => t,
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
    let mut start = 0;
    for (i, t) in tokens.iter().enumerate() {
        if t.token == Token::SemiColon {
            statement(
                &mut schema,
                &text,
                d.as_ref(),
                &tokens[start..i],
                position(t),
            );
            start = i + 1;
        }
    }
    statement(
        &mut schema,
        &text,
        d.as_ref(),
        &tokens[start..],
        end_of(&text),
    );
    schema
}

fn position(t: &TokenWithSpan) -> Position {
    Position {
        line: t.span.start.line,
        column: t.span.start.column,
    }
}

/// The place just past the end of `text`.
fn end_of(text: &str) -> Position {
    let last = text.rsplit('\n').next().unwrap_or_default();
    Position {
        line: text.matches('\n').count() as u64 + 1,
        column: last.chars().count() as u64 + 1,
    }
}

/// Reads the statements of the tokens between two `;` (`end` is the
/// place of the second): usually one; several when a statement is
/// followed by another's first word (`STARTS`).
fn statement(
    schema: &mut Schema,
    text: &str,
    d: &dyn Dialect,
    tokens: &[TokenWithSpan],
    end: Position,
) {
    if tokens
        .iter()
        .all(|t| matches!(t.token, Token::Whitespace(_)))
    {
        return;
    }
    let mut parser = Parser::new(d).with_tokens_with_locations(tokens.to_vec());
    loop {
        let first = parser.peek_token();
        if first.token == Token::EOF {
            return;
        }
        let at = position(&first);
        let is =
            |t: &TokenWithSpan, k: Keyword| matches!(&t.token, Token::Word(w) if w.keyword == k);
        let parsed =
            if is(&first, Keyword::CREATE) && is(&parser.peek_nth_token(1), Keyword::DOMAIN) {
                domain(&mut parser).map(|dom| {
                    schema.domains.push(dom);
                    None
                })
            } else {
                parser.parse_statement().map(Some)
            };
        match parsed {
            Ok(statement) => {
                let next = parser.peek_token();
                let another = matches!(&next.token, Token::Word(w) if STARTS.contains(&w.keyword));
                if next.token != Token::EOF && !another {
                    // A statement read in part (options the parser does not
                    // know after what it read): kept, the rest skipped.
                    let rest = tokens.get(parser.index()..).unwrap_or_default();
                    schema.notes.push(Note {
                        at: position(&next),
                        message: format!(
                            "the statement that starts at {}:{} is read up to here; `{}` and what follows up to `;` not understood and skipped{}",
                            at.line,
                            at.column,
                            shown(&next.token.to_string()),
                            not_read(rest)
                        ),
                        problem: true,
                    });
                    if let Some(s) = statement {
                        read_statement(schema, s, at);
                    }
                    return;
                }
                if let Some(s) = statement {
                    read_statement(schema, s, at);
                }
            }
            Err(e) => {
                let error = e.to_string();
                let failed_at = error_position(&error).unwrap_or(at);
                if let Some((statement, dropped)) =
                    without_unknown_words(text, at, end, failed_at, d)
                {
                    schema.notes.push(Note {
                        at: failed_at,
                        message: format!(
                            "{} not understood and left out; the rest of the table is read (check it)",
                            dropped
                                .iter()
                                .map(|(w, p)| format!("`{}` at {}:{}", shown(w), p.line, p.column))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        problem: true,
                    });
                    read_statement(schema, statement, at);
                    return;
                }
                // The tokens of this statement on: the tables they held are
                // named, so that none is lost without a word.
                let from = tokens
                    .iter()
                    .position(|t| position(t) == at)
                    .unwrap_or_default();
                schema.notes.push(Note {
                    at: failed_at,
                    message: format!(
                        "statement skipped: {} (statement starts at {}:{}){}",
                        shown(&clean_error(&error)),
                        at.line,
                        at.column,
                        not_read(&tokens[from..])
                    ),
                    problem: true,
                });
                return;
            }
        }
    }
}

/// `; table a not read` for the `CREATE TABLE`s among `tokens`, or nothing.
fn not_read(tokens: &[TokenWithSpan]) -> String {
    let words: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let keyword = |i: usize| match words.get(i).map(|t| &t.token) {
        Some(Token::Word(w)) => Some(w.keyword),
        _ => None,
    };
    let mut tables = Vec::new();
    for i in 0..words.len() {
        if keyword(i) != Some(Keyword::CREATE) {
            continue;
        }
        // `CREATE [OR REPLACE] [GLOBAL] [TEMPORARY|UNLOGGED] TABLE [IF NOT EXISTS] name`
        let Some(t) =
            (i + 1..(i + 6).min(words.len())).find(|&j| keyword(j) == Some(Keyword::TABLE))
        else {
            continue;
        };
        let mut j = t + 1;
        if keyword(j) == Some(Keyword::IF) {
            j += 3;
        }
        // The last part of a dotted name.
        let mut name = None;
        while let Some(Token::Word(w)) = words.get(j).map(|t| &t.token) {
            name = Some(w.value.to_lowercase());
            if words.get(j + 1).map(|t| &t.token) != Some(&Token::Period) {
                break;
            }
            j += 2;
        }
        tables.extend(name);
    }
    match tables.as_slice() {
        [] => String::new(),
        [one] => format!("; table {} not read", shown(one)),
        many => format!(
            "; tables {} not read",
            many.iter().map(|t| shown(t)).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// `CREATE DOMAIN name [AS] type [COLLATE c] [DEFAULT e] [constraints]`,
/// read by hand: PostgreSQL lets `AS` out and takes `NULL` and `NOT NULL`
/// as constraints, which the parser's own reading does not.
fn domain(p: &mut Parser<'_>) -> Result<Domain, ParserError> {
    p.expect_keyword_is(Keyword::CREATE)?;
    p.expect_keyword_is(Keyword::DOMAIN)?;
    let name = last_name(&p.parse_object_name(false)?);
    // `AS` is optional.
    let _ = p.parse_keyword(Keyword::AS);
    let sql_type = p.parse_data_type()?.to_string().to_lowercase();
    let mut dom = Domain {
        name,
        sql_type,
        values: Vec::new(),
        not_null: false,
    };
    loop {
        if p.parse_keywords(&[Keyword::NOT, Keyword::NULL]) {
            dom.not_null = true;
        } else if p.parse_keyword(Keyword::NULL) {
        } else if p.parse_keyword(Keyword::CONSTRAINT) {
            p.parse_identifier()?;
        } else if p.parse_keyword(Keyword::CHECK) {
            p.expect_token(&Token::LParen)?;
            let check = p.parse_expr()?;
            p.expect_token(&Token::RParen)?;
            if let Some((col, values)) = allowed_values(&check)
                && col == "value"
            {
                dom.values = values;
            }
        } else if p.parse_keyword(Keyword::DEFAULT) {
            p.parse_expr()?;
        } else if p.parse_keyword(Keyword::COLLATE) {
            p.parse_object_name(false)?;
        } else {
            return Ok(dom);
        }
    }
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
                            // A column the table has already is left as it is.
                            let _ = column_into(table, column_def, at);
                        }
                    }
                    // Ownership, defaults, triggers: nothing a design uses.
                    _ => {}
                }
            }
        }
        Statement::CreateIndex(i) => create_index(schema, i, at),
        Statement::CreateType {
            name,
            representation: Some(UserDefinedTypeRepresentation::Enum { labels }),
        } => schema.enum_types.push((
            last_name(&name),
            labels.iter().map(|l| l.value.clone()).collect(),
        )),
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
        schema.add_partition(name, parent);
        return;
    }
    let mut table = Table {
        name: name.clone(),
        at,
        ..Table::default()
    };
    for c in t.columns {
        let column = ident(&c.name);
        if !column_into(&mut table, c, at) {
            schema.notes.push(Note {
                at,
                message: format!(
                    "table {} declares column {} twice; the first is kept",
                    shown(&name),
                    shown(&column)
                ),
                problem: true,
            });
        }
    }
    for c in &mut table.columns {
        // A domain's column is of its base type, with its constraints.
        if let Some(dom) = schema
            .domains
            .iter()
            .find(|d| d.name == type_name(&c.sql_type))
        {
            c.sql_type.clone_from(&dom.sql_type);
            c.not_null |= dom.not_null;
            if c.values.is_empty() {
                c.values.clone_from(&dom.values);
            }
        }
        if c.values.is_empty()
            && let Some((_, labels)) = schema
                .enum_types
                .iter()
                .find(|(n, _)| type_name(&c.sql_type) == n.to_lowercase())
        {
            c.values = labels.clone();
        }
    }
    for c in t.constraints {
        constraint_into(&mut table, c, at);
    }
    if let Some(first) = schema.add_table(table) {
        schema.notes.push(Note {
            at,
            message: format!(
                "table {} is created twice (first at {}:{}); the second is kept",
                shown(&name),
                first.at.line,
                first.at.column
            ),
            problem: false,
        });
    }
}

/// Adds column `c` to `table`; `false` (and nothing added) when the table
/// has a column of that name already (names fold to lower case).
fn column_into(table: &mut Table, c: ColumnDef, at: Position) -> bool {
    let name = ident(&c.name);
    if table.columns.iter().any(|x| x.name == name) {
        return false;
    }
    let mut column = Column {
        name: name.clone(),
        sql_type: c.data_type.to_string().to_lowercase(),
        not_null: false,
        values: match &c.data_type {
            DataType::Enum(members, _) => members
                .iter()
                .map(|m| match m {
                    EnumMember::Name(n) | EnumMember::NamedValue(n, _) => n.clone(),
                })
                .collect(),
            _ => Vec::new(),
        },
    };
    for option in c.options {
        match option.option {
            ColumnOption::Check(check) => {
                if let Some((col, values)) = allowed_values(&check.expr)
                    && col == name
                {
                    column.values = values;
                }
            }
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
    true
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
        TableConstraint::Check(check) => {
            if let Some((col, values)) = allowed_values(&check.expr)
                && let Some(c) = table.columns.iter_mut().find(|c| c.name == col)
            {
                c.values = values;
            }
        }
        _ => {}
    }
}

/// The column a check constraint holds to a list of text values, and the
/// values: `status IN ('new', 'paid')`, or pg_dump's
/// `(status)::text = ANY ((ARRAY['new'::character varying, …])::text[])`.
/// `None` for any other check (a range, several columns, numbers).
pub fn allowed_values(expr: &Expr) -> Option<(String, Vec<String>)> {
    fn bare(e: &Expr) -> &Expr {
        match e {
            Expr::Nested(inner) | Expr::Cast { expr: inner, .. } => bare(inner),
            other => other,
        }
    }
    fn column(e: &Expr) -> Option<String> {
        match bare(e) {
            Expr::Identifier(i) => Some(ident(i)),
            Expr::CompoundIdentifier(parts) => parts.last().map(ident),
            _ => None,
        }
    }
    fn texts(items: &[Expr]) -> Option<Vec<String>> {
        let values: Vec<String> = items
            .iter()
            .map(|e| match bare(e) {
                Expr::Value(v) => match &v.value {
                    Value::SingleQuotedString(s) => Some(s.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect::<Option<_>>()?;
        (!values.is_empty()).then_some(values)
    }
    match bare(expr) {
        Expr::InList {
            expr,
            list,
            negated: false,
        } => Some((column(expr)?, texts(list)?)),
        Expr::AnyOp {
            left,
            compare_op: BinaryOperator::Eq,
            right,
            ..
        } => match bare(right) {
            Expr::Array(a) => Some((column(left)?, texts(&a.elem)?)),
            _ => None,
        },
        _ => None,
    }
}

/// `allowed_values` of a check constraint as the catalog prints it
/// (`pg_get_constraintdef`: `CHECK (…)`).
pub fn check_values(definition: &str) -> Option<(String, Vec<String>)> {
    let body = definition.trim().strip_prefix("CHECK")?.trim();
    let body = body.strip_suffix("NOT VALID").unwrap_or(body).trim();
    let expr = Parser::new(&PostgreSqlDialect {})
        .try_with_sql(body)
        .and_then(|mut p| p.parse_expr())
        .ok()?;
    allowed_values(&expr)
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
