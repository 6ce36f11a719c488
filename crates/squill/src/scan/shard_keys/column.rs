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

use super::code;
use super::value::KeyValue;
use crate::inputs::bson::Scalar;
use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// A field's column once read: ranks per document, distinct values sorted.
#[derive(Debug, Clone, Default)]
pub struct Column {
    /// Per document in record order, the rank of its value among the
    /// distinct values.
    pub ranks: Vec<u32>,
    /// The distinct values, in the order MongoDB sorts index keys.
    values: Values,
}

/// The distinct values of a column: as ObjectIds' 12 bytes when every
/// one is an ObjectId and they came in rising order (an `_id`: 4 bytes a
/// document less than its code), as codes when every one has a code
/// (`code`), else as values.
#[derive(Debug, Clone)]
enum Values {
    ObjectIds(Vec<[u8; 12]>),
    Codes(Vec<u128>),
    General(Vec<KeyValue>),
}

impl Default for Values {
    fn default() -> Self {
        Values::Codes(Vec::new())
    }
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::ObjectIds(b) => b.len(),
            Values::Codes(c) => c.len(),
            Values::General(v) => v.len(),
        }
    }

    fn into_general(self) -> Vec<KeyValue> {
        match self {
            Values::ObjectIds(b) => b.into_iter().map(KeyValue::ObjectId).collect(),
            Values::Codes(c) => c.into_iter().map(code::value).collect(),
            Values::General(v) => v,
        }
    }

    /// As codes, when every value has one.
    fn into_codes(self) -> Result<Vec<u128>, Values> {
        match self {
            Values::ObjectIds(b) => Ok(b.iter().map(code::object_id).collect()),
            Values::Codes(c) => Ok(c),
            general => Err(general),
        }
    }
}

impl Column {
    /// How many distinct values the field has.
    pub fn distinct(&self) -> usize {
        self.values.len()
    }

    /// The distinct value of rank `rank`.
    pub fn distinct_value(&self, rank: usize) -> Option<KeyValue> {
        match &self.values {
            Values::ObjectIds(b) => b.get(rank).map(|&b| KeyValue::ObjectId(b)),
            Values::Codes(c) => c.get(rank).map(|&c| code::value(c)),
            Values::General(v) => v.get(rank).cloned(),
        }
    }

    /// The value of document `i`.
    pub fn value(&self, i: usize) -> Option<KeyValue> {
        self.distinct_value(*self.ranks.get(i)? as usize)
    }

    /// Appends `other`'s documents after this column's: the two sets of
    /// distinct values merged in order, each side's ranks renumbered.
    pub fn append(&mut self, other: Column) {
        if self.ranks.is_empty() && self.values.len() == 0 {
            *self = other;
            return;
        }
        let (mine, theirs) = match (std::mem::take(&mut self.values), other.values) {
            (Values::ObjectIds(a), Values::ObjectIds(b)) => {
                let (values, mine, theirs) = merge(a, b);
                self.values = Values::ObjectIds(values);
                (mine, theirs)
            }
            (a, b) => match (a.into_codes(), b.into_codes()) {
                (Ok(a), Ok(b)) => {
                    let (values, mine, theirs) = merge(a, b);
                    self.values = Values::Codes(values);
                    (mine, theirs)
                }
                (a, b) => {
                    let general = |v: Result<Vec<u128>, Values>| match v {
                        Ok(c) => Values::Codes(c).into_general(),
                        Err(v) => v.into_general(),
                    };
                    let (values, mine, theirs) = merge(general(a), general(b));
                    self.values = Values::General(values);
                    (mine, theirs)
                }
            },
        };
        for r in &mut self.ranks {
            *r = mine[*r as usize];
        }
        self.ranks
            .extend(other.ranks.iter().map(|&r| theirs[r as usize]));
    }
}

/// Two sorted lists of distinct values merged into one, and where each
/// side's values went in it.
fn merge<T: Ord>(a: Vec<T>, b: Vec<T>) -> (Vec<T>, Vec<u32>, Vec<u32>) {
    let mut values = Vec::with_capacity(a.len().max(b.len()));
    let mut mine = Vec::with_capacity(a.len());
    let mut theirs = Vec::with_capacity(b.len());
    let mut a = a.into_iter().peekable();
    let mut b = b.into_iter().peekable();
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
    (values, mine, theirs)
}

/// A column being read: each new value gets the next id, a value seen
/// before gets its id again; `finish` turns ids into ranks.
#[derive(Default)]
pub struct Interner {
    ids: Vec<u32>,
    seen: Seen,
}

/// The distinct values read so far, by id.
enum Seen {
    /// ObjectIds, each greater than the one before: `Rising`, in 12 bytes
    /// a value instead of 16.
    RisingObjectIds(Vec<[u8; 12]>),
    /// Codes, each greater than the one before (an ObjectId `_id` in
    /// insertion order): all distinct and already sorted, so no table is
    /// needed and ids are ranks.
    Rising(Vec<u128>),
    /// Codes in any order, found by their hash.
    Codes {
        codes: Vec<u128>,
        table: HashTable<u32>,
    },
    /// Values, once one had no code.
    General {
        values: Vec<KeyValue>,
        table: HashTable<u32>,
    },
}

impl Default for Seen {
    fn default() -> Self {
        Seen::RisingObjectIds(Vec::new())
    }
}

fn hash<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut h = FxHasher::default();
    value.hash(&mut h);
    h.finish()
}

/// The id of `value` in `values`, added when it is new.
fn intern<T: Hash + Eq>(values: &mut Vec<T>, table: &mut HashTable<u32>, value: T) -> u32 {
    let h = hash(&value);
    if let Some(&id) = table.find(h, |&id| values[id as usize] == value) {
        return id;
    }
    let id = values.len() as u32;
    table.insert_unique(h, id, |&id| hash(&values[id as usize]));
    values.push(value);
    id
}

fn table_of<T: Hash>(values: &[T]) -> HashTable<u32> {
    let mut table = HashTable::with_capacity(values.len());
    for (id, v) in values.iter().enumerate() {
        table.insert_unique(hash(v), id as u32, |&id| hash(&values[id as usize]));
    }
    table
}

impl Interner {
    /// Adds one document's value.
    pub fn push(&mut self, value: KeyValue) {
        match code::of(&value) {
            Some(c) => self.push_code(c),
            None => self.push_general(value),
        }
    }

    /// Adds one document's value, read from its scalar.
    pub fn push_scalar(&mut self, scalar: &Scalar<'_>) {
        match code::of_scalar(scalar) {
            Some(c) => self.push_code(c),
            None => self.push_general(KeyValue::of(scalar)),
        }
    }

    fn push_code(&mut self, c: u128) {
        let id = match &mut self.seen {
            Seen::RisingObjectIds(ids) => match code::object_id_bytes(c) {
                Some(b) if ids.last().is_none_or(|last| *last < b) => {
                    ids.push(b);
                    ids.len() as u32 - 1
                }
                _ => {
                    let codes = ids.iter().map(code::object_id).collect();
                    self.seen = Seen::Rising(codes);
                    return self.push_code(c);
                }
            },
            Seen::Rising(codes) if codes.last().is_none_or(|&last| last < c) => {
                codes.push(c);
                codes.len() as u32 - 1
            }
            Seen::Rising(codes) => {
                let codes = std::mem::take(codes);
                let table = table_of(&codes);
                self.seen = Seen::Codes { codes, table };
                return self.push_code(c);
            }
            Seen::Codes { codes, table } => intern(codes, table, c),
            Seen::General { .. } => return self.push_general(code::value(c)),
        };
        self.ids.push(id);
    }

    fn push_general(&mut self, value: KeyValue) {
        let id = match &mut self.seen {
            Seen::General { values, table } => intern(values, table, value),
            Seen::RisingObjectIds(ids) => {
                let values: Vec<KeyValue> = ids.iter().map(|&b| KeyValue::ObjectId(b)).collect();
                let table = table_of(&values);
                self.seen = Seen::General { values, table };
                return self.push_general(value);
            }
            Seen::Rising(codes) | Seen::Codes { codes, .. } => {
                let values: Vec<KeyValue> =
                    std::mem::take(codes).into_iter().map(code::value).collect();
                let table = table_of(&values);
                self.seen = Seen::General { values, table };
                return self.push_general(value);
            }
        };
        self.ids.push(id);
    }

    /// The column: the distinct values sorted, each id replaced by its
    /// value's rank among them.
    pub fn finish(self) -> Column {
        let Interner { mut ids, seen } = self;
        match seen {
            Seen::RisingObjectIds(b) => Column {
                ranks: ids,
                values: Values::ObjectIds(b),
            },
            Seen::Rising(codes) => Column {
                ranks: ids,
                values: Values::Codes(codes),
            },
            Seen::Codes { codes, table } => {
                drop(table);
                let (rank_of, sorted) = ranks_of(codes);
                for id in &mut ids {
                    *id = rank_of[*id as usize];
                }
                Column {
                    ranks: ids,
                    values: Values::Codes(sorted),
                }
            }
            Seen::General { values, table } => {
                drop(table);
                let (rank_of, sorted) = ranks_of(values);
                for id in &mut ids {
                    *id = rank_of[*id as usize];
                }
                Column {
                    ranks: ids,
                    values: Values::General(sorted),
                }
            }
        }
    }
}

/// Distinct values sorted, and each id's rank among them.
fn ranks_of<T: Ord>(values: Vec<T>) -> (Vec<u32>, Vec<T>) {
    let mut order: Vec<u32> = (0..values.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| values[a as usize].cmp(&values[b as usize]));
    let mut rank_of = vec![0u32; values.len()];
    for (rank, &id) in order.iter().enumerate() {
        rank_of[id as usize] = rank as u32;
    }
    let mut slots: Vec<Option<T>> = values.into_iter().map(Some).collect();
    let sorted = order
        .iter()
        .filter_map(|&id| slots[id as usize].take())
        .collect();
    (rank_of, sorted)
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

    fn distinct(c: &Column) -> Vec<KeyValue> {
        (0..c.distinct())
            .filter_map(|r| c.distinct_value(r))
            .collect()
    }

    fn s(t: &str) -> KeyValue {
        KeyValue::String(t.as_bytes().into())
    }

    /// The column as the definition has it: the distinct values sorted,
    /// each document's rank found among them.
    fn reference(values: &[KeyValue]) -> (Vec<u32>, Vec<KeyValue>) {
        let mut sorted = values.to_vec();
        sorted.sort();
        sorted.dedup();
        let ranks = values
            .iter()
            .map(|v| sorted.binary_search(v).unwrap() as u32)
            .collect();
        (ranks, sorted)
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
            distinct(&c),
            [KeyValue::Null, KeyValue::Number(2.0), s("a"), s("b")]
        );
        assert_eq!(c.value(0), Some(s("b")));
    }

    /// Rising codes, codes in any order, and values without a code (a
    /// long string, binary data) each give the column the definition does,
    /// whichever comes first.
    #[test]
    fn every_way_of_keeping_values_gives_the_same_column() {
        let long = s("a string longer than fourteen bytes");
        let bin = KeyValue::Binary(0, vec![1, 2].into());
        let oid = |i: u8| KeyValue::ObjectId([0, 0, 0, i, 0, 0, 0, 0, 0, 0, 0, 0]);
        let cases: Vec<Vec<KeyValue>> = vec![
            vec![oid(1), oid(2), oid(3)],
            vec![oid(1), oid(3), oid(2), oid(3), oid(1)],
            vec![oid(1), oid(2), long.clone(), oid(2), s("a"), long.clone()],
            vec![
                bin.clone(),
                KeyValue::Number(1.0),
                bin,
                KeyValue::Number(-0.0),
            ],
            vec![
                KeyValue::Number(0.0),
                KeyValue::Number(-0.0),
                KeyValue::Null,
            ],
            vec![s("b"), s("a"), s("a"), s("b\0"), long],
        ];
        for case in cases {
            let c = column(&case);
            let (ranks, sorted) = reference(&case);
            assert_eq!(c.ranks, ranks, "{case:?}");
            assert_eq!(distinct(&c), sorted, "{case:?}");
        }
    }

    #[test]
    fn appending_merges_the_values_and_renumbers_both_sides() {
        let long = s("a string longer than fourteen bytes");
        let mut a = column(&[s("m"), s("c"), s("m")]);
        let b = column(&[s("z"), s("c"), s("a")]);
        a.append(b);
        assert_eq!(distinct(&a), [s("a"), s("c"), s("m"), s("z")]);
        assert_eq!(a.ranks, [2, 1, 2, 3, 1, 0]);
        let mut empty = Column::default();
        empty.append(a.clone());
        assert_eq!(empty.ranks, a.ranks);
        // Codes on one side, values on the other.
        let mut coded = column(&[s("m"), s("c")]);
        coded.append(column(&[long.clone(), s("c")]));
        assert_eq!(distinct(&coded), [long.clone(), s("c"), s("m")]);
        assert_eq!(coded.ranks, [2, 1, 0, 1]);
    }

    /// Rising ObjectIds are kept as their 12 bytes, and appended to
    /// ObjectIds, codes or values they give the column the definition
    /// gives for all the documents together.
    #[test]
    fn rising_object_ids_keep_their_bytes_and_append_as_values_do() {
        let oid = |i: u8| KeyValue::ObjectId([0, 0, 0, i, 0, 0, 0, 0, 0, 0, 0, 9]);
        let long = s("a string longer than fourteen bytes");
        let rising = vec![oid(1), oid(4), oid(6)];
        assert!(matches!(column(&rising).values, Values::ObjectIds(_)));
        let others: Vec<Vec<KeyValue>> = vec![
            vec![oid(2), oid(5), oid(7)],
            vec![oid(6), oid(3)],
            vec![KeyValue::Number(1.0), oid(4), s("a")],
            vec![long.clone(), oid(1)],
        ];
        for other in others {
            for (first, second) in [(&rising, &other), (&other, &rising)] {
                let mut joined = column(first);
                joined.append(column(second));
                let all: Vec<KeyValue> = first.iter().chain(second).cloned().collect();
                let (ranks, sorted) = reference(&all);
                assert_eq!(joined.ranks, ranks, "{all:?}");
                assert_eq!(distinct(&joined), sorted, "{all:?}");
            }
        }
    }
}
