//! Relationships between entities, with the facts the seeds decide on:
//! cardinality, whether the child stands alone, whether it is shared.

use super::Cardinality;
use super::ids::EntityId;
use serde::Serialize;

pub use super::ids::RelationshipId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RelationshipKind {
    OneToOne,
    OneToMany,
    ManyToMany,
}

/// A layout as the model names it, to pin a relationship to it (`layout:`
/// in the model file): the design's `Layout` says how it is built, this says
/// only which one was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "Layout")]
pub enum LayoutKind {
    Embed,
    EmbedParentInChild,
    ChildReferences,
    ParentReference,
    TwoWayReferences,
    ExtendedReference,
    Subset,
    Outlier,
    Bucket,
    ManyToManyOneWay,
    ManyToManyTwoWay,
    TwoWayExtendedReference,
    SharedId,
    EdgeCollection,
    TreePath,
    PathReference,
}

impl LayoutKind {
    pub const ALL: [LayoutKind; 16] = [
        LayoutKind::Embed,
        LayoutKind::EmbedParentInChild,
        LayoutKind::ChildReferences,
        LayoutKind::ParentReference,
        LayoutKind::TwoWayReferences,
        LayoutKind::ExtendedReference,
        LayoutKind::Subset,
        LayoutKind::Outlier,
        LayoutKind::Bucket,
        LayoutKind::ManyToManyOneWay,
        LayoutKind::ManyToManyTwoWay,
        LayoutKind::TwoWayExtendedReference,
        LayoutKind::SharedId,
        LayoutKind::EdgeCollection,
        LayoutKind::TreePath,
        LayoutKind::PathReference,
    ];

    /// The name the model file and the design JSON use.
    pub fn name(self) -> &'static str {
        match self {
            LayoutKind::Embed => "embed",
            LayoutKind::EmbedParentInChild => "embed-parent-in-child",
            LayoutKind::ChildReferences => "child-references",
            LayoutKind::ParentReference => "parent-reference",
            LayoutKind::TwoWayReferences => "two-way-references",
            LayoutKind::ExtendedReference => "extended-reference",
            LayoutKind::Subset => "subset",
            LayoutKind::Outlier => "outlier",
            LayoutKind::Bucket => "bucket",
            LayoutKind::ManyToManyOneWay => "many-to-many-one-way",
            LayoutKind::ManyToManyTwoWay => "many-to-many-two-way",
            LayoutKind::TwoWayExtendedReference => "two-way-extended-reference",
            LayoutKind::SharedId => "shared-id",
            LayoutKind::EdgeCollection => "edge-collection",
            LayoutKind::TreePath => "tree-path",
            LayoutKind::PathReference => "path-reference",
        }
    }

    pub fn from_name(name: &str) -> Option<LayoutKind> {
        LayoutKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A relationship from `parent` (the "one" side; side A of an N:M) to `child`
/// (the "many" side; side B of an N:M).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Relationship {
    /// Unique name, used by operations' `include` and by reports (e.g. `parts`).
    pub name: String,
    pub kind: RelationshipKind,
    pub parent: EntityId,
    pub child: EntityId,
    /// Children per parent (for N:M: B items per A item).
    pub children: Cardinality,
    /// Parents per child. One for 1:1 and for an unshared 1:N; for N:M the M side
    /// (A items per B item); for a shared 1:N (a part used by several products)
    /// how many parents share a child.
    pub parents: Cardinality,
    /// The child is read or updated on its own, not only through its parent
    /// (000_34acd10fa9a500cb.txt: "will the entities on the N side ever need to stand alone?").
    pub child_standalone: bool,
    /// A child can belong to several parents (turns 1:N into N:M without a join table).
    pub shared: bool,
    /// Name of the field that holds the reference or the embedded data in the
    /// parent (default: the relationship name) and in the child (default: the
    /// parent entity's name).
    pub parent_field: String,
    pub child_field: String,
    /// The layout the model pins this relationship to (the design it has
    /// today, or one to compare): the search keeps it fixed.
    pub layout: Option<LayoutKind>,
    /// Fields of the parent the child keeps as they were when it was written
    /// (the price on an invoice line): copies in the child, never refreshed.
    pub snapshot: Vec<String>,
    /// Fields of the link itself in a many-to-many (a member's role, the day
    /// they joined): they belong to neither side, and travel with the
    /// reference wherever the layout keeps it.
    pub attributes: Vec<super::entity::Field>,
    /// The child is the link entity of an edge collection (`as_junction`):
    /// it keeps documents of its own, one per link, whatever else is copied
    /// into them.
    pub edge: bool,
    /// A tree's greatest depth (`levels: 7`): the longest path from a root
    /// to a node. Only for an entity's one-to-many with itself; `None`
    /// when the model does not bound it.
    pub levels: Option<u32>,
    pub description: Option<String>,
    /// For a relationship squill adds under a tenant (`tenant: clinic`) to
    /// an entity that belongs to it through a parent (a visit of a
    /// clinic's patient): the relationships from the child up to the
    /// tenant, through which its documents get the tenant's id
    /// (`visits`, `patients`). Empty for the model's own relationships
    /// (model/tenancy.rs, `carry`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tenant_chain: Vec<RelationshipId>,
    /// A many-to-many's typical parents as the model stated them, when
    /// they disagreed with the other side's count of the links and
    /// `parents.typical` was derived from it (`model::agree_sides`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stated_parents: Option<u64>,
}

impl Relationship {
    /// Whether a child has exactly one parent through it: its reference is
    /// one id (not a many-to-many, not shared children).
    pub fn one_parent(&self) -> bool {
        self.kind != RelationshipKind::ManyToMany && !self.shared
    }

    /// The attribute of the link named `name`, if any.
    pub fn attribute(&self, name: &str) -> Option<&super::entity::Field> {
        self.attributes.iter().find(|f| f.name == name)
    }
}

/// The layout a relationship has in the deployment today: its kind, and
/// for an extended reference the fields copied (of either side: the side
/// that owns a field is the side it is copied from).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurrentLayout {
    pub relationship: RelationshipId,
    pub layout: LayoutKind,
    pub copies: Vec<String>,
}
