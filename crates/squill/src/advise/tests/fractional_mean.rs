//! Audit48 C7: a `typical` that is a mean may be a fraction (0.2 deals per
//! contact), and the typical document holds that mean of its children.

use crate::advise::advise;
use crate::settings::Settings;

const CRM: &str = r"
entities:
  contact:
    count: 1000000
    fields: {name: string(40)}
  deal:
    count: 200000
    fields: {title: string(60), amount: decimal}
relationships:
  deals:
    parent: contact
    child: deal
    children: {min: 0, typical: TYPICAL, max: 20}
    child_field: contact
    layout: embed
operations:
  contact_with_deals:
    read: contact
    filter: {_id: eq}
    rate: 100
";

fn typical_bytes(typical: &str) -> f64 {
    let m = crate::inputs::model_file::parse("m.yaml", &CRM.replace("TYPICAL", typical))
        .expect("a valid model");
    let d = advise(&m, &Settings::default(), None).expect("a design");
    let c = d
        .collections
        .iter()
        .find(|c| c.name == "contact")
        .expect("contacts");
    c.size.typical_bytes as f64
}

/// A deal adds its bytes to a contact's typical document once per deal:
/// at a mean of 0.2, a fifth of them, not a whole deal.
#[test]
fn the_typical_document_holds_the_mean() {
    let (one, two) = (typical_bytes("1"), typical_bytes("2"));
    let deal = two - one;
    assert!(deal > 50.0, "{deal}");
    let fifth = typical_bytes("0.2");
    assert!(
        (one - fifth - 0.8 * deal).abs() <= 2.0,
        "0.2 deals: {fifth} B; 1 deal: {one} B; a deal: {deal} B"
    );
}
