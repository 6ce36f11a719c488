//! `subset`: Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection.

crate::rules::declare_rule! {
    id: "subset",
    summary: "Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt", "002_6843193bac1933d0.txt"],
}
