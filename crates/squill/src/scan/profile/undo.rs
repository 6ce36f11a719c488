//! Taking back a rejected document. The walker validates as it visits, so a
//! document found malformed half-way (nested too deep, a bad string, a wrong
//! length) has already counted its first values. Validating every document
//! before profiling it would cost about half of scan's time (the walk alone is
//! that share); rejections are rare, so instead the same bytes are walked again
//! up to the same error, and each visit is taken back. Arrays' lengths are
//! recorded only when a document is whole, so they need no undoing.

use super::{CollectionProfile, NO_NODE, UNTRACKED, type_slot};
use crate::inputs::bson::{Container, ElementType, Scalar, Visitor, walk};
use crate::scan::fingerprint;

/// Undoes what the rejected document `doc` (the last one added) counted;
/// `nodes_before` is the number of fields known before it.
pub(super) fn take_back(p: &mut CollectionProfile, doc: &[u8], nodes_before: u32) {
    let mut undo = Undo {
        gen_now: p.documents,
        nodes_before,
        p,
        stack: Vec::new(),
        cur: (0, Container::Document),
        arrays_open: 0,
        arrays: Vec::new(),
    };
    // The same walk fails at the same place; its error was reported already.
    let _ = walk(doc, &mut undo);
    // Array stats the document created on a field that had none (the walk
    // may have stopped inside the array, before leaving it).
    for node in std::mem::take(&mut undo.arrays) {
        let n = &mut p.nodes[node as usize];
        if n.array
            .as_deref()
            .is_some_and(|a| a.lengths.count() == 0 && a.element_types.iter().all(|&t| t == 0))
        {
            n.array = None;
        }
    }
    drop_new_nodes(p, nodes_before);
}

struct Undo<'p> {
    p: &'p mut CollectionProfile,
    gen_now: u64,
    nodes_before: u32,
    stack: Vec<(u32, Container)>,
    cur: (u32, Container),
    arrays_open: u32,
    /// The arrays entered on fields that existed before.
    arrays: Vec<u32>,
}

impl Undo<'_> {
    /// Whether `node` existed before the document (new ones are dropped whole).
    fn kept(&self, node: u32) -> bool {
        node != UNTRACKED && node < self.nodes_before
    }

    /// The inverse of `DocVisitor::value`.
    fn value(&mut self, key: &str, slot: usize, bytes: u32) -> u32 {
        let (parent, kind) = self.cur;
        if kind == Container::Array {
            if self.kept(parent)
                && let Some(a) = self.p.nodes[parent as usize].array.as_deref_mut()
            {
                a.element_types[slot] = a.element_types[slot].saturating_sub(1);
            }
            return parent;
        }
        let node = self.find(parent, key);
        if node == UNTRACKED {
            self.p.untracked = self.p.untracked.saturating_sub(1);
            return node;
        }
        if !self.kept(node) {
            return node;
        }
        let gen_now = self.gen_now;
        let n = &mut self.p.nodes[node as usize];
        if n.doc_gen == gen_now {
            n.docs_present = n.docs_present.saturating_sub(1);
            // Any generation but this one and the next: counted once more
            // by the next document that has the field.
            n.doc_gen = gen_now.wrapping_sub(1);
        }
        n.types[slot] = n.types[slot].saturating_sub(1);
        n.value_bytes = n.value_bytes.saturating_sub(u64::from(bytes));
        if n.types[slot] == 0 {
            n.type_examples.retain(|(s, _)| usize::from(*s) != slot);
        }
        node
    }

    /// The child `key` of `parent` as the forward walk found or made it.
    fn find(&self, parent: u32, key: &str) -> u32 {
        if parent == UNTRACKED {
            return UNTRACKED;
        }
        self.p.nodes[parent as usize]
            .children
            .iter()
            .copied()
            .find(|&c| self.p.nodes[c as usize].is_named(key.as_bytes()))
            .unwrap_or(UNTRACKED)
    }

    fn reference(&mut self, node: u32, fp: u64) {
        if !self.kept(node) {
            return;
        }
        let once = self.arrays_open == 0;
        let n = &mut self.p.nodes[node as usize];
        let Some(r) = n.refs.as_deref_mut() else {
            return;
        };
        if once {
            r.ones = r.ones.saturating_sub(1);
        } else if r.cur_gen == self.gen_now {
            r.cur_count = r.cur_count.saturating_sub(1);
        }
        r.sample.unpush(fp);
        // Started by this document: as if never started.
        if r.sample.offered == 0 && r.ones == 0 && r.cur_count == 0 && r.per_doc.count() == 0 {
            n.refs = None;
            self.p.reference_fields = self.p.reference_fields.saturating_sub(1);
        }
    }
}

impl Visitor for Undo<'_> {
    fn enter(&mut self, key: &str, container: Container, bytes: u32, depth: u32) {
        if depth == 0 {
            return;
        }
        let ty = match container {
            Container::Document => ElementType::Document,
            Container::Array => ElementType::Array,
        };
        let node = self.value(key, type_slot(ty), bytes);
        self.stack.push(self.cur);
        self.cur = (node, container);
        if container == Container::Array {
            self.arrays_open += 1;
            if self.kept(node) {
                self.arrays.push(node);
            }
        }
    }

    fn leave(&mut self, container: Container, _elements: u32, depth: u32) {
        self.cur = self.stack.pop().unwrap_or((UNTRACKED, Container::Document));
        if depth == 0 || container != Container::Array {
            return;
        }
        self.arrays_open -= 1;
    }

    fn scalar(&mut self, key: &str, value: Scalar<'_>, value_bytes: u32, depth: u32) {
        let node = self.value(key, type_slot(value.element_type()), value_bytes);
        let _ = depth;
        // The same choice as the profile's visitor made when it pushed.
        if matches!(value, Scalar::Double(_) | Scalar::Decimal128(_))
            && !(node != UNTRACKED && super::named_like_an_id(&self.p.nodes[node as usize].name))
        {
            return;
        }
        if let Some(fp) = fingerprint::of(&value) {
            self.reference(node, fp);
        }
    }
}

/// Removes the fields first seen in the rejected document, and mends the
/// rings of siblings they were part of.
fn drop_new_nodes(p: &mut CollectionProfile, nodes_before: u32) {
    if p.nodes.len() as u32 <= nodes_before {
        return;
    }
    let dropped_refs = p.nodes[nodes_before as usize..]
        .iter()
        .filter(|n| n.refs.is_some())
        .count();
    p.reference_fields = p.reference_fields.saturating_sub(dropped_refs);
    let parents: Vec<u32> = p.nodes[nodes_before as usize..]
        .iter()
        .map(|n| n.parent)
        .filter(|&parent| parent < nodes_before)
        .collect();
    p.nodes.truncate(nodes_before as usize);
    for parent in parents {
        let children = &mut p.nodes[parent as usize].children;
        children.retain(|&c| c < nodes_before);
        let first = children.first().copied();
        let last = children.last().copied();
        p.nodes[parent as usize].expect = first.unwrap_or(NO_NODE);
        if let (Some(first), Some(last)) = (first, last) {
            p.nodes[last as usize].next = first;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CollectionProfile, Limits};
    use crate::scan::testing::{B, doc, oid};

    fn deep(levels: usize) -> B<'static> {
        let mut v = B::I32(0);
        for _ in 0..levels {
            v = B::Doc(vec![("d", v)]);
        }
        v
    }

    fn valid(i: i32) -> Vec<u8> {
        doc(&[
            ("_id", B::I32(i)),
            ("owner", B::Oid(oid(i as u64 % 3))),
            ("tags", B::Arr(vec![B::Str("a"), B::I32(i)])),
        ])
    }

    fn profile(docs: &[Vec<u8>]) -> CollectionProfile {
        let mut p = CollectionProfile::new(Limits::default());
        for d in docs {
            let _ = p.add(d);
        }
        p.finish();
        p
    }

    #[test]
    fn a_document_rejected_half_way_counts_in_no_field() {
        // Known fields with other types, a new field, new references, an
        // array, and a new branch — then nesting one level past the limit.
        let rejected = doc(&[
            ("_id", B::Str("bad")),
            ("owner", B::Oid(oid(99))),
            ("tags", B::Arr(vec![B::Oid(oid(7)), B::Bool(true)])),
            (
                "extra",
                B::Doc(vec![("x", B::Oid(oid(5))), ("y", B::I32(1))]),
            ),
            ("deep", deep(101)),
        ]);
        let with = profile(&[valid(1), valid(2), rejected.clone(), valid(3)]);
        let without = profile(&[valid(1), valid(2), valid(3)]);
        assert_eq!(with.invalid_documents, 1);
        assert_eq!(with.summary(), without.summary());
        // And what follows is counted as before: the ring of siblings holds.
        let mut p = CollectionProfile::new(Limits::default());
        p.add(&valid(1)).unwrap();
        assert!(p.add(&rejected).is_err());
        p.add(&doc(&[("_id", B::I32(4)), ("extra", B::I32(1))]))
            .unwrap();
        p.finish();
        let extra = (0..p.nodes.len() as u32)
            .find(|&i| p.path(i) == "extra")
            .expect("extra from the valid document");
        assert_eq!(p.nodes[extra as usize].docs_present, 1);
        assert!(p.nodes[extra as usize].children.is_empty());
    }

    #[test]
    fn a_document_rejected_at_the_first_field_changes_nothing() {
        let mut bad = doc(&[("_id", B::I32(1)), ("s", B::Str("ok"))]);
        // The string's length now runs past the document.
        let at = bad.len() - 8;
        bad[at] = 0x7f;
        let with = profile(&[valid(1), bad]);
        let without = profile(&[valid(1)]);
        assert_eq!(with.summary(), without.summary());
    }
}
