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
/// skip, not the page, is then most of what the read walks. The average
/// weighs the deepest page by the share of executions the model says ask
/// for it (`depth.max_share`): bots that page to the end of 600 pages walk
/// 600 times what a reader on page 2 walks, and a share of them too small
/// to move the typical page can still be most of the keys (audit48 B4).
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for op in &cx.design.operations {
        for step in &op.steps {
            let Some(p) = step.paging.as_deref() else {
                continue;
            };
            if p.by != PagingBy::Skip {
                continue;
            }
            if let Some(past) = p.past_the_matches {
                out.push(past_the_matches(&op.operation, &step.collection, p.page, past));
            }
            if p.skipped <= p.page {
                continue;
            }
            out.push(dominates(&op.operation, &step.collection, p));
        }
    }
    out
}

/// The skipped keys outnumber the page's; where the model states how
/// often the deepest page is asked, the part of the average it weighs.
fn dominates(operation: &str, collection: &str, p: &crate::design::StepPaging) -> Finding {
    let deep = p.deepest_share.map(|share| (share, share * p.deepest_skipped));
    let deep_text = deep.map_or_else(String::new, |(share, keys)| {
        format!(
            " ({} of them on average for the {} of the executions that ask for it)",
            words::num(keys),
            words::percent(share),
        )
    });
    let mut evidence = vec![
        Evidence::new("skipped_keys", p.skipped),
        Evidence::new("page_keys", p.page),
        Evidence::new("deepest_skipped_keys", p.deepest_skipped),
    ];
    if let Some((share, keys)) = deep {
        evidence.push(Evidence::new("deepest_share", share));
        evidence.push(Evidence::new("deepest_keys_per_execution", keys));
    }
    Finding {
        rule: RULE.id,
        severity: RULE.default_severity,
        message: format!(
            "{operation} pages {collection} by skip: it walks past {} index keys per execution on average to return a page of {}, and past {} to reach its deepest page{deep_text}",
            words::num(p.skipped),
            words::num(p.page),
            words::num(p.deepest_skipped),
        ),
        location: DesignCheck::at(format!("operations.{operation}")),
        evidence,
        help: Some(
            "page from the last item seen (`paging: {by: keyset}`): a range on the sort key after its value reads one page of keys at any depth".to_string(),
        ),
    }
}

/// The deepest page the model states lies past every item the filter can
/// match at the largest parent (audit44 K): one of the two figures is
/// wrong, and the skip is priced at the matches, not at the depth.
fn past_the_matches(
    operation: &str,
    collection: &str,
    page: f64,
    past: crate::design::PastTheMatches,
) -> Finding {
    Finding {
        rule: RULE.id,
        severity: RULE.default_severity,
        message: format!(
            "{operation} pages {collection} by skip down to item {} (page {} of {}), but its filter matches at most {} even at the largest parent: the stated depth and the relationship's `max` disagree, and the skip is priced at the matches",
            words::num(past.deepest_items),
            words::num(past.deepest_items / page.max(1.0)),
            words::num(page),
            words::num(past.matched_at_largest),
        ),
        location: DesignCheck::at(format!("operations.{operation}")),
        evidence: vec![
            Evidence::new("deepest_items", past.deepest_items),
            Evidence::new("matched_at_largest", past.matched_at_largest),
        ],
        help: Some(
            "lower `paging.depth.max` to the pages the largest parent fills, or raise the relationship's `max` if parents that large exist".to_string(),
        ),
    }
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
    paging: {by: BY, past_first: 0.05, depth: {typical: DEPTH, max: 1000SHARE}}
  new_post:
    insert: post
    links: [posts]
    rate: 300
";

    fn findings(by: &str, depth: u32) -> Vec<crate::finding::Finding> {
        findings_with(by, depth, "")
    }

    /// As `findings`, with `max_share: SHARE` on the depth when given.
    fn findings_with(by: &str, depth: u32, share: &str) -> Vec<crate::finding::Finding> {
        let share = if share.is_empty() {
            String::new()
        } else {
            format!(", max_share: {share}")
        };
        let yaml = FORUM
            .replace("BY", by)
            .replace("DEPTH", &depth.to_string())
            .replace("SHARE", &share);
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

    /// Typically page 3, but 0.2% of all executions (crawlers, bots that
    /// page to the end) ask for page 1,000 (audit48 B4): 0.048 × 2 × 25 =
    /// 2.4 keys for the typical later pages and 0.002 × 999 × 25 = 49.95
    /// for the deepest, 52.35 per execution, twice the page. Unweighed,
    /// the average was 0.05 × 2 × 25 = 5 and the rule stayed quiet.
    #[test]
    fn fires_when_the_deepest_page_asked_at_its_share_outweighs_the_page() {
        let f = findings_with("skip", 3, "0.002");
        assert_eq!(f.len(), 1, "{f:#?}");
        let near = |name: &str, want: f64| {
            let got = evidence(&f[0], name).as_f64().expect("a number");
            assert!((got - want).abs() < 1e-9, "{name}: {got}, want {want}");
        };
        near("skipped_keys", 52.35);
        near("deepest_share", 0.002);
        near("deepest_keys_per_execution", 49.95);
        near("deepest_skipped_keys", 24975.0);
        insta::assert_snapshot!(f[0].message, @"thread_page pages post by skip: it walks past 52 index keys per execution on average to return a page of 25, and past 24,975 to reach its deepest page (50 of them on average for the 0.2% of the executions that ask for it)");
    }

    /// Near miss: 0.09% of the executions ask for page 1,000:
    /// 0.0491 × 2 × 25 + 0.0009 × 24,975 = 24.93 keys, under the page's 25.
    /// With no share stated the deepest page is a worst case only, and the
    /// typical page decides (5 keys).
    #[test]
    fn stays_quiet_when_the_deepest_share_is_just_under() {
        assert!(findings_with("skip", 3, "0.0009").is_empty());
        assert!(findings("skip", 3).is_empty());
    }

    /// The same deep pages under keyset paging skip nothing.
    #[test]
    fn stays_quiet_under_keyset() {
        assert!(findings("keyset", 400).is_empty());
    }

    /// Listings of one event, section and status, 25 a page, down to page
    /// 200 (audit44 K, the figures of its ticket-resale model): the filter
    /// matches 120 / 40 / 4 = 0.75 listings at a typical event, so
    /// 0.75 × 250,000 / 120 = 1,562.5 at the largest, where page 200 ends
    /// at item 5,000.
    const TICKETS: &str = r"
entities:
  event:
    count: 500000
    fields: {title: string(60)}
  listing:
    count: 60000000
    fields:
      section: {type: string(8), distinct: 40}
      price: decimal
      status: {type: string(8), enum: [active, held, sold, delisted]}
relationships:
  event_listings:
    parent: event
    child: listing
    children: {min: 0, typical: 120, p99: 6000, max: MAX}
    child_field: event
operations:
  cheapest:
    read: listing
    filter: {event: eq, section: eq, status: eq}
    sort: price
    limit: 25
    paging: {by: skip, past_first: 0.1, depth: {typical: 3, max: 200}}
    rate: 9000
  list_ticket:
    insert: listing
    links: [event_listings]
    rate: 300
";

    fn tickets(max: &str) -> (Vec<crate::finding::Finding>, crate::design::Design) {
        let yaml = TICKETS.replace("MAX", max);
        let model = crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        let found = (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        });
        (found, design)
    }

    #[test]
    fn fires_when_the_deepest_page_lies_past_the_matches() {
        let (f, design) = tickets("250000");
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(evidence(&f[0], "deepest_items"), 5000.0);
        let largest = evidence(&f[0], "matched_at_largest").as_f64().expect("a number");
        assert!((largest - 1562.5).abs() < 1e-6, "{largest}");
        // The skip to the deepest page walks the matches, not 199 pages.
        let paging = design
            .operations
            .iter()
            .flat_map(|o| &o.steps)
            .find_map(|s| s.paging.as_deref())
            .expect("a paged step");
        assert!((paging.deepest_skipped - 1562.5).abs() < 1e-6, "{paging:?}");
        insta::assert_snapshot!(f[0].message, @"cheapest pages listing by skip down to item 5,000 (page 200 of 25), but its filter matches at most 1,563 even at the largest parent: the stated depth and the relationship's `max` disagree, and the skip is priced at the matches");
    }

    /// Near miss: the largest event holds 800,000 listings, of which
    /// 0.75 × 800,000 / 120 = 5,000 pass: just enough for page 200.
    #[test]
    fn stays_quiet_when_the_largest_parent_fills_the_deepest_page() {
        let (f, design) = tickets("800000");
        assert!(f.is_empty(), "{f:#?}");
        let paging = design
            .operations
            .iter()
            .flat_map(|o| &o.steps)
            .find_map(|s| s.paging.as_deref())
            .expect("a paged step");
        assert_eq!(paging.deepest_skipped, 4975.0);
    }
}
