//! `unbounded-array`: Arrays must not grow without bound: no embedding beyond a couple of hundred, no id array beyond a few thousand.

crate::rules::declare_rule! {
    id: "unbounded-array",
    summary: "Arrays must not grow without bound: no embedding beyond a couple of hundred, no id array beyond a few thousand",
    kind: Design,
    severity: Error,
    sources: ["004_16209cf0db7b32ff.txt", "000_34acd10fa9a500cb.txt"],
}
