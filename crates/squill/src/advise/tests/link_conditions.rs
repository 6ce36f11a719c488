//! A link with a condition (`when:`) tests the link's parent, the document
//! a link writes first (issue 41). Where the design keeps a many-to-many's
//! ids on the child's side only, the plan writes no parent document, and
//! the condition used to vanish from the plan without a word. It is not
//! moved to a read before the write (the value could change between the
//! two commands, the race `when:` closes): the plan warns and names it.

use crate::advise::advise;
use crate::design::{Action, Design, OperationPlan, Warning};
use crate::settings::Settings;

/// Teams of up to 2,000,000 members, users in at most 20 teams: the ids
/// fit only in the users. Users join open teams only.
const TEAMS: &str = "
name: join-open-teams
entities:
  team:
    count: 1000
    fields:
      name: string(20)
      open: bool
  user:
    count: 10000000
    fields:
      name: string(24)
relationships:
  memberships:
    kind: many-to-many
    parent: team
    child: user
    children: {min: 0, typical: 20000, max: 2000000}
    parents: {min: 0, typical: 2, max: 20}
operations:
  my_teams:
    read: user
    rate: 500
    filter: {_id: eq}
    include:
      memberships: {fields: [name]}
  join:
    link: memberships
    when: [\"open = true\"]
    rate: 50
";

fn join(yaml: &str) -> OperationPlan {
    let m = crate::inputs::model_file::parse("teams.yaml", yaml).expect("the model parses");
    let d: Design = advise(&m, &Settings::default(), None).expect("advise");
    d.operations
        .into_iter()
        .find(|p| p.operation == "join")
        .expect("a plan for join")
}

fn writes_team(plan: &OperationPlan) -> bool {
    plan.steps
        .iter()
        .any(|s| s.collection == "team" && !matches!(s.action, Action::Find))
}

#[test]
fn a_condition_on_a_side_the_link_does_not_write_is_named() {
    let plan = join(TEAMS);
    assert!(!writes_team(&plan), "the ids are kept in the users only");
    assert!(plan.steps.iter().all(|s| s.conditions.is_empty()));
    let untested: Vec<_> = plan
        .warnings
        .iter()
        .filter_map(|w| match w {
            Warning::ConditionUntested {
                operation,
                entity,
                conditions,
            } => Some((operation.as_str(), entity.as_str(), conditions.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        untested,
        [("join", "team", vec!["open = true".to_string()])]
    );
}

/// Near miss: teams of at most 500 members, their pages listing the
/// members, keep the members' ids too, so the link writes the team and
/// the condition joins that write; no warning.
#[test]
fn a_condition_on_a_side_the_link_writes_joins_its_filter() {
    let small = TEAMS
        .replace(
            "children: {min: 0, typical: 20000, max: 2000000}",
            "children: {min: 0, typical: 20, max: 500}",
        )
        .replace(
            "  join:\n",
            "  team_page:\n    read: team\n    rate: 500\n    filter: {_id: eq}\n    include:\n      memberships: {fields: [name]}\n  join:\n",
        );
    assert_ne!(small, TEAMS);
    let plan = join(&small);
    assert!(writes_team(&plan), "{:#?}", plan.steps);
    let on_team = plan
        .steps
        .iter()
        .find(|s| s.collection == "team" && !matches!(s.action, Action::Find))
        .unwrap();
    assert_eq!(on_team.conditions.len(), 1, "{on_team:#?}");
    assert!(
        !plan
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::ConditionUntested { .. })),
        "{:?}",
        plan.warnings
    );
}
