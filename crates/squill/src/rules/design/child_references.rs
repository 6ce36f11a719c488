//! `child-references`: Keep an array of child ids in the parent for one-to-many (up to a few thousand) or stand-alone children, joined with $in.

crate::rules::declare_rule! {
    id: "child-references",
    summary: "Keep an array of child ids in the parent for one-to-many (up to a few thousand) or stand-alone children, joined with $in",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt"],
}
