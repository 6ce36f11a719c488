//! `embed-one-to-few`: Embed the children in the parent when there are only a few and they are never needed on their own.

crate::rules::declare_rule! {
    id: "embed-one-to-few",
    summary: "Embed the children in the parent when there are only a few and they are never needed on their own",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "004_16209cf0db7b32ff.txt"],
}
