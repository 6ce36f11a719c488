//! Pieces of the script's JavaScript that its parts share: a string
//! literal, a path's subscripts, and the removal of an outlier's embedded
//! children from their collection (a statement of both the final step and
//! the rollback).

/// `v` as a JavaScript string literal (`words::script`, as every script
/// squill writes).
pub(super) fn js(v: &str) -> String {
    crate::words::script::js_string(v)
}

/// `["a"]["b"]` for the path `a.b`.
pub(super) fn js_path(path: &str) -> String {
    path.split('.').map(|p| format!("[{}]", js(p))).collect()
}

/// The statement that deletes from `child` the documents whose `_id`s the
/// items of `parent.field` hold (an outlier's embedded children).
pub(super) fn remove_embedded(child: &str, parent: &str, field: &str) -> String {
    format!(
        "db.getCollection({}).find({{}}, {{ {f}: 1 }}).forEach((p) => {{ const ids = (p[{f}] || []).map((c) => c._id); if (ids.length > 0) db.getCollection({}).deleteMany({{ _id: {{ $in: ids }} }}); }});",
        js(parent),
        js(child),
        f = js(field)
    )
}
