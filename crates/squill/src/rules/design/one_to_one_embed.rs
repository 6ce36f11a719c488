//! `one-to-one-embed`: Embed a one-to-one relationship as a sub-document (linking is the exception).

crate::rules::declare_rule! {
    id: "one-to-one-embed",
    summary: "Embed a one-to-one relationship as a sub-document (linking is the exception)",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt", "004_16209cf0db7b32ff.txt"],
}
