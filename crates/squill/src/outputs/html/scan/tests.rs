//! The scan page of a small input: its sections, one diagram box per
//! collection, the charts, and a snapshot of the page's body.

use crate::scan::testing::{B, coll, doc, index, oid, scan};
use crate::settings::Settings;

fn report() -> crate::scan::ScanReport {
    let tags: Vec<B> = (0..300).map(|_| B::Str("t")).collect();
    let products = (0..4u64)
        .map(|i| {
            let list = if i == 3 {
                tags.clone()
            } else {
                vec![B::Str("a"); i as usize + 1]
            };
            doc(&[
                ("_id", B::Oid(oid(i))),
                ("name", B::Str("lamp")),
                ("tags", B::Arr(list)),
            ])
        })
        .collect();
    let reviews = (0..6u64)
        .map(|i| {
            doc(&[
                ("_id", B::I32(i as i32)),
                ("product_id", B::Oid(oid(i % 2))),
                ("stars", if i == 0 { B::Str("4") } else { B::I32(4) }),
            ])
        })
        .collect();
    let mut products = coll("shop", "products", products);
    products.indexes = Some(vec![index("_id_", &[("_id", 1)])]);
    let settings = Settings::default();
    let mut report = scan(vec![products, coll("shop", "reviews", reviews)], &settings);
    crate::rules::data::apply(&mut report, &settings);
    report
}

#[test]
fn every_section_and_one_box_per_collection() {
    let report = report();
    let html = super::render(&report);
    for id in [
        "summary",
        "diagram",
        "collections",
        "findings",
        "rules",
        "notes",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
    }
    assert_eq!(
        html.matches("data-collection=").count(),
        report.collections.len()
    );
    // The reference is an arrow and a spread of its fan-out.
    assert!(html.contains("class=\"edge\""), "{html}");
    assert!(html.contains("children per parent"), "{html}");
    // Each collection's size histogram, with its marks.
    assert_eq!(html.matches("<figcaption>Document sizes").count(), 2);
    assert!(html.contains("class=\"mark p95\""));
    // A finding links to its rule's docs on the page.
    let rule = report.findings.first().expect("a finding").rule;
    assert!(html.contains(&format!("href=\"#rule-{rule}\"")));
    assert!(html.contains(&format!("id=\"rule-{rule}\"")));
}

#[test]
fn page_body() {
    let html = super::render(&report());
    // The body up to the rules' docs (their text has tests of its own).
    let start = html.find("<main>").unwrap();
    let end = html.find("<section id=\"rules\">").unwrap();
    insta::assert_snapshot!(&html[start..end]);
}
