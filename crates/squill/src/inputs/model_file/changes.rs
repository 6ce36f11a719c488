//! The entries of a write's `changes:`: a field's name, or `field =
//! :name`, the field set to a value the caller passes (audit48 A5).

use super::raw::S;
use crate::model::Entity;

/// `changes:` entries as the fields they change: `current_price =
/// :offer` changes `current_price` (`set_values` reads its value). An
/// entry that is a whole field's name of `e` (a name may hold `=`) is
/// that field.
pub(super) fn changed_fields(e: &Entity, raw: &[S<String>]) -> Vec<S<String>> {
    raw.iter()
        .map(|c| {
            let mut f = c.clone();
            if let Some((field, _)) = assignment(e, &c.value) {
                f.value = field.to_string();
            }
            f
        })
        .collect()
}

/// `field = value` of a `changes:` entry, unless the entry is a whole
/// field's name of `e`.
pub(super) fn assignment<'t>(e: &Entity, text: &'t str) -> Option<(&'t str, &'t str)> {
    if e.fields.iter().any(|f| f.name == text) {
        return None;
    }
    text.split_once('=').map(|(f, v)| (f.trim(), v.trim()))
}
