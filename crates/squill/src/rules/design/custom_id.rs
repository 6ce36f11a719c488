//! `custom-id`: Use a natural unique key as _id to save an index.

crate::rules::declare_rule! {
    id: "custom-id",
    summary: "Use a natural unique key as _id to save an index",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}
