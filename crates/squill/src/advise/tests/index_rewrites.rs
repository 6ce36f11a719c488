//! ttl45: the index entries an update rewrites. An `$inc` of an indexed
//! field rewrites its entry as a `$set` does (index upkeep), and the
//! operation's per-run line says how many entries it rewrites, not only
//! the index key it examined to find its document.

use super::{design_of, plan_of};

const WINS: &str = "
entities:
  player:
    count: 100000
    fields: {score: int, games: int}
operations:
  top: {read: player, filter: {score: range}, sort: -score, limit: 10, rate: 10}
  win: {update: player, filter: {_id: eq}, increments: {score: 10}, rate: 5000}
";

/// ttl45: an `$inc` of a key of a chosen index rewrites its entry, so the
/// index's upkeep counts the increments as it counts `$set`s: the same
/// wins cost more when they increment the indexed score than the games
/// no index holds, and as much as a `changes: [score]` would.
#[test]
fn increments_of_an_indexed_field_are_index_writes() {
    let wins = WINS;
    let score = design_of(wins);
    let games = design_of(&wins.replace("increments: {score: 10}", "increments: {games: 1}"));
    let set = design_of(&wins.replace("increments: {score: 10}", "changes: [score]"));
    assert!(score.totals.score > games.totals.score);
    let upkeep = |d: &crate::design::Design| d.totals.score - plan_of(d, "win").cost.score * 5000.0;
    assert_eq!(upkeep(&score), upkeep(&set));
}

/// The win finds its player by `_id` (1 index key examined) and rewrites
/// the entry of the score index (1 entry): the per-run line says both.
/// Near miss: a win that counts games rewrites none, and says none.
#[test]
fn the_per_run_line_says_the_entries_rewritten() {
    let text = |d: &crate::design::Design| {
        let all = crate::outputs::design::render(d, crate::outputs::design::Format::Text, false);
        let at = all
            .find("\nwin ")
            .or_else(|| all.find("win"))
            .expect("the win's plan");
        all[at..]
            .lines()
            .find(|l| l.trim_start().starts_with("per run:"))
            .map(str::to_string)
    };
    let score = design_of(WINS);
    let win = plan_of(&score, "win");
    assert_eq!(win.index_entries_rewritten, 1.0);
    let line = text(&score).expect("a per-run line");
    assert!(
        line.contains("1 index key,") && line.ends_with("1 index entry rewritten"),
        "{line}"
    );
    let games = design_of(&WINS.replace("increments: {score: 10}", "increments: {games: 1}"));
    assert_eq!(plan_of(&games, "win").index_entries_rewritten, 0.0);
    let line = text(&games).expect("a per-run line");
    assert!(!line.contains("rewritten"), "{line}");
}
