//! The per-collection profile: what one pass over the documents accumulates,
//! in memory bounded by `Limits` whatever the number of documents.
//!
//! The field tree follows MongoDB's dot notation: the fields of documents inside
//! an array `a` are children of `a` (`a.b`), and an array's elements are counted
//! on the array's own node. The walker calls the `Visitor` methods; the hot path
//! is a child lookup that tries the next sibling first (documents of one
//! collection tend to keep their field order) and plain counter updates.

pub mod density;
pub mod geo;
mod undo;

use super::fingerprint::{self, Sample};
use super::histogram::Histogram;
use super::id_value::IdValue;
use crate::inputs::bson::{
    BsonError, Container, ElementType, KeyCache, Scalar, Visitor, same_bytes, walk, walk_cached,
};

/// Bounds on what a profile keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Distinct field paths tracked per collection; further paths are counted
    /// as untracked and the report says the tree was capped.
    pub max_paths: usize,
    /// Fields per collection whose values are fingerprinted as possible references.
    pub max_reference_fields: usize,
    /// Fingerprints kept exactly per reference field before sampling.
    pub reference_sample: usize,
    /// Fingerprints kept exactly for the top-level `_id` before sampling.
    pub id_sample: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_paths: 2_000,
            max_reference_fields: 64,
            reference_sample: 1 << 13,
            id_sample: 1 << 16,
        }
    }
}

/// Number of type slots: BSON types 0x01..=0x13, then MaxKey and MinKey.
pub const TYPE_SLOTS: usize = 22;

#[inline]
pub fn type_slot(t: ElementType) -> usize {
    match t {
        ElementType::MaxKey => 20,
        ElementType::MinKey => 21,
        other => other as usize,
    }
}

pub fn slot_type(slot: usize) -> Option<ElementType> {
    match slot {
        20 => Some(ElementType::MaxKey),
        21 => Some(ElementType::MinKey),
        s => ElementType::from_byte(u8::try_from(s).ok()?),
    }
}

const UNTRACKED: u32 = u32::MAX;

#[derive(Debug, Clone, Default)]
pub struct ArrayStats {
    pub lengths: Histogram,
    pub element_types: [u64; TYPE_SLOTS],
    /// The `_id` of the document holding the longest array.
    pub longest_example: Option<IdValue>,
}

#[derive(Debug, Clone)]
pub struct RefStats {
    pub sample: Sample,
    /// Candidate values per document, where the field is present.
    pub per_doc: Histogram,
    cur_gen: u64,
    cur_count: u64,
    /// Documents with exactly one value, not yet in `per_doc`: most reference
    /// fields are scalars, and an add is cheaper than a histogram record.
    ones: u64,
}

impl RefStats {
    #[inline]
    fn flush(&mut self) {
        match self.cur_count {
            0 => {}
            1 => self.ones += 1,
            n => self.per_doc.record(n),
        }
        self.cur_count = 0;
    }

    /// Moves everything counted into `per_doc`.
    fn finish(&mut self) {
        self.flush();
        self.per_doc.record_n(1, self.ones);
        self.ones = 0;
    }
}

/// No node (a field without children expects none).
const NO_NODE: u32 = u32::MAX - 1;

/// A field of the tree. What every value reads and writes comes first and fits
/// in one cache line: the name's first 16 bytes (most names fit, so matching
/// a key rarely follows a pointer), the child expected next, the sibling
/// after this one, and the per-document counters.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct FieldNode {
    short: [u8; 16],
    name_len: u32,
    /// The child to try first: the sibling after the last child matched
    /// (documents of one collection tend to keep their field order).
    expect: u32,
    /// The sibling after this one in the parent's order, wrapping to the
    /// first (the next document, or array element, starts over).
    next: u32,
    pub parent: u32,
    doc_gen: u64,
    /// Documents in which the field occurs at least once.
    pub docs_present: u64,
    /// Sum of the encoded sizes of the values (not counting array elements).
    pub value_bytes: u64,
    /// Values by type (for arrays' elements see `array`).
    pub types: [u64; TYPE_SLOTS],
    pub name: Box<str>,
    pub children: Vec<u32>,
    pub array: Option<Box<ArrayStats>>,
    pub refs: Option<Box<RefStats>>,
    /// The `_id` of the first document seen with each type.
    pub type_examples: Vec<(u8, IdValue)>,
    /// For a sub-document with a `coordinates` field: what its values were
    /// as GeoJSON (`geo`).
    pub geo: Option<Box<geo::GeoStats>>,
    /// The earliest and the latest of the field's dates (milliseconds
    /// since the epoch), outside arrays: whether an expiry-like date lies
    /// ahead of the collection's other dates (rule `expiry-without-ttl`).
    pub dates: Option<DateRange>,
}

/// The earliest and the latest date a field held, in milliseconds since
/// the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateRange {
    pub min: i64,
    pub max: i64,
}

impl DateRange {
    fn with(range: Option<Self>, ms: i64) -> Self {
        match range {
            Some(r) => DateRange {
                min: r.min.min(ms),
                max: r.max.max(ms),
            },
            None => DateRange { min: ms, max: ms },
        }
    }

    fn merge(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(a), Some(b)) => Some(DateRange {
                min: a.min.min(b.min),
                max: a.max.max(b.max),
            }),
            (x, None) | (None, x) => x,
        }
    }
}

impl FieldNode {
    fn new(name: &str, parent: u32) -> Self {
        let mut short = [0u8; 16];
        let n = name.len().min(16);
        short[..n].copy_from_slice(&name.as_bytes()[..n]);
        FieldNode {
            short,
            name_len: u32::try_from(name.len()).unwrap_or(u32::MAX),
            expect: NO_NODE,
            next: NO_NODE,
            name: name.into(),
            parent,
            children: Vec::new(),
            types: [0; TYPE_SLOTS],
            docs_present: 0,
            doc_gen: 0,
            value_bytes: 0,
            array: None,
            refs: None,
            type_examples: Vec::new(),
            geo: None,
            dates: None,
        }
    }

    /// Whether the field's name is `key`.
    #[inline]
    fn is_named(&self, key: &[u8]) -> bool {
        if key.len() != self.name_len as usize {
            return false;
        }
        match self.short.get(..key.len()) {
            Some(short) => same_bytes(short, key),
            None => same_bytes(self.name.as_bytes(), key),
        }
    }

    pub fn occurrences(&self) -> u64 {
        self.types.iter().sum()
    }
}

/// Everything measured about one collection.
#[derive(Debug, Clone)]
pub struct CollectionProfile {
    pub limits: Limits,
    pub documents: u64,
    /// Documents the walker rejected (counted in `documents` too; the report's
    /// input errors say where).
    pub invalid_documents: u64,
    pub sizes: Histogram,
    pub depths: Histogram,
    /// Bytes of field names (with their NUL) in documents, array indexes excluded.
    pub name_bytes: u64,
    pub largest_example: Option<IdValue>,
    pub deepest_example: Option<IdValue>,
    /// Node 0 is the document itself.
    pub nodes: Vec<FieldNode>,
    /// Field occurrences not tracked because `max_paths` was reached.
    pub untracked: u64,
    reference_fields: usize,
    /// The visitor's stack, kept between documents so `add` does not allocate.
    stack: Vec<(u32, Container)>,
    /// Lengths of the arrays of the document being walked, recorded when the
    /// document is whole (a rejected document records none); kept like `stack`.
    lengths: Vec<(u32, u32)>,
    /// The buffer of the last string `_id`, reused so such an `_id` does not
    /// allocate per document.
    spare_id: String,
    /// Sub-documents that may be GeoJSON (they have a `coordinates`
    /// field), with their paths: checked after each document (`geo`).
    geo_candidates: Vec<(u32, Vec<Box<str>>)>,
    /// Paths an index of the metadata makes places (a `2dsphere` or `2d`
    /// key): their legacy `[longitude, latitude]` pairs are counted
    /// after each document (`geo::record_pair`).
    pair_paths: Vec<Vec<Box<str>>>,
}

impl CollectionProfile {
    pub fn new(limits: Limits) -> Self {
        CollectionProfile {
            limits,
            documents: 0,
            invalid_documents: 0,
            sizes: Histogram::default(),
            depths: Histogram::default(),
            name_bytes: 0,
            largest_example: None,
            deepest_example: None,
            nodes: vec![FieldNode::new("", 0)],
            untracked: 0,
            reference_fields: 0,
            stack: Vec::new(),
            lengths: Vec::new(),
            spare_id: String::new(),
            geo_candidates: Vec::new(),
            pair_paths: Vec::new(),
        }
    }

    /// Counts legacy coordinate pairs at `paths` (dotted), the keys an
    /// index of the metadata makes places.
    #[must_use]
    pub fn with_pair_paths<'a>(mut self, paths: impl IntoIterator<Item = &'a str>) -> Self {
        self.pair_paths = paths
            .into_iter()
            .map(|p| p.split('.').map(Box::from).collect())
            .collect();
        self
    }

    /// What a report reads of the profile, a line per field: two profiles
    /// of the same documents have the same summary (tests and fuzzing
    /// compare them).
    #[doc(hidden)]
    pub fn summary(&self) -> Vec<String> {
        let mut out = vec![format!(
            "fields {} untracked {} reference fields {} sizes {:?} depths {:?} names {}",
            self.nodes.len(),
            self.untracked,
            self.reference_fields,
            self.sizes.distribution(),
            self.depths.distribution(),
            self.name_bytes
        )];
        for (i, n) in self.nodes.iter().enumerate() {
            out.push(format!(
                "{} present {} types {:?} bytes {} array {:?} refs {:?} examples {:?}",
                self.path(i as u32),
                n.docs_present,
                n.types,
                n.value_bytes,
                n.array
                    .as_deref()
                    .map(|a| (a.lengths.distribution(), a.element_types)),
                n.refs
                    .as_deref()
                    .map(|r| (r.sample.offered, r.per_doc.distribution())),
                n.type_examples
            ));
            if let Some(g) = &n.geo {
                out.push(format!("{} geo {g:?}", self.path(i as u32)));
            }
        }
        out
    }

    pub fn is_capped(&self) -> bool {
        self.untracked > 0
    }

    /// Measures one document (exactly its bytes).
    pub fn add(&mut self, doc: &[u8]) -> Result<(), BsonError> {
        self.add_with(doc, |d, v| walk(d, v))
    }

    /// `add` with the walker's key cache kept by the caller across documents.
    pub fn add_cached(&mut self, doc: &[u8], keys: &mut KeyCache) -> Result<(), BsonError> {
        self.add_with(doc, |d, v| walk_cached(d, v, keys))
    }

    fn add_with(
        &mut self,
        doc: &[u8],
        walker: impl FnOnce(&[u8], &mut DocVisitor<'_>) -> Result<(), BsonError>,
    ) -> Result<(), BsonError> {
        self.documents += 1;
        let nodes_before = self.nodes.len() as u32;
        let stack = std::mem::take(&mut self.stack);
        let mut lengths = std::mem::take(&mut self.lengths);
        lengths.clear();
        let mut v = DocVisitor {
            p: self,
            stack,
            lengths,
            cur: (0, Container::Document),
            arrays_open: 0,
            id: None,
            name_bytes: 0,
            max_depth: 0,
            size: 0,
        };
        let result = walker(doc, &mut v);
        let (stack, lengths, id) = (v.stack, v.lengths, v.id);
        self.stack = stack;
        self.lengths = lengths;
        if let Some(IdValue::String(s)) = id {
            self.spare_id = s;
        }
        if result.is_err() {
            self.invalid_documents += 1;
            // What the walker visited before it gave up is taken back: a
            // rejected document counts in no field.
            undo::take_back(self, doc, nodes_before);
        } else if !self.geo_candidates.is_empty() || !self.pair_paths.is_empty() {
            self.record_geo(doc);
        }
        result
    }

    /// Checks each GeoJSON candidate's value in `doc` (walked cleanly).
    #[cold]
    fn record_geo(&mut self, doc: &[u8]) {
        for (node, path) in &self.geo_candidates {
            let stats = self.nodes[*node as usize]
                .geo
                .get_or_insert_with(Default::default);
            geo::record(doc, path, stats);
        }
        for path in &self.pair_paths {
            let Some(node) = node_at(&self.nodes, path) else {
                continue;
            };
            let stats = self.nodes[node as usize]
                .geo
                .get_or_insert_with(Default::default);
            geo::record_pair(doc, path, stats);
        }
    }

    /// Flushes per-document counters; call after the last `add`, before a
    /// `merge` (it is idempotent).
    pub fn flush(&mut self) {
        for node in &mut self.nodes {
            if let Some(r) = &mut node.refs {
                r.finish();
            }
        }
    }

    /// Flushes, and sorts the reference samples for the analysis; call after
    /// the last `add` and `merge`.
    pub fn finish(&mut self) {
        for node in &mut self.nodes {
            if let Some(r) = &mut node.refs {
                r.finish();
                r.sample.sort();
            }
        }
    }

    /// The dotted path of node `i`.
    pub fn path(&self, mut i: u32) -> String {
        let mut parts = Vec::new();
        while i != 0 {
            let n = &self.nodes[i as usize];
            parts.push(&*n.name);
            i = n.parent;
        }
        parts.reverse();
        parts.join(".")
    }

    /// Depth of node `i` in the tree (top-level fields are 1).
    pub fn level(&self, mut i: u32) -> u32 {
        let mut level = 0;
        while i != 0 {
            level += 1;
            i = self.nodes[i as usize].parent;
        }
        level
    }

    /// Whether a node lies inside an array (some ancestor is an array).
    pub fn under_array(&self, i: u32) -> bool {
        let mut i = self.nodes[i as usize].parent;
        while i != 0 {
            if self.nodes[i as usize].array.is_some() {
                return true;
            }
            i = self.nodes[i as usize].parent;
        }
        false
    }

    #[inline]
    fn child(&mut self, parent: u32, key: &str) -> u32 {
        if parent == UNTRACKED {
            self.untracked += 1;
            return UNTRACKED;
        }
        let c = self.nodes[parent as usize].expect;
        if let Some(n) = self.nodes.get(c as usize)
            && n.is_named(key.as_bytes())
        {
            let next = n.next;
            self.nodes[parent as usize].expect = next;
            return c;
        }
        self.child_slow(parent, key)
    }

    #[cold]
    fn child_slow(&mut self, parent: u32, key: &str) -> u32 {
        let p = parent as usize;
        let found = self.nodes[p]
            .children
            .iter()
            .copied()
            .find(|&c| self.nodes[c as usize].is_named(key.as_bytes()));
        if let Some(c) = found {
            self.nodes[p].expect = self.nodes[c as usize].next;
            return c;
        }
        if self.nodes.len() >= self.limits.max_paths {
            self.untracked += 1;
            return UNTRACKED;
        }
        let id = self.nodes.len() as u32;
        let mut node = FieldNode::new(key, parent);
        // Close the ring of siblings: last -> new -> first.
        let first = self.nodes[p].children.first().copied().unwrap_or(id);
        node.next = first;
        if let Some(&last) = self.nodes[p].children.last() {
            self.nodes[last as usize].next = id;
        }
        self.nodes.push(node);
        self.nodes[p].children.push(id);
        self.nodes[p].expect = first;
        if key == "coordinates" {
            self.geo_candidate(parent);
        }
        id
    }

    /// Marks `node` as a sub-document that may be GeoJSON, or an array
    /// of them (a store's several locations), unless it is the document
    /// itself or lies in an array (deeper arrays are not followed).
    #[cold]
    fn geo_candidate(&mut self, node: u32) {
        if node == 0
            || self.under_array(node)
            || self.geo_candidates.iter().any(|(n, _)| *n == node)
        {
            return;
        }
        let mut path = Vec::new();
        let mut i = node;
        while i != 0 {
            path.push(self.nodes[i as usize].name.clone());
            i = self.nodes[i as usize].parent;
        }
        path.reverse();
        self.geo_candidates.push((node, path));
    }

    /// Starts tracking the values of `node` as possible keys or references;
    /// false when the cap on such fields is reached (the `_id` always is).
    #[cold]
    fn start_refs(&mut self, node: u32, top_level_id: bool) -> bool {
        let limits = self.limits;
        if !top_level_id && self.reference_fields >= limits.max_reference_fields {
            return false;
        }
        self.reference_fields += 1;
        let cap = if top_level_id {
            limits.id_sample
        } else {
            limits.reference_sample
        };
        self.nodes[node as usize].refs = Some(Box::new(RefStats {
            sample: Sample::new(cap),
            per_doc: Histogram::default(),
            cur_gen: self.documents,
            cur_count: 0,
            ones: 0,
        }));
        true
    }

    /// Merges `other` (a profile of other documents of the same collection).
    pub fn merge(&mut self, other: &CollectionProfile) {
        self.documents += other.documents;
        self.invalid_documents += other.invalid_documents;
        // Ties keep the earlier document, so the result does not depend on timing.
        if other.largest_example.is_some()
            && (self.largest_example.is_none() || other.sizes.max() > self.sizes.max())
        {
            self.largest_example.clone_from(&other.largest_example);
        }
        if other.deepest_example.is_some()
            && (self.deepest_example.is_none() || other.depths.max() > self.depths.max())
        {
            self.deepest_example.clone_from(&other.deepest_example);
        }
        self.sizes.merge(&other.sizes);
        self.depths.merge(&other.depths);
        self.name_bytes += other.name_bytes;
        self.untracked += other.untracked;
        self.merge_node(0, other, 0);
    }

    fn merge_node(&mut self, mine: u32, other: &CollectionProfile, theirs: u32) {
        let o = &other.nodes[theirs as usize];
        {
            let m = &mut self.nodes[mine as usize];
            for (a, b) in m.types.iter_mut().zip(&o.types) {
                *a += b;
            }
            m.docs_present += o.docs_present;
            m.value_bytes += o.value_bytes;
            m.dates = DateRange::merge(m.dates, o.dates);
            for (t, ex) in &o.type_examples {
                if !m.type_examples.iter().any(|(mt, _)| mt == t) {
                    m.type_examples.push((*t, ex.clone()));
                }
            }
            match (&mut m.array, &o.array) {
                (Some(a), Some(b)) => {
                    if b.lengths.max() > a.lengths.max() {
                        a.longest_example.clone_from(&b.longest_example);
                    }
                    a.lengths.merge(&b.lengths);
                    for (x, y) in a.element_types.iter_mut().zip(&b.element_types) {
                        *x += y;
                    }
                }
                (None, Some(b)) => m.array = Some(b.clone()),
                _ => {}
            }
            match (&mut m.geo, &o.geo) {
                (Some(a), Some(b)) => a.merge(b),
                (None, Some(b)) => m.geo = Some(b.clone()),
                _ => {}
            }
            match (&mut m.refs, &o.refs) {
                (Some(a), Some(b)) => {
                    a.sample.merge(&b.sample);
                    a.per_doc.merge(&b.per_doc);
                    a.ones += b.ones;
                }
                (None, Some(b)) => {
                    m.refs = Some(b.clone());
                    self.reference_fields += 1;
                }
                _ => {}
            }
        }
        for &child in &o.children {
            let name = &other.nodes[child as usize].name;
            let mine_child = self.child(mine, name);
            if mine_child == UNTRACKED {
                self.untracked += other.nodes[child as usize].occurrences();
                continue;
            }
            self.merge_node(mine_child, other, child);
        }
    }
}

struct DocVisitor<'p> {
    p: &'p mut CollectionProfile,
    /// The open containers above `cur`.
    stack: Vec<(u32, Container)>,
    /// Arrays closed so far: their node and length.
    lengths: Vec<(u32, u32)>,
    /// The innermost open container: its node and kind.
    cur: (u32, Container),
    /// Open arrays: while none is, a field occurs once in a document.
    arrays_open: u32,
    id: Option<IdValue>,
    name_bytes: u64,
    max_depth: u32,
    size: u32,
}

impl DocVisitor<'_> {
    /// Counts a value of type `slot` (`bytes` long) with `key` in the current
    /// container, and returns the node it lands on: a field's own node, or for
    /// an array element the array's node (whose `array` stats count it).
    #[inline(always)]
    fn value(&mut self, key: &str, slot: usize, bytes: u32) -> u32 {
        let (parent, kind) = self.cur;
        if kind == Container::Array {
            if parent != UNTRACKED {
                let n = &mut self.p.nodes[parent as usize];
                n.array.get_or_insert_with(Default::default).element_types[slot] += 1;
            }
            return parent;
        }
        self.name_bytes += key.len() as u64 + 1;
        let node = self.p.child(parent, key);
        if node == UNTRACKED {
            return node;
        }
        let gen_now = self.p.documents;
        let n = &mut self.p.nodes[node as usize];
        if n.doc_gen != gen_now {
            n.doc_gen = gen_now;
            n.docs_present += 1;
        }
        if n.types[slot] == 0
            && let Some(id) = &self.id
        {
            n.type_examples.push((slot as u8, id.clone()));
        }
        n.types[slot] += 1;
        n.value_bytes += u64::from(bytes);
        node
    }

    #[inline]
    fn reference(&mut self, node: u32, fp: u64, top_level_id: bool) {
        let once = self.arrays_open == 0;
        if node == UNTRACKED {
            return;
        }
        let gen_now = self.p.documents;
        if self.p.nodes[node as usize].refs.is_none() && !self.p.start_refs(node, top_level_id) {
            return;
        }
        let Some(r) = self.p.nodes[node as usize].refs.as_deref_mut() else {
            return;
        };
        if once {
            // Outside arrays a field has one value per document.
            r.ones += 1;
        } else {
            if r.cur_gen != gen_now {
                r.flush();
                r.cur_gen = gen_now;
            }
            r.cur_count += 1;
        }
        r.sample.push(fp);
    }
}

impl Visitor for DocVisitor<'_> {
    #[inline]
    fn enter(&mut self, key: &str, container: Container, bytes: u32, depth: u32) {
        if depth == 0 {
            self.size = bytes;
            self.stack.clear();
            self.cur = (0, Container::Document);
            return;
        }
        self.max_depth = self.max_depth.max(depth);
        let ty = match container {
            Container::Document => ElementType::Document,
            Container::Array => ElementType::Array,
        };
        let node = self.value(key, type_slot(ty), bytes);
        self.stack.push(self.cur);
        self.cur = (node, container);
        if container == Container::Array {
            self.arrays_open += 1;
        }
    }

    #[inline]
    fn leave(&mut self, container: Container, elements: u32, depth: u32) {
        let node = self.cur.0;
        self.cur = self.stack.pop().unwrap_or((UNTRACKED, Container::Document));
        if depth == 0 {
            let p = &mut *self.p;
            let size = u64::from(self.size);
            if p.largest_example.is_none() || size > p.sizes.max() {
                p.largest_example.clone_from(&self.id);
            }
            p.sizes.record(size);
            let depth = u64::from(self.max_depth);
            if p.deepest_example.is_none() || depth > p.depths.max() {
                p.deepest_example.clone_from(&self.id);
            }
            p.depths.record(depth);
            p.name_bytes += self.name_bytes;
            for &(node, len) in &self.lengths {
                let a = p.nodes[node as usize]
                    .array
                    .get_or_insert_with(Default::default);
                let len = u64::from(len);
                if a.longest_example.is_none() || len > a.lengths.max() {
                    a.longest_example.clone_from(&self.id);
                }
                a.lengths.record(len);
            }
            return;
        }
        if container != Container::Array {
            return;
        }
        self.arrays_open -= 1;
        if node != UNTRACKED {
            self.lengths.push((node, elements));
        }
    }

    #[inline]
    fn scalar(&mut self, key: &str, value: Scalar<'_>, value_bytes: u32, depth: u32) {
        let top_level_id = depth == 1 && key == "_id";
        if top_level_id {
            self.id = Some(match value {
                Scalar::String(v) => {
                    let mut s = std::mem::take(&mut self.p.spare_id);
                    s.clear();
                    s.push_str(v.as_str());
                    IdValue::String(s)
                }
                ref other => IdValue::from_scalar(other),
            });
        }
        let node = self.value(key, type_slot(value.element_type()), value_bytes);
        // Only a date outside every array: one in an array's
        // sub-documents (`sessions: [{expires_at}]`) is not the document's
        // own, and a TTL index on it would delete the whole parent when the
        // first element expires.
        if let Scalar::DateTime(ms) = value
            && node != UNTRACKED
            && self.arrays_open == 0
        {
            let n = &mut self.p.nodes[node as usize];
            n.dates = Some(DateRange::with(n.dates, ms));
        }
        // Doubles and decimals are mostly measures (prices, scores): only a
        // field named like an id is fingerprinted, so they do not use up the
        // cap on reference fields before the real references are seen.
        if matches!(value, Scalar::Double(_) | Scalar::Decimal128(_))
            && !(node != UNTRACKED && named_like_an_id(&self.p.nodes[node as usize].name))
        {
            return;
        }
        if let Some(fp) = fingerprint::of(&value) {
            self.reference(node, fp, top_level_id);
        }
    }
}

/// `_id`, `customerId`, `author_ids`: a name that ends in `id` or `ids`.
pub(super) fn named_like_an_id(name: &str) -> bool {
    let n = name.as_bytes();
    let ends = |suffix: &[u8]| {
        n.len() >= suffix.len() && n[n.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    };
    ends(b"id") || ends(b"ids")
}

/// The node of the dotted `path` (by names from the document), if the
/// walker has seen it.
fn node_at(nodes: &[FieldNode], path: &[Box<str>]) -> Option<u32> {
    let mut at = 0u32;
    for name in path {
        at = nodes[at as usize]
            .children
            .iter()
            .copied()
            .find(|&c| nodes[c as usize].name == *name)?;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{B, doc};
    use super::*;

    fn profile(docs: &[Vec<u8>]) -> CollectionProfile {
        let mut p = CollectionProfile::new(Limits::default());
        for d in docs {
            p.add(d).unwrap();
        }
        p.finish();
        p
    }

    fn node<'a>(p: &'a CollectionProfile, path: &str) -> &'a FieldNode {
        let i = (0..p.nodes.len() as u32)
            .find(|&i| p.path(i) == path)
            .unwrap_or_else(|| panic!("no {path}"));
        &p.nodes[i as usize]
    }

    /// A date field's earliest and latest value, also across profiles
    /// merged from several threads; a date inside an array is not counted
    /// (an array of dates is no one date of the document).
    #[test]
    fn keeps_the_date_range_of_a_field() {
        let day = 86_400_000;
        let p = profile(&[
            doc(&[("_id", B::I32(1)), ("expires_at", B::Date(3 * day))]),
            doc(&[("_id", B::I32(2)), ("expires_at", B::Date(day))]),
            doc(&[("_id", B::I32(3)), ("seen", B::Arr(vec![B::Date(9 * day)]))]),
        ]);
        assert_eq!(
            node(&p, "expires_at").dates,
            Some(DateRange {
                min: day,
                max: 3 * day
            })
        );
        assert_eq!(node(&p, "seen").dates, None);
        let mut q = profile(&[doc(&[("_id", B::I32(4)), ("expires_at", B::Date(7 * day))])]);
        q.merge(&p);
        assert_eq!(
            node(&q, "expires_at").dates,
            Some(DateRange {
                min: day,
                max: 7 * day
            })
        );
    }

    #[test]
    fn counts_fields_types_presence_and_arrays() {
        let docs = vec![
            doc(&[
                ("_id", B::I32(1)),
                ("tags", B::Arr(vec![B::Str("a"), B::Str("b")])),
                (
                    "items",
                    B::Arr(vec![
                        B::Doc(vec![("sku", B::Str("x"))]),
                        B::Doc(vec![("sku", B::I32(3))]),
                    ]),
                ),
            ]),
            doc(&[("_id", B::I32(2)), ("tags", B::Arr(vec![]))]),
            doc(&[("_id", B::I32(3)), ("tags", B::Str("solo"))]),
        ];
        let p = profile(&docs);
        assert_eq!(p.documents, 3);
        let tags = node(&p, "tags");
        assert_eq!(tags.docs_present, 3);
        assert_eq!(tags.types[type_slot(ElementType::Array)], 2);
        assert_eq!(tags.types[type_slot(ElementType::String)], 1);
        let a = tags.array.as_ref().unwrap();
        assert_eq!(a.lengths.max(), 2);
        assert_eq!(a.element_types[type_slot(ElementType::String)], 2);
        assert_eq!(a.longest_example, Some(IdValue::Int32(1)));
        let sku = node(&p, "items.sku");
        assert_eq!(sku.docs_present, 1, "present in one document, twice");
        assert_eq!(sku.occurrences(), 2);
        assert_eq!(p.depths.max(), 2);
        // field names: _id tags items sku sku, and _id tags twice
        assert_eq!(p.name_bytes, (4 + 5 + 6 + 4 + 4) + (4 + 5) + (4 + 5));
    }

    #[test]
    fn path_cap_is_reported_not_exceeded() {
        let limits = Limits {
            max_paths: 3,
            ..Limits::default()
        };
        let mut p = CollectionProfile::new(limits);
        p.add(&doc(&[
            ("a", B::I32(1)),
            ("b", B::I32(1)),
            ("c", B::I32(1)),
        ]))
        .unwrap();
        assert_eq!(p.nodes.len(), 3);
        assert_eq!(p.untracked, 1);
    }

    #[test]
    fn merging_halves_equals_one_pass() {
        let docs: Vec<Vec<u8>> = (0..100)
            .map(|i| {
                doc(&[
                    ("_id", B::I32(i)),
                    ("v", B::Arr((0..i % 7).map(B::I32).collect())),
                ])
            })
            .collect();
        let whole = profile(&docs);
        let mut a = profile(&docs[..40]);
        a.merge(&profile(&docs[40..]));
        assert_eq!(a.documents, whole.documents);
        assert_eq!(a.sizes, whole.sizes);
        let (x, y) = (node(&a, "v"), node(&whole, "v"));
        assert_eq!(
            x.array.as_ref().unwrap().lengths,
            y.array.as_ref().unwrap().lengths
        );
        assert_eq!(
            x.refs.as_ref().unwrap().per_doc,
            y.refs.as_ref().unwrap().per_doc
        );
    }
}
