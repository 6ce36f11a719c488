//! `growing-document`: A document that keeps growing is rewritten in full on every update; bound it or move the growth out.

crate::rules::declare_rule! {
    id: "growing-document",
    summary: "A document that keeps growing is rewritten in full on every update; bound it or move the growth out",
    kind: Design,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "003_8caca105590b9080.txt"],
}
