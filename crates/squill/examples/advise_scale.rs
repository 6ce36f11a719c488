//! Times `advise` on generated models, for the growth curve in BENCHMARKS.md
//! (run under `/usr/bin/time -f '%M KB'` for the peak memory):
//! `advise_scale chain N` (a chain of N entities, one include-read per
//! relationship) or `advise_scale model ENTITIES RELATIONSHIPS OPERATIONS`.

use squill::settings::Settings;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| {
        args.get(i)
            .and_then(|a| a.parse::<usize>().ok())
            .unwrap_or(default)
    };
    let model = match args.first().map(String::as_str) {
        Some("chain") => squill::model::synthetic::chain(number(1, 100)),
        _ => squill::model::synthetic::model(number(1, 200), number(2, 300), number(3, 1_000), 7),
    };
    let settings = Settings::default();
    let start = Instant::now();
    let design = squill::advise::advise(&model, &settings, None).expect("a design");
    let seconds = start.elapsed().as_secs_f64();
    // The search again, alone, for the number of operation plans it priced.
    let facts = squill::candidates::facts::Facts::new(&model, &settings, 0);
    let space = squill::rules::design::space(&facts);
    let searched = squill::advise::optimize::local_search_within(
        &facts,
        &space,
        squill::advise::optimize::PLAN_BUDGET,
    )
    .expect("a design");
    println!(
        "{}: {} entities, {} relationships, {} operations: {seconds:.2} s, {} collections, {} plans priced{}",
        model.name,
        model.entities.len(),
        model.relationships.len(),
        model.workload.operations.len(),
        design.collections.len(),
        searched.planned,
        if searched.stopped {
            " (search budget reached)"
        } else {
            ""
        }
    );
}
