//! An aggregate beside an include of the same children (audit44 E): the
//! page shows "312 comments" above the first 30 visible ones, most liked
//! first. The include fetches a page of a subset, so the count over every
//! comment is planned (a step of figures) or kept (a computed field), not
//! taken from the page. An include that fetches a whole window (one hour
//! of readings, no paging) still gives its aggregates.

use crate::advise::advise;
use crate::design::{Design, EntityDecision};
use crate::model::AggregateFn;
use crate::settings::Settings;

fn design(include: &str) -> Design {
    let yaml = format!(
        "
name: news
entities:
  article:
    count: 4000000
    fields:
      slug: {{type: string(60), unique: true}}
      title: string(90)
  comment:
    count: 300000000
    fields:
      text: string(500)
      at: date
      likes: int
      hidden: bool
relationships:
  comments:
    parent: article
    child: comment
    children: {{min: 0, typical: 75, p99: 5000, max: 200000}}
    child_field: article
operations:
  article_page:
    read: article
    filter: {{slug: eq}}
    include:
      comments: {include}
    aggregates: [count(comments)]
    rate: 25000
  post_comment:
    insert: comment
    links: [comments]
    rate: 400
"
    );
    let m = crate::inputs::model_file::parse("news.yaml", &yaml).expect("the model parses");
    advise(&m, &Settings::default(), None).expect("advise")
}

/// Whether the design counts the comments on its own: a computed field of
/// the article, or a step of `article_page` that computes the count.
fn counted(d: &Design) -> bool {
    let kept = d.entities.iter().any(|e| {
        matches!(e, EntityDecision::ComputedField { entity, computes, .. }
            if entity == "article" && computes.contains("count"))
    });
    let plan = d
        .operations
        .iter()
        .find(|p| p.operation == "article_page")
        .expect("article_page is planned");
    let step = plan.steps.iter().any(|s| {
        s.figures
            .as_ref()
            .is_some_and(|f| f.figures.iter().any(|g| g.function == AggregateFn::Count))
    });
    kept || step
}

#[test]
fn a_count_above_a_filtered_page_is_counted() {
    let d = design(
        "{filter: {hidden: eq}, sort: -likes, limit: 30, paging: {by: keyset, past_first: 0.05, depth: {typical: 3, max: 200}}}",
    );
    assert!(counted(&d), "{:#?}", d.entities);
}

/// The same page without paging, of an equality subset: still not every
/// comment the count covers.
#[test]
fn a_count_above_a_subset_is_counted() {
    let d = design("{filter: {hidden: eq}, sort: -likes, limit: 30}");
    assert!(counted(&d), "{:#?}", d.entities);
}

/// Near miss: a window of comments by date, fetched whole: the read
/// counts what it fetched, as before.
#[test]
fn a_count_over_a_fetched_window_comes_from_it() {
    let d = design("{filter: {at: range}, sort: at}");
    assert!(!counted(&d), "{:#?}", d.entities);
}
