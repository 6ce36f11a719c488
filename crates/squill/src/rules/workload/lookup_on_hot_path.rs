//! `lookup-on-hot-path`: A hot aggregation joins with `$lookup`.

crate::rules::declare_rule! {
    id: "lookup-on-hot-path",
    summary: "A hot aggregation joins another collection with $lookup",
    kind: Workload,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "MongoDB manual: $lookup"],
    check: Workload(check),
}

use super::{Analysis, finding, is_hot};
use crate::finding::{Evidence, Finding};
use crate::workload::shape::OpKind;

const HELP: &str = "Data read together belongs together: embed what the query joins, or keep \
a copy of the few fields it needs in the document that is read (extended reference), and \
refresh the copy when the source changes. `squill advise` prices both on the workload.";

pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    for (ns, s) in a.shapes() {
        if s.shape.kind != OpKind::Aggregate || !is_hot(s) {
            continue;
        }
        let joined: Vec<&str> = s
            .shape
            .stages
            .iter()
            .filter(|st| st.name == "$lookup" || st.name == "$graphLookup")
            .map(|st| st.from.as_deref().unwrap_or("?"))
            .collect();
        if joined.is_empty() {
            continue;
        }
        out.push(finding(
            &RULE,
            ns,
            s,
            &format!("joins {} on every execution", joined.join(", ")),
            vec![Evidence::new("lookups", joined.len())],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::workload::testing::{fired, judged};

    fn aggregate(stages: &str) -> String {
        format!(
            "2019-06-18T12:00:00.000+0000 I COMMAND  [conn1] command shop.orders command: aggregate {{ aggregate: \"orders\", pipeline: [ {stages} ], cursor: {{}} }} planSummary: IXSCAN {{ status: 1 }} keysExamined:5 docsExamined:5 nreturned:5 50ms\n"
        )
    }

    #[test]
    fn fires_on_a_hot_join() {
        let r = judged(&aggregate(
            "{ $match: { status: \"A\" } }, { $lookup: { from: \"users\", localField: \"u\", foreignField: \"_id\", as: \"user\" } }",
        ));
        let f = fired(&r, "lookup-on-hot-path");
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("joins users"), "{}", f[0].message);
    }

    #[test]
    fn quiet_without_a_join() {
        let r = judged(&aggregate(
            "{ $match: { status: \"A\" } }, { $group: { _id: \"$u\" } }",
        ));
        assert!(fired(&r, "lookup-on-hot-path").is_empty());
    }
}
