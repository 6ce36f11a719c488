//! `squill import sql`: any bytes are decoded by the encoding they declare
//! or refused with a byte offset, and any text is read in every dialect
//! without a panic; a model written from at least one table is one that
//! `squill check` accepts (issue 40: names from the data never make an
//! invalid model).
#![no_main]
use libfuzzer_sys::fuzz_target;
use squill::inputs::model_file::parse;
use squill::inputs::sql::{SqlDialect, decode, import};

fuzz_target!(|data: &[u8]| {
    let Ok(decoded) = decode(data) else {
        return;
    };
    let text = decoded.text.as_ref();
    // The first byte picks the dialect, so each is fuzzed; `detect` runs too.
    let dialect = match data.first().map(|b| b % 6) {
        Some(0) => SqlDialect::Postgres,
        Some(1) => SqlDialect::MySql,
        Some(2) => SqlDialect::Sqlite,
        Some(3) => SqlDialect::MsSql,
        Some(4) => SqlDialect::Generic,
        _ => SqlDialect::detect(text),
    };
    let imported = import("fuzz.sql", text, dialect);
    if imported.tables > 0
        && let Err(e) = parse("fuzz.yaml", &imported.yaml)
    {
        panic!("import wrote a model check refuses: {e:?}\n{}", imported.yaml);
    }
});
