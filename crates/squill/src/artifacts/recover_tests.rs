//! A bulk delete that fails before its count-down (issue 41), run against
//! the server: bucket-edits' `purge_rating` in the mongosh cookbook, the
//! count-down's `bulkWrite` made to fail once after the `deleteMany`. The
//! error reaches the caller, and each product's count, sum, max and last
//! are those of the reviews it has left (before, they stayed those of
//! before the delete, and running the purge again found nothing to delete).

use super::external_tests::{database_uri, out_dir, server_tools};
use super::mongosh_server::Pool;
use super::*;
use std::process::Command;

#[test]
fn a_purge_that_fails_before_its_count_down_recounts_against_a_server() {
    let Some((uri, _, mongosh)) = server_tools() else {
        return;
    };
    let (_, design) = crate::fixtures::load("bucket-edits");
    let dir = out_dir("recover");
    std::fs::create_dir_all(&dir.0).unwrap();
    // The purge's function and the helpers it calls, not the whole
    // cookbook: mongosh takes seconds to load that on a busy machine.
    let purge: Vec<_> = cookbook::op_codes(&design)
        .into_iter()
        .filter(|o| o.name == "purge_rating")
        .collect();
    assert_eq!(purge.len(), 1);
    let cookbook = dir.0.join("purge_rating.mongosh.js");
    std::fs::write(&cookbook, cookbook::mongosh(&design, &purge)).unwrap();
    let script = dir.0.join("purge.js");
    std::fs::write(
        &script,
        format!(
            r#"db.dropDatabase();
db.product.insertMany([
  {{ _id: 1, reviews_count: 3, reviews_sum_rating: 13.0, reviews_max_rating: 5, reviews_last_rating: 4 }},
  {{ _id: 2, reviews_count: 1, reviews_sum_rating: 4.0, reviews_max_rating: 4, reviews_last_rating: 4 }},
]);
db.review.insertMany([
  {{ _id: 11, product: 1, rating: 4 }}, {{ _id: 12, product: 1, rating: 5 }}, {{ _id: 13, product: 1, rating: 4 }},
  {{ _id: 21, product: 2, rating: 4 }},
]);
load({});
const getCollection = db.getCollection.bind(db);
let failures = 1;
db.getCollection = (name) => {{
  const c = getCollection(name);
  if (name === "product") {{
    const bulkWrite = c.bulkWrite.bind(c);
    c.bulkWrite = (ops) => {{ if (failures > 0) {{ failures -= 1; throw new Error("injected failure"); }} return bulkWrite(ops); }};
  }}
  return c;
}};
try {{ purge_rating(4); print("no error"); }} catch (e) {{ print("raised: " + e.message); }}
for (const p of db.product.find().sort({{ _id: 1 }}).toArray()) {{
  print("product " + p._id + ": " + [Number(p.reviews_count), p.reviews_sum_rating, p.reviews_max_rating, p.reviews_last_rating].join(" "));
}}
"#,
            serde_json::to_string(cookbook.to_str().unwrap()).unwrap()
        ),
    )
    .unwrap();
    let db_uri = database_uri(&uri, &format!("squill_recover_{}", std::process::id()));
    let mut cmd = Command::new(&mongosh);
    cmd.args(["--quiet", "--norc", &db_uri]).arg(&script);
    let served = Pool::default().run(&cmd).expect("a served mongosh");
    let out = format!("{}{}", served.stdout, served.stderr);
    assert_eq!(served.code, 0, "{out}");
    assert!(out.contains("raised: injected failure"), "{out}");
    // Product 1 keeps its review of 5; product 2 has none left.
    assert!(out.contains("product 1: 1 5 5 5\n"), "{out}");
    assert!(out.contains("product 2: 0 0  \n"), "{out}");
}
