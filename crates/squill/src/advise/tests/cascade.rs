//! A delete of a parent deletes the children it owns wherever the layout
//! keeps them (audit 43 Q): the embedded and the referenced layouts of one
//! delete do the same work, each priced at what it costs.

use super::{design_of as design, plan_of as plan};
use crate::design::{Action, OperationPlan, Purpose, Warning};

/// Issues with 40 comments each (at most 300), the comments' layout pinned;
/// `extra` adds relationship keys, `more` entities, `ops` operations.
fn model(layout: &str, extra: &str, more: &str, ops: &str) -> String {
    format!(
        "name: issues
entities:
  project:
    count: 10000
    fields:
      name: string(20)
  issue:
    count: 1000000
    fields:
      title: string(60)
      status: {{type: string(8), enum: [open, closed]}}
  comment:
    count: 40000000
    fields:
      text: string(200)
{more}relationships:
  project_issues:
    parent: project
    child: issue
    children: {{min: 0, typical: 100, max: 1000}}
    child_field: project
  comments:
    parent: issue
    child: comment
    children: {{min: 0, typical: 40, max: 300}}
    child_field: issue
    layout: {layout}
{extra}operations:
  show:
    read: issue
    filter: {{_id: eq}}
    include: [comments]
    rate: 100
  delete_issue:
    delete: issue
    filter: {{_id: eq}}
    rate: 1
  purge_closed:
    delete: issue
    filter: {{project: eq, status: eq}}
    when: [\"status = closed\"]
    rate: 0.5
{ops}"
    )
}

fn orphaned(p: &OperationPlan) -> Vec<&str> {
    p.warnings
        .iter()
        .filter_map(|w| match w {
            Warning::OrphanedChildren { children, .. } => Some(children.as_str()),
            _ => None,
        })
        .collect()
}

/// Each step of `p` as its collection and action, in order.
fn steps_of(p: &OperationPlan) -> Vec<(&str, Action)> {
    p.steps
        .iter()
        .map(|s| (s.collection.as_str(), s.action))
        .collect()
}

fn deletes_of<'p>(p: &'p OperationPlan, collection: &str) -> Vec<&'p crate::design::Step> {
    p.steps
        .iter()
        .filter(|s| {
            s.collection == collection && matches!(s.action, Action::DeleteOne | Action::DeleteMany)
        })
        .collect()
}

/// Embedded, the issue's document takes its comments with it: one delete
/// of one document. Referenced, the comments are a `deleteMany` by the
/// issue's id, 40 documents (the typical), before the issue: the two plans
/// differ by that step alone, and neither warns.
#[test]
fn the_embedded_and_the_referenced_delete_do_the_same_work() {
    let embedded = design(&model("embed", "", "", ""));
    let referenced = design(&model("parent-reference", "", "", ""));
    let e = plan(&embedded, "delete_issue");
    let r = plan(&referenced, "delete_issue");
    assert!(orphaned(e).is_empty() && orphaned(r).is_empty());
    assert_eq!(e.steps.len(), 1, "{:?}", e.steps);
    assert_eq!(e.cost.documents_written, 1.0);
    let comments = deletes_of(r, "comment");
    assert_eq!(comments.len(), 1, "{:?}", r.steps);
    let c = comments[0];
    assert_eq!(c.action, Action::DeleteMany);
    assert_eq!(c.filter[0].path, "issue");
    assert_eq!(c.documents, 40.0);
    assert!(
        matches!(&c.purpose[0], Purpose::DeleteOwnedChildren { entity, parent } if entity == "comment" && parent == "issue")
    );
    // The index it names is one the design builds on the comments.
    let index = c.index.as_deref().expect("an index");
    let held = referenced
        .collections
        .iter()
        .find(|x| x.name == "comment")
        .expect("comments")
        .indexes
        .iter()
        .any(|i| i.name == index && i.keys.first().map(|k| k.0.as_str()) == Some("issue"));
    assert!(held, "{index}");
    // Children first: the issue's delete is the last step.
    let last = r.steps.last().expect("steps");
    assert_eq!(
        (last.collection.as_str(), last.action),
        ("issue", Action::DeleteOne)
    );
    assert_eq!(r.cost.documents_written, 41.0);
    assert_eq!(r.cost.round_trips, e.cost.round_trips + 1.0);
}

/// A delete of the issues a filter finds, with a condition: their ids
/// read first by the filter and the condition (so no comment of an issue
/// the condition keeps goes), then the comments of all of them: 40 each,
/// multiplied by the issues the filter finds.
#[test]
fn a_delete_of_many_parents_deletes_each_ones_children() {
    let d = design(&model("parent-reference", "", "", ""));
    let p = plan(&d, "purge_closed");
    assert!(orphaned(p).is_empty());
    let find = &p.steps[0];
    assert_eq!(
        (find.collection.as_str(), find.action),
        ("issue", Action::Find)
    );
    assert_eq!(find.conditions.len(), 1, "{find:?}");
    let issues = deletes_of(p, "issue");
    let comments = deletes_of(p, "comment");
    assert_eq!((issues.len(), comments.len()), (1, 1), "{:?}", p.steps);
    assert_eq!(comments[0].documents, 40.0 * issues[0].documents);
    assert!(issues[0].documents > 1.0);
    let at = |s: &crate::design::Step| p.steps.iter().position(|x| std::ptr::eq(x, s));
    assert!(at(comments[0]) < at(issues[0]));
}

/// Grandchildren kept apart go too: the comments' ids read by the issue's
/// id, their reactions deleted by those ids, then the comments, then the
/// issue. A `standalone` child (an issue's watchers) stays, with no warning;
/// a child another parent keeps a count of stays, with the warning.
#[test]
fn grandchildren_go_and_children_with_a_life_of_their_own_stay() {
    let more = "  reaction:
    count: 80000000
    fields:
      emoji: string(4)
  watch:
    count: 5000000
    fields:
      since: date
";
    let extra = "  reactions:
    parent: comment
    child: reaction
    children: {min: 0, typical: 2, max: 5000}
    child_field: comment
    layout: parent-reference
  watchers:
    parent: issue
    child: watch
    children: {min: 0, typical: 5, max: 200}
    child_field: issue
    standalone: true
    layout: parent-reference
";
    let d = design(&model("parent-reference", extra, more, ""));
    let p = plan(&d, "delete_issue");
    let order = steps_of(p);
    assert_eq!(
        order,
        [
            ("comment", Action::Find),
            ("reaction", Action::DeleteMany),
            ("comment", Action::DeleteMany),
            ("issue", Action::DeleteOne),
        ]
    );
    assert_eq!(p.steps[1].documents, 80.0);
    assert!(orphaned(p).is_empty());
}

/// Comments whose ids their author keeps (a member's comments): they go
/// as a delete of them by a filter goes, their ids pulled from their
/// members after, and no warning. Embedded in their author instead, they
/// stay in the member's array: the plan warns.
#[test]
fn children_kept_by_another_parent_go_with_its_upkeep_or_are_warned_of() {
    let more = "  member:
    count: 100000
    fields:
      name: string(20)
";
    let extra = |layout: &str| {
        format!(
            "  authored:
    parent: member
    child: comment
    children: {{min: 0, typical: 40, max: 300}}
    child_field: author
    layout: {layout}
"
        )
    };
    let d = design(&model(
        "parent-reference",
        &extra("child-references"),
        more,
        "",
    ));
    let p = plan(&d, "delete_issue");
    assert!(orphaned(p).is_empty(), "{:?}", p.warnings);
    let order = steps_of(p);
    assert_eq!(
        order,
        [
            ("comment", Action::Find),
            ("comment", Action::DeleteMany),
            ("member", Action::UpdateMany),
            ("issue", Action::DeleteOne),
        ]
    );
    assert!(
        p.steps[2]
            .updates
            .iter()
            .any(|u| matches!(u, crate::design::UpdateOp::Pull { path } if path == "authored"))
    );
    let d = design(&model("parent-reference", &extra("embed"), more, ""));
    let p = plan(&d, "delete_issue");
    assert!(orphaned(p).is_empty(), "{:?}", p.warnings);
    assert!(deletes_of(p, "comment").is_empty() && deletes_of(p, "member").is_empty());
}

/// Comments embedded in their author (a member's array), owned by their
/// issue: a delete of the issue pulls them from every member that holds
/// one, by the issue's id each holds (`authored.issue`, indexed), before
/// the issue goes: one `updateMany` priced at a member per comment (40),
/// each member's whole document rewritten. Issue 41.
#[test]
fn children_embedded_in_another_entity_are_pulled_from_it() {
    let more = "  member:
    count: 100000
    fields:
      name: string(20)
";
    let embedded = "  authored:
    parent: member
    child: comment
    children: {min: 0, typical: 40, max: 300}
    child_field: author
    layout: embed
";
    let d = design(&model("parent-reference", embedded, more, ""));
    let p = plan(&d, "delete_issue");
    assert!(orphaned(p).is_empty(), "{:?}", p.warnings);
    assert_eq!(
        steps_of(p),
        [("member", Action::UpdateMany), ("issue", Action::DeleteOne)]
    );
    let pull = &p.steps[0];
    assert!(
        matches!(&pull.updates[..], [crate::design::UpdateOp::Pull { path }] if path == "authored"),
        "{pull:?}"
    );
    assert_eq!(pull.filter.len(), 1, "{pull:?}");
    assert_eq!(pull.filter[0].path, "authored.issue");
    assert_eq!(pull.documents, 40.0);
    assert!(matches!(
        &pull.purpose[0],
        Purpose::PullOwnedChildren { entity, parent, host }
            if entity == "comment" && parent == "issue" && host == "member"
    ));
    assert_eq!(pull.index.as_deref(), Some("authored.issue_1"), "{pull:?}");
    let member = d
        .collections
        .iter()
        .find(|x| x.name == "member")
        .expect("members");
    assert!(member.indexes.iter().any(|i| i.name == "authored.issue_1"));
    // By a filter with a condition: the issues found first, their
    // comments pulled by those ids (40 each), then the issues.
    let p = plan(&d, "purge_closed");
    assert_eq!(
        steps_of(p),
        [
            ("issue", Action::Find),
            ("member", Action::UpdateMany),
            ("issue", Action::DeleteMany),
        ]
    );
    assert_eq!(p.steps[1].documents, 40.0 * p.steps[0].documents);
    // The issue keeping its comments' ids: read from it, the elements
    // pulled by those ids (`authored._id`), no index on the issue's id.
    let d = design(&model("child-references", embedded, more, ""));
    let p = plan(&d, "delete_issue");
    assert!(orphaned(p).is_empty(), "{:?}", p.warnings);
    assert_eq!(
        steps_of(p),
        [
            ("issue", Action::Find),
            ("member", Action::UpdateMany),
            ("issue", Action::DeleteOne),
        ]
    );
    assert_eq!(p.steps[1].filter[0].path, "authored._id");
    assert_eq!(p.steps[1].filter[0].op, crate::model::FilterOp::In);
}

/// Embedded comments whose ids a digest also keeps: a `$pull` by the
/// issue's id would leave those ids behind, and the digest's upkeep per
/// comment needs their ids, which no step reads; the delete warns, and
/// says why. Issue 41.
#[test]
fn children_embedded_whose_ids_another_parent_keeps_are_warned_of_with_why() {
    let more = "  member:
    count: 100000
    fields:
      name: string(20)
";
    let embedded = "  authored:
    parent: member
    child: comment
    children: {min: 0, typical: 40, max: 300}
    child_field: author
    layout: embed
  digest_comments:
    parent: digest
    child: comment
    children: {min: 0, typical: 10, max: 50}
    child_field: digest
    layout: child-references
";
    let more = format!(
        "{more}  digest:
    count: 1000
    fields:
      title: string(20)
"
    );
    let d = design(&model("parent-reference", embedded, &more, ""));
    let p = plan(&d, "delete_issue");
    let why: Vec<_> = p
        .warnings
        .iter()
        .filter_map(|w| match w {
            Warning::OrphanedChildren { why, .. } => Some(*why),
            _ => None,
        })
        .collect();
    assert_eq!(
        why,
        [crate::design::Unreached::KeptUpInHost],
        "{:?}",
        p.steps
    );
    assert!(p.steps.iter().all(|s| s.collection != "member"));
}

/// Teams that keep their members' ids, owned (not `standalone`), deleted
/// only when closed: the find of the team tests the condition and returns
/// the ids (one read, not two), the members go by those ids, then the team
/// by its conditional delete. A team still open is found by no find: none
/// of its members goes.
#[test]
fn a_conditional_delete_reads_the_ids_its_parent_keeps_once() {
    let d = design(
        "name: teams
entities:
  team:
    count: 10000
    fields:
      name: string(20)
      open: bool
  user:
    count: 1000000
    fields:
      name: string(20)
relationships:
  members:
    parent: team
    child: user
    children: {min: 0, typical: 8, max: 20}
    layout: child-references
operations:
  team_page:
    read: team
    rate: 100
    filter: {_id: eq}
  finish:
    delete: team
    filter: {_id: eq}
    when: [\"open = false\"]
    otherwise: skip
    rate: 1
",
    );
    let p = plan(&d, "finish");
    let order = steps_of(p);
    assert_eq!(
        order,
        [
            ("team", Action::Find),
            ("user", Action::DeleteMany),
            ("team", Action::DeleteOne),
        ]
    );
    let find = &p.steps[0];
    assert_eq!(find.conditions.len(), 1, "{find:?}");
    assert!(find.projection.iter().any(|x| x == "members"), "{find:?}");
    let users = &p.steps[1];
    assert_eq!(users.documents, 8.0);
    assert_eq!(
        (users.filter[0].path.as_str(), &users.filter[0].value_from),
        ("_id", &crate::design::ValueSource::FromStep { step: 1 })
    );
    assert!(orphaned(p).is_empty());
}

/// Issues of a workspace (the tenant) with their comments apart, `extra`
/// adding relationships: the delete of one issue by its `_id`.
fn tenant_model(extra: &str) -> String {
    format!(
        "name: tenant_issues
tenant: {{entity: workspace, largest: 0.03}}
entities:
  workspace:
    count: 1000
    fields:
      name: string(20)
  issue:
    count: 1000000
    fields:
      title: string(60)
  comment:
    count: 40000000
    fields:
      text: string(200)
relationships:
  issues:
    parent: workspace
    child: issue
    children: {{min: 0, typical: 1000, max: 30000}}
    child_field: workspace
  comments:
    parent: issue
    child: comment
    children: {{min: 0, typical: 40, max: 300}}
    child_field: issue
    layout: parent-reference
{extra}operations:
  delete_issue:
    delete: issue
    filter: {{_id: eq}}
    rate: 1
"
    )
}

/// Issue 41: under a tenant, the delete of an issue by its `_id` reads the
/// issue first only where its comments do not carry the tenant's id. When
/// they do, the comments' `deleteMany` tests the workspace beside the
/// issue's id, so another workspace's issue id takes nothing, and the
/// caller's id is enough: two steps, not three (the find of the issue,
/// scoped by the workspace, and the comments deleted by the ids it read,
/// were three). The comments carry it whether the model relates them to
/// the workspace or leaves that to the chain through their issue.
#[test]
fn under_a_tenant_a_delete_by_id_reads_no_parent_when_children_carry_the_tenant() {
    let related = "  workspace_comments:
    parent: workspace
    child: comment
    children: {min: 0, typical: 40000, max: 1200000}
    child_field: workspace
    layout: parent-reference
";
    for extra in [related, ""] {
        let d = design(&tenant_model(extra));
        let p = plan(&d, "delete_issue");
        let order = steps_of(p);
        assert_eq!(
            order,
            [
                ("comment", Action::DeleteMany),
                ("issue", Action::DeleteOne)
            ],
            "{extra:?}: {:?}",
            p.steps
        );
        let tested: Vec<&str> = p.steps[0].filter.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(tested, ["workspace", "issue"], "{extra:?}");
        assert_eq!(
            p.steps[0].filter[1].value_from,
            crate::design::ValueSource::Param
        );
        assert!(orphaned(p).is_empty());
    }
}
