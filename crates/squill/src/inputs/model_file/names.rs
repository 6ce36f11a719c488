//! Checks on the names a person gives in the file (entities, fields, mixes,
//! operations, …): none used twice in one map, none that MongoDB could not
//! take as a key. Every stage that reads a map of names uses them, so they
//! sit below all of those stages.

use super::context::Ctx;
use super::raw::{NamedMap, S};
use std::collections::HashMap;

/// Reports a name used twice in one map.
pub(super) fn check_duplicates<V>(ctx: &mut Ctx<'_>, map: &NamedMap<V>, what: &str) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, (key, _)) in map.0.iter().enumerate() {
        if let Some(&first) = seen.get(key.value.as_str()) {
            let first_line = ctx.pos(&map.0[first].0).map_or(0, |p| p.line);
            ctx.error(
                ctx.pos(key),
                format!("duplicate {what} name `{}`", key.value),
                "defined again here",
                Some(format!(
                    "it is first defined on line {first_line}; rename one"
                )),
            );
        } else {
            seen.insert(&key.value, i);
        }
    }
}

/// Reports a name MongoDB could not take as a key, or a dotted one where
/// only a field may be a path.
pub(super) fn check_name(ctx: &mut Ctx<'_>, key: &S<String>, what: &str) {
    let n = key.value.as_str();
    // A field may be a dotted path into a sub-document (`address.city`, as a scan
    // reports nested fields); other names are steps of paths and may not.
    let dot_ok = what == "field" && !n.starts_with('.') && !n.ends_with('.') && !n.contains("..");
    if n.trim().is_empty() || (n.contains('.') && !dot_ok) || n.starts_with('$') || n.contains('\0')
    {
        ctx.error(
            ctx.pos(key),
            format!(
                "`{n}` cannot be a {what} name: it must be non-empty, without `.` or a leading `$`"
            ),
            "invalid name",
            None,
        );
    }
}
