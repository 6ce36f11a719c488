//! `pre-allocation`: Pre-allocating documents only helped the old MMAPv1 engine; under WiredTiger it only wastes space.

crate::rules::declare_rule! {
    id: "pre-allocation",
    summary: "Pre-allocating documents only helped the old MMAPv1 engine; under WiredTiger it only wastes space",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}
