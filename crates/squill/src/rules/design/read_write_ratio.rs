//! `read-write-ratio`: Read-heavy workloads favor denormalized documents; write-heavy ones favor cheap writes.

crate::rules::declare_rule! {
    id: "read-write-ratio",
    summary: "Read-heavy workloads favor denormalized documents; write-heavy ones favor cheap writes",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}
