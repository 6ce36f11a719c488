//! Where each named part of a model file is written: the line and column of
//! the key of every entity, field, relationship and operation, by the path a
//! design finding names (`entities.person`, `entities.host.fields.ipaddr`,
//! `relationships.addresses`, `operations.view_item`). SARIF points a code-scanning view there; the
//! `Model` itself holds ids, not places, so the text is read again.

use super::raw::{NamedMap, RawModel};
use std::collections::BTreeMap;

/// A 1-based line and column in the model file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineColumn {
    pub line: u64,
    pub column: u64,
}

/// The positions of the named parts of the model file `text`; empty when
/// the text does not parse (its errors are `parse`'s to report).
pub fn positions(text: &str) -> BTreeMap<String, LineColumn> {
    let Ok(raw) =
        serde_saphyr::from_str_with_options::<RawModel>(text, super::budget::options(text))
    else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    add(&mut out, "entities", &raw.entities.value);
    for (name, entity) in &raw.entities.value.0 {
        let section = format!("entities.{}.fields", name.value);
        add(&mut out, &section, &entity.fields);
    }
    add(&mut out, "relationships", &raw.relationships);
    add(&mut out, "operations", &raw.operations);
    out
}

fn add<V>(out: &mut BTreeMap<String, LineColumn>, section: &str, map: &NamedMap<V>) {
    for (key, _) in &map.0 {
        let at = key.referenced;
        if at.line() == 0 {
            continue;
        }
        out.entry(format!("{section}.{}", key.value))
            .or_insert(LineColumn {
                line: at.line(),
                column: at.column().max(1),
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_named_part_is_found_at_its_key() {
        let text = "entities:\n  person:\n    count: 10\n    fields: {name: string}\n  address:\n    count: 20\n    fields: {city: string}\nrelationships:\n  addresses:\n    parent: person\n    child: address\n    children: {typical: 2, max: 5}\n";
        let found = positions(text);
        let at = |path: &str| found.get(path).map(|p| (p.line, p.column));
        assert_eq!(at("entities.person"), Some((2, 3)));
        assert_eq!(at("entities.address"), Some((5, 3)));
        assert_eq!(at("relationships.addresses"), Some((9, 3)));
        assert_eq!(at("entities.address.fields.city"), Some((7, 14)));
        assert_eq!(found.len(), 5, "{found:?}");
    }

    #[test]
    fn text_that_does_not_parse_has_no_positions() {
        assert!(positions("entities: {a: ").is_empty());
    }
}
