//! Measuring collection by collection gives what measuring everything at
//! once does: on a collection split over several sources, an archive
//! holding two collections in interleaved blocks, and plain files.

use super::super::{Options, Plan, analyze};
use super::read;
use crate::inputs::dump::tests::archive;
use crate::inputs::dump::{InputFormat, Inputs, open};
use crate::scan::driver;
use crate::scan::testing::{B, doc};
use crate::settings::Settings;

/// Documents with a rising `_id`, a skewed `tenant`, a shuffled `r`, and
/// `pad` bytes of filler (to make a file large enough to split).
fn documents(n: usize, from: usize, pad: usize) -> Vec<Vec<u8>> {
    let filler = "x".repeat(pad);
    (from..from + n)
        .map(|i| {
            let tenant = if i % 3 == 0 {
                format!("t{i}")
            } else {
                "big".into()
            };
            doc(&[
                ("_id", B::I32(i as i32)),
                ("tenant", B::Owned(tenant)),
                ("r", B::I32(((i * 7919) % 1009) as i32)),
                ("pad", B::Owned(filler.clone())),
            ])
        })
        .collect()
}

fn dump() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("squill-shardkeys-each-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("dump/shop")).unwrap();
    // Over 8 MiB, so `Source::split` cuts it in parts.
    std::fs::write(
        dir.join("dump/shop/orders.bson"),
        documents(9_000, 0, 1_000).concat(),
    )
    .unwrap();
    std::fs::write(
        dir.join("dump/shop/small.bson"),
        documents(300, 0, 0).concat(),
    )
    .unwrap();
    let blocks = (0..6)
        .map(|b| (b % 2, documents(150, b * 150, 0)))
        .collect::<Vec<_>>();
    std::fs::write(
        dir.join("two.archive"),
        archive(&[("arch", "a", ""), ("arch", "b", "")], &blocks),
    )
    .unwrap();
    dir
}

/// The report as it was made before collections were measured one by
/// one: every collection's columns read, then each measured.
fn all_at_once(
    report: &crate::scan::ScanReport,
    inputs: &Inputs,
    options: &Options,
) -> Vec<String> {
    let workload = crate::workload::read_bytes("none.log", b"", Default::default());
    let plan = Plan::new(report, &workload, inputs, options);
    let (columns, errors) = read(inputs, &plan.wanted, plan.failed());
    assert!(errors.is_empty(), "{errors:?}");
    columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| plan.measure(i, c, &workload, options))
        .map(|k| serde_json::to_string(&k).unwrap())
        .collect()
}

#[test]
fn measuring_each_collection_once_read_gives_what_measuring_all_at_once_does() {
    let dir = dump();
    let paths = [dir.join("dump"), dir.join("two.archive")];
    let report = driver::scan(
        open(&paths, InputFormat::Auto),
        &Settings::default(),
        driver::Options::default(),
        &driver::Progress::default(),
    );
    let mut inputs = open(&paths, InputFormat::Auto);
    let files = inputs.sources.len();
    inputs.sources = inputs.sources.iter().flat_map(|s| s.split(3)).collect();
    assert!(inputs.sources.len() > files, "the big file is split");
    let options = Options {
        named: Vec::new(),
        show_values: true,
    };
    let workload = crate::workload::read_bytes("none.log", b"", Default::default());
    let (keys, errors) = analyze(&report, &workload, &inputs, &options);
    let expected = all_at_once(&report, &inputs, &options);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    let each: Vec<String> = keys
        .shard_keys
        .iter()
        .map(|k| serde_json::to_string(k).unwrap())
        .collect();
    assert_eq!(each, expected);
    assert_eq!(
        keys.shard_keys
            .iter()
            .map(|k| k.namespace.as_str())
            .collect::<Vec<_>>(),
        ["shop.orders", "shop.small", "arch.a", "arch.b"]
    );
    // Every document counted, in each collection.
    let totals: Vec<u64> = keys
        .shard_keys
        .iter()
        .map(|k| {
            k.candidates[0]
                .key_characteristics
                .as_ref()
                .unwrap()
                .num_docs_total
        })
        .collect();
    assert_eq!(totals, [9_000, 300, 450, 450]);
}
