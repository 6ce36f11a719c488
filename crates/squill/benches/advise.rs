//! `cargo bench -p squill --bench advise`: advise on every example model and on
//! a generated model of 200 entities, 300 relationships and 1,000 operations.

use squill::advise::advise;
use squill::settings::Settings;
use std::path::PathBuf;

fn main() {
    divan::main();
}

fn examples() -> Vec<(String, squill::model::Model)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "yaml"));
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let name = p.file_stem()?.to_string_lossy().to_string();
            squill::inputs::model_file::load(&p).ok().map(|m| (name, m))
        })
        .collect()
}

const EXAMPLES: &[&str] = &[
    "auction-catalog",
    "blog-comments-embed",
    "blog-comments-link",
    "blog-comments-pages",
    "books-authors",
    "books-categories",
    "host-ip-in-logs",
    "host-last-1000",
    "host-logs",
    "notifications",
    "order-customer",
    "page-views",
    "parts-name-denormalized",
    "person-addresses",
    "person-tasks",
    "product-name-in-parts",
    "product-parts",
    "product-reviews",
    "rubis",
    "sensor-readings",
    "user-address",
];

#[divan::bench(args = EXAMPLES, sample_count = 10)]
fn example(bencher: divan::Bencher, name: &str) {
    let models = examples();
    let Some((_, model)) = models.into_iter().find(|(n, _)| n == name) else {
        return;
    };
    let settings = Settings::default();
    bencher.bench(|| {
        for mix in &model.workload.mixes {
            divan::black_box(advise(&model, &settings, Some(&mix.name)).unwrap());
        }
    });
}

#[divan::bench(sample_count = 3)]
fn generated_200_300_1000(bencher: divan::Bencher) {
    let model = squill::model::synthetic::model(200, 300, 1_000, 7);
    let settings = Settings::default();
    bencher.bench(|| divan::black_box(advise(&model, &settings, None).unwrap()));
}
