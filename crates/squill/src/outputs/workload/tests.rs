//! The reporters on a small inline log: what each shows, and that literal
//! values stay out of every format unless the report was made to show them.

use crate::workload::{Options, read_bytes};

const LOG: &str = "\
2019-06-18T12:00:00.000+0000 I COMMAND  [conn1] command shop.orders command: find { find: \"orders\", filter: { email: \"ann@example.com\" }, sort: { at: -1 } } planSummary: COLLSCAN keysExamined:0 docsExamined:1000 hasSortStage:1 nreturned:10 100ms
2019-06-18T13:00:00.000+0000 I COMMAND  [conn1] command shop.orders command: find { find: \"orders\", filter: { email: \"bob@example.com\" }, sort: { at: -1 } } planSummary: COLLSCAN keysExamined:0 docsExamined:1000 hasSortStage:1 nreturned:10 300ms
not a log line
";

#[test]
fn text_shows_shapes_hot_first_and_unreadable_lines() {
    let report = read_bytes("t.log", LOG.as_bytes(), Options::default());
    let text = super::text(&report);
    insta::assert_snapshot!(text);
}

#[test]
fn no_format_shows_values_unless_asked() {
    let report = read_bytes("t.log", LOG.as_bytes(), Options::default());
    for out in [
        super::text(&report),
        super::markdown(&report),
        super::json(&report),
    ] {
        assert!(!out.contains("example.com"), "{out}");
    }
    let shown = read_bytes("t.log", LOG.as_bytes(), Options { show_values: true });
    assert!(super::text(&shown).contains("filter: { email: \"ann@example.com\" }"));
    assert!(super::json(&shown).contains("ann@example.com"));
}

#[test]
fn durations_read_in_their_unit() {
    assert_eq!(super::duration(12), "12 ms");
    assert_eq!(super::duration(3_400), "3.4 s");
    assert_eq!(super::duration(150_000), "2.5 min");
    assert_eq!(super::duration(7_200_000), "2 h");
}

/// A suggested 2dsphere index reads with its geo key after the equality
/// keys, as `createIndex` takes it.
#[test]
fn a_2dsphere_suggestion_reads_as_its_key_pattern() {
    use crate::workload::report::{GeoKey, IndexSuggestion};
    use crate::workload::shape::SortKey;
    let i = IndexSuggestion {
        namespace: "food.restaurants".into(),
        keys: vec![SortKey {
            path: "open".into(),
            descending: false,
        }],
        serves: vec!["S1".into()],
        count: 2,
        total_ms: 500,
        geo: Some(GeoKey {
            path: "location".into(),
            at: 1,
        }),
    };
    assert!(
        super::index(&i)
            .starts_with(r#"{open: 1, location: "2dsphere"} on food.restaurants, for S1"#),
        "{}",
        super::index(&i)
    );
}

/// A finding's query shape is one code span in the Markdown, whatever the
/// log's field names hold (backticks, a pipe, a line feed, HTML): before,
/// the message was escaped text, the shape's backticks shown as characters.
#[test]
fn a_findings_shape_is_one_code_span_whatever_its_field_names() {
    use pulldown_cmark::{Event, Options as Md, Parser};
    let line = |ms: u64| {
        format!(
            r#"{{"t":{{"$date":"2023-09-23T16:25:00.000Z"}},"c":"COMMAND","ctx":"conn2","msg":"Slow query","attr":{{"type":"command","ns":"shop.cars","command":{{"find":"cars","filter":{{"a`b|c<i>x\ny``":1}}}},"planSummary":"COLLSCAN","docsExamined":100000,"nreturned":1,"durationMillis":{ms}}}}}
"#
        )
    };
    let log = format!("{}{}", line(500), line(700));
    let mut report = read_bytes("t.log", log.as_bytes(), Options::default());
    crate::rules::workload::apply(&mut report);
    let finding = report
        .findings
        .iter()
        .find(|f| f.rule == "collection-scan")
        .expect("a collection scan");
    let shape = &report.namespaces[0].shapes[0].text;
    assert!(shape.contains("a`b|c<i>x"), "{shape}");
    let md = super::markdown(&report);
    let line = md
        .lines()
        .find(|l| l.contains("collection-scan"))
        .expect("the finding's line");
    let spans: Vec<String> = Parser::new_ext(line, Md::all())
        .filter_map(|e| match e {
            Event::Code(c) => Some(c.to_string()),
            _ => None,
        })
        .collect();
    assert!(
        spans.contains(&crate::words::visible(shape).into_owned()),
        "{spans:?} in {line}"
    );
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, Parser::new_ext(line, Md::all()));
    assert!(!html.contains("<i>"), "{html}");
    assert!(finding.message.contains(shape.as_str()));
}
