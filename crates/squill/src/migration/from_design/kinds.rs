//! A polymorphic collection the recommended design adds (each kind's
//! collection of today merged into it, the discriminator set to the kind)
//! or drops (its documents split by discriminator into a collection per
//! kind). Documents keep their `_id`s and a document a target holds
//! already is kept: two kinds sharing an `_id` leave the merged count
//! short, and the check FAILS before the final step drops anything.

use super::action::{Action, Cleanup, Undo};
use super::figure::Figure;
use super::layout_steps::KindMove;
use super::plan_value::Plan;
use crate::design::{Collection, Design, EntityDecision, ShapeType};
use serde_json::json;

impl KindMove {
    pub(super) fn what(&self) -> String {
        if self.back {
            format!(
                "{}: the documents of {} whose {} is {}",
                self.own, self.shared, self.discriminator, self.kind
            )
        } else {
            format!(
                "{}: the documents of {}, {} {}",
                self.shared, self.own, self.discriminator, self.kind
            )
        }
    }

    fn of_kind(&self) -> String {
        format!("{{ {}: {} }}", json!(self.discriminator), json!(self.kind))
    }

    /// The body of the step's batch.
    pub(super) fn batch(&self) -> String {
        let merge = |into: &str| {
            format!(
                "{{ $merge: {{ into: {}, on: \"_id\", whenMatched: \"keepExisting\", whenNotMatched: \"insert\" }} }}",
                json!(into)
            )
        };
        if self.back {
            format!(
                "  db.getCollection({}).aggregate([{{ $match: range }}, {{ $match: {} }}, {{ $unset: {} }}, {}]).toArray();",
                json!(self.shared),
                self.of_kind(),
                json!(self.discriminator),
                merge(&self.own)
            )
        } else {
            format!(
                "  db.getCollection({}).aggregate([{{ $match: range }}, {{ $set: {} }}, {}]).toArray();",
                json!(self.own),
                self.of_kind(),
                merge(&self.shared)
            )
        }
    }

    /// The kind's documents, each once on the other side; on the first
    /// kind, all of them (a document of no known kind, or two kinds sharing
    /// an `_id`, leaves the count short).
    pub(super) fn figures(&self, out: &mut Vec<Figure>) {
        if !self.all.is_empty() {
            let sum = self
                .all
                .iter()
                .map(|c| format!("squillCount({}, {{}})", json!(c)))
                .collect::<Vec<_>>()
                .join(" + ");
            let whole = format!("squillCount({}, {{}})", json!(self.shared));
            out.push(Figure {
                label: format!(
                    "{}: the documents of {}, each once",
                    if self.back {
                        self.all.join(", ")
                    } else {
                        self.shared.clone()
                    },
                    if self.back {
                        self.shared.clone()
                    } else {
                        self.all.join(", ")
                    },
                ),
                before: if self.back {
                    whole.clone()
                } else {
                    sum.clone()
                },
                after: if self.back { sum } else { whole },
            });
        }
        out.push(self.figure());
    }

    fn figure(&self) -> Figure {
        let count = |c: &str, filter: &str| format!("squillCount({}, {filter})", json!(c));
        let (before, after) = (count(&self.own, "{}"), count(&self.shared, &self.of_kind()));
        Figure {
            label: format!(
                "{}: the documents of {} ({} {})",
                if self.back { &self.own } else { &self.shared },
                if self.back { &self.shared } else { &self.own },
                self.discriminator,
                self.kind
            ),
            before: if self.back {
                after.clone()
            } else {
                before.clone()
            },
            after: if self.back { before } else { after },
        }
    }
}

/// The polymorphic collections of `from` that `to` has not.
fn shared<'d>(from: &'d Design, to: &Design) -> Vec<(&'d Collection, &'d str)> {
    from.entities
        .iter()
        .filter_map(|e| match e {
            EntityDecision::Polymorphic {
                collection,
                discriminator,
                ..
            } if !to.collections.iter().any(|c| &c.name == collection) => from
                .collections
                .iter()
                .find(|c| &c.name == collection)
                .map(|c| (c, discriminator.as_str())),
            _ => None,
        })
        .collect()
}

/// The kinds of the polymorphic collections `design` has and `other` has
/// not.
pub(super) fn kinds_of<'d>(design: &'d Design, other: &Design) -> Vec<&'d str> {
    shared(design, other)
        .into_iter()
        .flat_map(|(c, _)| c.entities.iter().map(String::as_str))
        .collect()
}

/// The same data: scalars of one type (and enum), arrays of the same
/// items, sub-documents of the same fields by name. Where a field comes
/// from is no part of it: each kind's copy of its seller has its own
/// relationship as origin, the shared collection's the first kind's.
fn same_data(a: &ShapeType, b: &ShapeType) -> bool {
    match (a, b) {
        (ShapeType::Array { items: x, .. }, ShapeType::Array { items: y, .. }) => same_data(x, y),
        (ShapeType::Object { shape: x }, ShapeType::Object { shape: y }) => {
            x.fields.len() == y.fields.len()
                && x.fields.iter().all(|f| {
                    y.fields
                        .iter()
                        .any(|g| g.name == f.name && same_data(&f.ty, &g.ty))
                })
        }
        _ => a == b,
    }
}

/// The fields of `part` that are not a field of `whole` of the same type
/// (the documents move as they are), each said with where it differs.
fn outside(part: &Collection, whole: &Collection, discriminator: &str) -> Vec<String> {
    fn what(t: &ShapeType) -> String {
        match t {
            ShapeType::Scalar { bson_type, .. } => {
                format!("{} {bson_type}", crate::words::article(bson_type))
            }
            ShapeType::Object { .. } => "a sub-document".into(),
            ShapeType::Array { .. } => "an array".into(),
        }
    }
    part.shape
        .fields
        .iter()
        .filter_map(|f| {
            let g = whole.shape.fields.iter().find(|g| g.name == f.name);
            match g {
                Some(g) if same_data(&g.ty, &f.ty) && f.name != discriminator => None,
                Some(g) => Some(format!(
                    "`{}.{}` is {}, `{}.{}` {}",
                    part.name,
                    f.name,
                    what(&f.ty),
                    whole.name,
                    g.name,
                    what(&g.ty)
                )),
                None => Some(format!("`{}` has no `{}`", whole.name, f.name)),
            }
        })
        .collect()
}

/// The steps: the polymorphic collections `recommended` adds, and those
/// of `today` it drops.
pub(super) fn plan(p: &mut Plan, today: &Design, recommended: &Design) {
    for (back, from, to) in [(false, recommended, today), (true, today, recommended)] {
        for (coll, discriminator) in shared(from, to) {
            let mut moves = Vec::new();
            for kind in &coll.entities {
                let Some(own) = to
                    .collections
                    .iter()
                    .find(|c| c.entities.len() == 1 && &c.entities[0] == kind)
                else {
                    p.refused.push(format!(
                        "the polymorphic `{}`: `{kind}` has no collection of its own in the other design",
                        coll.name
                    ));
                    return;
                };
                let outside = outside(own, coll, discriminator);
                if !outside.is_empty() {
                    // (A relationship of the kind whose layout changes too
                    // says so in a reason of its own.)
                    p.refused.push(format!(
                        "the polymorphic `{}`: the documents move as they are, but {}",
                        coll.name,
                        outside.join(", ")
                    ));
                    return;
                }
                moves.push(KindMove {
                    kind: kind.clone(),
                    own: own.name.clone(),
                    shared: coll.name.clone(),
                    discriminator: discriminator.to_string(),
                    back,
                    all: Vec::new(),
                });
            }
            let names: Vec<String> = moves.iter().map(|m| m.own.clone()).collect();
            if let Some(first) = moves.first_mut() {
                first.all.clone_from(&names);
            }
            let (own, one) = (names.join(", "), coll.name.clone());
            p.changes.push(if back {
                (coll.name.clone(), one, own)
            } else {
                (coll.name.clone(), own, one)
            });
            if back {
                p.cleanup.push(Cleanup::DropCollection {
                    collection: coll.name.clone(),
                });
                p.undo.extend(moves.iter().map(|m| Undo::Drop {
                    collection: m.own.clone(),
                }));
            } else {
                p.cleanup
                    .extend(moves.iter().map(|m| Cleanup::DropCollection {
                        collection: m.own.clone(),
                    }));
                p.undo.push(Undo::Drop {
                    collection: coll.name.clone(),
                });
            }
            p.actions
                .extend(moves.into_iter().map(|m| Action::Kind(Box::new(m))));
        }
    }
}
