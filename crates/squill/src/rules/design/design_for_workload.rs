//! `design-for-workload`: The workload decides: the design that costs least on the application's reads and writes wins.

crate::rules::declare_rule! {
    id: "design-for-workload",
    summary: "The workload decides: the design that costs least on the application's reads and writes wins",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}
