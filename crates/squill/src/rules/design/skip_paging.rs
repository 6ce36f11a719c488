//! `skip-paging`: A read paged by `skip` walks every index key before its
//! page; when readers go deep, the skipped keys cost more than the page.

crate::rules::declare_rule! {
    id: "skip-paging",
    summary: "A read paged by skip walks every key before its page: deep pages cost more than the page itself; page from the last item seen (keyset) instead",
    kind: Design,
    severity: Warning,
    sources: ["MongoDB manual: cursor.skip()", "MongoDB manual: Sort and Limit Results"],
    check: Design(check),
}

use crate::finding::{Evidence, Finding};
use crate::model::PagingBy;
use crate::rules::judge::DesignCheck;
use crate::words;

/// Every step of a `skip`-paged read whose skipped index keys, per
/// execution on average, outnumber the keys of the page it returns: the
/// skip, not the page, is then most of what the read walks.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for op in &cx.design.operations {
        for step in &op.steps {
            let Some(p) = step.paging.as_deref() else {
                continue;
            };
            if p.by != PagingBy::Skip || p.skipped <= p.page {
                continue;
            }
            out.push(Finding {
                rule: RULE.id,
                severity: RULE.default_severity,
                message: format!(
                    "{} pages {} by skip: it walks past {} index keys per execution on average to return a page of {}, and past {} to reach its deepest page",
                    op.operation,
                    step.collection,
                    words::num(p.skipped),
                    words::num(p.page),
                    words::num(p.deepest_skipped),
                ),
                location: DesignCheck::at(format!("operations.{}", op.operation)),
                evidence: vec![
                    Evidence::new("skipped_keys", p.skipped),
                    Evidence::new("page_keys", p.page),
                    Evidence::new("deepest_skipped_keys", p.deepest_skipped),
                ],
                help: Some(
                    "page from the last item seen (`paging: {by: keyset}`): a range on the sort key after its value reads one page of keys at any depth".to_string(),
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::settings::Settings;

    /// 25 posts a page; 5% of the reads ask a later page, typically page
    /// `DEPTH`, at most page 1,000.
    const FORUM: &str = r"
entities:
  thread:
    count: 2000000
    fields: {title: string(60)}
  post:
    count: 60000000
    fields: {text: string(400), created_at: date}
relationships:
  posts:
    parent: thread
    child: post
    children: {typical: 30, max: 50000}
    child_field: thread
    # In their own collection: page buckets (squill's choice here) find
    # a page by its number, and skip nothing.
    layout: parent-reference
operations:
  thread_page:
    read: post
    rate: 10500
    filter: {thread: eq}
    sort: created_at
    limit: 25
    paging: {by: BY, past_first: 0.05, depth: {typical: DEPTH, max: 1000}}
  new_post:
    insert: post
    links: [posts]
    rate: 300
";

    fn findings(by: &str, depth: u32) -> Vec<crate::finding::Finding> {
        let yaml = FORUM
            .replace("BY", by)
            .replace("DEPTH", &depth.to_string());
        let model = crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        })
    }

    fn evidence(f: &crate::finding::Finding, name: &str) -> serde_json::Value {
        f.evidence
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.value.clone())
            .unwrap_or_else(|| panic!("no {name}"))
    }

    /// Typically page 22: 0.05 × 21 pages × 25 keys = 26.25 skipped keys
    /// per execution, more than the page's 25.
    #[test]
    fn fires_when_the_skipped_keys_outnumber_the_page() {
        let f = findings("skip", 22);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, RULE.id);
        assert_eq!(evidence(&f[0], "skipped_keys"), 26.25);
        assert_eq!(evidence(&f[0], "page_keys"), 25.0);
        // Page 1,000: 999 pages of 25 keys before it.
        assert_eq!(evidence(&f[0], "deepest_skipped_keys"), 24975.0);
        insta::assert_snapshot!(f[0].message, @"thread_page pages post by skip: it walks past 26 index keys per execution on average to return a page of 25, and past 24,975 to reach its deepest page");
    }

    /// Near miss: typically page 21, 0.05 × 20 × 25 = 25 skipped keys, as
    /// many as the page: they do not dominate yet.
    #[test]
    fn stays_quiet_just_under() {
        assert!(findings("skip", 21).is_empty());
    }

    /// The same deep pages under keyset paging skip nothing.
    #[test]
    fn stays_quiet_under_keyset() {
        assert!(findings("keyset", 400).is_empty());
    }
}
