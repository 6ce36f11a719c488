use super::builder::*;
use crate::advise::advise;
use crate::settings::Settings;

#[test]
fn person_addresses_smoke() {
    let mut b = B::new("person-addresses");
    let person = b.entity("person", 100_000, vec![s("name", 20), s("ssn", 11)]);
    let address = b.entity(
        "address",
        200_000,
        vec![s("street", 30), s("city", 12), s("country", 10)],
    );
    let r = b.one_to_many("addresses", person, address, card(0, 2, Some(5)), false);
    b.read(
        "view_person",
        100.0,
        person,
        vec![eq("_id")],
        vec![inc(r, true, &[])],
    );
    b.insert("add_person", 1.0, person, vec![]);
    b.insert("add_address", 1.0, address, vec![r]);
    let d = advise(&b.build(), &Settings::default(), None).unwrap();
    println!("{}", serde_json::to_string_pretty(&d).unwrap());
}
