//! `location-as-two-numbers`: A place kept as two numbers (latitude and
//! longitude) and searched by two ranges walks a strip, not the box.

crate::rules::declare_rule! {
    id: "location-as-two-numbers",
    summary: "A place searched as two numeric ranges (latitude, longitude) walks a whole strip of the B-tree and has no distance order: store a GeoJSON point with a 2dsphere index",
    kind: Design,
    severity: Warning,
    sources: ["MongoDB manual: 2dsphere Indexes", "MongoDB manual: Geospatial Queries"],
    check: Design(check),
}

use crate::finding::{Evidence, Finding};
use crate::model::{EntityId, FieldType, Filter, FilterOp, OperationKind};
use crate::rules::judge::DesignCheck;
use crate::words;

/// Names that say a number is a latitude, or a longitude. A field is
/// one of them when its name is the word, or ends with it after `_`
/// (`pickup_lat`, `home_longitude`), in any case.
const LATITUDE: [&str; 2] = ["lat", "latitude"];
const LONGITUDE: [&str; 4] = ["lng", "lon", "long", "longitude"];

/// A range keeps a quarter of the instances when the model does not
/// say, as everywhere in the planner.
const DEFAULT_RANGE_SHARE: f64 = 0.25;

fn named(name: &str, words_: &[&str]) -> bool {
    let lower = name.to_ascii_lowercase();
    let tail = lower.rsplit('_').next().unwrap_or(&lower);
    words_.contains(&tail)
}

/// A range on a numeric field of the entity itself whose name is one of
/// `words_`: the field's name and the share the range keeps.
fn range_on<'f>(
    cx: &DesignCheck<'_>,
    entity: EntityId,
    filter: &'f [Filter],
    words_: &[&str],
) -> Option<(&'f str, f64)> {
    filter.iter().find_map(|c| {
        let [name] = c.path.as_slice() else {
            return None;
        };
        let field = cx.facts.model.entity(entity).field(name)?;
        let numeric = matches!(
            field.ty,
            FieldType::Double | FieldType::Decimal | FieldType::Int | FieldType::Long
        );
        (c.op == FilterOp::Range && c.related.is_none() && numeric && named(name, words_))
            .then(|| (name.as_str(), c.selectivity.unwrap_or(DEFAULT_RANGE_SHARE)))
    })
}

/// Every read that finds instances by a range on a latitude and one on a
/// longitude of the same entity.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    for op in &model.workload.operations {
        let OperationKind::Read { entity, filter, .. } = &op.kind else {
            continue;
        };
        let (Some((lat, lat_share)), Some((lng, lng_share))) = (
            range_on(cx, *entity, filter, &LATITUDE),
            range_on(cx, *entity, filter, &LONGITUDE),
        ) else {
            continue;
        };
        let count = model.entity(*entity).count as f64;
        // An index on (latitude, longitude): the first range bounds the
        // walk, a strip around the Earth; the second is tested on each key.
        let strip = (count * lat_share).max(1.0);
        let in_box = (count * lat_share * lng_share).max(1.0);
        let name = &model.entity(*entity).name;
        out.push(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{} finds {} by two numeric ranges, {lat} and {lng}: an index on them walks the {} keys of the {lat} strip to return the {} in the box, and cannot order them by distance",
                op.name,
                words::plural(name),
                words::num(strip),
                words::num(in_box),
            ),
            location: DesignCheck::at(format!("operations.{}", op.name)),
            evidence: vec![
                Evidence::new("latitude", lat),
                Evidence::new("longitude", lng),
                Evidence::new("keys_walked", strip),
                Evidence::new("documents_in_box", in_box),
            ],
            help: Some(format!(
                "store the place as a GeoJSON point (`type: point`) with the {} `density:`, and search it with `near(radius)` or `within(area)`: a 2dsphere index walks only the cells around the place, nearest first",
                words::singular(name)
            )),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::example;
    use crate::settings::Settings;

    const TWO_NUMBERS: &str = r"
entities:
  shop:
    count: 1000000
    fields:
      name: string(20)
      lat: double
      lng: double
operations:
  nearby:
    read: shop
    rate: 100
    filter: {lat: range(0.001), lng: range(0.002)}
";

    fn findings(yaml: &str) -> Vec<crate::finding::Finding> {
        let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        })
    }

    fn evidence(f: &crate::finding::Finding, name: &str) -> serde_json::Value {
        f.evidence
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.value.clone())
            .unwrap_or_else(|| panic!("no {name}"))
    }

    #[test]
    fn fires_on_a_latitude_and_a_longitude_range() {
        let f = findings(TWO_NUMBERS);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, RULE.id);
        assert_eq!(evidence(&f[0], "latitude"), "lat");
        assert_eq!(evidence(&f[0], "longitude"), "lng");
        // 1,000,000 × 0.001 keys in the strip, × 0.002 of them in the box.
        assert_eq!(evidence(&f[0], "keys_walked"), 1000.0);
        assert_eq!(evidence(&f[0], "documents_in_box"), 2.0);
        insta::assert_snapshot!(f[0].message, @"nearby finds shops by two numeric ranges, lat and lng: an index on them walks the 1,000 keys of the lat strip to return the 2 in the box, and cannot order them by distance");
    }

    /// Prefixed names, in any case, are latitudes and longitudes too.
    #[test]
    fn fires_on_prefixed_names() {
        let yaml = TWO_NUMBERS
            .replace("lat:", "pickup_Lat:")
            .replace("lng:", "pickup_longitude:");
        assert_eq!(findings(&yaml).len(), 1);
    }

    /// The same read with one range on a longitude and one on another
    /// number is not a place: quiet.
    #[test]
    fn stays_quiet_when_one_range_is_not_a_coordinate() {
        let yaml = TWO_NUMBERS.replace("lat:", "rating:").replace("{lat:", "{rating:");
        assert!(findings(&yaml).is_empty());
        // And two coordinates tested for equality (a stored spot) are no box.
        let yaml = TWO_NUMBERS.replace("range(0.001)", "eq").replace("range(0.002)", "eq");
        assert!(findings(&yaml).is_empty());
    }

    #[test]
    fn stays_quiet_on_a_geojson_point_and_on_the_examples() {
        assert!(findings(&example("scenarios/s15-restaurants.yaml")).is_empty());
        assert!(findings(&example("rubis.yaml")).is_empty());
    }
}
