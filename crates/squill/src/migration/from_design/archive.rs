//! An archive the recommended design adds (the documents older than its
//! horizon copied from the live collection into the archive collection,
//! deleted from the live one only in the final step: the application of
//! today still reads them there until then) or drops (the archived
//! documents back into the live collection, the archive dropped in the
//! final step).
//!
//! The horizon is a date, fixed once in the progress collection: a re-run
//! or a resumed run moves the same documents as the first, however late.

use super::action::{Action, Cleanup, Undo};
use super::figure::Figure;
use super::layout_steps::Archiving;
use super::plan_value::Plan;
use super::script_text::js;
use crate::design::{Collection, Design, EntityDecision};
use crate::words::script::comment;
use serde_json::json;

impl Archiving {
    /// The JavaScript of the horizon's date: fixed by the first run.
    pub(super) fn cutoff(&self) -> String {
        format!(
            "squillCutoff({}, {})",
            json!(format!("cutoff-{}", self.archive)),
            self.horizon_days
        )
    }

    /// The filter of the documents older than the horizon.
    fn older(&self) -> String {
        format!("{{ {}: {{ $lt: {} }} }}", js(&self.field), self.cutoff())
    }

    /// The filter of the documents the live collection keeps (a document
    /// without the date stays live).
    fn kept(&self) -> String {
        format!(
            "{{ {}: {{ $not: {{ $lt: {} }} }} }}",
            js(&self.field),
            self.cutoff()
        )
    }

    pub(super) fn what(&self) -> String {
        if self.back {
            format!(
                "{}: the archived {} documents of {}, back",
                self.live, self.entity, self.archive
            )
        } else {
            format!(
                "{}: the {} documents older than {} days, by {}, copied",
                self.archive, self.entity, self.horizon_days, self.field
            )
        }
    }

    /// The body of the step's batch: `$merge` on `_id`, so a batch done
    /// twice changes nothing; back into the live collection, a document it
    /// holds already is kept (the count then falls short: FAILED). Copied
    /// first, a document the archive holds already is kept too: the live
    /// one has been reshaped since, past the shape the archive keeps.
    pub(super) fn batch(&self) -> String {
        if self.back {
            format!(
                "  db.getCollection({}).aggregate([{{ $match: range }}, {{ $merge: {{ into: {}, on: \"_id\", whenMatched: \"keepExisting\", whenNotMatched: \"insert\" }} }}]).toArray();",
                js(&self.archive),
                js(&self.live)
            )
        } else {
            format!(
                "  db.getCollection({}).aggregate([{{ $match: range }}, {{ $match: {} }}, {{ $merge: {{ into: {}, on: \"_id\", whenMatched: \"{}\", whenNotMatched: \"insert\" }} }}]).toArray();",
                js(&self.live),
                self.older(),
                js(&self.archive),
                if self.first {
                    "keepExisting"
                } else {
                    "replace"
                }
            )
        }
    }

    /// The figures: every document of the entity once, in one collection
    /// or the other, before and after the final step alike.
    pub(super) fn figures(&self, out: &mut Vec<Figure>) {
        let count = |c: &str, filter: &str| format!("squillCount({}, {filter})", json!(c));
        if self.back {
            out.push(Figure {
                label: format!("{}: its documents and those of {}", self.live, self.archive),
                before: format!(
                    "{} + {}",
                    count(&self.live, "{}"),
                    count(&self.archive, "{}")
                ),
                after: count(&self.live, "{}"),
            });
            return;
        }
        out.push(Figure {
            label: format!("{}: the documents older than the horizon", self.archive),
            before: count(&self.live, &self.older()),
            after: count(&self.archive, "{}"),
        });
        out.push(Figure {
            label: format!(
                "{} (the documents it keeps) + {}: the documents of {} today",
                self.live, self.archive, self.live
            ),
            before: count(&self.live, "{}"),
            after: format!(
                "{} + {}",
                count(&self.live, &self.kept()),
                count(&self.archive, "{}")
            ),
        });
    }

    /// The final step's statements: the archived documents out of the live
    /// collection (by the archive's `_id`s, in batches, only those older
    /// than the horizon), then a check that none is in both.
    pub(super) fn cleanup(&self) -> String {
        format!(
            "{{ let last = null; let both = 0;\n\
             \x20   for (;;) {{\n\
             \x20     const ids = db.getCollection({a}).find(last === null ? {{}} : {{ _id: {{ $gt: last }} }}, {{ _id: 1 }}).sort({{ _id: 1 }}).limit(BATCH).toArray().map((d) => d._id);\n\
             \x20     if (ids.length === 0) break;\n\
             \x20     db.getCollection({l}).deleteMany({{ $and: [{{ _id: {{ $in: ids }} }}, {older}] }});\n\
             \x20     both += db.getCollection({l}).countDocuments({{ _id: {{ $in: ids }} }});\n\
             \x20     last = ids[ids.length - 1];\n\
             \x20   }}\n\
             \x20   print(`squill migration: ${{both === 0 ? \"ok\" : \"FAILED\"}}: documents both in ${{{l}}} and ${{{a}}}: ${{both}}`);\n\
             \x20   if (both !== 0) throw new Error(\"squill migration: documents both in \" + {l} + \" and \" + {a}); }}",
            a = js(&self.archive),
            l = js(&self.live),
            older = self.older(),
        )
    }

    /// The rollback statements, before the final step and after it.
    pub(super) fn undo(&self) -> Vec<String> {
        if self.back {
            vec![format!(
                "db.getCollection({}).find({{}}, {{ _id: 1 }}).forEach((d) => db.getCollection({}).deleteOne({{ _id: d._id }}));  // the archived documents out of {} again",
                js(&self.archive),
                js(&self.live),
                comment(&self.live)
            )]
        } else {
            vec![
                format!(
                    "db.getCollection({}).aggregate([{{ $merge: {{ into: {}, on: \"_id\", whenMatched: \"keepExisting\", whenNotMatched: \"insert\" }} }}]);  // only after the final step: the archived documents back first",
                    js(&self.archive),
                    js(&self.live)
                ),
                format!("db.getCollection({}).drop();", js(&self.archive)),
            ]
        }
    }
}

/// The archives of `from` that `to` has not, each with its collections.
fn archives<'d>(from: &'d Design, to: &Design) -> Vec<(&'d EntityDecision, &'d str)> {
    from.entities
        .iter()
        .filter_map(|e| match e {
            EntityDecision::Archive { archive, .. }
                if !to.collections.iter().any(|c| &c.name == archive) =>
            {
                Some((e, archive.as_str()))
            }
            _ => None,
        })
        .collect()
}

/// The entities of the archive collections `design` has and `other` has
/// not: the relationships to them are the archive's copies of the live
/// entity's, built (or dropped) with its documents.
pub(super) fn archive_entities<'d>(design: &'d Design, other: &Design) -> Vec<&'d str> {
    archives(design, other)
        .into_iter()
        .filter_map(|(_, name)| design.collections.iter().find(|c| c.name == name))
        .flat_map(|c| c.entities.iter().map(String::as_str))
        .collect()
}

/// The fields (names and types) one of the live collection and its
/// archive holds and the other does not: `(live's, archive's)`, both empty
/// when the documents can be copied as they are.
fn differing_fields(live: &Collection, archive: &Collection) -> (Vec<String>, Vec<String>) {
    let only = |a: &Collection, b: &Collection| -> Vec<String> {
        a.shape
            .fields
            .iter()
            .filter(|f| {
                !b.shape
                    .fields
                    .iter()
                    .any(|g| g.name == f.name && g.ty == f.ty)
            })
            .map(|f| format!("`{}`", f.name))
            .collect()
    };
    (only(live, archive), only(archive, live))
}

/// Why an archive whose live documents are embedded in the recommended
/// design (an archive makes the recent ones few enough to embed) is not
/// migrated: where they are embedded, and what the steps would get wrong.
fn embedded_live(recommended: &Design, entity: &str, archive: &str) -> String {
    let within = recommended
        .relationships
        .iter()
        .filter(|r| r.child == entity)
        .find_map(|r| {
            let parent = super::source::collection_of(recommended, &r.parent)?;
            let field = super::source::link_field(parent, &r.relationship)?;
            Some(format!(" (in `{}.{}`)", parent.name, field.name))
        })
        .unwrap_or_default();
    format!(
        "the archive of `{entity}`: its live documents are embedded in the recommended design{within}: the step that embeds them would embed those older than the horizon too (no step embeds by age), which go to `{archive}`"
    )
}

/// Whether the documents move before the other steps (`Some(true)`: the
/// archive, the one recommended or today's going back, is in the shape the
/// live collection has today) or after them (`Some(false)`: in the shape
/// they leave it in); `None` when in neither. The documents move as they
/// are: an archive copied first keeps today's shape while the live
/// collection is reshaped; documents going back first are reshaped with
/// the live ones.
fn when(
    archive: &Collection,
    today_live: &Collection,
    recommended_live: &Collection,
) -> Option<bool> {
    let same = |live: &Collection| {
        let (x, y) = differing_fields(live, archive);
        x.is_empty() && y.is_empty()
    };
    if same(recommended_live) {
        Some(false)
    } else if same(today_live) {
        Some(true)
    } else {
        None
    }
}

/// The archive steps: those `recommended` adds, and those of `today` it drops.
pub(super) fn plan(p: &mut Plan, today: &Design, recommended: &Design) {
    for (back, from, to) in [(false, recommended, today), (true, today, recommended)] {
        for (decision, _) in archives(from, to) {
            let EntityDecision::Archive {
                entity,
                collection,
                archive,
                field,
                horizon_days,
                ..
            } = decision
            else {
                continue;
            };
            let find =
                |d: &'_ Design, name: &str| d.collections.iter().find(|c| c.name == name).cloned();
            let (Some(live), Some(arch), Some(live_today)) = (
                find(recommended, collection),
                find(from, archive),
                find(today, collection),
            ) else {
                p.refused.push(if back || find(recommended, collection).is_some() {
                    format!(
                        "the archive of `{entity}`: its live documents have no collection `{collection}` of their own today"
                    )
                } else {
                    embedded_live(recommended, entity, archive)
                });
                continue;
            };
            let first = when(&arch, &live_today, &live);
            let (live_only, archive_only) = differing_fields(&live, &arch);
            if first.is_none() {
                // The documents move as they are: a field one side holds
                // and the other not (or in another type) would be wrong
                // in the archive, or in the live collection going back.
                let list = |v: &[String]| {
                    if v.is_empty() {
                        "none".to_string()
                    } else {
                        v.join(", ")
                    }
                };
                p.refused.push(format!(
                    "the archive of `{entity}`: the documents move as they are, but `{archive}` holds the fields of `{collection}` neither as it is today nor as recommended (only `{collection}`, recommended: {}; only `{archive}`: {})",
                    list(&live_only),
                    list(&archive_only)
                ));
                continue;
            }
            if horizon_days.fract() != 0.0 || *horizon_days < 1.0 {
                p.refused.push(format!(
                    "the archive of `{entity}`: a horizon of {horizon_days} days is no whole number of days"
                ));
                continue;
            }
            let a = Archiving {
                entity: entity.clone(),
                live: collection.clone(),
                archive: archive.clone(),
                field: field.clone(),
                horizon_days: *horizon_days as u64,
                back,
                first: first == Some(true),
            };
            let split = format!("{collection} and {archive} (older than {horizon_days} days)");
            let whole = format!("{collection} alone");
            p.changes.push(if back {
                (entity.clone(), split, whole)
            } else {
                (entity.clone(), whole, split)
            });
            if back {
                p.cleanup.push(Cleanup::DropCollection {
                    collection: archive.clone(),
                });
            } else {
                p.cleanup.push(Cleanup::Archived(Box::new(a.clone())));
            }
            p.undo.push(Undo::Archive(Box::new(a.clone())));
            if a.first {
                // Before every step of the live collection (the steps are
                // sorted by phase only, keeping this order).
                p.actions.insert(0, Action::Archive(Box::new(a)));
            } else {
                p.actions.push(Action::Archive(Box::new(a)));
            }
        }
    }
}
