//! Where every entity lives under one combination of candidates, and how big
//! its documents are. Built for each state the optimizer looks at; `None` when
//! the combination cannot exist (an entity embedded twice, a cycle of embeds).

use super::facts::Facts;
use super::space::{Space, State};
use crate::candidates::EntityCandidate;
use crate::design::{Layout, Side};
use crate::model::{EntityId, RelationshipId, RelationshipKind};

mod change;
pub use change::Change;

/// Where an entity's instances are stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Home {
    /// Top-level documents of its own (or a polymorphic) collection.
    Own,
    /// Inside `host`'s documents through `rel`; `array` when several per host.
    Embedded {
        rel: RelationshipId,
        host: EntityId,
        array: bool,
    },
    /// In bucket documents of `rel` (several children per document).
    Bucketed { rel: RelationshipId },
}

#[derive(Debug, Clone)]
pub struct Placement<'s> {
    pub layouts: Vec<&'s Layout>,
    pub home: Vec<Home>,
    /// Per entity: the entity whose top-level documents hold it.
    roots: Vec<EntityId>,
    /// Per entity: how many of its instances one root document holds.
    per_root: Vec<f64>,
    /// Per entity: the enabled polymorphic candidate it belongs to.
    pub poly: Vec<Option<usize>>,
    /// Enabled computed-field candidates (indexes into `Space::entity`).
    pub computed: Vec<usize>,
    /// Enabled timeline candidates (fan-out on write).
    pub timelines: Vec<usize>,
    /// Typical and maximum BSON bytes of an entity as a (sub)document with
    /// everything embedded in it; `None` = unbounded.
    pub typical: Vec<f64>,
    pub max: Vec<Option<f64>>,
    pub depth: Vec<u32>,
    /// What `change` altered, to put back (see change.rs).
    journal: change::Journal<'s>,
}

/// Bytes of an array element's type byte, index key and NUL.
pub const ELEMENT: f64 = 5.0;

/// Seconds between WiredTiger's checkpoints, at which a document changed
/// since the last one is written again whole (MongoDB manual, WiredTiger
/// storage engine).
pub const CHECKPOINT_SECONDS: f64 = 60.0;
/// One feed's timeline (fan-out on write): its items, their size, how
/// many followers a new item is copied to, and the outliers a reader
/// follows.
#[derive(Debug, Clone, Copy)]
pub struct TimelineSize {
    /// Bytes of one item in the timeline's array: the item's own fields,
    /// its id and its parent's.
    pub item: f64,
    /// Bytes of a timeline document.
    pub document: f64,
    /// Timelines one new item is pushed into: the mean followers of the
    /// parents at or below the threshold.
    pub pushed: f64,
    /// Share of new items pushed (those of parents at or below the threshold).
    pub pushed_share: f64,
    /// Parents past the threshold a reader follows, typically.
    pub outliers_followed: f64,
    /// Share of new edges that point to a parent past the threshold.
    pub outlier_edges: f64,
}

/// The sizes and fan-out of a timeline candidate.
pub fn timeline_size(
    facts: &Facts<'_>,
    feed: &crate::candidates::feed::Feed,
    threshold: Option<u64>,
) -> TimelineSize {
    let model = facts.model;
    let followers = &model.relationship(feed.followers).children;
    let items = model.relationship(feed.items);
    let item = ELEMENT
        + facts.own_bytes[items.child.index()]
        + id_element("_id")
        + id_element(&items.child_field);
    let (pushed, pushed_share, outlier_edges) = match threshold {
        Some(t) => (
            followers
                .mean_at_most(t)
                .unwrap_or(followers.typical as f64),
            1.0 - followers.share_above(t).unwrap_or(0.0),
            followers.items_share_above(t).unwrap_or(0.0),
        ),
        None => (followers.typical as f64, 1.0, 0.0),
    };
    let outliers_followed = facts.typical(feed.following) * outlier_edges;
    let document = 5.0
        + id_element("_id")
        + 1.0
        + 6.0
        + 5.0
        + feed.limit as f64 * item
        + if threshold.is_some() {
            id_array("outliers", Some(outliers_followed)).unwrap_or(0.0)
        } else {
            0.0
        };
    TimelineSize {
        item,
        document,
        pushed,
        pushed_share,
        outliers_followed,
        outlier_edges,
    }
}

/// Whether the design can keep a timeline of `feed` up to date: the items
/// keep documents of their own, and a new item's parent's followers can be
/// found: by the edges' reference to the followed parent (the edges apart
/// or inside their follower), or in the followed parent's own array (the
/// edges embedded there, or an outlier's first ones, with the rest apart
/// keeping that reference), each edge naming its follower (or inside it).
/// What `costs::plan::timeline` plans from.
pub(super) fn timeline_can_be_kept(
    model: &crate::model::Model,
    feed: &crate::candidates::feed::Feed,
    home: &[Home],
    layouts: &[&Layout],
) -> bool {
    let item = model.relationship(feed.items).child;
    let edge = model.relationship(feed.followers).child;
    let keeps = |r: RelationshipId| layouts[r.index()].child_keeps_parent_id();
    let follower_known = match home[edge.index()] {
        // The edge names its follower, or the follower keeps the edges' ids.
        Home::Own => {
            keeps(feed.following) || layouts[feed.following.index()].parent_keeps_child_ids()
        }
        Home::Embedded { rel, .. } if rel == feed.following => true,
        // In the followed parent's array: each element names its follower.
        Home::Embedded { rel, .. } => rel == feed.followers && keeps(feed.following),
        Home::Bucketed { .. } => false,
    };
    let followed_known = keeps(feed.followers)
        || matches!(layouts[feed.followers.index()], Layout::Outlier { .. })
        || matches!(home[edge.index()], Home::Embedded { rel, .. } if rel == feed.followers);
    home[item.index()] == Home::Own && follower_known && followed_known
}

/// The entity `layout` of relationship `r` stores inside other documents,
/// and where.
fn guest(
    model: &crate::model::Model,
    r: RelationshipId,
    layout: &Layout,
) -> Option<(EntityId, Home)> {
    let rel = model.relationship(r);
    Some(match layout {
        Layout::Embed => (
            rel.child,
            Home::Embedded {
                rel: r,
                host: rel.parent,
                array: rel.kind != RelationshipKind::OneToOne,
            },
        ),
        Layout::EmbedParentInChild => (
            rel.parent,
            Home::Embedded {
                rel: r,
                host: rel.child,
                array: false,
            },
        ),
        Layout::Bucket { .. } => (rel.child, Home::Bucketed { rel: r }),
        _ => return None,
    })
}

/// Bytes of an ObjectId element with a short name.
fn id_element(name: &str) -> f64 {
    1.0 + name.len() as f64 + 1.0 + 12.0
}

fn id_array(name: &str, n: Option<f64>) -> Option<f64> {
    n.map(|n| 1.0 + name.len() as f64 + 1.0 + 5.0 + n * (ELEMENT + 12.0))
}

impl<'s> Placement<'s> {
    pub fn build(facts: &Facts<'_>, space: &'s Space, state: &State) -> Option<Placement<'s>> {
        let mut p = Self::sized(facts, space, state)?;
        // MongoDB refuses a document nested deeper than 100 levels or larger
        // than 16 MiB: a combination that builds one cannot exist, however
        // each relationship's own rules judged it alone (a chain of embedded
        // one-to-many relationships is fine link by link and 800 levels deep
        // as a whole).
        // An entity too large on its own fields is no layout's doing: the
        // design keeps it, and a finding says it cannot be stored.
        if p.misfits(facts).next().is_some() {
            return None;
        }
        // Only for a placement that can exist (sizes do not need it): the
        // walks up are what most of a refused placement's time went to.
        p.per_root = (0..p.home.len())
            .map(|e| p.walk_per_root(facts, EntityId::from_index(e)))
            .collect();
        Some(p)
    }

    /// `build` up to the sizes: `None` when the combination cannot exist
    /// whatever the sizes (an entity embedded twice, a cycle of embeds);
    /// otherwise every home, root and size, with the documents that do not
    /// fit (`misfits`) left in, and no instances per root (`per_root` is
    /// empty: `change` keeps it so). For `repair`, which changes such a
    /// placement until it fits.
    pub fn sized(facts: &Facts<'_>, space: &'s Space, state: &State) -> Option<Placement<'s>> {
        let model = facts.model;
        let n = model.entities.len();
        let layouts: Vec<&Layout> = state
            .rel
            .iter()
            .enumerate()
            .map(|(r, c)| &space.rels[r][*c].layout)
            .collect();
        let mut home = vec![Home::Own; n];
        for r in model.relationship_ids() {
            let Some((guest, h)) = guest(model, r, layouts[r.index()]) else {
                continue;
            };
            if home[guest.index()] != Home::Own {
                return None;
            }
            home[guest.index()] = h;
        }
        // Each entity's root, in one pass: a walk up stops at an entity whose
        // root is known, so the whole pass is linear in the entities (a walk
        // from every entity was quadratic on long chains of embedding). A walk
        // that meets itself is a cycle of embedding: no such design.
        let mut roots = vec![usize::MAX; n];
        let mut on_walk = vec![false; n];
        let mut walk: Vec<usize> = Vec::new();
        for e in 0..n {
            let mut cur = e;
            while roots[cur] == usize::MAX {
                if on_walk[cur] {
                    return None;
                }
                on_walk[cur] = true;
                walk.push(cur);
                match home[cur] {
                    Home::Embedded { host, .. } => cur = host.index(),
                    _ => {
                        roots[cur] = cur;
                        break;
                    }
                }
            }
            let root = roots[cur];
            for w in walk.drain(..) {
                roots[w] = root;
                on_walk[w] = false;
            }
        }
        let mut poly = vec![None; n];
        let mut computed = Vec::new();
        let mut timelines = Vec::new();
        for (i, on) in state.entity.iter().enumerate() {
            if !on {
                continue;
            }
            match &space.entity[i] {
                EntityCandidate::Polymorphic { entities, .. } => {
                    for e in entities {
                        if home[e.index()] != Home::Own || poly[e.index()].is_some() {
                            return None;
                        }
                        poly[e.index()] = Some(i);
                    }
                }
                EntityCandidate::Computed { .. } => computed.push(i),
                // The items and the edges keep documents of their own: the
                // followers are found at each new item (by the edges' id of
                // the followed parent, each edge naming its follower or kept
                // inside it), and the outliers' items read at feed time.
                // Under any other layout of the edges the push could not be
                // planned, and a
                // timeline nothing fills is no design (issue 41, audit T:
                // followers embedded in the followed player, or kept as ids
                // in the follower).
                EntityCandidate::Timeline { feed, .. } => {
                    if !timeline_can_be_kept(model, feed, &home, &layouts) {
                        return None;
                    }
                    timelines.push(i);
                }
            }
        }
        let mut p = Placement {
            layouts,
            home,
            roots: roots.into_iter().map(EntityId::from_index).collect(),
            per_root: Vec::new(),
            poly,
            computed,
            timelines,
            typical: vec![f64::NAN; n],
            max: vec![None; n],
            depth: vec![0; n],
            journal: change::Journal::default(),
        };
        let mut done = vec![false; n];
        for e in model.entity_ids() {
            p.size(facts, space, e, &mut done);
        }
        Some(p)
    }

    /// The entities whose documents MongoDB would refuse (see `build`).
    pub fn misfits<'p>(&'p self, facts: &'p Facts<'_>) -> impl Iterator<Item = usize> + 'p {
        (0..self.home.len()).filter(move |e| !self.fits(facts, *e))
    }

    /// Whether `e`, when it is a root, makes a document MongoDB accepts
    /// (see `build`).
    pub fn fits(&self, facts: &Facts<'_>, e: usize) -> bool {
        let design = &facts.settings.design;
        let limit = design.max_document_bytes as f64;
        let alone = facts.own_bytes[e] + 5.0;
        self.roots[e].index() != e
            || !(self.depth[e] > design.max_nesting_depth
                || (self.typical[e] > limit && alone <= limit))
    }

    /// Sizes `e` and, first, the guests it embeds that are not sized yet
    /// (`done` false). A loop with its own stack: embedding chains of
    /// thousands overflowed the thread's stack by recursion (issue 45).
    fn size(&mut self, facts: &Facts<'_>, space: &Space, e: EntityId, done: &mut [bool]) {
        if done[e.index()] {
            return;
        }
        let mut stack = vec![e];
        while let Some(&x) = stack.last() {
            // Embedding has no cycle here (`build` and `change` refuse one
            // first); the bound only keeps a bug from looping for ever.
            let waiting = self
                .guests(facts, x)
                .find(|g| !done[g.index()])
                .filter(|_| stack.len() <= done.len());
            match waiting {
                Some(g) => stack.push(g),
                None => {
                    stack.pop();
                    if !done[x.index()] {
                        done[x.index()] = true;
                        self.size_one(facts, space, x);
                    }
                }
            }
        }
    }

    /// Sizes `e` from its own fields and its guests' sizes.
    fn size_one(&mut self, facts: &Facts<'_>, space: &Space, e: EntityId) {
        let model = facts.model;
        let mut typical = facts.own_bytes[e.index()] + 5.0;
        let mut max = Some(typical);
        let mut depth = 1 + u32::from(facts.object_fields[e.index()]);
        let mut add = |t: f64, m: Option<f64>, d: u32| {
            typical += t;
            max = match (max, m) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
            depth = depth.max(d);
        };
        for r in facts.rels_from[e.index()].iter().copied() {
            let rel = model.relationship(r);
            let name = rel.parent_field.as_str();
            // Only some layouts need these: compute them on use.
            // The typical document holds the mean, a fraction where the
            // model states one (audit48 C7).
            let nt = || facts.mean_children(r);
            let nm = || rel.children.max.finite().map(|m| m as f64);
            match self.layouts[r.index()] {
                Layout::Embed => {
                    let (ct, cm, cd) = (
                        self.typical[rel.child.index()],
                        self.max[rel.child.index()],
                        self.depth[rel.child.index()],
                    );
                    if rel.kind == RelationshipKind::OneToOne {
                        let head = 2.0 + name.len() as f64;
                        add(head + ct, cm.map(|c| head + c), 1 + cd);
                    } else {
                        let head = 7.0 + name.len() as f64;
                        add(
                            head + nt() * (ELEMENT + ct),
                            nm().zip(cm).map(|(n, c)| head + n * (ELEMENT + c)),
                            2 + cd,
                        );
                    }
                }
                Layout::ChildReferences | Layout::TwoWayReferences
                    if rel.kind == RelationshipKind::OneToOne =>
                {
                    // One child: its id as a plain field.
                    add(id_element(name), Some(id_element(name)), 1);
                }
                Layout::ChildReferences | Layout::TwoWayReferences => add(
                    id_array(name, Some(nt())).unwrap_or(0.0),
                    id_array(name, nm()),
                    2,
                ),
                // An array of the children's ids, each with copies of their
                // fields and the link's attributes when it keeps any.
                l @ (Layout::ManyToManyTwoWay
                | Layout::ManyToManyOneWay { .. }
                | Layout::ExtendedReference { .. }
                | Layout::TwoWayExtendedReference { .. }) => {
                    let Some((Some(copies), _)) = l.many_sides() else {
                        continue;
                    };
                    let attrs = attribute_bytes(facts.attributes_on(r, Side::Parent, l));
                    if copies.is_empty() && attrs == 0.0 {
                        add(
                            id_array(name, Some(nt())).unwrap_or(0.0),
                            id_array(name, nm()),
                            2,
                        );
                    } else {
                        let item = copy_bytes(facts, rel.child, copies) + attrs;
                        let head = 7.0 + name.len() as f64;
                        add(
                            head + nt() * (ELEMENT + item),
                            nm().map(|n| head + n * (ELEMENT + item)),
                            3,
                        );
                    }
                }
                // The usual parent holds all its children; none more than
                // the threshold.
                Layout::Outlier { threshold } => {
                    let item = facts.own_bytes[rel.child.index()] + 5.0;
                    let head = 7.0 + name.len() as f64;
                    add(
                        head + nt().min(*threshold as f64) * (ELEMENT + item),
                        Some(head + *threshold as f64 * (ELEMENT + item)),
                        3,
                    );
                }
                Layout::Subset { k, fields, .. } => {
                    let item = if fields.is_empty() {
                        facts.own_bytes[rel.child.index()] + 5.0
                    } else {
                        copy_bytes(facts, rel.child, fields)
                    };
                    let head = 7.0 + name.len() as f64;
                    let kt = nt().min(*k as f64);
                    add(
                        head + kt * (ELEMENT + item),
                        Some(head + *k as f64 * (ELEMENT + item)),
                        3,
                    );
                }
                _ => {}
            }
        }
        for r in facts.rels_to[e.index()].iter().copied() {
            let rel = model.relationship(r);
            let name = rel.child_field.as_str();
            let mt = || Some(facts.typical_parents(r));
            let mm = || rel.parents.max.finite().map(|m| m as f64);
            match self.layouts[r.index()] {
                // The tenant's id the bucket holds once for all its
                // children (`Model::bucket_tenant`): none in the element.
                Layout::ParentReference
                    if matches!(self.home[e.index()], Home::Bucketed { rel: b }
                        if model.bucket_tenant(b) == Some(r)) => {}
                Layout::ParentReference
                | Layout::TwoWayReferences
                | Layout::Subset { .. }
                | Layout::Outlier { .. } => {
                    if rel.kind == RelationshipKind::ManyToMany || rel.shared {
                        add(id_array(name, mt()).unwrap_or(0.0), id_array(name, mm()), 2);
                    } else {
                        add(id_element(name), Some(id_element(name)), 1);
                    }
                }
                // One parent: its id with copies of its fields.
                Layout::ExtendedReference {
                    copies_into: Side::Child,
                    fields,
                } if rel.one_parent() => {
                    let b = 2.0 + name.len() as f64 + copy_bytes(facts, rel.parent, fields);
                    add(b, Some(b), 2);
                }
                // Several parents: an array of their ids, as in the parent.
                l @ (Layout::ManyToManyTwoWay
                | Layout::ManyToManyOneWay { .. }
                | Layout::ExtendedReference { .. }
                | Layout::TwoWayExtendedReference { .. }) => {
                    let Some((_, Some(copies))) = l.many_sides() else {
                        continue;
                    };
                    let attrs = attribute_bytes(facts.attributes_on(r, Side::Child, l));
                    if copies.is_empty() && attrs == 0.0 {
                        add(id_array(name, mt()).unwrap_or(0.0), id_array(name, mm()), 2);
                    } else {
                        let item = copy_bytes(facts, rel.parent, copies) + attrs;
                        let head = 7.0 + name.len() as f64;
                        add(
                            head + facts.typical_parents(r) * (ELEMENT + item),
                            mm().map(|n| head + n * (ELEMENT + item)),
                            3,
                        );
                    }
                }
                // The parent's id, and the path from the root: ids with
                // copies, the node itself last.
                Layout::TreePath { fields } => {
                    let h = model.tree_height(r);
                    let item = copy_bytes(facts, rel.parent, fields);
                    let head = id_element(name) + 7.0 + model.tree_path_field(r).len() as f64;
                    add(
                        head + h * (ELEMENT + item),
                        rel.levels.map(|l| head + f64::from(l) * (ELEMENT + item)),
                        3,
                    );
                }
                // The parent's id, and the ids of the parent's path.
                Layout::PathReference => {
                    let tree = model.tree_of(rel.parent);
                    let h = tree.map_or(1.0, |t| model.tree_height(t));
                    let levels = tree.and_then(|t| model.relationship(t).levels);
                    let path = model.path_reference_field(r);
                    add(
                        id_element(name) + id_array(&path, Some(h)).unwrap_or(0.0),
                        levels.and_then(|l| {
                            id_array(&path, Some(f64::from(l))).map(|b| id_element(name) + b)
                        }),
                        2,
                    );
                }
                Layout::EmbedParentInChild => {
                    let (pt, pm, pd) = (
                        self.typical[rel.parent.index()],
                        self.max[rel.parent.index()],
                        self.depth[rel.parent.index()],
                    );
                    add(
                        2.0 + name.len() as f64 + pt,
                        pm.map(|p| 2.0 + name.len() as f64 + p),
                        1 + pd,
                    );
                }
                _ => {}
            }
        }
        for &i in &self.computed {
            if let EntityCandidate::Computed {
                relationship,
                name,
                count,
                ..
            } = &space.entity[i]
                && model.relationship(*relationship).parent == e
            {
                let b = 2.0 + name.len() as f64 + 8.0;
                add(b, Some(b), 1);
                // An average's count beside its sum.
                if let Some(c) = count {
                    let b = 2.0 + c.len() as f64 + 8.0;
                    add(b, Some(b), 1);
                }
            }
        }
        if let Some(i) = self.poly[e.index()]
            && let EntityCandidate::Polymorphic { discriminator, .. } = &space.entity[i]
        {
            let b =
                2.0 + discriminator.len() as f64 + 5.0 + model.entity(e).name.len() as f64 + 1.0;
            add(b, Some(b), 1);
        }
        self.typical[e.index()] = typical;
        self.max[e.index()] = max;
        // Past the limit, how far past makes no difference (such a document
        // does not fit): capped there, a depth stops changing up a deep
        // chain of embeds, and so does the re-sizing above a change (`apply`).
        self.depth[e.index()] =
            depth.min(facts.settings.design.max_nesting_depth.saturating_add(1));
    }

    /// The entity whose top-level documents hold `e`'s instances.
    pub fn root(&self, e: EntityId) -> EntityId {
        self.roots[e.index()]
    }

    /// Dotted path of `e` inside its root document ("" at top level).
    pub fn path(&self, facts: &Facts<'_>, e: EntityId) -> String {
        // Borrowed parts: the planner asks for paths on every step it costs.
        let mut parts: Vec<&str> = Vec::new();
        let mut cur = e;
        while let Home::Embedded { rel, host, .. } = self.home[cur.index()] {
            let relationship = facts.model.relationship(rel);
            parts.push(if relationship.child == cur {
                &relationship.parent_field
            } else {
                &relationship.child_field
            });
            cur = host;
        }
        if let Home::Bucketed { rel } = self.home[cur.index()] {
            parts.push(&facts.model.relationship(rel).parent_field);
        }
        parts.reverse();
        parts.join(".")
    }

    /// How many instances of `e` one root document holds, typically.
    pub fn per_root(&self, _facts: &Facts<'_>, e: EntityId) -> f64 {
        self.per_root[e.index()]
    }

    /// `per_root`, walked up from `e` (once per entity, when the placement is
    /// built).
    fn walk_per_root(&self, facts: &Facts<'_>, e: EntityId) -> f64 {
        let mut n = 1.0;
        let mut cur = e;
        while let Home::Embedded { rel, host, array } = self.home[cur.index()] {
            if array {
                n *= facts.typical(rel);
            }
            cur = host;
        }
        if let Home::Bucketed { rel } = self.home[cur.index()] {
            n *= self.bucket_items(facts, rel);
        }
        n
    }

    /// Children per bucket document of a bucketed relationship.
    pub fn bucket_items(&self, facts: &Facts<'_>, rel: RelationshipId) -> f64 {
        match self.layouts[rel.index()] {
            Layout::Bucket { per_bucket, .. } => {
                (*per_bucket as f64).min(facts.typical(rel)).max(1.0)
            }
            _ => 1.0,
        }
    }

    /// Bytes one `$push` into an open bucket of `rel` costs the disk.
    /// WiredTiger journals only the change (the item and the figures), and
    /// writes the whole document again at each checkpoint while it keeps
    /// changing, every 60 seconds (MongoDB manual, WiredTiger storage
    /// engine): a bucket filled within a minute is rewritten about once,
    /// shared by all its pushes; one filled over an hour about once per push.
    pub fn bucket_push_bytes(&self, facts: &Facts<'_>, rel: RelationshipId) -> f64 {
        let child = facts.model.relationship(rel).child;
        let items = self.bucket_items(facts, rel);
        let whole = self.bucket_bytes(facts, rel);
        let item = ELEMENT + self.typical[child.index()];
        let parents = facts.count(facts.model.relationship(rel).parent).max(1.0);
        let per_parent = facts.rel(rel).child_inserts / parents;
        let open_seconds = if per_parent > 0.0 {
            items / per_parent
        } else {
            f64::INFINITY
        };
        let rewrites = (open_seconds / CHECKPOINT_SECONDS).max(1.0).min(items);
        item + (whole - items * item) + rewrites * (whole / 2.0) / items
    }

    /// Bytes one `$push` of `n` children at once (a batch's chunk) into
    /// an open bucket of `rel` costs the disk: the children and the
    /// figures journalled once, and the checkpoints' rewrites of the whole
    /// bucket shared by the pushes that fill it (`items / n` of them, as
    /// `bucket_push_bytes` shares them by its children). One child is
    /// `bucket_push_bytes`.
    pub fn bucket_batch_push_bytes(&self, facts: &Facts<'_>, rel: RelationshipId, n: f64) -> f64 {
        let child = facts.model.relationship(rel).child;
        let items = self.bucket_items(facts, rel);
        let whole = self.bucket_bytes(facts, rel);
        let item = ELEMENT + self.typical[child.index()];
        let parents = facts.count(facts.model.relationship(rel).parent).max(1.0);
        let per_parent = facts.rel(rel).child_inserts / parents;
        let open_seconds = if per_parent > 0.0 {
            items / per_parent
        } else {
            f64::INFINITY
        };
        let pushes = (items / n.max(1.0)).max(1.0);
        let rewrites = (open_seconds / CHECKPOINT_SECONDS).max(1.0).min(pushes);
        n.min(items) * item + (whole - items * item) + rewrites * (whole / 2.0) / pushes
    }

    /// Typical bytes of one bucket document of `rel`.
    pub fn bucket_bytes(&self, facts: &Facts<'_>, rel: RelationshipId) -> f64 {
        let child = facts.model.relationship(rel).child;
        let aggs = match self.layouts[rel.index()] {
            Layout::Bucket { aggregates, .. } => aggregates.len() as f64,
            _ => 0.0,
        };
        // The tenant's id, once for the bucket's children (`Model::bucket_tenant`).
        let tenant = facts.model.bucket_tenant(rel).map_or(0.0, |t| {
            id_element(&facts.model.relationship(t).child_field)
        });
        5.0 + 17.0
            + 20.0
            + 16.0
            + 14.0
            + tenant
            + aggs * 20.0
            + self.bucket_items(facts, rel) * (ELEMENT + self.typical[child.index()])
    }

    /// Typical bytes of the top-level document that holds `e`.
    pub fn root_bytes(&self, facts: &Facts<'_>, e: EntityId) -> f64 {
        let root = self.root(e);
        match self.home[root.index()] {
            Home::Bucketed { rel } => self.bucket_bytes(facts, rel),
            _ => self.typical[root.index()],
        }
    }

    /// Name of the collection that holds `e`.
    pub fn collection(&self, facts: &Facts<'_>, space: &Space, e: EntityId) -> String {
        let root = self.root(e);
        if let Home::Bucketed { rel } = self.home[root.index()] {
            let model = facts.model;
            let r = model.relationship(rel);
            return format!("{}_{}", model.entity(r.parent).name, r.parent_field);
        }
        if let Some(i) = self.poly[root.index()]
            && let EntityCandidate::Polymorphic { collection, .. } = &space.entity[i]
        {
            return collection.clone();
        }
        facts.model.entity(root).name.clone()
    }

    /// The bucket documents of `rel` that hold `children` of its
    /// children, when a bucket keeps `fill` of its size (a count bucket
    /// thinned by deletes is never filled again: the planner's
    /// `bucket_fill`, 1 for full buckets). The collection's figures
    /// (`documents`) and the plans that read or delete all a parent's
    /// buckets count them here, so the two cannot disagree (issue 41).
    pub fn buckets_holding(
        &self,
        facts: &Facts<'_>,
        rel: RelationshipId,
        children: f64,
        fill: f64,
    ) -> f64 {
        children / (self.bucket_items(facts, rel) * fill).max(1.0)
    }

    /// Number of top-level documents in the collection that holds `e`;
    /// `fill` is the share of their size the buckets of a bucketed `e`
    /// keep (`buckets_holding`), ignored otherwise.
    pub fn documents(&self, facts: &Facts<'_>, e: EntityId, fill: f64) -> f64 {
        let root = self.root(e);
        match self.home[root.index()] {
            Home::Bucketed { rel } => {
                let parents = facts.count(facts.model.relationship(rel).parent);
                self.buckets_holding(facts, rel, facts.count(root), fill)
                    .ceil()
                    .max(parents.min(facts.count(root)))
            }
            // Only the outliers' children beyond the threshold live apart.
            Home::Own => {
                let overflow = facts.rels_to[root.index()].iter().find_map(|&r| {
                    match self.layouts[r.index()] {
                        Layout::Outlier { threshold } => Some(
                            facts
                                .model
                                .relationship(r)
                                .children
                                .items_share_above(*threshold)
                                .unwrap_or(1.0),
                        ),
                        _ => None,
                    }
                });
                facts.count(root) * overflow.unwrap_or(1.0)
            }
            _ => facts.count(root),
        }
    }
}

/// Bytes of a link's attributes kept next to one id.
fn attribute_bytes<'f>(attributes: impl Iterator<Item = &'f crate::model::Field>) -> f64 {
    attributes.map(|a| a.element_bytes() as f64).sum()
}

/// Bytes of a sub-document holding `_id` and copies of `fields` of `entity`.
pub fn copy_bytes(facts: &Facts<'_>, entity: EntityId, fields: &[String]) -> f64 {
    let e = facts.model.entity(entity);
    5.0 + 17.0
        + fields
            .iter()
            .map(|f| match e.field(f) {
                Some(f) => f.element_bytes() as f64,
                // A copy of the entity's own reference to a parent: an id.
                None => 2.0 + f.len() as f64 + 12.0,
            })
            .sum::<f64>()
}

#[cfg(test)]
mod tests;
