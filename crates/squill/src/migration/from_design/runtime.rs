//! The JavaScript runtime the script carries: batches over a collection,
//! progress markers, the figures' measures kept across runs, the guard of
//! the final step. Written out verbatim by `render`; the helpers of the
//! stages and of the checks only in a script that has them.

/// Once the final step has run, what the checks measure today is gone:
/// a later run says the migration is complete instead of failing them.
pub(super) const COMPLETE: &str = r#"
// The final step's marker: set once it has run.
const FINAL = "99-final-step";
const squillFinal = squillProgress().findOne({ _id: FINAL });
if (squillFinal !== null) {
  print(`squill migration: the final step ran at ${squillFinal.at.toISOString()}: the migration is complete, nothing to do`);
  quit(0);
}
"#;

pub(super) const RUNTIME: &str = r#"const squillProgress = () => db.getCollection(PROGRESS);

// Runs `batch(range, ids)` over `coll` in `_id` order, BATCH documents at a
// time, recording the last `_id` done: a re-run skips a finished step and
// resumes an unfinished one after its last complete batch (each batch
// writes with $merge on _id, so doing one again changes nothing).
function runStep(id, what, coll, batch) {
  const marker = squillProgress().findOne({ _id: id });
  if (marker !== null && marker.done === true) {
    print(`squill migration: ${id}: done in an earlier run, skipped`);
    return;
  }
  let last = marker !== null && marker.last !== undefined ? marker.last : null;
  let batches = 0;
  for (;;) {
    const filter = last === null ? {} : { _id: { $gt: last } };
    const ids = db.getCollection(coll).find(filter, { _id: 1 }).sort({ _id: 1 }).limit(BATCH).toArray().map((d) => d._id);
    if (ids.length === 0) break;
    batch({ _id: { $gte: ids[0], $lte: ids[ids.length - 1] } }, ids);
    last = ids[ids.length - 1];
    squillProgress().updateOne({ _id: id }, { $set: { what: what, last: last, done: false, at: new Date() } }, { upsert: true });
    batches += 1;
  }
  squillProgress().updateOne({ _id: id }, { $set: { what: what, done: true, at: new Date() } }, { upsert: true });
  print(`squill migration: ${id}: ${what} (${batches} batches of up to ${BATCH})`);
}

// The date before which documents go to an archive: now less `days`, fixed by
// the first run so that a re-run or a resumed run moves the same documents.
function squillCutoff(id, days) {
  const kept = squillProgress().findOne({ _id: id });
  if (kept !== null) return kept.date;
  const date = new Date(Date.now() - days * 86400000);
  squillProgress().insertOne({ _id: id, date: date, at: new Date() });
  return date;
}

function squillCount(coll, filter) {
  return db.getCollection(coll).countDocuments(filter);
}

// Children held by `field` over the whole collection: an array counts its
// items, a sub-document one.
function squillSizes(coll, field) {
  const f = "$" + field;
  const r = db.getCollection(coll).aggregate([
    { $group: { _id: null, n: { $sum: { $cond: [{ $isArray: f }, { $size: f }, { $cond: [{ $eq: [{ $type: f }, "object"] }, 1, 0] }] } } } },
  ]).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}

// Children a parent keeps at most `k` of, summed over the parents.
function squillCapped(coll, ref, k) {
  const r = db.getCollection(coll).aggregate([
    { $match: { [ref]: { $ne: null } } },
    { $group: { _id: "$" + ref, n: { $sum: 1 } } },
    { $group: { _id: null, n: { $sum: { $min: ["$n", k] } } } },
  ]).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}

// The items of `field` over the whole collection that are bare ids, not
// documents.
function squillIds(coll, field) {
  const f = "$" + field;
  const r = db.getCollection(coll).aggregate([
    { $project: { n: { $size: { $filter: { input: { $cond: [{ $isArray: f }, f, []] }, cond: { $ne: [{ $type: "$$this" }, "object"] } } } } } },
    { $group: { _id: null, n: { $sum: "$n" } } },
  ]).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}

// The items of `field` over the whole collection that are documents with
// every one of `names` set (the copies a step looked up).
function squillFilled(coll, field, names) {
  const f = "$" + field;
  const set = names.map((n) => ({ $ne: [{ $ifNull: ["$$this." + n, null] }, null] }));
  const r = db.getCollection(coll).aggregate([
    { $project: { n: { $size: { $filter: { input: { $cond: [{ $isArray: f }, f, []] }, cond: { $and: [{ $eq: [{ $type: "$$this" }, "object"] }].concat(set) } } } } } },
    { $group: { _id: null, n: { $sum: "$n" } } },
  ]).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}

// An index on `path` of `coll` for step `id`'s $lookup, unless the step is
// done or an index of the collection already starts with the path: its
// name, for the script to drop once the step is done (null when there is
// none to drop).
function squillLookupIndex(id, coll, path) {
  const marker = squillProgress().findOne({ _id: id });
  if (marker !== null && marker.done === true) return null;
  const name = "squill_migration_" + path;
  const indexes = db.getCollection(coll).getIndexes();
  if (indexes.some((i) => i.name === name)) return name;
  if (indexes.some((i) => Object.keys(i.key)[0] === path)) return null;
  db.getCollection(coll).createIndex({ [path]: 1 }, { name: name });
  return name;
}

// The `_id` of the link between ids `a` and `b`: the first 12 bytes of the MD5
// of both, as `squill migrate` makes them, so a link written twice is one
// document.
function squillLinkId(a, b) {
  const hex = require("crypto").createHash("md5").update(EJSON.stringify([a, b])).digest("hex");
  return ObjectId(hex.slice(0, 24));
}

function squillTotal(coll, field) {
  const r = db.getCollection(coll).aggregate([{ $group: { _id: null, n: { $sum: "$" + field } } }]).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}

// The figures of the source, measured once before the first step and kept:
// a re-run compares with the source as it was.
function squillBefore(measure) {
  const kept = squillProgress().findOne({ _id: "00-before" });
  if (kept !== null) return kept.figures;
  const figures = measure();
  squillProgress().insertOne({ _id: "00-before", figures: figures, at: new Date() });
  return figures;
}

// Creates the collection with its validator, or replaces the validator of an
// existing one (as setup.js does).
function ensureCollection(name, validator) {
  const options = { validator: validator, validationLevel: "strict", validationAction: "error" };
  if (db.getCollectionNames().includes(name)) {
    db.runCommand(Object.assign({ collMod: name }, options));
  } else {
    db.createCollection(name, options);
  }
}
"#;

/// Through a parent reference: the second stage's source, measured once the
/// first stage is done and kept, as `squillBefore` keeps the first's.
pub(super) const STAGE_RUNTIME: &str = r#"
function squillBeforeStage(id, measure) {
  const kept = squillProgress().findOne({ _id: id });
  if (kept !== null) return kept.figures;
  const figures = measure();
  squillProgress().insertOne({ _id: id, figures: figures, at: new Date() });
  return figures;
}
"#;

/// The helpers of the figures of a tree's paths and of the checks of data
/// no step moves (only in a script that has them).
pub(super) const CHECK_RUNTIME: &str = r#"
// The nodes on the walk up a tree from each document of `coll` (from the id
// at `start`, through the parent ids at `parent` in `nodes`), summed: the
// items the paths from the roots hold.
function squillDepths(coll, start, nodes, parent) {
  const r = db.getCollection(coll).aggregate([
    { $graphLookup: { from: nodes, startWith: "$" + start, connectFromField: parent, connectToField: "_id", as: "walk" } },
    { $group: { _id: null, n: { $sum: { $size: "$walk" } } } },
  ]).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}

// The documents of `parent` whose id is at `path` in a document of `coll`
// (an id of no parent counts for none).
function squillHeld(coll, path, parent) {
  const r = db.getCollection(coll).aggregate([
    { $match: { [path]: { $ne: null } } },
    { $group: { _id: "$" + path } },
    { $lookup: { from: parent, localField: "_id", foreignField: "_id", as: "held" } },
    { $match: { "held.0": { $exists: true } } },
    { $group: { _id: null, n: { $sum: 1 } } },
  ]).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}

// The items of the arrays `field` of `coll` past the first `k` of each.
function squillPast(coll, field, k) {
  const r = db.getCollection(coll).aggregate([
    { $group: { _id: null, n: { $sum: { $max: [0, { $subtract: [{ $size: { $ifNull: ["$" + field, []] } }, k] }] } } } },
  ]).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}

// The documents of `coll` that pass `stages`.
function squillMatching(coll, stages) {
  const r = db.getCollection(coll).aggregate(stages.concat([{ $group: { _id: null, n: { $sum: 1 } } }])).toArray();
  return r.length === 0 ? 0 : Number(r[0].n);
}
"#;
