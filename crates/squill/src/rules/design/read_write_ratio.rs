//! `read-write-ratio`: Read-heavy workloads favor denormalized documents; write-heavy ones favor cheap writes.

crate::rules::declare_rule! {
    id: "read-write-ratio",
    summary: "Read-heavy workloads favor denormalized documents; write-heavy ones favor cheap writes",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 210, check },
}

use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Read-heavy workloads support denormalized layouts; write-heavy ones
/// support normalized ones.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let f = cx.facts;
    let ratio = f.settings.design.read_heavy_ratio;
    let (reads, writes) = (f.read_rate, f.write_rate);
    if cx.denormalizes() && reads > 0.0 && reads >= writes * ratio && cx.reads() > 0.0 {
        return Some(Judgement::Support(format!(
            "the workload is read-heavy ({}/s reads against {}/s writes): denormalize for the reads",
            words::num(reads),
            words::num(writes)
        )));
    }
    if !cx.denormalizes() && writes > 0.0 && writes >= reads {
        return Some(Judgement::Support(format!(
            "the workload is write-heavy ({}/s writes against {}/s reads): keep each fact in one place",
            words::num(writes),
            words::num(reads)
        )));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("user-address.yaml"), "address", "embed"),
            "support: the workload is read-heavy (100/s reads against 0.05/s writes): denormalize for the reads"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("user-address.yaml"), "address", "child-references"), "-");
    }
}
