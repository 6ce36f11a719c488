//! `computed-field`: Keep an aggregate the reads need up to date with $inc on write instead of computing it on every read.

crate::rules::declare_rule! {
    id: "computed-field",
    summary: "Keep an aggregate the reads need up to date with $inc on write instead of computing it on every read",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "002_6843193bac1933d0.txt"],
}
