//! `field-name-overhead`: Field names take a large share of the document bytes.

crate::rules::declare_rule! {
    id: "field-name-overhead",
    summary: "Field names take a large share of the document bytes",
    kind: Data,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}
