//! `denormalize-read-mostly`: Copy a field into the other side only when it is read far more often than it is updated, and never a fast-changing field.

crate::rules::declare_rule! {
    id: "denormalize-read-mostly",
    summary: "Copy a field into the other side only when it is read far more often than it is updated, and never a fast-changing field",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt", "004_16209cf0db7b32ff.txt"],
}
