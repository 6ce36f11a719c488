//! What a design rule's check sees, and what it may answer: forbid a candidate
//! (with the limit it breaks) or support it (with the reason in the model's
//! words). Weighing is the cost model's job; rules that weigh say so in their
//! reason and leave the numbers to `costs`.

use crate::candidates::facts::{Facts, RelFacts};
use crate::design::Design;
use crate::design::{Layout, Reason, Side};
use crate::finding::Location;
use crate::model::{CardinalityClass, Count, Relationship, RelationshipId, RelationshipKind};

#[derive(Debug, Clone, PartialEq)]
pub enum Judgement {
    Forbid(Reason),
    Support(Reason),
}

impl Judgement {
    /// Forbids, for the reason `why` (a rule's evidence type).
    pub fn forbid(why: impl crate::design::Explain) -> Self {
        Judgement::Forbid(Reason::new(why))
    }
    /// Supports, for the reason `why`.
    pub fn support(why: impl crate::design::Explain) -> Self {
        Judgement::Support(Reason::new(why))
    }
}

/// One candidate layout of one relationship, under judgement.
pub struct RelCheck<'a> {
    pub facts: &'a Facts<'a>,
    pub r: RelationshipId,
    pub layout: &'a Layout,
}

impl<'a> RelCheck<'a> {
    pub fn rel(&self) -> &'a Relationship {
        self.facts.model.relationship(self.r)
    }
    pub fn rf(&self) -> &'a RelFacts {
        self.facts.rel(self.r)
    }
    /// One parent as a sentence names it: singular ("users" reads "user"),
    /// and by role in a self-relationship ("parent employee").
    pub fn parent(&self) -> String {
        crate::words::sides(self.parent_name(), self.child_name()).0
    }
    /// One child as a sentence names it (see `parent`); an archive's
    /// (`model::as_archive`) as what it holds: "archived ride", not the
    /// collection's name (audit48 C2).
    pub fn child(&self) -> String {
        let model = self.facts.model;
        match model.entity(self.rel().child).archive_of {
            Some(live) => format!(
                "archived {}",
                crate::words::sides(self.parent_name(), &model.entity(live).name).1
            ),
            None => crate::words::sides(self.parent_name(), self.child_name()).1,
        }
    }
    /// What a count of one parent's children calls them, where the
    /// relationship says it better than the child's plural
    /// (`words::items_named`): the field of the parent that holds them
    /// (a channel's `members`), else the relationship's name (a user's
    /// `followers`); the field defaults to the name.
    ///
    /// Where an archive split divides the children (`model::as_archive`),
    /// the count is of one side: "archived rides" in the archive, "rides
    /// of the last day" in the live collection (audit48 C2: "a rider has
    /// at most 19,654 ride_archives", and 346 rides of a rider with
    /// 20,000).
    pub fn items(&self) -> Option<String> {
        let rel = self.rel();
        let model = self.facts.model;
        let child = model.entity(rel.child);
        if let Some(live) = child.archive_of {
            let name = &model.entity(live).name;
            return Some(format!("archived {}", crate::words::plural(name)));
        }
        let named = [&rel.parent_field, &rel.name]
            .into_iter()
            .find_map(|name| crate::words::items_named(name, self.child_name()));
        // Archives are appended after the model's own entities: a model
        // with none is told by its last entity, not by a scan of them all
        // for every relationship judged.
        let split = model
            .entities
            .last()
            .is_some_and(|x| x.archive_of.is_some())
            && model
                .entities
                .iter()
                .any(|x| x.archive_of == Some(rel.child));
        let per_day = model.inserts_per_day(rel.child);
        if split && per_day > 0.0 {
            let days = (child.count as f64 / per_day * 1_000.0).round() / 1_000.0;
            let items = named.unwrap_or_else(|| crate::words::plural(self.child_name()));
            return Some(format!("{items} of {}", crate::words::last_period(days)));
        }
        named
    }
    /// What a count of one child's parents calls them in a many-to-many,
    /// where the field of the child that holds them says it better than
    /// the parent's plural (a user's `teams` are teams either way; a
    /// repository's `starred` would not be a count).
    pub fn parent_items(&self) -> Option<String> {
        crate::words::items_named(&self.rel().child_field, self.parent_name())
    }
    /// The parent entity's name in the model.
    pub fn parent_name(&self) -> &'a str {
        &self.facts.model.entity(self.rel().parent).name
    }
    /// The child entity's name in the model.
    pub fn child_name(&self) -> &'a str {
        &self.facts.model.entity(self.rel().child).name
    }
    pub fn class(&self) -> CardinalityClass {
        self.facts
            .settings
            .cardinality
            .classify(self.rel().kind, &self.rel().children)
    }
    pub fn many_to_many(&self) -> bool {
        self.rel().kind == RelationshipKind::ManyToMany
    }
    pub fn max_children(&self) -> Count {
        self.rel().children.max
    }
    /// The child is used on its own: the model says so, or operations start from it.
    pub fn child_standalone(&self) -> bool {
        self.rel().child_standalone || self.rel().shared
    }
    /// Whether the layout keeps the children inside the parent's documents.
    pub fn embeds(&self) -> bool {
        matches!(self.layout, Layout::Embed | Layout::EmbedParentInChild)
    }
    /// Whether the layout keeps a copy of the other side's data (denormalizes).
    pub fn denormalizes(&self) -> bool {
        matches!(
            self.layout,
            Layout::Embed
                | Layout::EmbedParentInChild
                | Layout::ExtendedReference { .. }
                | Layout::TwoWayExtendedReference { .. }
                | Layout::Subset { .. }
                | Layout::Bucket { .. }
        )
    }
    /// Whether a read through the relationship needs no second query under this layout
    /// for the fields the workload reads.
    pub fn answers_reads_without_join(&self) -> bool {
        let rf = self.rf();
        match self.layout {
            Layout::Embed | Layout::EmbedParentInChild => true,
            Layout::ExtendedReference { .. } | Layout::TwoWayExtendedReference { .. } => {
                [Side::Parent, Side::Child].into_iter().any(|side| {
                    let copies = self.layout.copies_in(side);
                    let attrs: Vec<&str> = self
                        .facts
                        .attributes_on(self.r, side, self.layout)
                        .map(|a| a.name.as_str())
                        .collect();
                    let reads = match side {
                        Side::Parent => &rf.child_fields_read,
                        Side::Child => &rf.parent_fields_read,
                    };
                    !copies.is_empty()
                        && reads.iter().any(|(f, _)| {
                            !f.is_empty()
                                && f.iter().all(|x| {
                                    x == "_id" || copies.contains(x) || attrs.contains(&x.as_str())
                                })
                        })
                })
            }
            Layout::Subset { k, .. } => rf.limits.iter().any(|(l, _, _)| l <= k),
            _ => false,
        }
    }
    /// Reads per second through the relationship (either direction).
    pub fn reads(&self) -> f64 {
        self.rf().reads_down + self.rf().reads_up
    }
}

/// What a design-level rule's check sees.
pub struct DesignCheck<'a> {
    pub facts: &'a Facts<'a>,
    pub design: &'a Design,
}

impl DesignCheck<'_> {
    pub fn at(path: String) -> Location {
        Location::Model { path }
    }
}
