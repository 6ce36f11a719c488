//! `extended-reference`: Copy the few fields a read needs from the referenced document next to the reference.

crate::rules::declare_rule! {
    id: "extended-reference",
    summary: "Copy the few fields a read needs from the referenced document next to the reference",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt", "001_5782b55841006ac6.txt"],
}
