//! A read through a chain of hops whose first hop is embedded (the
//! stories of everyone I follow, each story inside its author; audit48
//! A1): the follows by the caller, then the authors by the ids they name,
//! their stories unwound. It once queried `user {followers: eq}`, a field
//! no user holds, and returned nothing.

use super::external_tests::{run_check_script, says_in_each_language, server_tools};

/// The model: users with their stories embedded, follows by both ends.
const TRAY: &str = "name: tray
entities:
  user:
    count: 2000000
    fields:
      handle: {type: string(16), unique: true}
  story:
    count: 4000000
    fields:
      media_url: string(80)
      posted_at: date
  follow:
    count: 400000000
    fields:
      since: date
relationships:
  stories:
    parent: user
    child: story
    children: {min: 0, typical: 2, max: 100}
    child_field: author
    layout: embed
  followers:
    parent: user
    child: follow
    children: {min: 0, typical: 200, max: 3000000}
    child_field: followee
  following:
    parent: user
    child: follow
    children: {min: 0, typical: 200, max: 7500}
    child_field: follower
operations:
  post_story:
    insert: story
    links: [stories]
    rate: 50
  story_tray:
    read: story
    filter: {author.followers.follower: eq}
    sort: -posted_at
    limit: 100
    rate: 600
  follow_user:
    insert: follow
    links: [followers, following]
    rate: 30
";

fn tray() -> (crate::model::Model, crate::design::Design) {
    let model = crate::inputs::model_file::parse("tray.yaml", TRAY).expect("parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// Each language's tray asks the authors by `_id: {$in: …}` the follows
/// name, never a `followers` field of the user.
#[test]
fn the_tray_through_embedded_stories_asks_the_authors_by_their_ids() {
    let (_, d) = tray();
    let ops = super::cookbook::op_codes(&d);
    let op = ops.iter().find(|o| o.name == "story_tray").expect("the op");
    for text in [
        super::cookbook::mongosh_function(op),
        super::cookbook::node_function(op),
        super::cookbook::python_function(op),
    ] {
        assert!(text.contains(r#"{"$match": {"_id": {"$in": "#), "{text}");
        assert!(text.contains(r#"{"$unwind": "$stories"}"#), "{text}");
        assert!(!text.contains(r#""followers""#), "{text}");
    }
}

/// Against the server, in each language (scripts/testenv/check_chained_tray.py):
/// the caller's tray holds the stories of the two users it follows,
/// newest first, and no one else's.
#[test]
fn the_tray_through_embedded_stories_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = tray();
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("chained-tray", "squill_chained_tray", false),
        ("check_chained_tray.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &["ok: {lang} story_tray(9): the 3 stories of the 2 users followed, newest first"],
    );
}
