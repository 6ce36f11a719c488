//! Against a server, in each language: an insert under a tenant whose
//! parent is laid out so that it keeps no tenant id (its org keeps the
//! project's id), or whose child may land in an outlier's overflow
//! collection, refuses another tenant's parent and writes nothing
//! (review48, fixture tenant-parents, scripts/testenv/check_tenant_insert.py).
//! The bucket upsert's check is in bucket_elements_tests.rs
//! (`buckets_under_a_tenant_keep_each_org_apart_against_a_server`).

use super::external_tests::{run_check_script_on_data, server_tools};
use crate::synthetic::DataOptions;

/// Before, `open_ticket` inserted the ticket as given (no check), and
/// `add_comment`'s push matched nothing for another org's ticket, so its
/// fallback filed the comment in the overflow collection under that
/// ticket.
#[test]
fn parents_in_every_layout_refuse_another_tenant_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("tenant-parents");
    let options = DataOptions {
        max_children: Some(3),
        format: crate::synthetic::DataFormat::Ejson,
        ..DataOptions::new(3, 17)
    };
    for (op, parent, inserted) in [
        ("open_ticket", "project", "ticket"),
        ("add_comment", "ticket", "comment"),
    ] {
        let db = format!("squill_tenant_parents_{op}");
        let out = run_check_script_on_data(
            (&uri, &python, &mongosh),
            (&model, &design),
            (&format!("tenant-parents-{op}"), &db, false),
            Some(&options),
            ("check_tenant_insert.py", &["org", op, parent]),
        );
        for lang in ["python", "mongosh", "node"] {
            for said in [
                format!("ok: {lang} {op} with another tenant's parent: refused"),
                format!("ok: {lang} {op} with the tenant's own parent: 1 {inserted} inserted"),
            ] {
                assert!(out.contains(&said), "{said}: {out}");
            }
        }
        assert!(
            out.contains(&format!("no {parent} with that id in this org")),
            "{out}"
        );
        assert!(!out.contains("FAIL"), "{out}");
    }
}

/// A follow has two parents, both players of the game: the follower keeps
/// the follow's id (`following`), the followed is named by the follow.
/// Both are found in the caller's game before the insert, each by its own
/// id (scripts/testenv/check_tenant_two_parents.py, the leaderboard model).
/// Before, the function took one `player_id` for both: the followed player
/// was set to the follower, another game's player was accepted as
/// followed, and the follower's push went to the one id.
#[test]
fn two_parents_of_one_entity_are_both_checked_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let text = include_str!("../advise/tests/leaderboard-feed.yaml");
    let model = crate::inputs::model_file::parse("leaderboard-feed.yaml", text).expect("parses");
    let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .expect("advises");
    let out = super::external_tests::run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("tenant-two-parents", "squill_tenant_two_parents", false),
        (
            "check_tenant_two_parents.py",
            &["game", "follow", "follow", "player", "followed"],
        ),
    );
    for lang in ["python", "mongosh", "node"] {
        for said in [
            format!("ok: {lang} follow with another tenant's parent named: refused"),
            format!("ok: {lang} follow with another tenant's parent keeping its id: refused"),
            format!(
                "ok: {lang} follow with both parents of the tenant: 1 follow naming its parent"
            ),
        ] {
            assert!(out.contains(&said), "{said}: {out}");
        }
    }
    assert!(!out.contains("FAIL"), "{out}");
}

/// audit49 A2: a reading filed under another org's device is refused in
/// each language, and one under the caller's own device is inserted.
/// Before, devices were kept in their org's buckets, and `ingest` inserted
/// the caller's reading as given (no check: the device was not looked
/// for), so a reading of org B under org A's device was stored.
#[test]
fn a_child_of_a_referenced_parent_refuses_another_tenant_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let text = include_str!("../advise/tests/bucketed-parent-tenant.yaml");
    let model =
        crate::inputs::model_file::parse("bucketed-parent-tenant.yaml", text).expect("parses");
    let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .expect("advises");
    let options = DataOptions {
        max_children: Some(3),
        format: crate::synthetic::DataFormat::Ejson,
        ..DataOptions::new(3, 17)
    };
    let out = run_check_script_on_data(
        (&uri, &python, &mongosh),
        (&model, &design),
        (
            "tenant-bucketed-parent",
            "squill_tenant_bucketed_parent",
            false,
        ),
        Some(&options),
        ("check_tenant_insert.py", &["org", "ingest", "device"]),
    );
    for lang in ["python", "mongosh", "node"] {
        for said in [
            format!("ok: {lang} ingest with another tenant's parent: refused"),
            format!("ok: {lang} ingest with the tenant's own parent: 1 reading inserted"),
        ] {
            assert!(out.contains(&said), "{said}: {out}");
        }
    }
    assert!(!out.contains("FAIL"), "{out}");
}
