//! The setup script over a deployment an older squill built (issue 41):
//! there, blog-comments-pages' `post_comments.post_1_page_1` is not unique,
//! and `createIndexes` alone refused the unique one ("An existing index has
//! the same name"). The generated setup makes it unique in place; with two
//! comments' buckets sharing a page, it stops before any change and names
//! the repeated keys.

use super::external_tests::{database_uri, out_dir, server_tools};
use super::mongosh_server::Pool;
use super::*;
use std::process::Command;

/// The old deployment (the index not unique, and two buckets of post 1,
/// or with `duplicate` both on page 1), setup.js run over it, then the
/// collection's indexes: what the two scripts printed, and their status.
fn setup_over_old_index(
    pool: &Pool,
    (uri, mongosh): (&str, &std::path::Path),
    dir: &std::path::Path,
    duplicate: bool,
) -> (i64, String) {
    let db = format!("squill_index_upgrade_{duplicate}_{}", std::process::id());
    let db_uri = database_uri(uri, &db);
    let old = dir.join(format!("old-{duplicate}.js"));
    std::fs::write(
        &old,
        format!(
            "db.dropDatabase();\n\
             db.post_comments.insertMany([{{ post: 1, page: 1 }}, {{ post: 1, page: {} }}]);\n\
             db.post_comments.createIndex({{ post: 1, page: 1 }}, {{ name: \"post_1_page_1\" }});\n",
            if duplicate { 1 } else { 2 }
        ),
    )
    .unwrap();
    let show = dir.join("show.js");
    std::fs::write(
        &show,
        "print(\"after: \" + JSON.stringify(db.post_comments.getIndexes().filter((i) => i.name === \"post_1_page_1\").map((i) => !!i.unique)));\n",
    )
    .unwrap();
    let mut out = String::new();
    let mut status = 0;
    for (i, file) in [old, dir.join("setup.js"), show].iter().enumerate() {
        let mut cmd = Command::new(mongosh);
        cmd.args(["--quiet", "--norc", &db_uri]).arg(file);
        let served = pool.run(&cmd).expect("a served mongosh");
        out.push_str(&served.stdout);
        out.push_str(&served.stderr);
        if i == 1 {
            status = served.code;
        }
    }
    (status, out)
}

#[test]
fn setup_makes_an_old_non_unique_bucket_index_unique_against_a_server() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let model = crate::advise::tests::golden::example("blog-comments-pages");
    let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = out_dir("index-upgrade");
    write_artifacts(
        &dir.0,
        &artifacts(&model, &design, &Options::default()).unwrap(),
        false,
    )
    .unwrap();
    let pool = Pool::default();
    let (status, out) = setup_over_old_index(&pool, (&uri, &mongosh), &dir.0, false);
    assert_eq!(status, 0, "{out}");
    assert!(
        out.contains("squill: index \"post_comments\".\"post_1_page_1\" made unique in place")
            && out.contains("squill setup: done")
            && out.contains("after: [true]"),
        "{out}"
    );
    // Two buckets on one page: the script stops before changing anything,
    // and says which keys repeat.
    let (status, out) = setup_over_old_index(&pool, (&uri, &mongosh), &dir.0, true);
    assert_eq!(status, 1, "{out}");
    assert!(
        out.contains(
            "\"post_comments\".\"post_1_page_1\" on [\"post\",\"page\"]: [1,1] in 2 documents"
        ) && !out.contains("squill setup: done")
            && out.contains("after: [false]"),
        "{out}"
    );
}

/// `ensureIndexes` alone over an index of the same name that an older design
/// built (review 41, D1 and D7): the script `scenario` sets up the old
/// index, calls `ensureIndexes`, and prints what the collection holds after.
fn ensure_over(
    pool: &Pool,
    (uri, mongosh): (&str, &std::path::Path),
    name: &str,
    scenario: &str,
) -> String {
    let db = format!("squill_ensure_{name}_{}", std::process::id());
    let dir = out_dir(&format!("ensure-{name}"));
    std::fs::create_dir_all(&dir.0).unwrap();
    let file = dir.0.join("ensure.js");
    std::fs::write(
        &file,
        format!(
            "db.dropDatabase();\n{}\n{scenario}\n\
             print(\"after: \" + JSON.stringify(db.c.getIndexes().filter((i) => i.name !== \"_id_\")\
             .map((i) => [i.name, !!i.unique, i.expireAfterSeconds === undefined ? \"none\" : i.expireAfterSeconds, i.partialFilterExpression || null])));\n",
            crate::catalog::indexes::ENSURE_INDEXES
        ),
    )
    .unwrap();
    let mut cmd = Command::new(mongosh);
    cmd.args(["--quiet", "--norc", &database_uri(uri, &db)])
        .arg(&file);
    let served = pool.run(&cmd).expect("a served mongosh");
    format!("{}{}", served.stdout, served.stderr)
}

#[test]
fn ensure_indexes_adds_and_removes_an_expiry_of_zero_seconds_against_a_server() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let pool = Pool::default();
    let tools = (uri.as_str(), mongosh.as_path());
    // A plain index, and the design's expiry of 0 seconds (model-file.md:
    // `expires: {from: expires_at, after: 0 seconds}`): the expiry is set.
    let out = ensure_over(
        &pool,
        tools,
        "ttl_added",
        "db.c.createIndex({ expires_at: 1 }, { name: \"expires_at_1\" });\n\
         ensureIndexes(\"c\", [{ key: { expires_at: 1 }, name: \"expires_at_1\", expireAfterSeconds: 0 }]);",
    );
    assert!(
        out.contains("after: [[\"expires_at_1\",false,0,null]]"),
        "{out}"
    );
    // The reverse: the new design has no expiry, the old index's goes.
    let out = ensure_over(
        &pool,
        tools,
        "ttl_removed",
        "db.c.createIndex({ expires_at: 1 }, { name: \"expires_at_1\", expireAfterSeconds: 0 });\n\
         ensureIndexes(\"c\", [{ key: { expires_at: 1 }, name: \"expires_at_1\" }]);",
    );
    assert!(
        out.contains("after: [[\"expires_at_1\",false,\"none\",null]]"),
        "{out}"
    );
}

#[test]
fn ensure_indexes_checks_a_unique_index_whose_condition_changes_before_dropping_it() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let pool = Pool::default();
    // The old unique index covers the signed-up users only; the new
    // condition takes in two users sharing an address: the script stops
    // before any change, and the old index stays.
    let out = ensure_over(
        &pool,
        (uri.as_str(), mongosh.as_path()),
        "partial",
        "db.c.insertMany([{ email: \"a@x\", sign_up: \"done\" }, { email: \"a@x\", sign_up: \"open\" }]);\n\
         db.c.createIndex({ email: 1 }, { name: \"email_1_partial\", unique: true, partialFilterExpression: { sign_up: \"done\" } });\n\
         try {\n\
           ensureIndexes(\"c\", [{ key: { email: 1 }, name: \"email_1_partial\", unique: true, partialFilterExpression: { email: { $exists: true } } }]);\n\
         } catch (e) { print(\"stopped: \" + e.message); }",
    );
    assert!(
        out.contains("no index was changed")
            && out.contains("\"c\".\"email_1_partial\" on [\"email\"]: [\"a@x\"] in 2 documents")
            && out.contains("after: [[\"email_1_partial\",true,\"none\",{\"sign_up\":\"done\"}]]"),
        "{out}"
    );
}
