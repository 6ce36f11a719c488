//! The estimates against collections of known truth, held in memory by a
//! fake server that answers the scan's questions as the real one would (the
//! integration tests ask SecantusDB the same). Samples are drawn with a
//! seeded generator, so each test is one fixed draw.

use super::super::testing::{B, Coll, coll, doc, index, scan};
use super::*;
use crate::inputs::sampled::RefValue;
use crate::scan::estimate::{EstimateNote, FanOutMethod};

/// xorshift64*: a fixed draw per seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Children per parent, Zipf-distributed (s = 1) with at least one each,
/// summing to `children`.
fn zipf_counts(parents: usize, children: u64) -> Vec<u64> {
    let weights: Vec<f64> = (1..=parents).map(|r| 1.0 / r as f64).collect();
    let total: f64 = weights.iter().sum();
    let spare = children - parents as u64;
    let mut counts: Vec<u64> = weights
        .iter()
        .map(|w| 1 + (w / total * spare as f64).floor() as u64)
        .collect();
    let mut short = children - counts.iter().sum::<u64>();
    let mut i = 0;
    while short > 0 {
        counts[i % parents] += 1;
        short -= 1;
        i += 1;
    }
    counts
}

/// Orders' `_id`s start here: no customer id is one.
const ORDER_IDS: i64 = 1_000_000_000;

/// The whole of two collections, and the server that holds them.
struct Fixture {
    customers: Vec<Vec<u8>>,
    orders: Vec<Vec<u8>>,
    /// customer_id of each order.
    refs: Vec<i64>,
}

/// 2,000 customers; 20,000 orders, Zipf per customer; `dangling` of every
/// thousand orders point at no customer; `rare` of every thousand carry a
/// `coupon` field.
fn fixture(dangling: u64, rare: u64, seed: u64) -> Fixture {
    let mut rng = Rng(seed);
    let counts = zipf_counts(2_000, 20_000);
    let mut refs: Vec<i64> = counts
        .iter()
        .enumerate()
        .flat_map(|(c, &n)| std::iter::repeat_n(c as i64, n as usize))
        .collect();
    // Shuffle, then point the first `dangling` ‰ nowhere.
    for i in (1..refs.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        refs.swap(i, j);
    }
    let lost = refs.len() * dangling as usize / 1000;
    for r in refs.iter_mut().take(lost) {
        *r += 1_000_000;
    }
    let customers = (0..2_000).map(|i| doc(&[("_id", B::I32(i))])).collect();
    let orders = refs
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let mut fields = vec![
                ("_id", B::I64(ORDER_IDS + i as i64)),
                ("customer_id", B::F64(c as f64)),
            ];
            if (i as u64 * 7919) % 1000 < rare {
                fields.push(("coupon", B::Str("WELCOME")));
            }
            doc(&fields)
        })
        .collect();
    Fixture {
        customers,
        orders,
        refs,
    }
}

/// Answers from the whole collections.
struct Fake<'a> {
    fixture: &'a Fixture,
    asked: Vec<&'static str>,
}

impl Lookup for Fake<'_> {
    fn existing(
        &mut self,
        _: &str,
        coll: &str,
        key: &str,
        values: &[RefValue],
    ) -> Result<Vec<RefValue>, String> {
        self.asked.push("find");
        assert_eq!(key, "_id");
        let ids = match coll {
            "customers" => 0..2_000,
            _ => ORDER_IDS..ORDER_IDS + self.fixture.refs.len() as i64,
        };
        Ok(values
            .iter()
            .filter(|v| matches!(v, RefValue::Int(i) if ids.contains(i)))
            .cloned()
            .collect())
    }

    fn count(&mut self, _: &str, coll: &str, field: &str, value: &RefValue) -> Result<u64, String> {
        self.asked.push("count");
        assert_eq!((coll, field), ("orders", "customer_id"));
        let RefValue::Int(id) = value else {
            return Ok(0);
        };
        Ok(self.fixture.refs.iter().filter(|r| *r == id).count() as u64)
    }
}

/// A share `p` of each collection drawn at random (without repeats).
fn draw(docs: &[Vec<u8>], p: f64, rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut idx: Vec<usize> = (0..docs.len()).collect();
    for i in (1..idx.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        idx.swap(i, j);
    }
    let n = (docs.len() as f64 * p).ceil() as usize;
    idx[..n].iter().map(|&i| docs[i].clone()).collect()
}

/// Scans a `share` sample of the fixture and estimates it, as a live scan does.
fn sampled_scan(
    f: &Fixture,
    share: f64,
    indexed: bool,
    seed: u64,
) -> (ScanReport, Vec<&'static str>) {
    let mut rng = Rng(seed);
    let customers = draw(&f.customers, share, &mut rng);
    let orders = draw(&f.orders, share, &mut rng);
    let keep = |docs: &[Vec<u8>]| {
        let mut k = KeptValues::default();
        for d in docs.iter().take(2_000) {
            k.add(d);
        }
        k
    };
    let (kc, ko) = (keep(&customers), keep(&orders));
    let mut orders_coll: Coll = coll("shop", "orders", orders);
    let mut customers_coll = coll("shop", "customers", customers);
    customers_coll.indexes = Some(vec![index("_id_", &[("_id", 1)])]);
    orders_coll.indexes = Some(if indexed {
        vec![
            index("_id_", &[("_id", 1)]),
            index("customer_id_1", &[("customer_id", 1)]),
        ]
    } else {
        vec![index("_id_", &[("_id", 1)])]
    });
    let settings = Settings::default();
    let mut report = scan(vec![customers_coll, orders_coll], &settings);
    for c in &mut report.collections {
        c.sampled_from = Some(if c.name == "orders" { 20_000 } else { 2_000 });
    }
    let colls = [
        SampledCollection {
            database: "shop",
            collection: "customers",
            estimated: 2_000,
            kept: &kc,
        },
        SampledCollection {
            database: "shop",
            collection: "orders",
            estimated: 20_000,
            kept: &ko,
        },
    ];
    let mut fake = Fake {
        fixture: f,
        asked: Vec::new(),
    };
    estimate(&mut report, &colls, &mut fake, &settings, Budget::default());
    (report, fake.asked)
}

fn orders_rel(r: &ScanReport) -> &crate::scan::report::RelationshipReport {
    r.relationships
        .iter()
        .find(|r| r.field == "customer_id")
        .unwrap_or_else(|| panic!("no relationship: {:#?}", r.relationships))
}

/// Issue 46: half the orders were reported dangling and the typical
/// fan-out 0, from a sample matched to a sample.
#[test]
fn issue_46_a_sampled_reference_is_checked_against_the_whole_collection() {
    let f = fixture(0, 30, 1);
    let (r, asked) = sampled_scan(&f, 0.05, true, 2);
    let rel = orders_rel(&r);
    let e = rel.estimate.as_ref().expect("an estimate");
    let dangling = e.dangling.expect("looked up");
    assert_eq!(dangling.share, 0.0, "{e:?}");
    assert_eq!(e.fan_out_method, FanOutMethod::ParentSampleCounts);
    assert!((e.typical - 10.0).abs() <= 2.0, "{e:?}");
    assert!(
        asked.contains(&"count") && asked.contains(&"find"),
        "{asked:?}"
    );
    // The emitted model's typical child count is the collection's.
    let model = crate::scan::emit_model::model(&r, "shop");
    let orders = &model.relationships[0];
    assert!(
        (8..=12).contains(&orders.children.typical),
        "{:?}",
        orders.children
    );
    let description = orders.description.as_deref().unwrap_or_default();
    assert!(
        description.contains("parent-sample-counts"),
        "{description}"
    );
}

#[test]
fn ten_percent_dangling_is_reported_within_three_points() {
    let f = fixture(100, 30, 3);
    let (r, _) = sampled_scan(&f, 0.05, true, 4);
    let e = orders_rel(&r).estimate.clone().expect("an estimate");
    let d = e.dangling.expect("looked up");
    assert!((d.share - 0.10).abs() <= 0.03, "{d:?}");
    assert!(d.low <= 0.10 && 0.10 <= d.high, "{d:?}");
    // 18,000 orders of live customers over 2,000 customers.
    assert!((e.typical - 9.0).abs() <= 1.8, "{e:?}");
}

#[test]
fn a_rare_field_share_is_inside_its_interval() {
    let f = fixture(0, 30, 5);
    let truth = f.orders.len() as f64 * 0.03;
    let (r, _) = sampled_scan(&f, 0.05, true, 6);
    let orders = r.collections.iter().find(|c| c.name == "orders").unwrap();
    let coupon = orders.fields.iter().find(|f| f.path == "coupon").unwrap();
    let [low, high] = coupon.presence_interval.expect("an interval");
    let share = truth / 20_000.0;
    assert!(low <= share && share <= high, "{low}–{high} vs {share}");
    assert!(high - low < 0.05, "{low}–{high}");
}

/// Without an index on the reference, no parent's children are counted: the
/// child sample's counts, corrected for the parents it missed.
#[test]
fn without_an_index_the_child_sample_is_corrected_for_zeros() {
    let f = fixture(0, 30, 7);
    let (r, asked) = sampled_scan(&f, 0.05, false, 8);
    let e = orders_rel(&r).estimate.clone().expect("an estimate");
    assert_eq!(e.fan_out_method, FanOutMethod::ChildSample);
    assert!(!asked.contains(&"count"), "{asked:?}");
    assert!(e.notes.contains(&EstimateNote::NoIndexOnReference), "{e:?}");
    assert!(e.percentiles.is_empty());
    // Chao1 is a lower bound on the parents: the typical errs high, not to 0.
    assert!(e.typical >= 9.0 && e.typical <= 30.0, "{e:?}");
}

/// Percentiles carry their interval, or a note where the sample of parents
/// is too small for them.
#[test]
fn percentiles_come_with_intervals_or_a_note() {
    let f = fixture(0, 30, 9);
    let (r, _) = sampled_scan(&f, 0.05, true, 10);
    let e = orders_rel(&r).estimate.clone().expect("an estimate");
    let p50 = e
        .percentiles
        .iter()
        .find(|p| p.p == 0.5)
        .expect("a median of 100 parents");
    assert!(p50.low <= p50.value && p50.value <= p50.high, "{p50:?}");
    assert!(
        e.notes
            .iter()
            .any(|n| matches!(n, EstimateNote::PercentileUnsupported { p, .. } if *p == 0.99)),
        "{e:?}"
    );
}
