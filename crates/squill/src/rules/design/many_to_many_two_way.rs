//! `many-to-many-two-way`: Keep id arrays on both sides of a many-to-many when both sides are small.

crate::rules::declare_rule! {
    id: "many-to-many-two-way",
    summary: "Keep id arrays on both sides of a many-to-many when both sides are small",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt"],
}
