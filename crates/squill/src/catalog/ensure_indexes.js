// Creates a collection's indexes so that the script can run again, also over
// a deployment an older design built. An index of the same name with other
// keys or options is replaced (createIndexes alone refuses it: "An existing
// index has the same name"). A unique index is first checked for duplicates,
// which are reported before any index of the collection changes.
// An index's expiry in seconds, or null for none: `Number(null)` would be
// 0, and an expiry of 0 seconds (documents go at the date they hold) is not
// the absence of an expiry.
function squillExpiry(s) {
  return s.expireAfterSeconds === undefined || s.expireAfterSeconds === null ? null : Number(s.expireAfterSeconds);
}

function squillSamePartial(old, spec) {
  return JSON.stringify(old.partialFilterExpression || null) === JSON.stringify(spec.partialFilterExpression || null);
}

function squillSameIndex(old, spec) {
  return JSON.stringify(old.key) === JSON.stringify(spec.key)
    && !!old.unique === !!spec.unique
    && squillSamePartial(old, spec)
    && squillExpiry(old) === squillExpiry(spec);
}

// The unique specifications of `specs` whose keys repeat in the collection's
// documents (a few of the repeated keys each), for those the collection
// does not yet hold as a unique index of that name over the same documents.
// A partial index keeps its name when its condition changes (`<keys>_partial`):
// the new condition can take in documents the old one left out, so it is
// checked too, before anything is dropped.
function squillDuplicates(name, specs) {
  if (!db.getCollectionNames().includes(name)) return [];
  const held = db.getCollection(name).getIndexes();
  const found = [];
  for (const spec of specs.filter((s) => s.unique)) {
    const old = held.find((i) => i.name === spec.name);
    if (old && old.unique && JSON.stringify(old.key) === JSON.stringify(spec.key) && squillSamePartial(old, spec)) continue;
    const group = {};
    Object.keys(spec.key).forEach((path, i) => { group["k" + i] = { $ifNull: ["$" + path, null] }; });
    const pipeline = spec.partialFilterExpression ? [{ $match: spec.partialFilterExpression }] : [];
    pipeline.push({ $group: { _id: group, n: { $sum: 1 } } }, { $match: { n: { $gt: 1 } } }, { $limit: 5 });
    const repeated = db.getCollection(name).aggregate(pipeline, { allowDiskUse: true }).toArray();
    if (repeated.length > 0) found.push({ spec: spec, repeated: repeated });
  }
  return found;
}

// Stops the script, before any change, when a unique index cannot be built.
function squillCheckUnique(name, specs) {
  const found = squillDuplicates(name, specs);
  if (found.length === 0) return;
  const lines = found.map((f) => "  " + JSON.stringify(name) + "." + JSON.stringify(f.spec.name)
    + " on " + JSON.stringify(Object.keys(f.spec.key)) + ": "
    + f.repeated.map((r) => JSON.stringify(Object.values(r._id)) + " in " + r.n + " documents").join(", ")
    + (f.repeated.length === 5 ? ", …" : ""));
  throw new Error("squill: a unique index cannot be built while documents share its keys; no index was changed.\n"
    + lines.join("\n") + "\nMerge or remove the duplicates, then run the script again.");
}

// Replaces `old` by `spec` (same name). A non-unique index made unique is
// converted in place (collMod prepareUnique, then unique: MongoDB 6.0 and
// later), and a new expiry is set in place, so the collection is never
// without the index. Any other change drops the old index and builds the
// new one: no index can bridge the build, since the server keeps one index
// of a key pattern and options, whatever its name (a bridge under a
// temporary name refuses the new one its own name: code 85).
function squillReplaceIndex(name, old, spec) {
  const said = "squill: index " + JSON.stringify(name) + "." + JSON.stringify(spec.name);
  const sameKeys = JSON.stringify(old.key) === JSON.stringify(spec.key);
  const samePartial = squillSamePartial(old, spec);
  const ttl = squillExpiry;
  if (sameKeys && samePartial && spec.unique && !old.unique && ttl(old) === ttl(spec)) {
    try {
      db.runCommand({ collMod: name, index: { name: spec.name, prepareUnique: true } });
      db.runCommand({ collMod: name, index: { name: spec.name, unique: true } });
      print(said + " made unique in place");
      return;
    } catch (e) {
      if (e.code === 359) throw e; // duplicates written since the check
      // A server without the conversion: rebuilt below.
    }
  }
  if (sameKeys && samePartial && !!old.unique === !!spec.unique && ttl(old) !== null && ttl(spec) !== null) {
    db.runCommand({ collMod: name, index: { name: spec.name, expireAfterSeconds: spec.expireAfterSeconds } });
    print(said + " given its new expiry");
    return;
  }
  db.getCollection(name).dropIndex(old.name);
  db.runCommand({ createIndexes: name, indexes: [spec] });
  print(said + " rebuilt with its new keys or options (dropped first)");
}

// Only the indexes not there are sent to createIndexes: one converted in
// place keeps options of its own (`prepareUnique: false`), which the server
// may not take as the same specification again.
function ensureIndexes(name, specs) {
  squillCheckUnique(name, specs);
  const held = db.getCollectionNames().includes(name) ? db.getCollection(name).getIndexes() : [];
  const absent = [];
  for (const spec of specs) {
    const old = held.find((i) => i.name === spec.name);
    if (!old) absent.push(spec);
    else if (!squillSameIndex(old, spec)) squillReplaceIndex(name, old, spec);
  }
  if (absent.length > 0) db.runCommand({ createIndexes: name, indexes: absent });
}
