//! The query cookbook: every operation of the workload under the chosen
//! design, as a mongosh function, a Python (pymongo) function and a Node.js
//! (official driver) function, with the index each find uses, the documents an
//! `updateMany` touches, and the atomicity the design keeps or gives up.
//! `PLAN` at the end of the Python module lists each operation's parameters
//! (collection, field path, kind) and steps, for tools and tests that call it.

mod amount;
#[cfg(test)]
mod batch_tests;
mod code;
mod compensate;
mod one_update;
mod pipeline;
mod plan;
mod recover;
mod render;
mod same;
mod timeline;
mod together;
mod upsert;

pub use code::{OpCode, Param, ParamKind, StepCode};
pub use plan::op_code;
pub use render::{
    format_count, mongosh as mongosh_function, node as node_function, python as python_function,
};

use crate::design::{Action, Design};
use crate::words::markdown as md;
use crate::words::script::{self, comment};
use serde_json::json;

/// Two operations whose names differ only by punctuation (`get-user`,
/// `get user`) would get one function name, and the second would replace the
/// first: each function name is unique, the later ones numbered (`_2`, `_3`,
/// in the design's order of operations) with a warning that says so.
pub fn op_codes(design: &Design) -> Vec<OpCode> {
    let mut ops: Vec<OpCode> = design
        .operations
        .iter()
        .map(|p| op_code(design, p))
        .collect();
    let mut taken: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for op in &mut ops {
        if let Some(first) = taken.get(&op.function) {
            let base = op.function.clone();
            let mut n = 2;
            while taken.contains_key(&format!("{base}_{n}")) {
                n += 1;
            }
            op.function = format!("{base}_{n}");
            op.warnings.insert(
                0,
                format!(
                    "this function is `{}`: `{base}` is the function of operation `{first}`, whose name differs from this one's only by punctuation",
                    op.function
                ),
            );
        }
        taken.insert(op.function.clone(), op.name.clone());
    }
    ops
}

/// The JavaScript helper both the mongosh and the Node.js cookbooks start with:
/// values at `path` in `docs`, through arrays; embedded objects give their `_id`.
const JS_IDS_HELPER: &str = "// Values at `path` in `docs`, through arrays; embedded objects give their `_id`.\n\
     function ids(docs, path) {\n\
     \x20 const out = [];\n\
     \x20 const walk = (v, parts) => {\n\
     \x20   if (v === undefined || v === null) return;\n\
     \x20   if (Array.isArray(v)) { v.forEach((x) => walk(x, parts)); return; }\n\
     \x20   if (parts.length === 0) { out.push(typeof v === \"object\" && v._id !== undefined ? v._id : v); return; }\n\
     \x20   walk(v[parts[0]], parts.slice(1));\n\
     \x20 };\n\
     \x20 docs.forEach((d) => walk(d, path.split(\".\")));\n\
     \x20 return out;\n\
     }\n";

/// The JavaScript helper for a bulk write: the objects at `path` in `docs`
/// (through arrays; `""`: the documents), each holding an id and its amounts.
const JS_ELEMS_HELPER: &str = "\n// The objects at `path` in `docs`, through arrays (\"\": the documents themselves).\n\
     function elems(docs, path) {\n\
     \x20 const out = [];\n\
     \x20 const walk = (v, parts) => {\n\
     \x20   if (v === undefined || v === null) return;\n\
     \x20   if (Array.isArray(v)) { v.forEach((x) => walk(x, parts)); return; }\n\
     \x20   if (parts.length === 0) { out.push(v); return; }\n\
     \x20   walk(v[parts[0]], parts.slice(1));\n\
     \x20 };\n\
     \x20 docs.forEach((d) => walk(d, path === \"\" ? [] : path.split(\".\")));\n\
     \x20 return out;\n\
     }\n";

/// The Python helper for a bulk write (see `JS_ELEMS_HELPER`).
const PY_ELEMS_HELPER: &str = "\n\nfrom pymongo import UpdateOne  # noqa: E402 (only the bulk writes need it)\n\n\ndef _elems(docs, path):\n\
     \x20   \"\"\"The objects at `path` in `docs`, through arrays (\"\": the documents themselves).\"\"\"\n\
     \x20   out = []\n\n\
     \x20   def walk(v, parts):\n\
     \x20       if v is None:\n\
     \x20           return\n\
     \x20       if isinstance(v, list):\n\
     \x20           for x in v:\n\
     \x20               walk(x, parts)\n\
     \x20           return\n\
     \x20       if not parts:\n\
     \x20           out.append(v)\n\
     \x20           return\n\
     \x20       if isinstance(v, dict):\n\
     \x20           walk(v.get(parts[0]), parts[1:])\n\n\
     \x20   for d in docs:\n\
     \x20       walk(d, path.split(\".\") if path else [])\n\
     \x20   return out\n";

/// The JavaScript helper for a bulk write on every parent a delete
/// touched: one object per distinct id at `path` in `docs`, its group of
/// `groups` (by `_id`), or only the id where none (the parent has no child
/// left). Ids compare by their Extended JSON text: an ObjectId is an object.
const JS_TOUCHED_HELPER: &str = "\n// One object per distinct id at `path` in `docs`: the object of `groups` with that `_id`,\n\
     // or only the `_id` where `groups` has none (a parent left with no child).\n\
     function touched(docs, path, groups) {\n\
     \x20 const key = (v) => JSON.stringify(v);\n\
     \x20 const byId = new Map(groups.map((g) => [key(g._id), g]));\n\
     \x20 const out = new Map();\n\
     \x20 ids(docs, path).forEach((v) => { if (!out.has(key(v))) out.set(key(v), byId.get(key(v)) ?? { _id: v }); });\n\
     \x20 return [...out.values()];\n\
     }\n";

/// The Python helper of `JS_TOUCHED_HELPER`.
const PY_TOUCHED_HELPER: &str = "\n\n\
     def _touched(docs, path, groups):\n\
     \x20   \"\"\"One object per distinct id at `path` in `docs`: the object of `groups` with that\n\
     \x20   `_id`, or only the `_id` where `groups` has none (a parent left with no child).\"\"\"\n\
     \x20   by_id = {repr(g[\"_id\"]): g for g in groups}\n\
     \x20   out = {}\n\
     \x20   for v in _ids(docs, path):\n\
     \x20       out.setdefault(repr(v), by_id.get(repr(v), {\"_id\": v}))\n\
     \x20   return list(out.values())\n";

/// Whether a bulk write sets a figure on every parent a delete touched.
fn touches_parents(ops: &[OpCode]) -> bool {
    ops.iter()
        .flat_map(|o| &o.steps)
        .filter_map(|s| s.each.as_ref())
        .any(|e| matches!(e.source, code::EachSource::Touched { .. }))
}

/// Whether a step moves a figure over a subset of children (`_share`).
fn subset_figures(ops: &[OpCode]) -> bool {
    ops.iter()
        .flat_map(|o| &o.steps)
        .flat_map(|s| &s.updates)
        .any(|u| {
            matches!(
                u,
                code::Update::Inc(
                    _,
                    code::Expr::Share { .. } | code::Expr::Shares { .. } | code::Expr::Moved { .. }
                )
            )
        })
}

/// The JavaScript helpers of a figure over a subset of children
/// (`count(tickets where status = open)`): whether a child is in it, what
/// it adds, and what an update moves it by.
const JS_SUBSET_HELPER: &str = "\n// Whether `doc` is in a figure's subset: its `field` passes `test` against `value`\n\
     // (a missing field passes only `$ne`, as on the server).\n\
     function meets(doc, field, test, value) {\n\
     \x20 const v = doc[field];\n\
     \x20 if (v === undefined || v === null) return test === \"$ne\";\n\
     \x20 const a = typeof v === \"object\" && v.valueOf ? v.valueOf() : v;\n\
     \x20 switch (test) {\n\
     \x20   case \"$eq\": return a === value;\n\
     \x20   case \"$ne\": return a !== value;\n\
     \x20   case \"$gt\": return a > value;\n\
     \x20   case \"$gte\": return a >= value;\n\
     \x20   case \"$lt\": return a < value;\n\
     \x20   default: return a <= value;\n\
     \x20 }\n\
     }\n\
     // What `doc` adds to a figure over a subset: 0 outside it, else 1 (a count) or its `amount`.\n\
     function share(doc, field, test, value, amount) {\n\
     \x20 if (!doc || !meets(doc, field, test, value)) return 0;\n\
     \x20 return amount === null ? 1 : Number(doc[amount] ?? 0);\n\
     }\n\
     // What an update moves such a figure by: each child's share with `changes` applied,\n\
     // less its share as it was (`before`, the child as the update returned it).\n\
     function moved(before, changes, field, test, value, amount) {\n\
     \x20 return before.reduce((s, d) => s + share({ ...d, ...changes }, field, test, value, amount) - share(d, field, test, value, amount), 0);\n\
     }\n";

/// The Python helpers of `JS_SUBSET_HELPER`.
const PY_SUBSET_HELPER: &str = "\n\n\
     def _meets(doc, field, test, value):\n\
     \x20   \"\"\"Whether `doc` is in a figure's subset: its `field` passes `test` against `value`\n\
     \x20   (a missing field passes only `$ne`, as on the server).\"\"\"\n\
     \x20   v = doc.get(field)\n\
     \x20   if v is None:\n\
     \x20       return test == \"$ne\"\n\
     \x20   if test == \"$eq\":\n\
     \x20       return v == value\n\
     \x20   if test == \"$ne\":\n\
     \x20       return v != value\n\
     \x20   if test == \"$gt\":\n\
     \x20       return v > value\n\
     \x20   if test == \"$gte\":\n\
     \x20       return v >= value\n\
     \x20   if test == \"$lt\":\n\
     \x20       return v < value\n\
     \x20   return v <= value\n\n\n\
     def _share(doc, field, test, value, amount):\n\
     \x20   \"\"\"What `doc` adds to a figure over a subset: 0 outside it, else 1 (a count) or its `amount`.\"\"\"\n\
     \x20   if doc is None or not _meets(doc, field, test, value):\n\
     \x20       return 0\n\
     \x20   return 1 if amount is None else (doc.get(amount) or 0)\n\n\n\
     def _moved(before, changes, field, test, value, amount):\n\
     \x20   \"\"\"What an update moves such a figure by: each child's share with `changes` applied,\n\
     \x20   less its share as it was (`before`, the child as the update returned it).\"\"\"\n\
     \x20   return sum(\n\
     \x20       _share({**d, **changes}, field, test, value, amount) - _share(d, field, test, value, amount)\n\
     \x20       for d in before\n\
     \x20   )\n";

/// Whether an operation writes documents each by an amount of its own.
fn bulk_writes(ops: &[OpCode]) -> bool {
    ops.iter()
        .any(|o| o.steps.iter().any(|s| s.action == Action::BulkWrite))
}

/// The JavaScript helper for a move whose new parent's path is walked up
/// with `$graphLookup` (the walk's order is not the path's): the ids from
/// the root down to the node found, the node last, following `parent`.
const JS_PATH_HELPER: &str = "\n// The ids from the root down to the node docs[0] (found by a `$graphLookup` up\n\
     // into `into`), following `parent`; [] when there is no node (a new root).\n\
     function pathIds(docs, into, parent) {\n\
     \x20 if (docs.length === 0) return [];\n\
     \x20 const node = docs[0];\n\
     \x20 const byId = new Map((node[into] || []).map((a) => [String(a._id), a]));\n\
     \x20 const out = [node._id];\n\
     \x20 let up = node[parent];\n\
     \x20 while (up !== undefined && up !== null && byId.has(String(up))) {\n\
     \x20   out.unshift(up);\n\
     \x20   up = byId.get(String(up))[parent];\n\
     \x20 }\n\
     \x20 return out;\n\
     }\n";

/// The helpers of a feed merged from a timeline and the items read at feed
/// time (`feed` in the result): the first `limit` documents by `sort`.
const JS_NEWEST_HELPER: &str = "\n// The first `limit` of `docs` in the order of `sort` ([[path, 1 or -1], …]).\n\
     function newest(docs, sort, limit) {\n\
     \x20 const at = (d, path) => path.split(\".\").reduce((v, p) => (v === undefined || v === null ? v : v[p]), d);\n\
     \x20 const key = (v) => (v instanceof Date ? v.getTime() : v !== null && typeof v === \"object\" ? String(v) : v);\n\
     \x20 return docs.slice().sort((a, b) => {\n\
     \x20   for (const [path, dir] of sort) {\n\
     \x20     const x = key(at(a, path));\n\
     \x20     const y = key(at(b, path));\n\
     \x20     if (x < y) return -dir;\n\
     \x20     if (x > y) return dir;\n\
     \x20   }\n\
     \x20   return 0;\n\
     \x20 }).slice(0, limit);\n\
     }\n";

const PY_NEWEST_HELPER: &str = "\n\n\
     def _newest(docs, sort, limit):\n\
     \x20   \"\"\"The first `limit` of `docs` in the order of `sort` ([(path, 1 or -1), …]).\"\"\"\n\
     \x20   def at(d, path):\n\
     \x20       for p in path.split(\".\"):\n\
     \x20           d = d.get(p) if isinstance(d, dict) else None\n\
     \x20       return d\n\n\
     \x20   out = list(docs)\n\
     \x20   # Sorted by the last key first: each sort keeps the order of ties.\n\
     \x20   for path, direction in reversed(sort):\n\
     \x20       out.sort(key=lambda d: (0, 0) if at(d, path) is None else (1, at(d, path)), reverse=direction < 0)\n\
     \x20   return out[:limit]\n";

/// Whether an operation merges a feed (`JS_NEWEST_HELPER`).
fn merges(ops: &[OpCode]) -> bool {
    ops.iter().any(|o| o.merge.is_some())
}

const PY_PATH_HELPER: &str = "\n\n\
     def _path_ids(docs, into, parent):\n\
     \x20   \"\"\"The ids from the root down to the node docs[0] (found by a $graphLookup up\n\
     \x20   into `into`), following `parent`; [] when there is no node (a new root).\"\"\"\n\
     \x20   if not docs:\n\
     \x20       return []\n\
     \x20   node = docs[0]\n\
     \x20   by_id = {a[\"_id\"]: a for a in node.get(into, [])}\n\
     \x20   out = [node[\"_id\"]]\n\
     \x20   up = node.get(parent)\n\
     \x20   while up is not None and up in by_id:\n\
     \x20       out.insert(0, up)\n\
     \x20       up = by_id[up].get(parent)\n\
     \x20   return out\n";

/// Whether an operation rebases a path from a walk up (and needs the
/// helper that orders it).
fn walks_paths(ops: &[OpCode]) -> bool {
    ops.iter()
        .flat_map(|o| &o.steps)
        .flat_map(|s| &s.updates)
        .any(|u| {
            matches!(
                u,
                code::Update::Rebase {
                    from: code::NewPath::Walk { .. },
                    ..
                }
            )
        })
}

/// The helpers of a count bucket's upsert that may open a bucket at a page
/// another writer opened first (`StepCode::next_page`): the unique
/// `{parent, page}` index refuses the second with a duplicate key (11000),
/// and the upsert runs again at the next page. It then matches the bucket
/// the other writer opened while that has room (the page is only set on
/// insert), or opens the next page. Each duplicate key shows one more page
/// taken, so the loop ends once it passes the pages that exist. (In
/// mongosh, `return upsert(p)` inside the `try` let the duplicate key
/// escape the `catch`: the server check saw it, issue 41.)
const JS_NEXT_PAGE_HELPER: &str = "\n// A bucket's upsert at `page`; a duplicate key (the unique index on the parent and its\n\
     // page: another writer opened that page first) runs it again at the next page, where it\n\
     // joins that writer's bucket while it has room, or opens a new one.\n\
     function nextFreePage(page, upsert) {\n\
     \x20 for (let p = page; ; p += 1) {\n\
     \x20   try {\n\
     \x20     // Kept before it is returned: mongosh waits for a write it assigns inside\n\
     \x20     // the try, but not for one returned from it, whose error then escapes the catch.\n\
     \x20     const result = upsert(p);\n\
     \x20     return result;\n\
     \x20   } catch (e) {\n\
     \x20     if (e.code !== 11000) throw e;\n\
     \x20   }\n\
     \x20 }\n\
     }\n";

/// `JS_NEXT_PAGE_HELPER` for the Node.js driver, whose writes are promises.
const NODE_NEXT_PAGE_HELPER: &str = "\n// A bucket's upsert at `page`; a duplicate key (the unique index on the parent and its\n\
     // page: another writer opened that page first) runs it again at the next page, where it\n\
     // joins that writer's bucket while it has room, or opens a new one.\n\
     async function nextFreePage(page, upsert) {\n\
     \x20 for (let p = page; ; p += 1) {\n\
     \x20   try {\n\
     \x20     return await upsert(p);\n\
     \x20   } catch (e) {\n\
     \x20     if (e.code !== 11000) throw e;\n\
     \x20   }\n\
     \x20 }\n\
     }\n";

/// `JS_NEXT_PAGE_HELPER` in Python.
const PY_NEXT_PAGE_HELPER: &str = "\n\nfrom pymongo.errors import DuplicateKeyError  # noqa: E402 (only a bucket's upsert needs it)\n\n\n\
     def _next_free_page(page, upsert):\n\
     \x20   \"\"\"A bucket's upsert at `page`; a duplicate key (the unique index on the parent and its\n\
     \x20   page: another writer opened that page first) runs it again at the next page, where it\n\
     \x20   joins that writer's bucket while it has room, or opens a new one.\"\"\"\n\
     \x20   while True:\n\
     \x20       try:\n\
     \x20           return upsert(page)\n\
     \x20       except DuplicateKeyError:\n\
     \x20           page += 1\n";

/// The helpers of a batch of new children upserted into buckets a chunk
/// at a time (`code::Chunks`, issue 41): chunks of at most the bucket's
/// bound, in the batch's order, each upserted whole (`upsert(chunk,
/// page)`) into a bucket with room for all of it, else into the next
/// page. A count bucket's chunk that opened a page closes the buckets it
/// passed over (`close(opened)`) and moves the page on by one: the page
/// stays at most the buckets there are, as the page's comment asks. One
/// upsert per chunk, not one per child: a batch of 20 into buckets of 50
/// is one write.
const JS_INTO_BUCKETS_HELPER: &str = "\n// A batch of new children upserted into buckets in chunks of at most `perBucket`, in order:\n\
     // each chunk goes whole into a bucket with room for all of it, else into the next page.\n\
     // A chunk that opened a page closes the buckets it passed over (`close`), so that no later\n\
     // child lands behind the newer page, and moves the page on by one.\n\
     function intoBuckets(items, perBucket, page, upsert, close) {\n\
     \x20 const out = [];\n\
     \x20 for (let start = 0; start < items.length; start += perBucket) {\n\
     \x20   const result = upsert(items.slice(start, start + perBucket), page);\n\
     \x20   // mongosh names the id an upsert inserted `insertedId`.\n\
     \x20   const opened = result.upsertedId ?? result.insertedId;\n\
     \x20   if (close !== null && opened != null) {\n\
     \x20     const closed = close(opened);\n\
     \x20     page += 1;\n\
     \x20   }\n\
     \x20   out.push(result);\n\
     \x20 }\n\
     \x20 return out;\n\
     }\n";

/// `JS_INTO_BUCKETS_HELPER` for the Node.js driver, whose writes are promises.
const NODE_INTO_BUCKETS_HELPER: &str = "\n// A batch of new children upserted into buckets in chunks of at most `perBucket`, in order:\n\
     // each chunk goes whole into a bucket with room for all of it, else into the next page.\n\
     // A chunk that opened a page closes the buckets it passed over (`close`), so that no later\n\
     // child lands behind the newer page, and moves the page on by one.\n\
     async function intoBuckets(items, perBucket, page, upsert, close) {\n\
     \x20 const out = [];\n\
     \x20 for (let start = 0; start < items.length; start += perBucket) {\n\
     \x20   const result = await upsert(items.slice(start, start + perBucket), page);\n\
     \x20   if (close !== null && result.upsertedId != null) {\n\
     \x20     await close(result.upsertedId);\n\
     \x20     page += 1;\n\
     \x20   }\n\
     \x20   out.push(result);\n\
     \x20 }\n\
     \x20 return out;\n\
     }\n";

/// `JS_INTO_BUCKETS_HELPER` in Python.
const PY_INTO_BUCKETS_HELPER: &str = "\n\ndef _into_buckets(items, per_bucket, page, upsert, close):\n\
     \x20   \"\"\"A batch of new children upserted into buckets in chunks of at most `per_bucket`, in order:\n\
     \x20   each chunk goes whole into a bucket with room for all of it, else into the next page.\n\
     \x20   A chunk that opened a page closes the buckets it passed over (`close`), so that no later\n\
     \x20   child lands behind the newer page, and moves the page on by one.\"\"\"\n\
     \x20   out = []\n\
     \x20   for start in range(0, len(items), per_bucket):\n\
     \x20       result = upsert(items[start:start + per_bucket], page)\n\
     \x20       if close is not None and result.get(\"upserted_id\") is not None:\n\
     \x20           close(result[\"upserted_id\"])\n\
     \x20           page += 1\n\
     \x20       out.append(result)\n\
     \x20   return out\n";

/// Whether a batch is upserted into buckets in chunks (`JS_INTO_BUCKETS_HELPER`).
fn chunks_batches(ops: &[OpCode]) -> bool {
    ops.iter()
        .any(|o| o.steps.iter().any(|s| s.chunks.is_some()))
}

/// An archive's insert (`StepCode::skip_duplicates`), in mongosh: unordered,
/// and a duplicate key is a document a run that stopped before its delete
/// already copied. Any other error is thrown. (The result is kept before
/// it is returned, as in `JS_NEXT_PAGE_HELPER`.)
const JS_INSERT_NEW_HELPER: &str = "\n// An archive's insert, which a rerun of its job repeats: documents already there (the same\n\
     // _id, copied by a run that stopped before its delete) are skipped; any other error is thrown.\n\
     function insertNew(coll, docs) {\n\
     \x20 if (docs.length === 0) return { insertedCount: 0 };\n\
     \x20 try {\n\
     \x20   const result = coll.insertMany(docs, { ordered: false });\n\
     \x20   return { insertedCount: Object.keys(result.insertedIds).length };\n\
     \x20 } catch (e) {\n\
     \x20   const errors = [].concat(e.writeErrors ?? []);\n\
     \x20   if (errors.length === 0 || errors.some((x) => x.code !== 11000)) throw e;\n\
     \x20   return { insertedCount: docs.length - errors.length };\n\
     \x20 }\n\
     }\n";

/// `JS_INSERT_NEW_HELPER` for the Node.js driver, whose writes are promises.
const NODE_INSERT_NEW_HELPER: &str = "\n// An archive's insert, which a rerun of its job repeats: documents already there (the same\n\
     // _id, copied by a run that stopped before its delete) are skipped; any other error is thrown.\n\
     async function insertNew(coll, docs, options) {\n\
     \x20 if (docs.length === 0) return { insertedCount: 0 };\n\
     \x20 try {\n\
     \x20   const result = await coll.insertMany(docs, { ...options, ordered: false });\n\
     \x20   return { insertedCount: result.insertedCount };\n\
     \x20 } catch (e) {\n\
     \x20   const errors = [].concat(e.writeErrors ?? []);\n\
     \x20   if (errors.length === 0 || errors.some((x) => x.code !== 11000)) throw e;\n\
     \x20   return { insertedCount: docs.length - errors.length };\n\
     \x20 }\n\
     }\n";

/// `JS_INSERT_NEW_HELPER` in Python.
const PY_INSERT_NEW_HELPER: &str = "\n\nfrom pymongo.errors import BulkWriteError  # noqa: E402 (only an archive's insert needs it)\n\n\n\
     def _insert_new(coll, docs, **kw):\n\
     \x20   \"\"\"An archive's insert, which a rerun of its job repeats: documents already there (the same\n\
     \x20   _id, copied by a run that stopped before its delete) are skipped; any other error is raised.\"\"\"\n\
     \x20   if not docs:\n\
     \x20       return {\"inserted_count\": 0}\n\
     \x20   try:\n\
     \x20       return {\"inserted_count\": len(coll.insert_many(docs, ordered=False, **kw).inserted_ids)}\n\
     \x20   except BulkWriteError as e:\n\
     \x20       errors = e.details.get(\"writeErrors\", [])\n\
     \x20       if not errors or any(x.get(\"code\") != 11000 for x in errors):\n\
     \x20           raise\n\
     \x20       return {\"inserted_count\": len(docs) - len(errors)}\n";

/// Whether an archive's insert skips what a run before it copied.
/// Whether a read or a claim compares an expiring entity's date with now
/// (`PY_ALIVE_SINCE_HELPER`).
fn compares_expiry(ops: &[OpCode]) -> bool {
    ops.iter().any(|o| {
        o.steps.iter().any(|s| {
            s.filter
                .iter()
                .any(|(_, e)| matches!(e, code::Expr::Unexpired(_)))
                || s.slices.iter().any(|x| {
                    x.unexpired.is_some() || x.figures.iter().any(|f| f.unexpired.is_some())
                })
        })
    })
}

/// Now less an entity's life, for the test of a document not yet expired
/// (JavaScript computes it inline: `new Date(Date.now() - n * 1000)`).
const PY_ALIVE_SINCE_HELPER: &str = "\n\nimport datetime  # noqa: E402 (only a read of what expires needs it)\n\n\n\
     def _alive_since(seconds):\n\
     \x20   \"\"\"The oldest date of a document that expires `seconds` after it and is not yet expired: the\n\
     \x20   TTL monitor deletes it up to a minute later, so a read that must not see it compares.\"\"\"\n\
     \x20   return datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=seconds)\n";

fn inserts_new(ops: &[OpCode]) -> bool {
    ops.iter()
        .any(|o| o.steps.iter().any(|s| s.skip_duplicates))
}

/// Whether a bucket's upsert retries a page taken (`JS_NEXT_PAGE_HELPER`).
fn retries_pages(ops: &[OpCode]) -> bool {
    ops.iter()
        .any(|o| !o.transaction && o.steps.iter().any(|s| s.next_page.is_some()))
}

/// The cookbook in mongosh: functions to paste into a shell or `load()`.
pub fn mongosh(design: &Design, ops: &[OpCode]) -> String {
    let mut out = format!(
        "// Query cookbook for model `{}` (mix `{}`), mongosh syntax, written by `squill generate`.\n\
         // load() this file in mongosh connected to the database, then call a function.\n\n",
        comment(&design.model),
        comment(&design.mix)
    );
    out.push_str(JS_IDS_HELPER);
    if walks_paths(ops) {
        out.push_str(JS_PATH_HELPER);
    }
    if bulk_writes(ops) {
        out.push_str(JS_ELEMS_HELPER);
    }
    if subset_figures(ops) {
        out.push_str(JS_SUBSET_HELPER);
    }
    if touches_parents(ops) {
        out.push_str(JS_TOUCHED_HELPER);
    }
    if merges(ops) {
        out.push_str(JS_NEWEST_HELPER);
    }
    if retries_pages(ops) {
        out.push_str(JS_NEXT_PAGE_HELPER);
    }
    if chunks_batches(ops) {
        out.push_str(JS_INTO_BUCKETS_HELPER);
    }
    if inserts_new(ops) {
        out.push_str(JS_INSERT_NEW_HELPER);
    }
    if upsert::retries_duplicates(ops) {
        out.push_str(upsert::JS_RETRY_HELPER);
    }
    if amount::takes_amounts(ops) {
        out.push_str(amount::JS_HELPER);
    }
    for op in ops {
        out.push('\n');
        out.push_str(&render::mongosh(op));
    }
    for g in compensate::groups(design, ops) {
        out.push('\n');
        out.push_str(&compensate::mongosh(&g, ops));
    }
    for g in together::groups(design, ops) {
        out.push('\n');
        out.push_str(&together::mongosh(&g, ops));
    }
    for g in one_update::groups(design, ops) {
        out.push('\n');
        out.push_str(&one_update::mongosh(&g, ops));
    }
    out
}

/// The cookbook as a Node.js module exporting one async function per operation.
pub fn node(design: &Design, ops: &[OpCode]) -> String {
    let mut out = format!(
        "// Query cookbook for model `{}` (mix `{}`), Node.js driver, written by `squill generate`.\n\
         // const cookbook = require(\"./cookbook.js\"); await cookbook.OPERATION(client.db(NAME), ...)\n\
         \"use strict\";\n\n",
        comment(&design.model),
        comment(&design.mix)
    );
    out.push_str(JS_IDS_HELPER);
    if walks_paths(ops) {
        out.push_str(JS_PATH_HELPER);
    }
    if bulk_writes(ops) {
        out.push_str(JS_ELEMS_HELPER);
    }
    if subset_figures(ops) {
        out.push_str(JS_SUBSET_HELPER);
    }
    if touches_parents(ops) {
        out.push_str(JS_TOUCHED_HELPER);
    }
    if merges(ops) {
        out.push_str(JS_NEWEST_HELPER);
    }
    if retries_pages(ops) {
        out.push_str(NODE_NEXT_PAGE_HELPER);
    }
    if chunks_batches(ops) {
        out.push_str(NODE_INTO_BUCKETS_HELPER);
    }
    if inserts_new(ops) {
        out.push_str(NODE_INSERT_NEW_HELPER);
    }
    if upsert::retries_duplicates(ops) {
        out.push_str(upsert::NODE_RETRY_HELPER);
    }
    if upsert::makes_ids(ops) {
        out.push_str(upsert::NODE_OBJECT_ID);
    }
    if amount::takes_amounts(ops) {
        out.push_str(amount::JS_HELPER);
    }
    for op in ops {
        out.push('\n');
        out.push_str(&render::node(op));
    }
    let groups = compensate::groups(design, ops);
    for g in &groups {
        out.push('\n');
        out.push_str(&compensate::node(g, ops));
    }
    let together = together::groups(design, ops);
    for g in &together {
        out.push('\n');
        out.push_str(&together::node(g, ops));
    }
    let merged = one_update::groups(design, ops);
    for g in &merged {
        out.push('\n');
        out.push_str(&one_update::node(g, ops));
    }
    let names: Vec<&str> = ops
        .iter()
        .map(|o| o.function.as_str())
        .chain(groups.iter().map(|g| g.function.as_str()))
        .chain(together.iter().map(|g| g.function.as_str()))
        .chain(merged.iter().map(|g| g.function.as_str()))
        .collect();
    out.push_str(&format!("\nmodule.exports = {{ {} }};\n", names.join(", ")));
    out
}

/// The metadata of each operation, for callers that supply parameters.
pub fn plan_json(ops: &[OpCode]) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for op in ops {
        let params: Vec<_> = op
            .params
            .iter()
            .map(|p| json!({"name": p.name, "collection": p.collection, "path": p.path, "kind": p.kind.as_str()}))
            .collect();
        let steps: Vec<_> = op
            .steps
            .iter()
            .map(|s| {
                let mut step = json!({
                    "key": s.key,
                    "collection": s.collection,
                    "action": action_name(s.action),
                    "filter": s.filter.iter().map(|(p, e)| json!([p, expr_json(e)])).collect::<Vec<_>>(),
                    "sort": s.sort,
                    "limit": s.limit,
                    "index": s.index,
                    "every": s.every,
                    "fallback_of": s.fallback_of,
                    "when": s.when.as_ref().map(|w| match w {
                        code::When::Flag(p) => json!({"flag": p}),
                        code::When::AtMost { step, n } => json!({"at_most": [step, n]}),
                        code::When::IdsAtMost { ids, n } => json!({"ids_at_most": [ids, n]}),
                        code::When::Any { step, path } => json!({"any": [step, path]}),
                        code::When::Full { step, path, n, each, size } => {
                            let mut full = json!({"full": [step, path, n]});
                            if *each {
                                full["each"] = json!(true);
                            }
                            // The stored length's key, beside a filtered array.
                            if let Some(size) = size {
                                full["size"] = json!(size);
                            }
                            full
                        }
                        code::When::Matched { step, changed: true, .. } => json!({"matched": step, "changed": true}),
                        code::When::Matched { step, or_deleted: None, .. } => json!({"matched": step}),
                        code::When::Matched { step, or_deleted: Some(d), .. } => json!({"matched": step, "or_deleted": d}),
                        code::When::DeletedAll { delete, found, holds } => json!({"deleted_all": [delete, found], "holds": holds}),
                    }),
                    "graph": s.graph.as_ref().map(|g| json!({"start_with": g.start_with, "connect_from": g.connect_from, "connect_to": g.connect_to, "into": g.into, "max_depth": g.max_depth})),
                    // A `$push` (not trimmed to the latest K, which may
                    // drop the item itself), a `$pull` or a pipeline's
                    // `$filter` changes every document it matches (the
                    // item pulled is taken from the data).
                    "modifies": s.updates.iter().any(|u| matches!(u, code::Update::Push { slice: None, .. } | code::Update::Pull(..) | code::Update::PullWhere(..) | code::Update::DropElements(..))),
                    // Paths from a tree's root the filter tests, and those
                    // the step rewrites below a moved node.
                    "under": s.under.iter().map(|u| json!({"path": u.path, "tree_collection": u.tree_collection, "parent_field": u.parent_field, "node_field": u.node_field})).collect::<Vec<_>>(),
                    // A bulk write's objects, the id and the amounts in
                    // each: what a check needs to know what it wrote.
                    "each": s.each.as_ref().map(|e| json!({
                        "source": match &e.source {
                            code::EachSource::Step { step, elements } => json!({"step": step, "elements": elements}),
                            code::EachSource::Param(p) => json!({"param": p}),
                            // The groups' step, and where the ids of the
                            // documents written come from.
                            code::EachSource::Touched { ids, path, groups } => json!({"step": groups, "elements": "", "ids": {"step": ids, "path": path}}),
                        },
                        "id": e.id,
                        "amounts": e.amounts.iter().map(|(field, from, negative)| json!([field, from, negative])).collect::<Vec<_>>(),
                    })),
                    "rebase": s.updates.iter().filter_map(|u| match u {
                        code::Update::Rebase { path, node, objects, .. } => Some(json!({"path": path, "node": node, "objects": objects})),
                        _ => None,
                    }).collect::<Vec<_>>(),
                });
                // Paging by `skip`: the page number's parameter (only on
                // such a read, so that other steps read as they did).
                if let Some(page) = &s.skip {
                    step["skip"] = json!(page);
                }
                // A batch job's batch the caller may choose (its default
                // is `limit`).
                if let Some(p) = &s.limit_param {
                    step["limit_param"] = json!(p);
                }
                // A count bucket's upsert that retries a page another
                // writer opened first: its page number's parameter (a
                // check runs inserts at once with it).
                if let Some(page) = &s.next_page {
                    step["next_page"] = json!(page);
                }
                // A batch upserted into buckets in chunks: its list, the
                // chunks' most children, and the counter a page opened
                // raises in the buckets passed over (a check stores a
                // batch across a bucket's edge with them).
                if let Some(c) = &s.chunks {
                    step["chunks"] = json!({"list": c.list, "per": c.per, "close": c.close});
                }
                // Element tests that hold for one element (`$elemMatch`):
                // a check builds the filter as the cookbook does.
                if let Some(array) = &s.elem_match {
                    step["elem_match"] = json!(array);
                }
                // A conditional write or a claim: what the code does when
                // it matches nothing (a check can then call it so).
                if let Some(o) = s.otherwise {
                    step["otherwise"] = json!(o.name());
                }
                // Figures computed again from an array in an update
                // pipeline (a bucket's count, sum, min, max): what a check
                // compares with the elements after the write.
                let recompute: Vec<_> = s.updates.iter().filter_map(|u| match u {
                    code::Update::Recompute { path, function, over, .. } => Some(json!({"path": path, "function": function, "over": over})),
                    _ => None,
                }).collect();
                if !recompute.is_empty() {
                    step["recompute"] = json!(recompute);
                }
                // Figures set to those of no child (every child of the
                // parent deleted): what a check compares after the write.
                let reset: Vec<_> = s.updates.iter().filter_map(|u| match u {
                    code::Update::Reset { path, function, .. } => Some(json!([path, function])),
                    _ => None,
                }).collect();
                if !reset.is_empty() {
                    step["reset"] = json!(reset);
                }
                // Values set from what an earlier find read (a parent's
                // max of its children read again): what a check compares
                // with the children after the write.
                let set_from: Vec<_> = s.updates.iter().filter_map(|u| match u {
                    code::Update::Set(path, code::Expr::FirstOf { step, path: field, function }) => Some(json!({"path": path, "step": step, "field": field, "function": function})),
                    _ => None,
                }).collect();
                // A read grouped by a path, and a bulk write's `$set`s from
                // its groups (a figure read again for every parent touched).
                if let Some(g) = &s.group {
                    step["group"] = json!(g);
                }
                // A read of how many match: its result is a number.
                if s.counts {
                    step["counts"] = json!(true);
                }
                // A read of an array's matching elements, one a result.
                if let Some(a) = &s.elements {
                    step["elements"] = json!(a);
                }
                // A grouped read's totals (the children a delete removes
                // from each parent, counted before it).
                if !s.group_sums.is_empty() {
                    step["group_sums"] = json!(s.group_sums.iter().map(|(name, field)| json!([name, field])).collect::<Vec<_>>());
                }
                if let Some(e) = s.each.as_ref().filter(|e| !e.sets.is_empty()) {
                    step["each"]["sets"] = json!(e.sets.iter().map(|(field, from, _)| json!([field, from])).collect::<Vec<_>>());
                }
                if !set_from.is_empty() {
                    step["set_from"] = json!(set_from);
                }
                // Counts raised by the number of documents a batch insert
                // stored: what a check compares with those documents.
                let counts: Vec<_> = s.updates.iter().filter_map(|u| match u {
                    code::Update::Inc(path, code::Expr::LengthOf(list)) => Some(json!([path, list])),
                    _ => None,
                }).collect();
                if !counts.is_empty() {
                    step["counts_batch"] = json!(counts);
                }
                // Figures moved by a batch's children (their sum, least,
                // greatest, first, last): what a check compares with the
                // batch it passed.
                let figures: Vec<_> = s.updates.iter().filter_map(|u| match u {
                    code::Update::Inc(path, code::Expr::OfItems { list, field, function, .. })
                    | code::Update::Min(path, code::Expr::OfItems { list, field, function, .. })
                    | code::Update::Max(path, code::Expr::OfItems { list, field, function, .. })
                    | code::Update::Set(path, code::Expr::OfItems { list, field, function, .. })
                    | code::Update::SetOnInsert(path, code::Expr::OfItems { list, field, function, .. }) => {
                        Some(json!([path, list, field, function]))
                    }
                    _ => None,
                }).collect();
                if !figures.is_empty() {
                    step["batch_figures"] = json!(figures);
                }
                if let Some(array) = s.updates.iter().find_map(|u| match u {
                    code::Update::DropElements(array) => Some(array),
                    _ => None,
                }) {
                    step["drops"] = json!(array);
                }
                // The expired elements a push drops in the same write.
                if let Some((array, field, seconds)) = s.updates.iter().find_map(|u| match u {
                    code::Update::PullExpired { path, field, seconds } => Some((path, field, seconds)),
                    _ => None,
                }) {
                    step["drops_expired"] = json!({"path": array, "field": field, "seconds": seconds});
                }
                // A write that returns the document as it was, as a list
                // of 0 or 1 (a figure over a subset moves by it).
                if s.before {
                    step["before"] = json!(true);
                }
                step
            })
            .collect();
        let mut entry = json!({"operation": op.name, "transaction": op.transaction, "params": params, "steps": steps,
            "merge": op.merge.as_ref().map(|m| json!({"timeline": m.timeline, "path": m.path, "items": m.items, "sort": m.sort, "limit": m.limit}))});
        // An outlier's count in two places, added: only where there is one.
        if let (Some(t), Some(e)) = (&op.total, entry.as_object_mut()) {
            e.insert(
                "total".into(),
                json!({"name": t.name, "holders": t.holders, "path": t.path, "apart": t.apart}),
            );
        }
        // Only where there is one: the other operations' entries stay as
        // they were.
        if let (Some(m), Some(e)) = (&op.merged_away, entry.as_object_mut()) {
            e.insert("merged_away".into(), json!(m));
        }
        map.insert(op.function.clone(), entry);
    }
    serde_json::Value::Object(map)
}

/// A figure's subset in the PLAN: `[field, operator, value, summed field]`.
fn subset_json(s: &code::Subset) -> serde_json::Value {
    json!([s.field, s.test.operator(), s.value, s.amount])
}

fn expr_json(e: &code::Expr) -> serde_json::Value {
    use code::Expr;
    match e {
        Expr::Param(p) => json!({"eq": p}),
        Expr::WithFields { param, fields } => json!({"with_fields": {
            "document": param,
            "fields": fields.iter().map(|(k, v)| json!([k, expr_json(v)])).collect::<Vec<_>>(),
        }}),
        Expr::In(p) => json!({"in": p}),
        Expr::Range(a, b) => json!({"range": [a, b]}),
        Expr::IdsFrom { step, path } => json!({"ids_from": [step, path]}),
        Expr::IdsFromAll(all) => json!({"ids_from_all": all}),
        Expr::Number(n) => json!({"number": n}),
        Expr::Amount(n) => json!({"amount": n}),
        Expr::Negated(p) => json!({"negated": p}),
        Expr::NegatedOf(e) => json!({"negated": expr_json(e)}),
        Expr::FoundField { step, field } => json!({"found_field": [step, field]}),
        Expr::InsertedIds { step } => json!({"inserted_ids": step}),
        Expr::LengthOf(p) => json!({"length_of": p}),
        Expr::FirstOf {
            step,
            path,
            function,
        } => json!({"first_of": [step, path, function]}),
        Expr::Near { point, metres } => json!({"near": [point, metres]}),
        Expr::WithinCircle { point, metres } => json!({"within_circle": [point, metres]}),
        Expr::WithinArea(p) => json!({"within": p}),
        Expr::Intersects(p) => json!({"intersects": p}),
        Expr::Below(n) => json!({"below": n}),
        Expr::NotEqual(p) => json!({"not_equal": p}),
        Expr::HeldByNone(tests) => json!({"held_by_none": tests
            .iter()
            .map(|(k, e)| json!([k, expr_json(e)]))
            .collect::<Vec<_>>()}),
        Expr::NewId => json!({"new_id": true}),
        Expr::Unexpired(n) => json!({"unexpired": n}),
        Expr::RoomFor { max, list } => json!({"room_for": [max, list]}),
        Expr::Items(list) => json!({"items": list}),
        Expr::RoomIn { array, max, list } => json!({"room_in": [array, max, list]}),
        Expr::LiveRoomIn {
            array,
            field,
            seconds,
            max,
            list,
        } => json!({"live_room_in": [array, field, seconds, max, list]}),
        Expr::OfItems {
            list,
            field,
            function,
            ..
        } => json!({"of_items": [list, field, function]}),
        Expr::OwnValue {
            param,
            field,
            function,
            ..
        } => json!({"own_value": [param, field, function]}),
        Expr::Share { doc, subset, .. } => json!({"share": [doc, subset_json(subset)]}),
        Expr::Shares {
            list,
            subset,
            negative,
            ..
        } => json!({"shares": [list, subset_json(subset), negative]}),
        Expr::Moved {
            before,
            changes,
            subset,
            ..
        } => json!({"moved": {
            "before": before,
            "changes": changes.iter().map(|(k, v)| json!([k, expr_json(v)])).collect::<Vec<_>>(),
            "subset": subset_json(subset),
        }}),
        Expr::Above(n) => json!({"above": n}),
        Expr::AtLeast(p) => json!({"at_least": p}),
        Expr::Under(p) => json!({"under": p}),
        Expr::KeyInWindow { from, to, unit } => {
            json!({"key_in_window": {"from": from, "to": to, "unit": unit}})
        }
        Expr::Test(t, v) => json!({"test": [t, v]}),
        Expr::Fields(t, a, b) => json!({"fields": [t, a, b]}),
        Expr::ElementFields {
            array,
            tests,
            compares,
        } => {
            let tests: Vec<_> = tests
                .iter()
                .map(|(k, e)| json!([k, expr_json(e)]))
                .collect();
            let compares: Vec<_> = compares
                .iter()
                .map(|c| json!({"test": c.test, "a": c.a, "plus": c.plus, "value": c.value}))
                .collect();
            json!({"element_fields": {"array": array, "tests": tests, "compares": compares}})
        }
        Expr::Added {
            test,
            path,
            amount,
            negative,
            value,
        } => json!({"added": [test, path, amount, negative, value]}),
        Expr::Missing => json!({"missing": true}),
        Expr::IdIs(p) => json!({"id_is": p}),
        Expr::Pair(k, v) => json!({"pair": [k, v]}),
        Expr::SubtreeIds { step, into } => json!({"subtree_from": [step, into]}),
        Expr::FieldOf { param, field } => json!({"field_of": [param, field]}),
        Expr::InsertedId { step } => json!({"inserted_id": step}),
        Expr::Inserted { param, step } => json!({"inserted": [param, step]}),
        Expr::Doc(fields) => {
            json!({"doc": fields.iter().map(|(k, e)| json!([k, expr_json(e)])).collect::<Vec<_>>()})
        }
        Expr::EmptyList => json!({"empty_list": true}),
        Expr::After {
            param,
            id,
            descending,
            then,
        } if then.is_empty() => json!({"after": [param, descending], "after_id": id}),
        Expr::After {
            param,
            id,
            descending,
            then,
        } => json!({"after": [param, descending], "after_id": id, "then": then}),
    }
}

pub fn action_name(a: Action) -> &'static str {
    match a {
        Action::Find => "find",
        Action::GraphLookup => "graph_lookup",
        Action::InsertOne => "insert_one",
        Action::InsertMany => "insert_many",
        Action::UpdateOne => "update_one",
        Action::UpdateMany => "update_many",
        Action::Upsert => "upsert",
        Action::DeleteOne => "delete_one",
        Action::DeleteMany => "delete_many",
        Action::FindOneAndUpdate => "find_one_and_update",
        Action::BulkWrite => "bulk_write",
    }
}

/// The cookbook as a Python module: one function per operation taking a
/// pymongo `Database`.
pub fn python(design: &Design, ops: &[OpCode]) -> String {
    let mut out = format!(
        "\"\"\"Query cookbook for model `{}` (mix `{}`), pymongo, written by `squill generate`.\n\n\
         Each function takes a pymongo Database and the operation's parameters and returns\n\
         a dict with each step's result: the documents found, or the write's counts.\n\"\"\"\n\n",
        script::py_docstring(&design.model),
        script::py_docstring(&design.mix)
    );
    out.push_str(
        "\ndef _ids(docs, path):\n\
         \x20   \"\"\"Values at `path` in `docs`, through arrays; embedded objects give their `_id`.\"\"\"\n\
         \x20   out = []\n\n\
         \x20   def walk(v, parts):\n\
         \x20       if v is None:\n\
         \x20           return\n\
         \x20       if isinstance(v, list):\n\
         \x20           for x in v:\n\
         \x20               walk(x, parts)\n\
         \x20           return\n\
         \x20       if not parts:\n\
         \x20           out.append(v.get(\"_id\", v) if isinstance(v, dict) else v)\n\
         \x20           return\n\
         \x20       if isinstance(v, dict):\n\
         \x20           walk(v.get(parts[0]), parts[1:])\n\n\
         \x20   for d in docs:\n\
         \x20       walk(d, path.split(\".\"))\n\
         \x20   return out\n\n\n\
         def _result(r):\n\
         \x20   \"\"\"The counts of a write result as a dict.\"\"\"\n\
         \x20   out = {}\n\
         \x20   for name in (\"matched_count\", \"modified_count\", \"upserted_id\", \"inserted_id\", \"inserted_ids\", \"deleted_count\"):\n\
         \x20       if hasattr(r, name):\n\
         \x20           out[name] = getattr(r, name)\n\
         \x20   return out\n",
    );
    if walks_paths(ops) {
        out.push_str(PY_PATH_HELPER);
    }
    if bulk_writes(ops) {
        out.push_str(PY_ELEMS_HELPER);
    }
    if subset_figures(ops) {
        out.push_str(PY_SUBSET_HELPER);
    }
    if touches_parents(ops) {
        out.push_str(PY_TOUCHED_HELPER);
    }
    if merges(ops) {
        out.push_str(PY_NEWEST_HELPER);
    }
    if retries_pages(ops) {
        out.push_str(PY_NEXT_PAGE_HELPER);
    }
    if chunks_batches(ops) {
        out.push_str(PY_INTO_BUCKETS_HELPER);
    }
    if inserts_new(ops) {
        out.push_str(PY_INSERT_NEW_HELPER);
    }
    if amount::takes_amounts(ops) {
        out.push_str(amount::PY_HELPER);
    }
    if compares_expiry(ops) {
        out.push_str(PY_ALIVE_SINCE_HELPER);
    }
    if upsert::retries_duplicates(ops) {
        out.push_str(upsert::PY_RETRY_HELPER);
    }
    if upsert::makes_ids(ops) {
        out.push_str(upsert::PY_OBJECT_ID);
    }
    for op in ops {
        out.push_str("\n\n");
        out.push_str(&render::python(op));
    }
    let groups = compensate::groups(design, ops);
    for g in &groups {
        out.push_str("\n\n");
        out.push_str(&compensate::python(g, ops));
    }
    for g in together::groups(design, ops) {
        out.push_str("\n\n");
        out.push_str(&together::python(&g, ops));
    }
    for g in one_update::groups(design, ops) {
        out.push_str("\n\n");
        out.push_str(&one_update::python(&g, ops));
    }
    out.push_str("\n\n# Parameters and steps of each function (collection, field path, kind).\n");
    out.push_str(&format!(
        "PLAN = {}\n",
        python_literal(&serde_json::to_string_pretty(&plan_json(ops)).unwrap_or_default())
    ));
    // Each compensated group's function, its operations in order and the
    // one whose nothing-matched undoes the others (for tools and tests).
    if !groups.is_empty() {
        let undo: serde_json::Map<String, serde_json::Value> = groups
            .iter()
            .map(|g| {
                let names: Vec<&str> = g.ops.iter().map(|&i| ops[i].function.as_str()).collect();
                // The function's parameters in order, each the parameter
                // of one operation it is passed as (names two operations
                // share are qualified by the operation).
                // An amount several operations take is one parameter,
                // listed with the first operation it is passed to.
                let ps = compensate::params(g, ops);
                let params: Vec<_> = ps
                    .iter()
                    .enumerate()
                    .filter(|(k, p)| !ps[..*k].iter().any(|q| q.name == p.name))
                    .map(|(_, p)| json!({"name": p.name, "operation": ops[p.op].function, "param": p.param}))
                    .collect();
                let mut entry = json!({"group": g.name, "operations": names, "step": g.step, "params": params});
                // `same:`: the parameter holding the one instance's id and
                // each inserted document's reference to it (same.rs).
                if let Some(one) = &g.one {
                    let name = |op: usize, param: &str| {
                        ps.iter()
                            .find(|p| p.op == op && p.param == param)
                            .map(|p| p.name.clone())
                    };
                    let documents: Vec<_> = one
                        .docs
                        .iter()
                        .filter_map(|(op, param, path)| {
                            Some(json!({"name": name(*op, param)?, "path": path.join(".")}))
                        })
                        .collect();
                    entry["same"] = json!({"entity": one.entity, "id": name(one.id.0, &one.id.1), "documents": documents});
                }
                (g.function.clone(), entry)
            })
            .collect();
        out.push_str(&format!(
            "\n# The function of each atomic group kept by undoing its earlier writes.\nUNDO = {}\n",
            python_literal(&serde_json::to_string_pretty(&undo).unwrap_or_default())
        ));
    }
    out
}

/// JSON text as a Python literal (true/false/null spelled the Python way,
/// outside strings).
fn python_literal(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_str = false;
    let mut escaped = false;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(match word.as_str() {
            "true" => "True",
            "false" => "False",
            "null" => "None",
            w => w,
        });
        word.clear();
    };
    for c in json.chars() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        if c.is_ascii_alphabetic() {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out);
        if c == '"' {
            in_str = true;
        }
        out.push(c);
    }
    flush(&mut word, &mut out);
    out
}

/// cookbook.md: each operation with its steps explained and the three versions.
pub fn markdown(design: &Design, ops: &[OpCode]) -> String {
    let mut out = format!(
        "# Query cookbook — model {}, mix {}\n\n\
         Every operation of the workload under the chosen design, in mongosh, Python\n\
         (pymongo) and Node.js (official driver) syntax. The same functions are in\n\
         `cookbook.mongosh.js`, `cookbook.py` and `cookbook.js`.\n",
        md::code_in_prose(&design.model),
        md::code_in_prose(&design.mix)
    );
    for op in ops {
        out.push_str(&format!("\n## {}\n\n", md::text(&op.name)));
        out.push_str(&format!("{} per second in this mix.", render_rate(op.rate)));
        if op.transaction {
            out.push_str(" Its writes run in one transaction, retried on a transient error (a write conflict).");
        }
        out.push_str("\n\n");
        for w in &op.warnings {
            out.push_str(&format!("> **Warning:** {}\n\n", md::text(w)));
        }
        for (i, s) in op.steps.iter().enumerate() {
            out.push_str(&format!(
                "{}. `{}` on {}",
                i + 1,
                action_name(s.action),
                md::code_in_prose(&s.collection)
            ));
            if let Some(ix) = &s.index {
                out.push_str(&format!(", index {}", md::code_in_prose(ix)));
            }
            if matches!(s.action, Action::UpdateMany | Action::DeleteMany) {
                out.push_str(&format!(
                    ", touches about {} documents at the model's typical cardinality",
                    format_count(s.documents)
                ));
            }
            if !s.purpose.is_empty() {
                out.push_str(&format!(" — {}", md::text(&s.purpose)));
            }
            out.push('\n');
        }
        out.push_str("\n```javascript\n// mongosh\n");
        out.push_str(&render::mongosh(op));
        out.push_str("```\n\n```python\n");
        out.push_str(&render::python(op));
        out.push_str("```\n\n```javascript\n// Node.js\n");
        out.push_str(&render::node(op));
        out.push_str("```\n");
    }
    // Each atomic group kept by undo: the function that runs it and undoes
    // it when its conditional write matched nothing.
    for g in compensate::groups(design, ops) {
        let code = [
            compensate::mongosh(&g, ops),
            compensate::python(&g, ops),
            compensate::node(&g, ops),
        ];
        group_section(
            &mut out,
            &g,
            ops,
            ". When the last matches nothing, or any of them fails, it deletes what the others inserted and fails.",
            code,
        );
    }
    // Each atomic group kept by a transaction: the function that runs its
    // operations in one.
    for g in together::groups(design, ops) {
        let code = [
            together::mongosh(&g, ops),
            together::python(&g, ops),
            together::node(&g, ops),
        ];
        group_section(
            &mut out,
            &g,
            ops,
            ", in one transaction: when any of them fails, none of their writes stays.",
            code,
        );
    }
    // Each atomic group merged into one update of one document.
    for g in one_update::groups(design, ops) {
        let code = [
            one_update::mongosh(&g, ops),
            one_update::python(&g, ops),
            one_update::node(&g, ops),
        ];
        out.push_str(&format!(
            "\n## {} (atomic group)\n\nCalls {}, whose one update of one document holds the group's writes: atomic with no transaction.\n",
            md::text(&g.name),
            md::code_in_prose(&ops[g.ops[0]].function)
        ));
        code_blocks(&mut out, code);
    }
    out
}

/// An atomic group's section of cookbook.md: its name, the order its
/// operations run in, then `outcome` (what happens when one fails, from
/// its first punctuation), and its function in mongosh, Python and
/// Node.js.
fn group_section(
    out: &mut String,
    g: &compensate::UndoGroup,
    ops: &[OpCode],
    outcome: &str,
    code: [String; 3],
) {
    let names: Vec<String> = g
        .ops
        .iter()
        .map(|&i| md::code_in_prose(&ops[i].function))
        .collect();
    out.push_str(&format!(
        "\n## {} (atomic group)\n\nRuns {} in this order{outcome}\n",
        md::text(&g.name),
        names.join(", then ")
    ));
    code_blocks(out, code);
}

/// A group's function in mongosh, Python and Node.js, as cookbook.md's
/// code blocks.
fn code_blocks(out: &mut String, [mongosh, python, node]: [String; 3]) {
    out.push_str("\n```javascript\n// mongosh\n");
    out.push_str(&mongosh);
    out.push_str("```\n\n```python\n");
    out.push_str(&python);
    out.push_str("```\n\n```javascript\n// Node.js\n");
    out.push_str(&node);
    out.push_str("```\n");
}

fn render_rate(r: f64) -> String {
    render::trim_rate(r)
}
