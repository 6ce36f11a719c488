//! Synthetic places in arrays (issue 41): a chain whose instances hold
//! several locations (`point[3]`) gets valid GeoJSON Points in every
//! element, as its validator and its multikey `2dsphere` index require;
//! before, each element was written as a generic sub-document.

use super::documents::{Builder, Fanout};
use super::*;
use crate::catalog::schema;

const CHAIN: &str = "name: chain
entities:
  chain:
    count: 200
    density: {typical: 5, max: 80}
    fields:
      name: string(20)
      locations: point[3]
operations:
  nearby:
    read: chain
    rate: 100
    filter: {locations: near(2 km)}
    limit: 10
";

#[test]
fn every_element_of_an_array_of_points_is_a_valid_point() {
    let model = crate::inputs::model_file::parse("chain.yaml", CHAIN).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    let pop = Population::new(&model, &design, 10, 7);
    let b = Builder::new(&pop, Fanout::Drawn);
    let c = &design.collections[0];
    let v = schema::validator(c);
    let mut elements = 0;
    pop.for_each_root(c, |root| -> Result<(), ()> {
        let doc = b.document(c, &root);
        if let Err(e) = check::check(&v, &doc) {
            panic!("{e}\n{}", doc.to_ejson_pretty());
        }
        let json = doc.to_ejson_pretty();
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        for p in parsed["locations"].as_array().expect("an array") {
            assert_eq!(p["type"], "Point", "{json}");
            let at = p["coordinates"].as_array().expect("coordinates");
            let lng = at[0]
                .as_f64()
                .or_else(|| at[0]["$numberDouble"].as_str()?.parse().ok());
            assert!(lng.is_some_and(|x| (-180.0..=180.0).contains(&x)), "{json}");
            elements += 1;
        }
        Ok(())
    })
    .unwrap();
    assert!(elements > 0);
}
