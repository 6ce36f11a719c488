//! `denormalize-into-squillions`: Copy the few fields of the one side into each squillions-side document (or fold the one side away) to answer in one query.

crate::rules::declare_rule! {
    id: "denormalize-into-squillions",
    summary: "Copy the few fields of the one side into each squillions-side document (or fold the one side away) to answer in one query",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt"],
}
