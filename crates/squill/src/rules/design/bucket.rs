//! `bucket`: Group many small children into bucket documents (per hour, per page of 50) with pre-computed count/sum/min/max.

crate::rules::declare_rule! {
    id: "bucket",
    summary: "Group many small children into bucket documents (per hour, per page of 50) with pre-computed count/sum/min/max",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt", "003_8caca105590b9080.txt"],
}
