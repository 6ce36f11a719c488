//! What `generate data` will write, worked out before it starts: documents
//! and bytes per collection, from the expected number of instances of each
//! entity at the scale asked (no instance drawn) and the size of the first
//! documents built at a small scale. Fast whatever the scale, so a run that would fill the disk
//! or run for days is refused or announced before it begins.

use super::documents::{Builder, Fanout};
use super::encode_runs::RunEncoder;
use super::options::DataOptions;
use super::population::{Population, draw, is_shared, owners};
use super::values::Scratch;
use crate::design::{Collection, Design};
use crate::model::{Cardinality, EntityId, Model, RelationshipId};

/// The expected output of one collection.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionEstimate {
    pub name: String,
    pub documents: u64,
    /// Extended JSON and BSON, as the format asks (0 for the one not written).
    pub bytes: u64,
}

/// The expected output of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Estimate {
    pub collections: Vec<CollectionEstimate>,
}

impl Estimate {
    pub fn documents(&self) -> u64 {
        self.collections.iter().map(|c| c.documents).sum()
    }
    pub fn bytes(&self) -> u64 {
        self.collections.iter().map(|c| c.bytes).sum()
    }
}

/// Scale of the sample the sizes are measured on: the first documents of a
/// run at this scale are the first documents of the run asked for.
const SAMPLE_SCALE: u64 = 20;
/// Documents measured per collection, and the bytes that stop it sooner.
const SAMPLE_DOCUMENTS: u64 = 400;
const SAMPLE_BYTES: usize = 32 << 20;

/// Instances of one entity past which a run is refused before it starts:
/// numbering them alone would take minutes (a chain of one-to-manys
/// multiplies at every level: 5 children over 19 levels is 2e13), and no
/// disk would hold their documents.
pub const MAX_INSTANCES: f64 = 4_294_967_296.0;

/// The entity a run at `scale`, children cut at `max_children`, would
/// number the most instances of, and how many, when that passes
/// `MAX_INSTANCES`.
pub fn too_many(model: &Model, scale: u64, max_children: Option<u64>) -> Option<(String, f64)> {
    let counts = expected_counts(model, scale as f64, max_children);
    let (e, n) = counts
        .iter()
        .copied()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    (n > MAX_INSTANCES).then(|| (model.entities[e].name.clone(), n))
}

/// The estimate for `options` (scale, cap on children, format): the
/// documents from the expected counts, their bytes from documents built
/// at a small scale and measured, in the formats asked.
pub fn estimate(model: &Model, design: &Design, options: &DataOptions) -> Estimate {
    let counts = expected_counts(model, options.scale as f64, options.max_children);
    // A shared relationship's parents draw their children's ids from all
    // the children: the sample needs as many children as a parent lists, or
    // the ids wrap and the arrays come out short.
    let shared = model
        .relationships
        .iter()
        .filter(|r| super::population::is_shared(r))
        .map(|r| {
            let n = r.children.typical.max(1);
            options.max_children.map_or(n, |cap| n.min(cap.max(1)))
        })
        .max()
        .unwrap_or(0)
        // Beyond this the sample costs more than the estimate is worth.
        .min(10_000);
    let sample = Population::with_max_children(
        model,
        design,
        options.scale.min(SAMPLE_SCALE.max(shared)),
        options.seed,
        options.max_children,
    );
    let (json, bson) = (options.format.ejson(), options.format.dump());
    let collections = design
        .collections
        .iter()
        .map(|c| {
            // The sample's documents, scaled by how many more instances
            // its entities will have (buckets follow their children).
            let (mut in_sample, mut at_scale) = (0.0, 0.0);
            for e in sample.root_entities(c) {
                in_sample += sample.count(e) as f64;
                at_scale += counts[e.index()];
            }
            let measured = measure(&sample, c, (json, bson));
            let documents = if in_sample > 0.0 {
                measured.documents as f64 * at_scale / in_sample
            } else {
                at_scale
            };
            let per_document = match measured.bytes_per_document {
                Some(bytes) => bytes,
                // No document at the sample's scale (children that most
                // parents lack): the design's size, twice for the JSON.
                None => {
                    c.size.typical_bytes as f64
                        * (f64::from(u8::from(json)) * 2.0 + f64::from(u8::from(bson)))
                }
            };
            CollectionEstimate {
                name: c.name.clone(),
                documents: saturating(documents),
                bytes: saturating(documents * per_document),
            }
        })
        .collect();
    Estimate { collections }
}

/// What the sample holds of one collection.
struct Measured {
    documents: u64,
    /// Over its first documents, in the formats asked; `None` without any.
    bytes_per_document: Option<f64>,
}

/// Counts `coll`'s documents in `pop` and measures its first ones.
fn measure(pop: &Population<'_>, coll: &Collection, (json, bson): (bool, bool)) -> Measured {
    let builder = Builder::new(pop, Fanout::Drawn);
    let mut encoder = RunEncoder::new(pop, coll);
    let (mut jbuf, mut bbuf, mut scratch) = (Vec::new(), Vec::new(), Scratch::default());
    let (mut documents, mut measured) = (0, 0);
    let _ = pop.for_each_run(coll, |run| -> Result<(), ()> {
        documents += run.len();
        if measured < SAMPLE_DOCUMENTS && jbuf.len() + bbuf.len() <= SAMPLE_BYTES {
            let (head, _) = run.split(SAMPLE_DOCUMENTS - measured);
            measured += head.len();
            encoder.encode(
                &builder,
                &head,
                json.then_some(&mut jbuf),
                bson.then_some(&mut bbuf),
                &mut scratch,
            );
        }
        Ok(())
    });
    Measured {
        documents,
        bytes_per_document: (measured > 0)
            .then(|| (jbuf.len() + bbuf.len()) as f64 / measured as f64),
    }
}

fn saturating(x: f64) -> u64 {
    if x.is_finite() && x < u64::MAX as f64 {
        x.round() as u64
    } else {
        u64::MAX
    }
}

/// The expected instances of every entity, as `Population` numbers them:
/// `scale` of every entity nobody owns, and per parent the mean of the
/// children drawn.
fn expected_counts(model: &Model, scale: f64, max_children: Option<u64>) -> Vec<f64> {
    let mut counts = vec![None; model.entities.len()];
    let owners = owners(model);
    let mut means = Means::default();
    for e in model.entity_ids() {
        count_of(
            model,
            &owners,
            e,
            scale,
            max_children,
            &mut counts,
            &mut means,
            0,
        );
    }
    counts.into_iter().map(|c| c.unwrap_or(scale)).collect()
}

/// `mean_children` by what it reads of a cardinality, and the cap: models
/// repeat a few shapes, and each mean takes 10,000 draws.
type Means = rustc_hash::FxHashMap<(u64, u64, u64, Option<u64>, Option<u64>, Option<u64>), f64>;

#[allow(clippy::too_many_arguments)]
fn count_of(
    model: &Model,
    owners: &[Option<RelationshipId>],
    e: EntityId,
    scale: f64,
    cap: Option<u64>,
    counts: &mut Vec<Option<f64>>,
    means: &mut Means,
    depth: usize,
) -> f64 {
    if let Some(n) = counts[e.index()] {
        return n;
    }
    // Up the owners to one counted or not owned, then down again: a loop,
    // where calling itself for each owner overflowed the stack on a chain
    // of thousands (issue 45). Owners form no cycle (`owners` cuts them).
    let mut chain = vec![e];
    while let Some(r) = owners[chain[chain.len() - 1].index()] {
        let parent = model.relationship(r).parent;
        if counts[parent.index()].is_some() || depth + chain.len() > model.entities.len() {
            break;
        }
        chain.push(parent);
    }
    let mut n = 0.0;
    for (up, x) in chain.iter().enumerate().rev() {
        n = count_one(model, owners, *x, scale, cap, counts, means, depth + up);
        counts[x.index()] = Some(n);
    }
    n
}

/// `count_of` for `e`, its owner counted.
#[allow(clippy::too_many_arguments)]
fn count_one(
    model: &Model,
    owners: &[Option<RelationshipId>],
    e: EntityId,
    scale: f64,
    cap: Option<u64>,
    counts: &mut Vec<Option<f64>>,
    means: &mut Means,
    depth: usize,
) -> f64 {
    // As `Population` numbers them: not under itself (a tree is a forest).
    let owner = owners[e.index()];
    if depth > model.entities.len() {
        scale
    } else if let Some(r) = owner {
        let rel = model.relationship(r);
        let parent = match counts[rel.parent.index()] {
            Some(n) => n,
            None => count_of(
                model,
                owners,
                rel.parent,
                scale,
                cap,
                counts,
                means,
                depth + 1,
            ),
        };
        let card = &rel.children.spread_from_growth();
        let key = (
            card.min,
            card.typical,
            super::numbering::effective_max(card),
            card.p95,
            card.p99,
            cap,
        );
        let mean = *means.entry(key).or_insert_with(|| mean_children(card, cap));
        // The busiest parents have the stated maximum (`busiest`): about
        // `parents / 2^k` of them, `2^k` the largest power of two up to
        // the parents the maximum is among (`parents_for_max`), each above
        // what its quantile in the top `2^-k`-th would have drawn.
        let among = super::numbering::parents_for_max(model, rel, parent.round() as u64);
        let busiest = match card.max {
            crate::model::Count::Finite(max) if among >= 2 => {
                let block = (1u64 << among.ilog2()) as f64;
                let max = cap.map_or(max, |c| max.min(c)) as f64;
                let top = mean_between(card, cap, 1.0 - 1.0 / block, 1.0);
                parent / block * (max - top).max(0.0)
            }
            _ => 0.0,
        };
        parent * mean + busiest
    } else if model
        .relationships_to(e)
        .any(|r| is_shared(model.relationship(r)))
    {
        // For the shared relationship that needs the most children.
        let shared: Vec<RelationshipId> = model
            .relationships_to(e)
            .filter(|r| is_shared(model.relationship(*r)))
            .collect();
        let mut n: f64 = 1.0;
        for r in shared {
            let rel = model.relationship(r);
            let parents = count_of(
                model,
                owners,
                rel.parent,
                scale,
                cap,
                counts,
                means,
                depth + 1,
            );
            let a = cap.map_or(rel.children.typical, |c| rel.children.typical.min(c.max(1)));
            // Rounded up, as `Population` divides (`div_ceil`), and at
            // least a parent's own list.
            n = n
                .max((parents.round() * a.max(1) as f64 / rel.parents.typical.max(1) as f64).ceil())
                .max(a.max(1) as f64);
        }
        n
    } else if let Some(rel) = model
        .relationships_to(e)
        .map(|r| model.relationship(r))
        .find(|rel| rel.parent == rel.child && !is_shared(rel))
    {
        // `scale` roots, each with two levels below it, or fewer within the
        // tree's `levels` (`Population::count_of`).
        let fan = rel
            .children
            .typical
            .clamp(2, cap.unwrap_or(u64::MAX).max(2)) as f64;
        let levels = rel.levels.unwrap_or(3).clamp(1, 3);
        scale.max(1.0) * (0..levels).map(|i| fan.powi(i as i32)).sum::<f64>()
    } else {
        scale
    }
}

/// The mean of `population::draw` under the cap, over quantiles spread
/// evenly as `population::spread` spreads the parents'.
fn mean_children(card: &Cardinality, cap: Option<u64>) -> f64 {
    const STEPS: u32 = 10_000;
    let cap = cap.unwrap_or(u64::MAX);
    let sum: f64 = (0..STEPS)
        .map(|k| draw(card, (f64::from(k) + 0.5) / f64::from(STEPS)).min(cap) as f64)
        .sum();
    sum / f64::from(STEPS)
}

/// The mean of `population::draw` under the cap over the quantiles in
/// [`lo`, `hi`).
fn mean_between(card: &Cardinality, cap: Option<u64>, lo: f64, hi: f64) -> f64 {
    const STEPS: u32 = 1_000;
    let cap = cap.unwrap_or(u64::MAX);
    let sum: f64 = (0..STEPS)
        .map(|k| {
            let u = lo + (hi - lo) * (f64::from(k) + 0.5) / f64::from(STEPS);
            draw(card, u).min(cap) as f64
        })
        .sum();
    sum / f64::from(STEPS)
}

#[cfg(test)]
mod tests {
    use super::super::data::{self, DataFormat, DataOptions};
    use super::*;

    /// The estimate against what is written, for every seed example: the
    /// documents and the bytes within a quarter.
    #[test]
    fn the_estimate_is_close_to_what_is_written() {
        let mut lines = Vec::new();
        for (name, model, design) in crate::synthetic::tests::seed_examples() {
            let dir =
                std::env::temp_dir().join(format!("squill-estimate-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let options = DataOptions {
                format: DataFormat::Both,
                max_children: Some(40),
                ..DataOptions::new(120, 1)
            };
            let guess = estimate(&model, &design, &options);
            let got = data::write(&model, &design, &options, &dir).unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            for (g, c) in guess.collections.iter().zip(&got.collections) {
                assert_eq!(g.name, c.name);
                let (docs, bytes) = (c.documents as f64, (c.ejson_bytes + c.bson_bytes) as f64);
                let json_per_bson = c.ejson_bytes as f64 / c.bson_bytes.max(1) as f64;
                lines.push(format!(
                    "{name}/{}: documents {} of {}, bytes {} of {}, json/bson {json_per_bson:.2}",
                    c.name, g.documents, docs, g.bytes, bytes
                ));
                // Nothing written and nothing guessed (an empty overflow) agree.
                if docs == 0.0 && g.documents == 0 {
                    continue;
                }
                let ratio = g.documents as f64 / docs.max(1.0);
                assert!((0.75..=1.25).contains(&ratio), "{}", lines.last().unwrap());
                let ratio = g.bytes as f64 / bytes.max(1.0);
                assert!((0.75..=1.25).contains(&ratio), "{}", lines.last().unwrap());
            }
        }
        eprintln!("{}", lines.join("\n"));
    }
}
