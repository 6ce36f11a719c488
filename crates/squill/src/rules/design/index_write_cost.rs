//! `index-write-cost`: Every index is paid for on every write and in memory: create only the indexes the workload uses.

crate::rules::declare_rule! {
    id: "index-write-cost",
    summary: "Every index is paid for on every write and in memory: create only the indexes the workload uses",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}
