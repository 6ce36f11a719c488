//! `polymorphic-collection`: Entities read together by one query can share a collection, told apart by a type field.

crate::rules::declare_rule! {
    id: "polymorphic-collection",
    summary: "Entities read together by one query can share a collection, told apart by a type field",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt"],
}
