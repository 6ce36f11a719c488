//! `read-write-ratio`: Read-heavy workloads favor denormalized documents; write-heavy ones favor cheap writes.

crate::rules::declare_rule! {
    id: "read-write-ratio",
    summary: "Read-heavy workloads favor denormalized documents; write-heavy ones favor cheap writes",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 210, check },
}

use crate::design::Figure;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// The workload's balance of reads and writes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Balance {
    /// Read-heavy (denormalize) or write-heavy (keep each fact once).
    pub read_heavy: bool,
    pub reads: Figure,
    pub writes: Figure,
    /// `design.read-heavy-ratio`: reads per write that make a workload read-heavy.
    pub ratio: Figure,
}

explain!(Balance, |w| {
    let (reads, writes) = (words::num(w.reads.value), words::num(w.writes.value));
    if w.read_heavy {
        format!(
            "the workload is read-heavy ({reads}/s reads against {writes}/s writes): denormalize for the reads"
        )
    } else {
        format!(
            "the workload is write-heavy ({writes}/s writes against {reads}/s reads): keep each fact in one place"
        )
    }
});

/// Read-heavy workloads support denormalized layouts; write-heavy ones
/// support normalized ones.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let f = cx.facts;
    let ratio = f.settings.design.read_heavy_ratio;
    let (reads, writes) = (f.read_rate, f.write_rate);
    let balance = |read_heavy| {
        Some(Judgement::support(Balance {
            read_heavy,
            reads: Figure::per_second(reads),
            writes: Figure::per_second(writes),
            ratio: Figure::ratio(ratio),
        }))
    };
    if cx.denormalizes() && reads > 0.0 && reads >= writes * ratio && cx.reads() > 0.0 {
        return balance(true);
    }
    if !cx.denormalizes() && writes > 0.0 && writes >= reads {
        return balance(false);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Balance, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<Balance>(&RULE, &example("user-address.yaml"), "address", "embed"),
            Balance {
                read_heavy: true,
                reads: Figure::per_second(100.0),
                writes: Figure::per_second(0.05),
                ratio: Figure::ratio(10.0)
            }
        );
    }

    /// Near miss: 100 reads/s against 10.01 writes/s, just under
    /// `design.read-heavy-ratio` (10): neither read-heavy nor write-heavy.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("user-address.yaml").replace("rate: 0.05", "rate: 10.01");
        assert_eq!(judge(&RULE, &model, "address", "embed"), "-");
    }
}
