//! `many-to-many-one-way`: Keep ids only on the small side of an uneven many-to-many (a book's categories, not a category's books).

crate::rules::declare_rule! {
    id: "many-to-many-one-way",
    summary: "Keep ids only on the small side of an uneven many-to-many (a book's categories, not a category's books)",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt"],
}
