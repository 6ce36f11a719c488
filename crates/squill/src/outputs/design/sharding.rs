//! A collection's shard key from the model, in words, for the text and
//! the Markdown reports alike: why it is sharded, the key chosen, each
//! candidate with its figures and its verdict, the zones. Names from data
//! come back as they are; each report escapes them for where they land.

use crate::design::shard_key::ShardKey;
use crate::design::sharding::{KeyCandidate, KeyOrigin, KeyVerdict, Sharding, ShardingCause};
use crate::words;

/// `{store: 1, sku: 1}`, `{device: "hashed"}`.
pub(crate) fn key(k: &ShardKey) -> String {
    let parts: Vec<String> = k
        .fields
        .iter()
        .map(|f| {
            if f.hashed {
                format!("{}: \"hashed\"", f.path)
            } else {
                format!("{}: 1", f.path)
            }
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// Why the collection is sharded, and what its key was priced at.
pub(crate) fn cause(s: &Sharding) -> String {
    let why = match &s.because {
        ShardingCause::Asked => "asked (--shard)".to_string(),
        ShardingCause::Outgrows {
            month,
            data_bytes,
            threshold,
        } => format!(
            "its data reaches {} in month {month}, past the {} at which a replica set is usually sharded",
            words::bytes(*data_bytes),
            words::bytes(*threshold)
        ),
    };
    format!(
        "sharded because {why}; keys priced at month {}: {} of {} typically, chunks of {}",
        s.month,
        words::count(s.documents as f64, "document"),
        words::bytes(s.avg_doc_size_bytes as f64),
        words::bytes(s.chunk_bytes as f64)
    )
}

/// The chosen key, or why none is.
pub(crate) fn chosen(s: &Sharding) -> String {
    match &s.chosen {
        Some(k) => format!("shard key {}", key(k)),
        None => "no candidate key can spread this collection: each is ruled out below".into(),
    }
}

fn origin(o: &KeyOrigin) -> String {
    match o {
        KeyOrigin::Equality { operations } => format!(
            "the equality filters of {}",
            operations
                .iter()
                .map(|o| format!("`{o}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        KeyOrigin::UniqueIndex { index } => format!("the unique index `{index}`"),
        KeyOrigin::Parent { relationship } => format!("the parent of `{relationship}`"),
        KeyOrigin::Time { field } => format!("the time `{field}`"),
        KeyOrigin::Id => "`_id`".into(),
        KeyOrigin::Hashed => "hashed".into(),
    }
}

fn share(pct: f64) -> String {
    words::percent(pct / 100.0)
}

/// One candidate in a line: rank, key, verdict, figures, warnings.
pub(crate) fn candidate(c: &KeyCandidate) -> String {
    let verdict = match &c.verdict {
        KeyVerdict::Chosen => "chosen".to_string(),
        KeyVerdict::Rejected { because } => format!("rejected: {}", because.words()),
        KeyVerdict::RejectedScatterGather {
            share: s,
            chosen_share,
        } => format!(
            "rejected: {} of the workload goes to every shard, against {} with the chosen key",
            words::percent(*s),
            words::percent(*chosen_share)
        ),
        KeyVerdict::Behind {
            single_shard_share,
            chosen_single_shard_share,
        } if single_shard_share < chosen_single_shard_share => format!(
            "behind: {} of the workload to one shard, against {}",
            words::percent(*single_shard_share),
            words::percent(*chosen_single_shard_share)
        ),
        KeyVerdict::Behind { .. } => {
            "behind: routed as the chosen key is, ranked after it by its warnings, its distinct values, or ranged before hashed".to_string()
        }
    };
    let mut figures = Vec::new();
    if c.reads.rate > 0.0 {
        figures.push(format!(
            "reads {}: {} one shard, {} several, {} all",
            words::rate(c.reads.rate),
            share(c.reads.percentage_of_single_shard),
            share(c.reads.percentage_of_multi_shard),
            share(c.reads.percentage_of_scatter_gather)
        ));
    }
    if c.writes.rate > 0.0 {
        figures.push(format!(
            "writes {}: {} one shard, {} several, {} all",
            words::rate(c.writes.rate),
            share(c.writes.percentage_of_single_shard),
            share(c.writes.percentage_of_multi_shard),
            share(c.writes.percentage_of_scatter_gather)
        ));
    }
    if c.inserts_per_second > 0.0 {
        figures.push(format!("inserts {}", words::rate(c.inserts_per_second)));
    }
    figures.push(match c.num_distinct_values {
        Some(d) => words::count(d as f64, "distinct value"),
        None => "distinct values not stated".into(),
    });
    if let (Some(f), Some(b)) = (c.most_common_frequency, c.most_common_bytes) {
        figures.push(format!(
            "the most common value {} ({})",
            words::count(f as f64, "document"),
            words::bytes(b as f64)
        ));
    }
    let origins: Vec<String> = c.origins.iter().map(origin).collect();
    let mut line = format!(
        "{}. {} — {}; {}; from {}",
        c.rank,
        key(&c.key),
        verdict,
        figures.join(", "),
        origins.join(" and ")
    );
    let others: Vec<String> = c
        .warnings
        .iter()
        .filter(|w| !matches!(&c.verdict, KeyVerdict::Rejected { because } if because == *w))
        .map(|w| w.words())
        .collect();
    if !others.is_empty() {
        line.push_str("; also: ");
        line.push_str(&others.join("; "));
    }
    line
}

/// The zones, one line each.
pub(crate) fn zones(s: &Sharding) -> Vec<String> {
    s.zones
        .iter()
        .map(|z| {
            format!(
                "zone: the largest parent of `{}` by `{}`, {} ({}), more than a shard's share of {}: a zone of {} for its key range",
                z.relationship,
                z.field,
                words::count(z.documents as f64, "document"),
                words::bytes(z.bytes as f64),
                words::bytes(z.shard_share_bytes as f64),
                words::count(f64::from(z.shards), "shard")
            )
        })
        .collect()
}
