//! Tests of `otherwise: insert` (an upsert): each misuse is an error at
//! its line:column (`upsert`); a well-formed one reads into the terms.

use super::*;

/// A player's inventory: a stack per item kind, unique within the player.
const GAME: &str = r"
name: game
entities:
  player: {count: 1000, fields: {gold: long}}
  stack:
    count: 30000
    fields:
      kind: {type: string(20), distinct: 500}
      qty: int
    unique: [[player, kind]]
relationships:
  inventory: {parent: player, child: stack, children: {typical: 30, max: 2000}, child_field: player}
operations:
  grant_item:
    update: stack
    filter: {player: eq, kind: eq}
    increments: {qty: amount}
    otherwise: insert
    rate: 3000
";

/// Each problem of `text` as (line, column, message).
fn errors(text: &str) -> Vec<(usize, usize, String)> {
    match parse("m.yaml", text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e
            .problems()
            .iter()
            .map(|p| {
                let at = p.position.expect("a place");
                (at.line, at.column, p.message.clone())
            })
            .collect(),
    }
}

/// The one error of `text`, which must be at `line`:`column` and say `says`.
fn one_error(text: &str, line: usize, column: usize, says: &str) {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!((e[0].0, e[0].1), (line, column), "{e:?}");
    assert!(e[0].2.contains(says), "{e:?}");
}

#[test]
fn a_well_formed_upsert_reads_with_its_share() {
    let m = parse("m.yaml", GAME).unwrap_or_else(|e| panic!("{e}"));
    let t = &m.workload.operations[0].terms;
    assert_eq!(t.otherwise, crate::model::Otherwise::Insert);
    assert_eq!((t.inserts, t.insert_share()), (None, 1.0));
    let m = parse(
        "m.yaml",
        &GAME.replace("otherwise: insert", "otherwise: insert\n    inserts: 0.2"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.workload.operations[0].terms.inserts, Some(0.2));
}

/// The insert builds the whole stack: a required field that neither the
/// filter nor the increments give is refused; made optional, it reads.
#[test]
fn a_required_field_the_upsert_cannot_give_is_refused() {
    let level = GAME.replace(
        "      qty: int\n",
        "      qty: int\n      level: {type: int, required: true}\n",
    );
    one_error(&level, 19, 16, "the required field `level`");
    one_error(&level, 19, 16, "adds a `stack` when it finds none");
    // The article follows the name (audit49 C1: "a `item_stack`").
    let item = level.replace("stack", "item_stack");
    one_error(&item, 19, 16, "adds an `item_stack` when it finds none");
    let optional = level.replace("required: true", "required: false");
    parse("m.yaml", &optional).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn without_otherwise_the_same_write_parses() {
    let m = parse("m.yaml", &GAME.replace("    otherwise: insert\n", ""))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.workload.operations.len(), 1);
}

#[test]
fn an_upsert_is_planned_in_its_own_collection_but_not_in_buckets() {
    let pinned = GAME.replace(
        "child_field: player}",
        "child_field: player, layout: parent-reference}",
    );
    parse("m.yaml", &pinned).unwrap_or_else(|e| panic!("{e}"));
    let bucket = GAME.replace(
        "child_field: player}",
        "child_field: player, layout: bucket}",
    );
    one_error(&bucket, 18, 16, "is pinned to `bucket`");
    let root = GAME
        .replace("    unique: [[player, kind]]\n", "    unique: [[kind]]\n")
        .replace("relationships:\n  inventory: {parent: player, child: stack, children: {typical: 30, max: 2000}, child_field: player}\n", "")
        .replace("filter: {player: eq, kind: eq}", "filter: {kind: eq}");
    // A root entity: its own collection, keyed by its unique combination.
    parse("m.yaml", &root).unwrap_or_else(|e| panic!("{e}"));
    let no_key = root.replace("filter: {kind: eq}", "filter: {qty: eq}");
    one_error(&no_key, 16, 16, "has no key condition");
}

#[test]
fn a_filter_without_the_key_condition_is_refused() {
    let no_kind = GAME.replace("filter: {player: eq, kind: eq}", "filter: {player: eq}");
    one_error(&no_kind, 18, 16, "has no key condition");
    let by_id = GAME.replace("filter: {player: eq, kind: eq}", "filter: {_id: eq}");
    one_error(&by_id, 18, 16, "has no key condition");
}

#[test]
fn an_upsert_needs_increments_and_no_when() {
    let no_inc = GAME.replace("increments: {qty: amount}", "changes: [qty]");
    one_error(&no_inc, 18, 16, "adds to no field");
    let when = GAME.replace(
        "otherwise: insert",
        "otherwise: insert\n    when: [\"qty >= amount\"]",
    );
    one_error(&when, 18, 16, "has `when:` and `otherwise: insert`");
}

#[test]
fn an_upsert_is_an_update() {
    let delete = GAME
        .replace("update: stack", "delete: stack")
        .replace("    increments: {qty: amount}\n", "");
    let e = errors(&delete);
    assert!(e.iter().any(|e| e.2.contains("not to a delete")), "{e:?}");
}

#[test]
fn inserts_is_a_share_and_needs_otherwise_insert() {
    let big = GAME.replace("otherwise: insert", "otherwise: insert\n    inserts: 1.5");
    let e = errors(&big);
    assert!(
        e.iter()
            .any(|e| (e.0, e.1) == (19, 14) && e.2.contains("not a share")),
        "{e:?}"
    );
    let alone = GAME.replace("otherwise: insert", "inserts: 0.2");
    one_error(&alone, 18, 14, "but not `otherwise: insert`");
}

/// A required date the upsert sets (`changes: ["granted_at = :now"]`) is
/// given to the added stack: the `$set` applies to an inserted document
/// too, and the pushed element takes it (review48 B1). Plain `changes:
/// [granted_at]` gives it as well.
#[test]
fn a_required_field_the_changes_give_is_accepted() {
    let dated = GAME.replace(
        "      qty: int\n",
        "      qty: int\n      granted_at: date\n",
    );
    one_error(&dated, 19, 16, "the required field `granted_at`");
    for changes in ["[\"granted_at = :now\"]", "[granted_at]"] {
        let given = dated.replace(
            "    otherwise: insert\n",
            &format!("    changes: {changes}\n    otherwise: insert\n"),
        );
        let m = parse("m.yaml", &given).unwrap_or_else(|e| panic!("{changes}: {e}"));
        let t = &m.workload.operations[0].terms;
        assert_eq!(
            t.value_of("granted_at"),
            changes.contains(":now").then_some("now")
        );
    }
}

/// Under a tenant, the stack gets a relationship from the tenant that
/// the model file never wrote (`org_of_stack`): it is no second place,
/// and the upsert is accepted (review48 B2). A relationship the model
/// writes to the stack is still refused.
#[test]
fn an_upsert_under_a_tenant_is_accepted() {
    let tenant = GAME
        .replace("name: game\n", "name: game\ntenant: org\n")
        .replace(
            "entities:\n",
            "entities:\n  org: {count: 100, fields: {name: string(30)}}\n",
        )
        .replace(
            "relationships:\n",
            "relationships:\n  players: {parent: org, child: player, children: {typical: 10, max: 1000}, child_field: org}\n",
        )
        .replace(
            "child_field: player}",
            "child_field: player, layout: parent-reference}",
        );
    let m = parse("m.yaml", &tenant).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        m.relationships.iter().any(|r| r.name == "org_of_stack"),
        "{:?}",
        m.relationships.iter().map(|r| &r.name).collect::<Vec<_>>()
    );
    let written = tenant.replace(
        "relationships:\n",
        "relationships:\n  made_by: {parent: org, child: stack, children: {typical: 300, max: 30000}, child_field: maker}\n",
    );
    let e = errors(&written);
    assert!(
        e.iter().any(|x| x.2.contains("is also the child of `")),
        "{e:?}"
    );
}
