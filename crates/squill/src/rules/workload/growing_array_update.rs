//! `growing-array-update`: An update keeps growing an array.

crate::rules::declare_rule! {
    id: "growing-array-update",
    summary: "An update pushes to an array without bounding it",
    kind: Workload,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "MongoDB manual: $push with $slice"],
    check: Workload(check),
}

use super::{Analysis, finding};
use crate::finding::{Evidence, Finding};

const HELP: &str = "Bound the array: `$push` with `$each` and `$slice` keeps the latest N \
(subset pattern), buckets hold a fixed number of elements each (bucket pattern), or the \
elements live in their own collection with a reference to the parent (parent-reference).";

pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    for (ns, s) in a.shapes() {
        let fields: Vec<&str> = s
            .shape
            .update
            .iter()
            .filter(|u| u.grows_array())
            .map(|u| u.path.as_str())
            .collect();
        if fields.is_empty() {
            continue;
        }
        out.push(finding(
            &RULE,
            ns,
            s,
            &format!(
                "adds to `{}` without $slice: the array only grows",
                fields.join("`, `")
            ),
            vec![Evidence::new("fields", fields.join(", "))],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::workload::testing::{fired, judged};

    fn update(u: &str) -> String {
        format!(
            "{{\"t\":{{\"$date\":\"2023-09-23T16:25:13.420Z\"}},\"c\":\"WRITE\",\"ctx\":\"conn1\",\"msg\":\"Slow query\",\"attr\":{{\"type\":\"update\",\"ns\":\"blog.posts\",\"command\":{{\"q\":{{\"_id\":1}},\"u\":{u}}},\"planSummary\":\"IDHACK\",\"durationMillis\":3}}}}\n"
        )
    }

    #[test]
    fn fires_on_push_and_add_to_set_without_slice() {
        let r = judged(&update(
            r#"{"$push":{"comments":{"a":1}},"$addToSet":{"tags":"x"}}"#,
        ));
        let f = fired(&r, "growing-array-update");
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message.contains("`comments`, `tags`")
                || f[0].message.contains("`tags`, `comments`"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn quiet_with_slice() {
        let r = judged(&update(
            r#"{"$push":{"recent":{"$each":[1],"$slice":-10}}}"#,
        ));
        assert!(fired(&r, "growing-array-update").is_empty());
    }
}
