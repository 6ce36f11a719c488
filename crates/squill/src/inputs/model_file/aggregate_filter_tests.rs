//! Tests of the filtered aggregate (`count(tickets where status = open)`):
//! what it reads, and the line:column errors of a test the figure cannot
//! keep.

use super::geo_tests::problems;
use super::*;
use crate::model::*;

fn model(aggregate: &str) -> String {
    format!(
        r#"
name: desk
entities:
  queue:
    count: 100
    fields:
      name: string(20)
  ticket:
    count: 10000
    fields:
      status: {{type: string(8), enum: [open, closed]}}
      cost: int
      quota: int
relationships:
  tickets:
    parent: queue
    child: ticket
    children: {{typical: 100, max: unbounded}}
    child_field: queue_id
operations:
  page:
    read: queue
    filter: {{_id: eq}}
    aggregates: ["{aggregate}"]
    rate: 10
"#
    )
}

fn aggregates(text: &str) -> Vec<Aggregate> {
    let m = parse("m.yaml", text).unwrap();
    match &m.workload.operations[0].kind {
        OperationKind::Read { aggregates, .. } => aggregates.clone(),
        _ => panic!("a read"),
    }
}

#[test]
fn a_where_keeps_the_childs_test_on_a_constant() {
    let a = aggregates(&model("sum(tickets.cost where status = open)"));
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].function, AggregateFn::Sum);
    assert_eq!(a[0].field.as_deref(), Some("cost"));
    assert_eq!(
        a[0].filter,
        Some(Condition {
            field: "status".into(),
            plus: None,
            test: Test::Eq,
            value: Literal::Text("open".into()),
        })
    );
    let n = aggregates(&model("count(tickets where cost > 100)"));
    assert_eq!(n[0].filter.as_ref().map(|c| c.test), Some(Test::Gt));
    assert_eq!(
        n[0].filter.as_ref().map(|c| c.value.clone()),
        Some(Literal::Number(100.0))
    );
    // Near miss: the same aggregate without a `where` keeps no test.
    assert_eq!(aggregates(&model("count(tickets)"))[0].filter, None);
}

#[test]
fn a_where_the_figure_cannot_keep_is_refused_at_the_aggregate() {
    let cases = [
        // A field the child lacks.
        (
            "count(tickets where state = open)",
            "which is not a field of entity `ticket`",
        ),
        // A field of another entity.
        (
            "count(tickets where queue.name = x)",
            "`queue.name` is not a field of `ticket`",
        ),
        // The caller's value, another field: not one figure per parent.
        (
            "count(tickets where status = :wanted)",
            "a value the caller passes",
        ),
        (
            "count(tickets where cost < quota)",
            "another field of the child",
        ),
        // A value the field cannot hold.
        (
            "count(tickets where status = shut)",
            "is not one of the values of `status`",
        ),
        // An aggregate kept as two figures, or with no figure to keep.
        (
            "avg(tickets.cost where status = open)",
            "`avg` takes no `where`",
        ),
        ("count(tickets where )", "`where` needs a test"),
        // Not a test.
        ("count(tickets where status)", "has no comparison"),
    ];
    for (agg, says) in cases {
        let p = problems(&model(agg));
        assert_eq!(p.len(), 1, "{agg}: {p:?}");
        assert!(p[0].contains(says), "{agg}: {}", p[0]);
        // At the aggregate: line 24 of the model, column 18, in the list.
        assert!(p[0].contains("m.yaml:24:18:"), "{agg}: {}", p[0]);
    }
}
