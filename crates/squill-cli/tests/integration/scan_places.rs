//! Places measured from data (issue 41): a dump of restaurants with
//! GeoJSON points (tests/fixtures/places, written by its `make.py` with
//! the density known by construction) and a log of `$near` reads. scan
//! states the points' density in the model it writes, so advise prices
//! the near read instead of refusing the model for want of `density:`.

use crate::support::{TempDir, Test, repo_root};
use serde_json::Value;

fn fixture() -> std::path::PathBuf {
    repo_root().join("crates/squill-cli/tests/fixtures/places")
}

/// A 0.05° cell's area at latitude 48.80–48.85, km², as the construction
/// (make.py) counts its points in it.
fn paris_cell_km2() -> f64 {
    let r: f64 = 6_371.008_8;
    let (s, n) = (48.8_f64.to_radians(), 48.85_f64.to_radians());
    r * r * 0.05_f64.to_radians() * (n.sin() - s.sin())
}

/// The two numbers of the model's `density: {typical: A, max: B}` line.
fn density(model: &str) -> (f64, f64) {
    let line = model
        .lines()
        .find(|l| l.trim_start().starts_with("density:"))
        .unwrap_or_else(|| panic!("no density in\n{model}"));
    let number = |key: &str| -> f64 {
        let rest = line.split(key).nth(1).unwrap_or_else(|| panic!("{line}"));
        rest.trim_start_matches([' ', ':'])
            .split([',', '}'])
            .next()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{line}"))
    };
    (number("typical"), number("max"))
}

/// `squill scan ARGS… --emit-model DIR/observed.yaml`, and the model it wrote.
fn emitted_model(dir: &TempDir, args: &[std::ffi::OsString]) -> String {
    let model = dir.path().join("observed.yaml");
    Test::new()
        .args(["scan"])
        .args(args)
        .args(["--emit-model"])
        .args([&model])
        .stdout_any()
        .stderr_any()
        .check();
    std::fs::read_to_string(&model).unwrap()
}

#[test]
fn scan_measures_point_density_and_advise_prices_the_near_read() {
    let dir = TempDir::new("scan-places");
    let text = emitted_model(
        &dir,
        &[
            fixture().join("dump").into(),
            "--workload".into(),
            fixture().join("mongod.log").into(),
        ],
    );
    assert!(text.contains("location: point"), "{text}");
    assert!(
        text.contains("near("),
        "the log's $near is a near read: {text}"
    );
    // 20 points in the densest cell; the median point alone in its cell.
    let (typical, max) = density(&text);
    let cell = paris_cell_km2();
    assert!((max - 20.0 / cell).abs() <= max * 1e-3, "max {max}");
    assert!(
        (typical - 1.0 / cell).abs() <= typical * 1e-3,
        "typical {typical}"
    );
    assert!(
        text.contains("density measured from the 50 points of `location`"),
        "the figure says where it comes from: {text}"
    );
    // The text report states the figures the model's `density:` is from.
    let report = Test::new()
        .args(["scan"])
        .args([fixture().join("dump")])
        .stdout_any()
        .check()
        .stdout;
    assert!(
        report.contains("; 50 GeoJSON points, ") && report.contains(" in the densest 0.05° cell"),
        "{report}"
    );
    let json = Test::new()
        .args(["advise"])
        .args([dir.path().join("observed.yaml")])
        .args(["--format", "json"])
        .stdout_any()
        .check()
        .stdout;
    let advice: Value = serde_json::from_str(&json).unwrap();
    let indexes = advice.to_string();
    assert!(
        indexes.contains("2dsphere"),
        "a 2dsphere index serves the near read"
    );
    // The share of searches the densest cell weighs, measured beside the
    // density, is the one the near read's price gives its densest case.
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("density:"))
        .unwrap();
    let share: f64 = line
        .split("densest_share:")
        .nth(1)
        .and_then(|r| r.trim().trim_end_matches('}').trim().parse().ok())
        .unwrap_or_else(|| panic!("a densest_share in {line}"));
    assert!(share > 0.0 && share <= 1.0, "{line}");
    let priced: Vec<f64> = advice["operations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|op| op["steps"].as_array().unwrap())
        .filter_map(|s| s["densest"]["share"].as_f64())
        .collect();
    assert_eq!(priced, vec![share], "{json}");
}

/// The lines of entity `name` in an emitted model (its key at two spaces,
/// up to the next key there).
fn entity<'m>(model: &'m str, name: &str) -> Vec<&'m str> {
    let head = format!("  {name}:");
    model
        .lines()
        .skip_while(|l| *l != head)
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with("    "))
        .map(|(_, l)| l)
        .collect()
}

/// Legacy `[longitude, latitude]` pairs (tests/fixtures/places/legacy,
/// the restaurants' positions as pairs) are places where an index of the
/// metadata says so, and scan measures their density as it does
/// GeoJSON points': after an equality key of a `2dsphere` index (shops),
/// under a `2d` index whose every pair is in range (stalls). A `2d` index
/// with one pair out of range (boards) is a plane, and pairs without an
/// index (sizes) two numbers: no point and no density for either.
#[test]
fn scan_measures_the_density_of_legacy_pairs_under_a_place_index() {
    let dir = TempDir::new("scan-legacy-pairs");
    let text = emitted_model(&dir, &[fixture().join("legacy").into()]);
    let cell = paris_cell_km2();
    for (name, field) in [("shops", "at"), ("stalls", "pos")] {
        let lines = entity(&text, name).join("\n");
        assert!(
            lines.contains(&format!("      {field}: {{type: point,")),
            "{name}: {lines}"
        );
        let (typical, max) = density(&lines);
        assert!((max - 20.0 / cell).abs() <= max * 1e-3, "{name}: max {max}");
        assert!(
            (typical - 1.0 / cell).abs() <= typical * 1e-3,
            "{name}: typical {typical}"
        );
        assert!(
            lines.contains(&format!("density measured from the 50 points of `{field}`")),
            "{name}: {lines}"
        );
    }
    for (name, field) in [("boards", "pos"), ("sizes", "dims")] {
        let lines = entity(&text, name).join("\n");
        assert!(
            lines.contains(&format!("      {field}: double[2]")),
            "{name}: {lines}"
        );
        assert!(!lines.contains("density"), "{name}: {lines}");
    }
}

/// The operation of `model` whose filter line is `filter`, as its lines.
fn operation_with<'m>(model: &'m str, filter: &str) -> Vec<&'m str> {
    let lines: Vec<&str> = model.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == filter)
        .unwrap_or_else(|| panic!("no operation with {filter} in\n{model}"));
    let start = lines[..at]
        .iter()
        .rposition(|l| l.starts_with("  ") && !l.starts_with("    "))
        .unwrap();
    lines[start..]
        .iter()
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with("    "))
        .map(|(_, l)| *l)
        .collect()
}

/// Issue 41: the radius and the limit of a geo read are read from the
/// log (tests/fixtures/places/radii.log), where they were assumed (1 km,
/// 20) whatever it said. A GeoJSON `$near`'s `$maxDistance` is metres; a
/// `$centerSphere`'s radius and a `$geoNear`'s `maxDistance` from a
/// legacy pair are radians (of 6378.1 km); an aggregation's `$limit` is
/// its limit. Only a `$near` without a radius keeps the assumed one.
#[test]
fn scan_reads_the_radius_and_the_limit_of_geo_reads_from_the_log() {
    let dir = TempDir::new("scan-geo-radii");
    let text = emitted_model(
        &dir,
        &[
            fixture().join("dump").into(),
            "--workload".into(),
            fixture().join("radii.log").into(),
        ],
    );
    let near = operation_with(&text, "filter: {location: near(3 km), open: eq}").join("\n");
    assert!(near.contains("    limit: 20  # the logs' limit"), "{near}");
    assert!(!near.contains("assumed"), "{near}");
    // 0.0002 × 6,378,100 m = 1275.62 m.
    let within = operation_with(&text, "filter: {location: within(1.276 km)}").join("\n");
    assert!(!within.contains("assumed"), "{within}");
    // 0.0001 × 6,378,100 m = 637.81 m, and the `$limit` stage's 5.
    let stage = operation_with(&text, "filter: {location: near(638 m), open: eq}").join("\n");
    assert!(stage.contains("    limit: 5  # the logs' limit"), "{stage}");
    let unbounded = operation_with(&text, "filter: {location: near(1 km), name: eq}").join("\n");
    assert!(
        unbounded.contains("# assumed: a search within 1 km"),
        "{unbounded}"
    );
    assert_eq!(text.matches("assumed").count(), 1, "{text}");
}

/// Issue 41: a `$geoWithin` by a shape (tests/fixtures/places/shapes.log)
/// searches the shape's area, which the log's corners give, where it was
/// priced as a circle of an assumed 1 km. A `$box` of 0.04° by 0.03° at
/// 48.8° north is 9.77 km²; a `$polygon` half its size in the same shape
/// leaves the larger; a `$geometry` triangle is 4.885 km².
#[test]
fn scan_reads_the_area_of_a_box_or_a_polygon_from_the_log() {
    let dir = TempDir::new("scan-geo-shapes");
    let text = emitted_model(
        &dir,
        &[
            fixture().join("dump").into(),
            "--workload".into(),
            fixture().join("shapes.log").into(),
        ],
    );
    let boxed = operation_with(&text, "filter: {location: within(9.77 km2), open: eq}").join("\n");
    assert!(
        boxed.contains("# the area the logs show: 9.77 km2"),
        "{boxed}"
    );
    let triangle =
        operation_with(&text, "filter: {location: within(4.885 km2), name: eq}").join("\n");
    assert!(triangle.contains("# the area the logs show"), "{triangle}");
    assert!(!text.contains("assumed"), "{text}");
}
