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
