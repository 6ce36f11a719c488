//! A delete of a parent, run against a server in each language, deletes the
//! parent, the children it owns and theirs, and nothing else (audit43 Q;
//! scripts/testenv/check_cascade.py).

use super::external_tests::{run_check_script, says_in_each_language, server_tools};

/// Issues of a project, each with its comments (owned, in their own
/// collection), the comments' reactions (owned by the comment), and its
/// watches (`standalone`: they outlive the issue).
const ISSUES: &str = "name: issues
entities:
  project:
    count: 10000
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
  reaction:
    count: 80000000
    fields:
      emoji: string(4)
  watch:
    count: 5000000
    fields:
      since: date
relationships:
  project_issues:
    parent: project
    child: issue
    children: {min: 0, typical: 100, max: 1000}
    child_field: project
    layout: parent-reference
  comments:
    parent: issue
    child: comment
    children: {min: 0, typical: 40, max: 300}
    child_field: issue
    layout: parent-reference
  reactions:
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
operations:
  show:
    read: issue
    filter: {_id: eq}
    include: [comments]
    rate: 100
  delete_issue:
    delete: issue
    filter: {_id: eq}
    rate: 1
";

/// Deleting an issue in Python, mongosh and Node.js deletes the issue, its
/// comments and their reactions, and leaves the other issue, its comments
/// and reactions, both issues' watches and the project as they were.
#[test]
fn deleting_an_issue_deletes_its_comments_and_nothing_else_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let model = crate::inputs::model_file::parse("issues.yaml", ISSUES).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("cascade-issues", "squill_cascade", false),
        (
            "check_cascade.py",
            &[
                "delete_issue",
                "issue",
                "comment.issue=issue",
                "reaction.comment=comment",
                "watch.issue=issue!",
            ],
        ),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} delete_issue: deleted 2 comment, 1 issue, 4 reaction, 0 watch and nothing else",
        ],
    );
}

/// Issues whose comments are embedded in their author (a member's array),
/// owned by the issue (issue 41).
const EMBEDDED: &str = "name: issues
entities:
  issue:
    count: 1000000
    fields:
      title: string(60)
  comment:
    count: 40000000
    fields:
      text: string(200)
  member:
    count: 100000
    fields:
      name: string(20)
relationships:
  comments:
    parent: issue
    child: comment
    children: {min: 0, typical: 40, max: 300}
    child_field: issue
    layout: parent-reference
  authored:
    parent: member
    child: comment
    children: {min: 0, typical: 40, max: 300}
    child_field: author
    layout: embed
operations:
  show:
    read: issue
    filter: {_id: eq}
    include: [comments]
    rate: 100
  delete_issue:
    delete: issue
    filter: {_id: eq}
    rate: 1
";

/// Deleting an issue whose comments live in their members' documents pulls
/// them from every member in each language: two members each hold a
/// comment of each of two issues; after the delete of the first issue,
/// neither holds one of its comments, both keep the other issue's, and
/// both members and the other issue stay. The plan once warned and left
/// them (writes45's notes, item 1).
#[test]
fn deleting_an_issue_pulls_its_comments_from_the_members_that_hold_them_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let model =
        crate::inputs::model_file::parse("issues.yaml", EMBEDDED).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("cascade-embedded", "squill_cascade_embedded", false),
        (
            "check_cascade.py",
            &["delete_issue", "issue", "member.authored[].issue=issue"],
        ),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} delete_issue: deleted 1 issue, 0 member, 2 member.authored[] and nothing else",
        ],
    );
}

/// The `$pull` of embedded elements picks them by the filter's own tests
/// under the array, in each language: the issue's comments by the issue's
/// id each holds, and one comment by its id, never a whole element the
/// caller would have to build (which `$pull` matches only field for field).
#[test]
fn a_pull_of_embedded_elements_picks_them_by_the_filters_tests() {
    let ops = "  drop_comment:
    delete: comment
    filter: {_id: eq}
    rate: 1
";
    let text = format!("{EMBEDDED}{ops}");
    let model = crate::inputs::model_file::parse("issues.yaml", &text).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    let files = super::artifacts(&model, &design, &super::Options::default()).expect("artifacts");
    let file = |name: &str| {
        files
            .iter()
            .find(|a| a.file == name)
            .map(|a| a.content.clone())
            .unwrap_or_else(|| panic!("no {name}"))
    };
    for name in ["cookbook.py", "cookbook.js", "cookbook.mongosh.js"] {
        let code = file(name);
        for wanted in [
            r#"({"authored.issue": issue_id}, {"$pull": {"authored": {"issue": issue_id}}})"#,
            r#"({"authored._id": comment_id}, {"$pull": {"authored": {"_id": comment_id}}})"#,
        ] {
            assert!(code.contains(wanted), "{name} lacks {wanted}:\n{code}");
        }
        assert!(!code.contains("old_authored_item"), "{name}:\n{code}");
    }
}
