//! `favor-embedding`: Embed unless there is a compelling reason not to.

crate::rules::declare_rule! {
    id: "favor-embedding",
    summary: "Embed unless there is a compelling reason not to",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}
