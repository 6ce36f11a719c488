//! One candidate field's values over every document of a collection, kept
//! small: each document holds the rank of its value among the field's
//! distinct values (a `u32`), and each distinct value is kept once, in key
//! order. The shard-key metrics need only that: equal values have equal
//! ranks, and ranks order as the values do, so a key's frequencies are
//! counts of ranks and its index order a counting sort of them
//! (`characteristics`). A field with few values (a tenant, a city) costs 4
//! bytes a document instead of a value each, with a string on the heap
//! each; sorting ranks compares integers, not values (BENCHMARKS.md,
//! "scan --shard-keys: where the time and memory went").

use super::value::KeyValue;
use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// A field's column once read: ranks per document, distinct values sorted.
#[derive(Debug, Clone, Default)]
pub struct Column {
    /// Per document in record order, the rank of its value in `values`.
    pub ranks: Vec<u32>,
    /// The distinct values, in the order MongoDB sorts index keys.
    pub values: Vec<KeyValue>,
}

impl Column {
    /// The value of document `i`.
    pub fn value(&self, i: usize) -> Option<&KeyValue> {
        self.ranks.get(i).and_then(|&r| self.values.get(r as usize))
    }

    /// Appends `other`'s documents after this column's: the two sets of
    /// distinct values merged in order, each side's ranks renumbered.
    pub fn append(&mut self, other: Column) {
        if self.ranks.is_empty() && self.values.is_empty() {
            *self = other;
            return;
        }
        let mut values = Vec::with_capacity(self.values.len().max(other.values.len()));
        let mut mine = Vec::with_capacity(self.values.len());
        let mut theirs = Vec::with_capacity(other.values.len());
        let mut a = std::mem::take(&mut self.values).into_iter().peekable();
        let mut b = other.values.into_iter().peekable();
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.cmp(y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => break,
            };
            let rank = values.len() as u32;
            match next {
                std::cmp::Ordering::Less => {
                    mine.push(rank);
                    values.extend(a.next());
                }
                std::cmp::Ordering::Greater => {
                    theirs.push(rank);
                    values.extend(b.next());
                }
                std::cmp::Ordering::Equal => {
                    mine.push(rank);
                    theirs.push(rank);
                    values.extend(a.next());
                    b.next();
                }
            }
        }
        for r in &mut self.ranks {
            *r = mine[*r as usize];
        }
        self.ranks
            .extend(other.ranks.iter().map(|&r| theirs[r as usize]));
        self.values = values;
    }
}

/// A column being read: each new value gets the next id, a value seen
/// before gets its id again; `finish` turns ids into ranks.
#[derive(Default)]
pub struct Interner {
    ids: Vec<u32>,
    values: Vec<KeyValue>,
    /// Ids, found by the hash of the value they stand for.
    table: HashTable<u32>,
}

fn hash(value: &KeyValue) -> u64 {
    let mut h = FxHasher::default();
    value.hash(&mut h);
    h.finish()
}

impl Interner {
    /// Adds one document's value.
    pub fn push(&mut self, value: KeyValue) {
        let h = hash(&value);
        let values = &self.values;
        let id = match self.table.find(h, |&id| values[id as usize] == value) {
            Some(&id) => id,
            None => {
                let id = self.values.len() as u32;
                let values = &self.values;
                self.table
                    .insert_unique(h, id, |&id| hash(&values[id as usize]));
                self.values.push(value);
                id
            }
        };
        self.ids.push(id);
    }

    /// The column: the distinct values sorted, each id replaced by its
    /// value's rank among them.
    pub fn finish(self) -> Column {
        let Interner {
            mut ids,
            values,
            table,
        } = self;
        drop(table);
        let mut order: Vec<u32> = (0..values.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| values[a as usize].cmp(&values[b as usize]));
        let mut rank_of = vec![0u32; values.len()];
        for (rank, &id) in order.iter().enumerate() {
            rank_of[id as usize] = rank as u32;
        }
        for id in &mut ids {
            *id = rank_of[*id as usize];
        }
        drop(rank_of);
        let mut slots: Vec<Option<KeyValue>> = values.into_iter().map(Some).collect();
        let values = order
            .iter()
            .filter_map(|&id| slots[id as usize].take())
            .collect();
        Column { ranks: ids, values }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(values: &[KeyValue]) -> Column {
        let mut i = Interner::default();
        for v in values {
            i.push(v.clone());
        }
        i.finish()
    }

    fn s(t: &str) -> KeyValue {
        KeyValue::String(t.as_bytes().into())
    }

    #[test]
    fn equal_values_share_a_rank_and_ranks_follow_the_key_order() {
        let c = column(&[
            s("b"),
            KeyValue::Number(2.0),
            s("a"),
            s("b"),
            KeyValue::Null,
            KeyValue::Number(2.0),
        ]);
        assert_eq!(c.ranks, [3, 1, 2, 3, 0, 1]);
        assert_eq!(
            c.values,
            [KeyValue::Null, KeyValue::Number(2.0), s("a"), s("b")]
        );
        assert_eq!(c.value(0), Some(&s("b")));
    }

    #[test]
    fn appending_merges_the_values_and_renumbers_both_sides() {
        let mut a = column(&[s("m"), s("c"), s("m")]);
        let b = column(&[s("z"), s("c"), s("a")]);
        a.append(b);
        assert_eq!(a.values, [s("a"), s("c"), s("m"), s("z")]);
        assert_eq!(a.ranks, [2, 1, 2, 3, 1, 0]);
        let mut empty = Column::default();
        empty.append(a.clone());
        assert_eq!(empty.ranks, a.ranks);
    }
}
