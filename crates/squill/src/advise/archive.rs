//! The archive decision's report: what the split by age keeps in memory,
//! against the one collection it replaces, and why it was kept.

use crate::design::{
    Collection, Design, EntityDecision, FieldOrigin, Figure, RuleHit, ShapeType, Side, WorkingSet,
};
use crate::finding::{Evidence, Finding, Location, Severity};
use crate::model::{Archive, Entity, FieldType, Model};
use crate::rules::design::archive_by_age::SplitByAge;
use crate::words::num;

/// The decision for `split`, adopted because `with` (the rewritten model
/// and its design) ranks before `without`.
pub(super) fn decision(
    without: (&Model, &Design),
    with: (&Model, &Design),
    split: &Archive,
) -> EntityDecision {
    let (model, design) = with;
    let entity = &model.entity(split.entity).name;
    let archive = &model.entity(split.archive).name;
    let live = holding(design, entity);
    let old = holding(without.1, entity);
    let held = live.map_or(EMPTY, |c| working_set(model, c, c.documents));
    let before = old.map_or(EMPTY, |c| {
        working_set(without.0, c, without.0.entity(split.entity).count)
    });
    let saves = without.1.totals.minus(&design.totals);
    let moved = split.moved_per_day / 86_400.0;
    let reason = SplitByAge {
        entity: entity.clone(),
        archive: archive.clone(),
        days: Figure::days(split.days),
        archived: Figure::count(model.entity(split.archive).count as f64),
        index_entries: Figure::count(held.index_entries as f64),
        index_bytes: Figure::bytes(held.index_bytes as f64),
        index_entries_without: Figure::count(before.index_entries as f64),
        index_bytes_without: Figure::bytes(before.index_bytes as f64),
        saves: Figure::per_second(saves.score),
        moved: Figure::per_second(moved),
        on_both: split.both.clone(),
    };
    EntityDecision::Archive {
        entity: entity.clone(),
        collection: live.map_or_else(|| entity.clone(), |c| c.name.clone()),
        archive: archive.clone(),
        field: split.field.clone(),
        horizon_days: split.days,
        moved_per_second: moved,
        on_both: split.both.clone(),
        working_set: held,
        without_archive: before,
        saves,
        rules: vec![RuleHit {
            rule: crate::rules::design::archive_by_age::RULE.id,
            reason: crate::design::Reason::new(reason),
        }],
    }
}

const EMPTY: WorkingSet = WorkingSet {
    documents: 0,
    document_bytes: 0,
    index_entries: 0,
    index_bytes: 0,
};

/// The collection whose documents are `entity`'s.
fn holding<'d>(design: &'d Design, entity: &str) -> Option<&'d Collection> {
    design
        .collections
        .iter()
        .find(|c| c.entities.iter().any(|e| e == entity))
}

/// Bytes of one index key on `path` of `c`'s documents: the value's size
/// when the path ends in a field of the collection's entity, else an
/// ObjectId's 12 (a reference).
/// An array field's key is one element (a multikey index has an entry per
/// element, `array_entries`).
pub(super) fn key_bytes(model: &Model, c: &Collection, path: &str) -> u64 {
    let leaf = path.rsplit('.').next().unwrap_or(path);
    root_entity(model, c)
        .and_then(|e| e.field(leaf))
        .map_or(12, |f| match &f.ty {
            FieldType::Array(item) => item.value_bytes(f.element_size),
            ty => ty.value_bytes(f.avg_size),
        })
}

/// The entity whose documents `c` holds (its first).
fn root_entity<'m>(model: &'m Model, c: &Collection) -> Option<&'m Entity> {
    c.entities
        .first()
        .and_then(|name| model.entity_by_name(name))
        .map(|e| model.entity(e))
}

/// Entries one document of `c` gives an index on `key` through a field of
/// its own entity or an array of a relationship's ids it keeps: one per
/// element of an array (multikey, `Entity::index_entries_at`), else one.
pub(super) fn array_entries(model: &Model, c: &Collection, key: &str) -> f64 {
    root_entity(model, c).map_or(1.0, |e| {
        e.index_entries_at(key, |name| ids_held(model, c, name))
    })
}

/// The ids one document of `c` holds in its top-level field `name` when the
/// design keeps there an array of a relationship's ids: its children's
/// (typical children per parent) in the parent's documents, its parents'
/// (typical parents per child) in the child's. `None` for any other field.
fn ids_held(model: &Model, c: &Collection, name: &str) -> Option<f64> {
    let field = c.shape.fields.iter().find(|f| f.name == name)?;
    let ShapeType::Array { .. } = &field.ty else {
        return None;
    };
    let FieldOrigin::Reference { relationship, side } = &field.origin else {
        return None;
    };
    let rel = model.relationship(model.relationship_by_name(relationship)?);
    // A relationship of an entity with itself keeps both arrays in one
    // document: the shape says whose each is.
    let children = match side {
        Some(s) => *s == Side::Parent,
        None => root_entity(model, c).is_some_and(|e| e.name == model.entity(rel.parent).name),
    };
    let typical = if children {
        rel.children.typical
    } else {
        rel.parents.typical
    };
    Some((typical as f64).max(1.0))
}

/// `recent` documents of `c` (those younger than the horizon) and every
/// entry of its indexes, one per document: a key of the fields' sizes and
/// an 8-byte record id (an entry per element of an array key).
fn working_set(model: &Model, c: &Collection, recent: u64) -> WorkingSet {
    let key_bytes = |path: &str| key_bytes(model, c, path);
    let mut entries = 0u64;
    let mut index_bytes = 0u64;
    for index in &c.indexes {
        let elements = index
            .keys
            .iter()
            .map(|(k, _)| array_entries(model, c, k))
            .fold(1.0f64, f64::max);
        let n = (c.documents as f64 * elements) as u64;
        entries = entries.saturating_add(n);
        let per: u64 = index.keys.iter().map(|(k, _)| key_bytes(k)).sum::<u64>() + 8;
        index_bytes = index_bytes.saturating_add(n.saturating_mul(per));
    }
    let recent = recent.min(c.documents);
    WorkingSet {
        documents: recent,
        document_bytes: recent.saturating_mul(c.size.typical_bytes),
        index_entries: entries,
        index_bytes,
    }
}

/// The note on an entity whose reads keep to recent instances but that
/// stays whole: what the split by age would have cost.
pub(super) fn not_split(
    entity: &str,
    split: &Archive,
    kept: &Design,
    archived: &Design,
) -> Finding {
    let more = archived.totals.score - kept.totals.score;
    let mut message = format!(
        "keeping the {} older than {} days in an archive collection would cost {} more per second (a score of {} against {})",
        crate::words::plural(entity),
        num(split.days),
        num(more),
        num(archived.totals.score),
        num(kept.totals.score)
    );
    if !split.both.is_empty() {
        message.push_str(&format!(
            "; {} would run on both collections",
            split.both.join(", ")
        ));
    }
    Finding {
        rule: crate::rules::design::archive_by_age::RULE.id,
        severity: Severity::Info,
        message,
        location: Location::Model {
            path: format!("entities.{entity}"),
        },
        evidence: vec![
            Evidence::new("horizon_days", num(split.days)),
            Evidence::new("score_delta", num(more)),
        ],
        help: Some(
            "an archive pays when the old instances are read far less often than the recent ones; an operation with an age filter (`since`, `before`) keeps to one side".to_string(),
        ),
    }
}
