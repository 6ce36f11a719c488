//! Times `import sql` on generated DDL, for the growth curve in
//! BENCHMARKS.md (`scripts/bench/sql-import` runs it at 10,000 and 50,000
//! tables): `sql_import_scale SHAPE TABLES`, where SHAPE is
//! - `refs`: each table has an `x_id` column that names no table and a
//!   `t{i-1}_id` column that names the previous one, with no foreign key
//!   declared (the inference looks at every integer column);
//! - `plain`: tables of an `id` and a name, nothing to infer;
//! - `dump`: pg_dump's layout: tables, then every foreign key and index by
//!   `ALTER TABLE` / `CREATE INDEX`, and one linking table in ten.
//!
//! Prints the DDL's size, the seconds to read it into a model, and what
//! the model holds (so two builds can be compared on the same output).

use squill::inputs::sql::{SqlDialect, import};
use std::fmt::Write as _;
use std::time::Instant;

fn ddl(shape: &str, tables: usize) -> String {
    let mut out = String::new();
    for i in 0..tables {
        match shape {
            "refs" => {
                let previous = if i == 0 {
                    String::new()
                } else {
                    format!(", t{}_id integer", i - 1)
                };
                let _ = writeln!(
                    out,
                    "CREATE TABLE t{i} (id integer PRIMARY KEY, x_id integer{previous}, name varchar(20));"
                );
            }
            "dump" => {
                if i % 10 == 9 {
                    let _ = writeln!(
                        out,
                        "CREATE TABLE t{i} (a_id integer NOT NULL, b_id integer NOT NULL, since date, PRIMARY KEY (a_id, b_id));"
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "CREATE TABLE t{i} (id integer NOT NULL, parent integer, name varchar(20));"
                    );
                }
            }
            _ => {
                let _ = writeln!(
                    out,
                    "CREATE TABLE t{i} (id integer PRIMARY KEY, name varchar(20));"
                );
            }
        }
    }
    if shape == "dump" {
        for i in 0..tables {
            if i % 10 == 9 {
                let _ = writeln!(
                    out,
                    "ALTER TABLE ONLY t{i} ADD CONSTRAINT t{i}_a FOREIGN KEY (a_id) REFERENCES t{}(id);\nALTER TABLE ONLY t{i} ADD CONSTRAINT t{i}_b FOREIGN KEY (b_id) REFERENCES t{}(id);",
                    i - 1,
                    i - 2
                );
            } else {
                let _ = writeln!(
                    out,
                    "ALTER TABLE ONLY t{i} ADD CONSTRAINT t{i}_pkey PRIMARY KEY (id);\nCREATE INDEX t{i}_name ON t{i} (name);"
                );
                if i > 0 && i % 10 != 0 {
                    let _ = writeln!(
                        out,
                        "ALTER TABLE ONLY t{i} ADD CONSTRAINT t{i}_parent FOREIGN KEY (parent) REFERENCES t{}(id);",
                        i - 1
                    );
                }
            }
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let shape = args.first().map_or("refs", String::as_str);
    let tables = args
        .get(1)
        .and_then(|a| a.parse::<usize>().ok())
        .unwrap_or(10_000);
    let text = ddl(shape, tables);
    let start = Instant::now();
    let imported = import("scale.sql", &text, SqlDialect::Postgres);
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{shape} {tables}: {} bytes of DDL read in {seconds:.2} s: {} entities, {} relationships ({} inferred), {} bytes of model",
        text.len(),
        imported.tables,
        imported.relationships,
        imported.inferred,
        imported.yaml.len()
    );
}
