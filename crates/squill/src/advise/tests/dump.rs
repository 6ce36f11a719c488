//! `cargo test -p squill --lib design::tests::dump -- --ignored --nocapture`:
//! prints every example's decisions (a development aid, not an assertion).

use crate::advise::advise;
use crate::design::Verdict;
use crate::settings::Settings;

#[test]
#[ignore = "prints decisions for inspection"]
fn dump_examples() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let only = std::env::var("ONLY").ok();
    for f in files {
        if only
            .as_ref()
            .is_some_and(|o| !f.to_string_lossy().contains(o.as_str()))
        {
            continue;
        }
        let model = crate::inputs::model_file::load(&f).unwrap();
        for mix in &model.workload.mixes {
            let d = advise(&model, &Settings::default(), Some(&mix.name)).unwrap();
            println!(
                "== {} [{}] score {:.2}",
                model.name, mix.name, d.totals.score
            );
            for r in &d.relationships {
                println!(
                    "  {} ({} -> {}, {}): {} {:?}",
                    r.relationship,
                    r.parent,
                    r.child,
                    r.class,
                    serde_json::to_string(&r.chosen).unwrap(),
                    r.rules.iter().map(|h| h.rule).collect::<Vec<_>>()
                );
                if std::env::var("VERBOSE").is_ok() {
                    for h in &r.rules {
                        println!("      + {}: {}", h.rule, h.reason);
                    }
                    for a in &r.alternatives {
                        match &a.verdict {
                            Verdict::Rejected { rule, reason } => {
                                println!("      x {}: {rule}: {reason}", a.layout.kind())
                            }
                            Verdict::Costlier { explanation, .. }
                            | Verdict::Cheaper { explanation, .. } => {
                                println!("      $ {explanation}")
                            }
                        }
                    }
                    for t in &r.tradeoffs {
                        println!("      ~ {t}");
                    }
                }
            }
            for e in &d.entities {
                println!(
                    "  entity: {}",
                    serde_json::to_string(e)
                        .unwrap()
                        .chars()
                        .take(200)
                        .collect::<String>()
                );
            }
            if std::env::var("VERBOSE").is_ok() {
                for o in &d.operations {
                    println!(
                        "  op {} ({}/s) rt={} score={:.3} {:?}",
                        o.operation, o.rate, o.cost.round_trips, o.cost.score, o.warnings
                    );
                    for s in &o.steps {
                        println!(
                            "     {} {:?} {:?} idx={:?} :: {}",
                            s.collection,
                            s.action,
                            s.filter
                                .iter()
                                .map(|f| format!("{} {:?} {:?}", f.path, f.op, f.value_from))
                                .collect::<Vec<_>>(),
                            s.index,
                            crate::design::Purpose::texts(&s.purpose)
                        );
                    }
                }
                for c in &d.collections {
                    println!(
                        "  coll {} {:?} size={:?} idx={:?}",
                        c.name,
                        c.entities,
                        c.size,
                        c.indexes.iter().map(|i| &i.name).collect::<Vec<_>>()
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "prints one state's plans"]
fn dump_alternative() {
    use crate::advise::optimize;
    use crate::candidates::{facts::Facts, placement::Placement, space::State};
    use crate::costs::plan::Planner;
    let file = std::env::var("MODEL").unwrap();
    let model = crate::inputs::model_file::load(std::path::Path::new(&file)).unwrap();
    let settings = Settings::default();
    let facts = Facts::new(&model, &settings, 0);
    let space = crate::rules::design::space(&facts);
    let (best, score) = optimize::local_search(&facts, &space).unwrap();
    println!("best {best:?} {score}");
    for r in 0..space.rels.len() {
        for (i, c) in space.rels[r].iter().enumerate() {
            let mut st = best.clone();
            st.rel[r] = i;
            let obj = optimize::objective(&facts, &space, &st);
            println!(
                "rel {r} cand {i} {} forbidden={} obj={obj:?}",
                serde_json::to_string(&c.layout).unwrap(),
                c.forbidden.is_some()
            );
            if let Some(p) = Placement::build(&facts, &space, &st) {
                let pl = Planner {
                    facts: &facts,
                    space: &space,
                    p: &p,
                };
                for op in model.operation_ids() {
                    let plan = pl.plan(op);
                    println!(
                        "   {} score {:.3} idx {:?}",
                        model.operation(op).name,
                        plan.cost.score,
                        plan.indexes
                            .iter()
                            .map(|n| (n.keys.clone(), n.entries, n.writes))
                            .collect::<Vec<_>>()
                    );
                }
            }
        }
    }
    let _ = State {
        rel: vec![],
        entity: vec![],
    };
}
