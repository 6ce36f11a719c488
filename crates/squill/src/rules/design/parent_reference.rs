//! `parent-reference`: Put the parent's id in each child when children are squillions (an id array alone could pass 16 MiB); index it.

crate::rules::declare_rule! {
    id: "parent-reference",
    summary: "Put the parent's id in each child when children are squillions (an id array alone could pass 16 MiB); index it",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt"],
}
