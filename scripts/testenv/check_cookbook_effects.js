// Runs the mongosh cookbook's bulk writes and paged reads against a
// server and checks what they do to the data, not only that they run
// (issue 41): each document of a bulk write changed by its own amount and
// no other document changed; a paged read's pages (from the last key
// seen, or by number with `skip`) disjoint, in the read's order, and
// together every matching document, also where the sort key ties across
// a page's edge; the figures a write computes again from an array (a
// bucket's count, sum, min, max) equal those its elements give, and so do
// those of a bucket a new child is upserted into (its parent's open one,
// or one the upsert opens, with its page), the validator on.
//
// mongosh --quiet --norc URI check_cookbook_effects.js, with SQUILL_CHECK_DIR
// the directory `squill generate` wrote (data/ loaded here, plan.json the
// cookbook's PLAN). Prints "ok: ..." per check, "FAIL: ..." per failure,
// and exits 1 on any failure. Driven by the plan, not by the names of one
// model: every bulk write and every paged read of the cookbook is run.

const fs = require("fs");
const dir = process.env.SQUILL_CHECK_DIR;
const plan = JSON.parse(fs.readFileSync(`${dir}/plan.json`, "utf8"));
const failures = [];
const fail = (msg) => { failures.push(msg); print(`FAIL: ${msg}`); };
const ok = (msg) => print(`ok: ${msg}`);

// The data files are relaxed Extended JSON: a double is written with its
// fraction (`538.0`), an int without. JavaScript's JSON reads both as one
// number, and EJSON then makes `538.0` an Int32, which a validator that
// wants a double refuses; so a number written with a fraction or an
// exponent (outside strings) is read as the double it is.
function doublesKept(line) {
  let out = "";
  let i = 0;
  while (i < line.length) {
    const ch = line[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === "\\" ? 2 : 1;
      out += line.slice(i, j + 1);
      i = j + 1;
    } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      const m = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(line.slice(i));
      const tok = m[0];
      out += m[1] !== undefined || m[2] !== undefined ? `{"$numberDouble": "${tok}"}` : tok;
      i += tok.length;
    } else {
      out += ch;
      i += 1;
    }
  }
  return out;
}

for (const file of fs.readdirSync(`${dir}/data`).filter((f) => f.endsWith(".json")).sort()) {
  const docs = fs.readFileSync(`${dir}/data/${file}`, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => EJSON.parse(doublesKept(l), { relaxed: false }));
  if (docs.length > 0) db.getCollection(file.slice(0, -".json".length)).insertMany(docs);
}
load(`${dir}/cookbook.mongosh.js`);

// The values at `path` in `v`, through arrays.
function at(v, path) {
  const out = [];
  const walk = (x, parts) => {
    if (x === undefined || x === null) return;
    if (Array.isArray(x)) { x.forEach((y) => walk(y, parts)); return; }
    if (parts.length === 0) { out.push(x); return; }
    walk(x[parts[0]], parts.slice(1));
  };
  walk(v, path === "" ? [] : path.split("."));
  return out;
}
const key = (v) => EJSON.stringify(v, { relaxed: false });
const num = (v) => (v === undefined || v === null ? 0 : Number(v.valueOf()));

// The arguments of `fn` in its parameters' order, from `values` by name;
// a parameter the check has no value for is a failure (the caller would
// be asked for something the function does not use, or the check is
// incomplete).
function args(fn, values, optional) {
  const out = [];
  for (const p of plan[fn].params) {
    if (Object.prototype.hasOwnProperty.call(values, p.name)) out.push(values[p.name]);
    else if (optional.includes(p.name)) out.push(undefined);
    else { fail(`${fn}: parameter ${p.name} is not one the steps take`); return null; }
  }
  return out;
}

// A bulk write fed by an earlier find: the found document whose objects
// are the most, its objects' amounts added up per id, the documents read
// before and after.
function checkBulk(fn, step) {
  const each = step.each;
  if (each.source.step === undefined) {
    ok(`${fn}/${step.key}: the caller passes the ids and amounts (not run)`);
    return;
  }
  const source = plan[fn].steps.find((s) => s.key === each.source.step);
  const eq = source.filter.filter(([, e]) => e.eq !== undefined);
  if (eq.length !== source.filter.length) {
    fail(`${fn}: the find before the bulk write has a filter the check cannot sample: ${JSON.stringify(source.filter)}`);
    return;
  }
  const elements = each.source.elements;
  const [found] = db.getCollection(source.collection)
    .aggregate([{ $addFields: { __n: { $size: { $ifNull: [`$${elements}`, []] } } } }, { $sort: { __n: -1, _id: 1 } }, { $limit: 1 }])
    .toArray();
  const objects = found ? at(found, elements) : [];
  if (objects.length < 2) { fail(`${fn}: no ${source.collection} holds two ${elements} to write from`); return; }
  const values = {};
  for (const [path, e] of eq) values[e.eq] = at(found, path)[0];
  const expected = new Map();
  for (const o of objects) {
    const id = at(o, each.id)[0];
    const k = key(id);
    const row = expected.get(k) || { id, by: {} };
    for (const [field, from, negative] of each.amounts) {
      row.by[field] = (row.by[field] || 0) + (negative ? -1 : 1) * num(at(o, from)[0]);
    }
    expected.set(k, row);
  }
  const coll = db.getCollection(step.collection);
  const fields = each.amounts.map(([field]) => field);
  const sums = () => {
    const group = { _id: null };
    fields.forEach((f, i) => { group[`s${i}`] = { $sum: `$${f}` }; });
    return coll.aggregate([{ $group: group }]).toArray()[0];
  };
  const ids = [...expected.values()].map((r) => r.id);
  const before = new Map(coll.find({ _id: { $in: ids } }).toArray().map((d) => [key(d._id), d]));
  if (before.size !== ids.length) { fail(`${fn}: ${ids.length - before.size} of the ids the find returns name no ${step.collection}`); return; }
  const totalBefore = sums();
  const a = args(fn, values, []);
  if (a === null) return;
  const result = globalThis[fn](...a);
  const after = new Map(coll.find({ _id: { $in: ids } }).toArray().map((d) => [key(d._id), d]));
  let good = true;
  for (const [k, row] of expected) {
    for (const field of fields) {
      const got = num(at(after.get(k), field)[0]) - num(at(before.get(k), field)[0]);
      if (got !== row.by[field]) {
        fail(`${fn}: ${step.collection} ${k} ${field} changed by ${got}, expected ${row.by[field]}`);
        good = false;
      }
    }
  }
  const totalAfter = sums();
  fields.forEach((f, i) => {
    const want = [...expected.values()].reduce((s, r) => s + r.by[f], 0);
    const got = num(totalAfter[`s${i}`]) - num(totalBefore[`s${i}`]);
    if (got !== want) { fail(`${fn}: ${f} over all of ${step.collection} changed by ${got}, expected ${want} (another document was written)`); good = false; }
  });
  const written = result[step.key];
  if (!written || written.matchedCount !== objects.length) {
    fail(`${fn}: the bulk write matched ${written && written.matchedCount}, expected one per object (${objects.length})`);
    good = false;
  }
  if (good) ok(`${fn}/${step.key}: ${expected.size} ${step.collection} documents each changed by its own amount (${objects.length} updates)`);
}

// Sorts two documents by the read's sort, then (the tie) by nothing: an
// equal key is in order.
function ordered(sort, x, y) {
  for (const [path, dir] of sort) {
    const a = at(x, path)[0];
    const b = at(y, path)[0];
    if (key(a) === key(b)) continue;
    const less = a < b;
    return dir > 0 ? less : !less;
  }
  return true;
}

// A paged find, keyset or `skip`: the equality values of its largest
// group, then every page until a page comes back short. Two documents of
// the group take the sort key of the page's last document, so that the
// key ties across the first page's edge. `next(values, last, pages)` sets
// the arguments of the page after `pages` pages, `last` the last item
// seen (undefined before the first page); `optional` the parameters a
// first page may leave out.
function walkPages(fn, step, how, tieKey, unique, optional, next) {
  const paging = step.filter.filter(([, x]) => x.after !== undefined).length;
  const eq = step.filter.filter(([, x]) => x.eq !== undefined);
  if (eq.length + paging !== step.filter.length || step.limit === null) {
    fail(`${fn}: a paged filter the check cannot sample: ${JSON.stringify(step.filter)}`);
    return;
  }
  const coll = db.getCollection(step.collection);
  const group = { _id: {} };
  eq.forEach(([path], i) => { group._id[`k${i}`] = `$${path}`; });
  group.n = { $sum: 1 };
  const [largest] = coll.aggregate([{ $group: group }, { $sort: { n: -1 } }, { $limit: 1 }]).toArray();
  if (!largest || largest.n <= 2 * step.limit) {
    fail(`${fn}: no group holds more than two pages (${largest && largest.n} documents, ${step.limit} a page)`);
    return;
  }
  const values = {};
  const filter = {};
  eq.forEach(([path, x], i) => { values[x.eq] = largest._id[`k${i}`]; filter[path] = largest._id[`k${i}`]; });
  const sortDoc = {};
  for (const [path, dir] of step.sort) sortDoc[path] = dir;
  // A tie across the first page's edge: the first two documents of the
  // second page take the key of the first page's last. Only a read whose
  // plan says its key is unique is left as it is.
  if (!unique) {
    const firsts = coll.find(filter).sort(sortDoc).limit(step.limit + 2).toArray();
    const edge = at(firsts[step.limit - 1], tieKey)[0];
    coll.updateMany({ _id: { $in: firsts.slice(step.limit).map((d) => d._id) } }, { $set: { [tieKey]: edge } });
  }
  const all = coll.find(filter).toArray();
  const seen = new Set();
  const walked = [];
  let last;
  let pages = 0;
  for (;;) {
    next(values, last, pages);
    const a = args(fn, values, optional);
    if (a === null) return;
    const page = globalThis[fn](...a)[step.key];
    pages += 1;
    if (page.length > step.limit) { fail(`${fn}: page ${pages} holds ${page.length}, more than ${step.limit}`); return; }
    for (const d of page) {
      if (seen.has(key(d._id))) { fail(`${fn}: ${key(d._id)} is on two pages (page ${pages})`); return; }
      seen.add(key(d._id));
      walked.push(d);
    }
    if (page.length < step.limit || pages > all.length) break;
    last = page[page.length - 1];
  }
  for (let i = 1; i < walked.length; i++) {
    if (!ordered(step.sort, walked[i - 1], walked[i])) { fail(`${fn}: the pages are out of order at item ${i}`); return; }
  }
  const missing = all.filter((d) => !seen.has(key(d._id)));
  if (missing.length > 0) {
    fail(`${fn}: ${missing.length} of ${all.length} documents on no page (${missing.map((d) => key(d._id)).join(", ")})`);
    return;
  }
  ok(`${fn}/${step.key}: ${pages} pages ${how} of at most ${step.limit}, disjoint, in order, ${all.length} of ${all.length} documents${unique ? " (a unique key)" : " (the key tied across the first page's edge)"}`);
}

// A keyset-paged find: each page from the last key seen (and its `_id`).
// Only a read whose plan says its key is unique (`after_id` null: a
// bucket's page number) is walked without a tie; a plan that says nothing
// is tested with ties. A sort of several keys passes the last item's
// value of each (`then`: path, parameter): its first key ties across the
// page's edge, where a page from the first key alone skips the rest.
function checkPages(fn, step) {
  const [afterPath, e] = step.filter.find(([, x]) => x.after !== undefined);
  const afterParam = e.after[0];
  const afterId = e.after_id;
  const then = e.then || [];
  // A sort of several keys is never a unique first key: its first key ties.
  const sorted = step.sort.filter(([path]) => path !== "_id").length;
  walkPages(fn, step, "from the last key seen", afterPath, afterId === null && sorted < 2, [afterParam], (values, last) => {
    values[afterParam] = last === undefined ? undefined : at(last, afterPath)[0];
    for (const [path, param] of then) values[param] = last === undefined ? undefined : at(last, path)[0];
    if (afterId) values[afterId] = last === undefined ? undefined : last._id;
  });
}

// A find paged by `skip`: page 1, 2, ... by number. The sort's first key
// ties across the first page's edge, which its later keys (`_id`) must
// order the same way in every page's query.
function checkSkipPages(fn, step) {
  const [first] = step.sort[0] || [];
  if (first === undefined) { fail(`${fn}: a page by number with no sort`); return; }
  walkPages(fn, step, "by number", first, false, [], (values, last, pages) => {
    values[step.skip] = pages + 1;
  });
}

// A write that changes or drops elements of an array and computes the
// figures kept over it again (a bucket's count, sum, min, max; issue 41),
// run on the document with the most elements and its element of the
// greatest value: an edit lowers that value below every other (the stored
// max must fall), a delete removes it. After it, each figure the step
// recomputes equals the figure computed here from the elements.
function figureOf(fn, values) {
  if (values.length === 0) return fn === "count" || fn === "sum" ? 0 : null;
  switch (fn) {
    case "count": return values.length;
    case "sum": return values.reduce((a, b) => a + b, 0);
    case "min": return Math.min(...values);
    case "max": return Math.max(...values);
    case "first": return values[0];
    case "last": return values[values.length - 1];
    default: return undefined;
  }
}
function checkRecompute(fn, step) {
  const array = step.recompute[0].over.split(".")[0];
  const valued = step.recompute.find((r) => r.over.startsWith(`${array}.`));
  const field = valued ? valued.over.slice(array.length + 1) : null;
  const eq = step.filter.filter(([, e]) => e.eq !== undefined);
  // Besides the write, only the delete of the bucket a drop emptied.
  const others = plan[fn].steps.filter((s) => s !== step);
  const emptier = others.find((s) => step.drops !== undefined && s.action.startsWith("delete") && s.collection === step.collection);
  if (eq.length !== step.filter.length || others.length !== (emptier ? 1 : 0)) {
    fail(`${fn}: a write the check cannot sample: ${JSON.stringify(step.filter)}`);
    return;
  }
  const coll = db.getCollection(step.collection);
  const [doc] = coll
    .aggregate([{ $addFields: { __n: { $size: { $ifNull: [`$${array}`, []] } } } }, { $sort: { __n: -1, _id: 1 } }, { $limit: 1 }])
    .toArray();
  const elements = doc ? doc[array] || [] : [];
  if (elements.length < 2) { fail(`${fn}: no ${step.collection} holds two ${array}`); return; }
  const valuesOf = (els) => (field ? els.map((e) => num(at(e, field)[0])) : []);
  const before = valuesOf(elements);
  const chosen = field ? elements[before.indexOf(Math.max(...before))] : elements[0];
  const values = {};
  const tests = [];
  for (const [path, e] of eq) {
    const inside = path.startsWith(`${array}.`);
    values[e.eq] = inside ? at(chosen, path.slice(array.length + 1))[0] : at(doc, path)[0];
    if (inside) tests.push([path.slice(array.length + 1), values[e.eq]]);
  }
  // The values an edit sets: below every element's.
  const lowered = field ? Math.min(...before) - 1 : 0;
  // The bucket's own key the delete of an emptied bucket names (its time
  // unit), from the document.
  const own = (vs, from = doc) => {
    for (const p of plan[fn].params) {
      if (!Object.prototype.hasOwnProperty.call(vs, p.name) && p.collection === step.collection && from[p.path] !== undefined) vs[p.name] = from[p.path];
    }
    return vs;
  };
  for (const p of plan[fn].params) {
    if (Object.prototype.hasOwnProperty.call(values, p.name)) continue;
    if (field && p.path === `${array}.${field}`) values[p.name] = typed(step.collection, p.path, lowered);
  }
  own(values);
  const matches = (e) => tests.every(([f, v]) => key(at(e, f)[0]) === key(v));
  const matched = elements.filter(matches).length;
  const a = args(fn, values, []);
  if (a === null) return;
  if (!runs(fn, a)) return;
  const after = coll.findOne({ _id: doc._id });
  const now = after[array] || [];
  let good = true;
  if (step.drops !== undefined) {
    if (now.length !== elements.length - matched) {
      fail(`${fn}: ${now.length} ${array} left of ${elements.length}, ${matched} dropped expected`);
      good = false;
    }
  } else if (field && !now.filter(matches).every((e) => num(at(e, field)[0]) === lowered)) {
    fail(`${fn}: the matched ${array} do not hold the new ${field} ${lowered}`);
    good = false;
  }
  for (const r of step.recompute) {
    const vals = r.over === array ? now : valuesOf(now);
    const want = figureOf(r.function, vals);
    const got = after[r.path] === undefined || after[r.path] === null ? null : num(after[r.path]);
    const same = want === null ? got === null : got !== null && Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));
    if (!same) {
      fail(`${fn}: ${step.collection} ${key(doc._id)} stores ${r.path} ${got}, its ${array} give ${want}`);
      good = false;
    }
  }
  if (good) ok(`${fn}/${step.key}: ${step.recompute.map((r) => r.path).join(", ")} of ${step.collection} ${key(doc._id)} equal what its ${now.length} ${array} give`);
  if (emptier) checkEmptied(fn, { coll, doc, array, eq, own });
  if (step.drops !== undefined) checkDroppedToNone(fn, step, { coll, array, field, eq, own, emptier });
}

// A drop whose update empties the bucket: a count bucket (no delete of an
// emptied bucket before it), or two drops of a time bucket's last two
// elements at once, each seeing a count of 2 before deleting, so that
// neither deletes the bucket and the second update leaves no element
// (the bucket's count is left at 2 here, as that drop saw it). The
// update must be taken by the bucket's validator, and the figures be
// those of no elements: a count of 0, a sum of 0 of the sum's own type
// (`$sum` of no elements gives an int 0, which a `double` sum refuses),
// no min or max.
function checkDroppedToNone(fn, step, { coll, array, field, eq, own, emptier }) {
  const [doc] = coll
    .aggregate([{ $addFields: { __n: { $size: { $ifNull: [`$${array}`, []] } } } }, { $match: { __n: { $gte: 1 } } }, { $sort: { __n: 1, _id: 1 } }, { $limit: 1 }, { $project: { __n: 0 } }])
    .toArray();
  if (!doc) { fail(`${fn}: no ${coll.getName()} holds one ${array}`); return; }
  const last = doc[array][0];
  const countPath = (step.recompute.find((r) => r.function === "count") || {}).path;
  const race = {};
  race[array] = [last];
  if (emptier && countPath) race[countPath] = typed(coll.getName(), countPath, 2);
  coll.updateOne({ _id: doc._id }, { $set: race });
  const values = {};
  for (const [path, e] of eq) {
    const inside = path.startsWith(`${array}.`);
    values[e.eq] = inside ? at(last, path.slice(array.length + 1))[0] : at(doc, path)[0];
  }
  const a = args(fn, own(values, doc), []);
  if (a === null || !runs(fn, a)) return;
  const after = coll.findOne({ _id: doc._id });
  if (after === null) { fail(`${fn}: ${coll.getName()} ${key(doc._id)} was deleted: the drop did not reach the update`); return; }
  let good = true;
  for (const r of step.recompute) {
    const want = figureOf(r.function, []);
    const stored = after[r.path];
    const got = stored === undefined || stored === null ? null : num(stored);
    if (got !== want) { fail(`${fn}: ${coll.getName()} ${key(doc._id)} stores ${r.path} ${got} with no ${array}, ${want} expected`); good = false; }
  }
  if (good) ok(`${fn}/${step.key}: ${step.recompute.map((r) => r.path).join(", ")} of ${coll.getName()} ${key(doc._id)} left with no ${array} are those of none, and its validator takes them${emptier ? " (two drops at once)" : ""}`);
  coll.deleteOne({ _id: doc._id });
}

// A bucket's elements dropped one by one by `fn`, down to none: the
// bucket must be gone (deleted where its count reached 0), and kept
// while it still held one.
function checkEmptied(fn, { coll, doc, array, eq, own }) {
  for (;;) {
    const current = coll.findOne({ _id: doc._id });
    const left = current ? current[array] || [] : [];
    if (left.length === 0) break;
    const values = {};
    for (const [path, e] of eq) {
      const inside = path.startsWith(`${array}.`);
      values[e.eq] = inside ? at(left[0], path.slice(array.length + 1))[0] : at(doc, path)[0];
    }
    const a = args(fn, own(values), []);
    if (a === null || !runs(fn, a)) return;
    if (left.length > 1 && coll.findOne({ _id: doc._id }) === null) {
      fail(`${fn}: ${coll.getName()} ${key(doc._id)} was deleted with ${left.length - 1} ${array} left`);
      return;
    }
  }
  if (coll.findOne({ _id: doc._id }) !== null) {
    fail(`${fn}: ${coll.getName()} ${key(doc._id)} holds no ${array} and is kept`);
    return;
  }
  ok(`${fn}: ${coll.getName()} ${key(doc._id)} deleted when the last of its ${array} was dropped`);
}

// Runs `fn` with arguments `a`; a server error is a failure of the check.
function runs(fn, a) {
  try {
    globalThis[fn](...a);
    return true;
  } catch (e) {
    fail(`${fn}: ${e.message} ${JSON.stringify(e.errInfo || {})}`);
    return false;
  }
}

// A new child added to its parent's open bucket by the insert `fn`'s
// upsert (issue 41), with the validator on: into the least full bucket
// of a parent, first a value below every other (the min must move),
// then one above (the max), then into a bucket the upsert opens for a
// parent that has none (a `$inc` and a `$min` then store the argument's
// type, which the validator must take). After each, every figure of the
// parent's buckets equals what their elements give. The figures, and the
// field each is over, are those the collection's edits recompute.
function checkInsert(fn, step, figures) {
  const array = figures[0].over.split(".")[0];
  const coll = db.getCollection(step.collection);
  const eq = step.filter.filter(([, e]) => e.eq !== undefined);
  const [doc] = coll
    .aggregate([{ $addFields: { __n: { $size: { $ifNull: [`$${array}`, []] } } } }, { $match: { __n: { $gte: 1 } } }, { $sort: { __n: 1, _id: 1 } }, { $limit: 1 }, { $project: { __n: 0 } }])
    .toArray();
  if (!doc) { fail(`${fn}: no ${step.collection} holds one ${array}`); return; }
  const field = (figures.find((r) => r.over.startsWith(`${array}.`)) || {}).over;
  const valueField = field ? field.slice(array.length + 1) : null;
  const all = coll.find({}).toArray().flatMap((d) => (valueField ? (d[array] || []).map((e) => num(at(e, valueField)[0])) : []));
  const itemParam = plan[fn].params.find((p) => p.collection === step.collection && p.path === array);
  if (!itemParam) { fail(`${fn}: no parameter takes the new ${array} item`); return; }
  // The documents the upsert's equality filter names (the parent's buckets).
  const filterOf = (vs) => { const f = {}; for (const [path, e] of eq) f[path] = vs[e.eq]; return f; };
  const insert = (eqValues, v, what) => {
    const item = Object.assign({}, doc[array][doc[array].length - 1]);
    if (item._id !== undefined) item._id = new ObjectId();
    if (valueField) item[valueField] = typed(step.collection, `${array}.${valueField}`, v);
    const values = Object.assign({}, eqValues);
    values[itemParam.name] = item;
    for (const p of plan[fn].params) {
      if (Object.prototype.hasOwnProperty.call(values, p.name)) continue;
      // A parent that keeps figures of all its children too: its sum goes
      // up by the new child's value, its `$min` and `$max` take it. (The
      // parent's figures are checked by the edits and deletes, not here.)
      if (p.collection !== step.collection && valueField) { values[p.name] = typed(p.collection, p.path, at(item, valueField)[0]); continue; }
      if (p.collection !== step.collection) continue;
      const r = figures.find((x) => x.path === p.path);
      if (r) values[p.name] = typed(step.collection, p.path, r.over === array ? 1 : at(item, r.over.slice(array.length + 1))[0]);
      // The page number a bucket of a count the upsert opens takes (squill's
      // own field): the parent's buckets so far.
      else if (p.path === "page") values[p.name] = typed(step.collection, p.path, coll.countDocuments(filterOf(eqValues)));
    }
    const held = coll.find(filterOf(eqValues)).toArray().reduce((t, d) => t + (d[array] || []).length, 0);
    const a = args(fn, values, []);
    if (a === null || !runs(fn, a)) return false;
    const buckets = coll.find(filterOf(eqValues)).toArray();
    let good = true;
    const pages = buckets.map((b) => b.page).filter((x) => x !== undefined).map(num).sort((x, y) => x - y);
    if (pages.some((x, i) => x !== i)) { fail(`${fn} (${what}): the buckets named have the pages ${JSON.stringify(pages)}`); good = false; }
    const now = buckets.reduce((t, d) => t + (d[array] || []).length, 0);
    if (now !== held + 1) { fail(`${fn} (${what}): the buckets named hold ${now} ${array}, ${held + 1} expected`); good = false; }
    for (const b of buckets) {
      for (const r of figures) {
        const els = b[array] || [];
        const vals = r.over === array ? els : els.map((e) => num(at(e, r.over.slice(array.length + 1))[0]));
        const want = figureOf(r.function, vals);
        const got = b[r.path] === undefined || b[r.path] === null ? null : num(b[r.path]);
        if (want === null ? got !== null : got === null || Math.abs(got - want) > 1e-9 * Math.max(1, Math.abs(want))) {
          fail(`${fn} (${what}): ${step.collection} ${key(b._id)} stores ${r.path} ${got}, its ${els.length} ${array} give ${want}`);
          good = false;
        }
      }
    }
    return good;
  };
  const own = {};
  for (const [path, e] of eq) own[e.eq] = at(doc, path)[0];
  const low = all.length ? Math.min(...all) - 1 : 0;
  const high = all.length ? Math.max(...all) + 1 : 0;
  let good = insert(own, low, "a value below every other") && insert(own, high, "a value above every other");
  // A parent with no bucket yet: the upsert opens one.
  const fresh = Object.assign({}, own);
  const [parentPath, parentEq] = eq.find(([path]) => doc[path] !== undefined && doc[path] !== null && doc[path]._bsontype === "ObjectId") || [];
  if (parentPath === undefined) { fail(`${fn}: the upsert's filter names no parent id`); return; }
  fresh[parentEq.eq] = new ObjectId();
  good = insert(fresh, low, "a bucket it opens") && good;
  if (good) ok(`${fn}/${step.key}: ${figures.map((r) => r.path).join(", ")} of ${step.collection} equal what their ${array} give after 3 inserts (into the least full bucket, and one it opens), its validator on`);
  if (good) checkArrivalOrder(fn, step, { coll, array, valueField, figures, parentPath, parentEq, high, insert });
}

// A bucket of a count (issue 41): a delete thins an old page, then
// inserts fill the newest page and open the next. The new children must
// come last, in their order, when the buckets are read by page (the page
// reads do so), and the parent's last read again as the plan reads it
// (the newest bucket by page that holds a child) must be the newest
// child's. An upsert that takes any bucket with room refills the old
// page, and the newest child sits before newer pages. The delete's effect
// on the bucket is made here (its element pulled, its figures computed
// again); the delete's own code is checked by checkBucketParent.
function checkArrivalOrder(fn, step, { coll, array, valueField, figures, parentPath, parentEq, high, insert }) {
  const bound = step.filter.find(([, e]) => e.below !== undefined);
  // Buckets of a count only (the upsert that opens one takes its page): a
  // time bucket's key is its time, not the order its children came in.
  const paged = plan[fn].params.some((p) => p.collection === step.collection && p.path === "page");
  if (!bound || !valueField || !paged) return;
  const perBucket = num(bound[1].below);
  const [top] = coll
    .aggregate([{ $group: { _id: `$${parentPath}`, n: { $sum: 1 } } }, { $match: { n: { $gte: 2 } } }, { $sort: { n: -1, _id: 1 } }, { $limit: 1 }])
    .toArray();
  // Buckets too large for the data to fill two (a parent's children in one
  // bucket): nothing to order. The fixtures that must show it assert the ok.
  if (!top) { print(`note: ${fn}: no parent has two ${step.collection}: the arrival order is not checked`); return; }
  const byPage = () => coll.find({ [parentPath]: top._id }).sort({ page: 1 }).toArray();
  const before = byPage();
  const oldest = before[0];
  const rest = oldest[array].slice(1);
  const set = { [array]: rest };
  for (const r of figures) {
    const vals = r.over === array ? rest : rest.map((e) => num(at(e, r.over.slice(array.length + 1))[0]));
    const v = figureOf(r.function, vals);
    set[r.path] = v === null ? null : typed(step.collection, r.path, v);
  }
  coll.updateOne({ _id: oldest._id }, { $set: set });
  // Enough to fill the newest page and open the next one.
  const k = perBucket - before[before.length - 1][array].length + 1;
  const own = { [parentEq.eq]: top._id };
  const added = [];
  for (let i = 1; i <= k; i += 1) {
    if (!insert(own, high + i, "after a delete in an old page")) return;
    added.push(high + i);
  }
  const after = byPage();
  const order = after.flatMap((b) => b[array]).map((e) => num(at(e, valueField)[0]));
  const tail = order.slice(-k);
  let good = true;
  if (JSON.stringify(tail) !== JSON.stringify(added)) {
    fail(`${fn}: after a delete in page ${num(oldest.page)} and ${k} inserts, the ${array} read by page end ${JSON.stringify(tail)}, the inserts were ${JSON.stringify(added)}`);
    good = false;
  }
  const lastPath = (figures.find((r) => r.function === "last") || {}).path;
  if (lastPath) {
    const [newest] = coll.find({ [parentPath]: top._id, count: { $gt: 0 } }).sort({ page: -1 }).limit(1).toArray();
    if (!newest || num(newest[lastPath]) !== added[added.length - 1]) {
      fail(`${fn}: the newest bucket by page keeps ${lastPath} ${newest && num(newest[lastPath])}, the newest ${array} holds ${added[added.length - 1]}`);
      good = false;
    }
  }
  if (good) ok(`${fn}/${step.key}: after a delete in page ${num(oldest.page)} and ${k} inserts, the ${array} read by page end with the inserted ones in order, ${after.length} buckets${lastPath ? `, and the newest bucket by page keeps the newest ${lastPath}` : ""}`);
}

// A value the validator takes at `path` of `collection`: an int stays an
// int, a double a double (mongosh would write a whole JavaScript number
// as an int). The first type of a list (`["int", "null"]`).
function typed(collection, path, v) {
  const [info] = db.getCollectionInfos({ name: collection });
  let schema = info && info.options && info.options.validator && info.options.validator.$jsonSchema;
  for (const part of path.split(".")) {
    if (!schema) break;
    if (schema.items) schema = schema.items;
    schema = schema.properties && schema.properties[part];
  }
  const type = schema && (Array.isArray(schema.bsonType) ? schema.bsonType[0] : schema.bsonType);
  if (type === "decimal") return NumberDecimal(String(v));
  if (type === "int") return NumberInt(v);
  if (type === "long") return NumberLong(v);
  if (type === "double") return Double(v);
  return v;
}

// The counts and sums parents keep, by the parent's field, with the
// child's field each adds up (null: a count), from the totals the grouped
// reads of deletes of several children take (`reviews_sum_rating` →
// `rating`): what an edit's or a delete's `$inc` of a sum must move by.
const kept = new Map();
for (const f of Object.keys(plan)) {
  for (const s of plan[f].steps) for (const [name, field] of s.group_sums || []) kept.set(name, field);
}

// Each kept count and sum of the parent `parentId` against what its
// children give (`refPath` in `children`); a failure per difference.
function keptTrue(fn, parents, parentId, children, refPath) {
  const parent = parents.findOne({ _id: parentId });
  const left = children.find({ [refPath]: parentId }).toArray();
  let good = true;
  for (const [name, field] of kept) {
    if (!parent || parent[name] === undefined) continue;
    const want = field === null ? left.length : left.reduce((t, c) => t + num(at(c, field)[0]), 0);
    if (num(parent[name]) !== want) {
      fail(`${fn}: ${parents.getName()} ${key(parentId)} stores ${name} ${num(parent[name])}, its ${left.length} ${children.getName()} documents give ${want}`);
      good = false;
    }
  }
  return good;
}

// A parent's max (min, first, last) of its children read again from them
// and set (issue 41), run on the parent with the most children and its
// child that holds the figure: an edit lowers the child's value below
// every other's (a `$max` kept the old max), a delete removes it. After
// it, each value the parent's write set equals the figure its children
// give now (the first in the order the reread find sorts by).
//
// With `last` (a delete only), the parent is left first with one child,
// whose values its figures then hold, and the delete removes that child:
// no child remains, and each figure must be null (not refused by the
// parent's validator).
function checkReread(fn, write, last) {
  const steps = plan[fn].steps;
  const reads = write.set_from.map((x) => steps.find((s) => s.key === x.step));
  const first = reads[0];
  const [refPath] = first.filter[0];
  const children = db.getCollection(first.collection);
  const [top] = children
    .aggregate([{ $group: { _id: `$${refPath}`, n: { $sum: 1 } } }, { $sort: { n: last ? 1 : -1, _id: 1 } }, { $match: { n: { $gte: 2 } } }, { $limit: 1 }])
    .toArray();
  if (!top || top.n < 2) { fail(`${fn}: no parent has two ${first.collection}`); return; }
  const parentId = top._id;
  const field = write.set_from[0].field;
  if (last) {
    // All but one child gone, and the parent's figures set from that one.
    const keep = children.findOne({ [refPath]: parentId });
    children.deleteMany({ [refPath]: parentId, _id: { $ne: keep._id } });
    const figures = {};
    for (const x of write.set_from) figures[x.path] = typed(write.collection, x.path, num(at(keep, x.field)[0]));
    for (const [name, f] of kept) figures[name] = typed(write.collection, name, f === null ? 1 : num(at(keep, f)[0]));
    db.getCollection(write.collection).updateOne({ _id: parentId }, { $set: figures });
  }
  // The child holding the figure: the greatest value for a max, the latest
  // for a last (the order the first reread sorts by is the plan's, not
  // used to judge it).
  const order = { max: [field, -1], min: [field, 1], last: ["_id", -1], first: ["_id", 1] }[write.set_from[0].function];
  const chosen = children.find({ [refPath]: parentId }).sort({ [order[0]]: order[1], _id: order[1] }).limit(1).toArray()[0];
  const all = children.find({ [refPath]: parentId }).toArray();
  const lowest = Math.min(...all.map((c) => num(at(c, field)[0])));
  const values = {};
  for (const p of plan[fn].params) {
    // The value the changed child held (the parent's figure is cleared and
    // read again only where it still equals it).
    if (p.name === `old_${field}`) values[p.name] = typed(first.collection, field, num(at(chosen, field)[0]));
    else if (p.collection === first.collection && p.path === "_id") values[p.name] = chosen._id;
    else if (p.collection === first.collection && p.path === refPath) values[p.name] = parentId;
    else if (p.collection === write.collection && p.path === "_id") values[p.name] = parentId;
    else if (p.collection === first.collection) values[p.name] = typed(first.collection, p.path, lowest - 1);
    // A kept sum of the field moves by the change (an edit's `add_`), or
    // by minus the deleted child's value (a delete's `minus_`).
    else if (p.collection === write.collection && kept.get(p.path) === field) {
      const old = num(at(chosen, field)[0]);
      values[p.name] = typed(write.collection, p.path, p.name.startsWith("minus_") ? -old : lowest - 1 - old);
    }
    // The new value a `$max` (`$min`) of the parent takes: the edit's.
    else if (p.collection === write.collection) values[p.name] = typed(write.collection, p.path, lowest - 1);
  }
  const a = args(fn, values, []);
  if (a === null) return;
  if (!runs(fn, a)) return;
  const parent = db.getCollection(write.collection).findOne({ _id: parentId });
  let good = true;
  // The figures from the children now, worked out here: the greatest or
  // least value, or the value of the latest or earliest child (by `_id`).
  const now = children.find({ [refPath]: parentId }).sort({ _id: 1 }).toArray();
  write.set_from.forEach((x) => {
    const vs = now.map((c) => num(at(c, x.field)[0]));
    const want = vs.length === 0 ? null : figureOf(x.function, vs);
    const stored = at(parent, x.path)[0];
    const got = stored === undefined || stored === null ? null : num(stored);
    if (got !== want) {
      fail(`${fn}: ${write.collection} ${key(parentId)} stores ${x.path} ${got}, its ${first.collection} documents give ${want}`);
      good = false;
    }
  });
  if (!keptTrue(fn, db.getCollection(write.collection), parentId, children, refPath)) good = false;
  if (good && last && now.length !== 0) { fail(`${fn}: ${write.collection} ${key(parentId)} still has ${now.length} ${first.collection}: the delete did not remove its last`); good = false; }
  const sums = [...kept.keys()].filter((k) => parent && parent[k] !== undefined);
  if (good) ok(`${fn}/${write.key}: ${write.set_from.map((x) => x.path).concat(sums).join(", ")} of ${write.collection} ${key(parentId)} equal what its ${now.length} ${first.collection} documents give${last ? " (its last one deleted: null)" : ""}`);
}

// A delete of several children whose parents' counts (sums) go down by
// each parent's own totals (issue 41): one aggregation `$group`s the
// children about to go by parent, `$sum`ming them, and a bulk write
// `$inc`s each parent down by its group's totals. Run with the delete's
// parameters from the first child; each parent touched must change by
// minus the children (their field's sum) it lost, and no other parent.
function checkCountDown(fn, step) {
  const steps = plan[fn].steps;
  const group = steps.find((s) => s.key === step.each.source.step);
  const refPath = group.group;
  const children = db.getCollection(group.collection);
  // The child with the greatest value a sum adds up: a sum of ones would
  // equal the count, and hide a sum that counted.
  const summed = group.group_sums.map(([, f]) => f).find((f) => f !== null);
  const sample = summed ? children.find().sort({ [summed]: -1, _id: 1 }).limit(1).toArray()[0] : children.findOne();
  if (!sample) { fail(`${fn}: no ${group.collection} to delete`); return; }
  const values = {};
  const tests = {};
  for (const p of plan[fn].params) {
    if (p.collection !== group.collection) continue;
    values[p.name] = at(sample, p.path)[0];
    tests[p.path] = values[p.name];
  }
  // What each parent should lose, worked out here from the children.
  const sums = { _id: `$${refPath}` };
  for (const [name, field] of group.group_sums) sums[name] = { $sum: field === null ? 1 : `$${field}` };
  const lost = children.aggregate([{ $match: tests }, { $group: sums }]).toArray();
  if (!lost.some((g) => group.group_sums.some(([name, field]) => field === null && g[name] > 1))) {
    fail(`${fn}: no parent loses two ${group.collection}: the check shows nothing`);
    return;
  }
  const parents = db.getCollection(step.collection);
  const fields = step.each.amounts.map(([field]) => field);
  const snapshot = () => new Map(parents.find({}).toArray().map((d) => [key(d._id), d]));
  const before = snapshot();
  const a = args(fn, values, []);
  if (a === null || !runs(fn, a)) return;
  const after = snapshot();
  const want = new Map(lost.map((g) => [key(g._id), g]));
  let good = true;
  let many = 0;
  for (const [k, doc] of after) {
    const g = want.get(k);
    for (const [field, from] of step.each.amounts) {
      const got = num(at(doc, field)[0]) - num(at(before.get(k), field)[0]);
      const expected = g ? -num(g[from]) : 0;
      if (got !== expected) {
        if (good) fail(`${fn}: ${step.collection} ${k} ${field} changed by ${got}, it lost ${-expected}`);
        good = false;
      }
    }
    if (g && group.group_sums.some(([name, field]) => field === null && g[name] > 1)) many += 1;
  }
  // And each touched parent's count and sum are now those of the
  // children it has left (the data starts true).
  for (const g of lost) if (!keptTrue(fn, parents, g._id, children, refPath)) good = false;
  if (good) ok(`${fn}/${step.key}: ${fields.join(", ")} of the ${want.size} ${step.collection} documents the delete touched went down by what each lost (${many} lost several), equal what their children left give, and no other changed`);
}

// A delete of several children whose parents' counts go down by what a
// group counted before it, when another delete takes some of the same
// children between the group and the `deleteMany` (issue 41). The
// collection's `deleteMany` is wrapped for its next call, which first
// runs the other delete:
// - `whole`: the same function with the same arguments (a retry while the
//   first run is still in flight): it deletes them all and counts their
//   parents down; the first run's delete then deletes none, and must not
//   count them down again;
// - `one`: one of the children, deleted with its parent's counters taken
//   down by it (another delete of that child); the first run deletes the
//   others, and its parents' counters must end as their children give.
// After it, every parent touched keeps what its children left give.
function checkOverlap(fn, down, mode) {
  const steps = plan[fn].steps;
  const group = steps.find((s) => s.key === down.each.source.step);
  const refPath = group.group;
  const children = db.getCollection(group.collection);
  const parents = db.getCollection(down.collection);
  const summed = group.group_sums.map(([, f]) => f).find((f) => f !== null);
  const sample = summed ? children.find().sort({ [summed]: -1, _id: 1 }).limit(1).toArray()[0] : children.findOne();
  if (!sample) { fail(`${fn}: no ${group.collection} to delete`); return; }
  const values = {};
  const tests = {};
  for (const p of plan[fn].params) {
    if (p.collection !== group.collection) continue;
    values[p.name] = at(sample, p.path)[0];
    tests[p.path] = values[p.name];
  }
  const doomed = children.find(tests).sort({ _id: 1 }).toArray();
  if (doomed.length < 2) { fail(`${fn}: the delete takes ${doomed.length} ${group.collection}, the check needs several`); return; }
  const touched = [...new Map(doomed.map((c) => [key(at(c, refPath)[0]), at(c, refPath)[0]])).values()];
  const a = args(fn, values, []);
  if (a === null) return;

  const proto = Object.getPrototypeOf(children);
  const original = proto.deleteMany;
  let other = "";
  proto.deleteMany = function (...x) {
    proto.deleteMany = original;
    if (mode === "whole") {
      runs(fn, a);
      other = "the same delete run in between";
    } else {
      const one = doomed[0];
      const inc = {};
      for (const [field, from] of down.each.amounts) {
        const f = kept.get(from);
        inc[field] = f === null || f === undefined ? -1 : -num(at(one, f)[0]);
      }
      children.deleteOne({ _id: one._id });
      parents.updateOne({ _id: at(one, refPath)[0] }, { $inc: inc });
      other = `one of its ${doomed.length} ${group.collection} deleted in between`;
    }
    return original.apply(this, x);
  };
  const ran = runs(fn, a);
  proto.deleteMany = original;
  if (!ran) return;
  if (other === "") { fail(`${fn}: the delete never called deleteMany on ${group.collection}: the check shows nothing`); return; }
  let good = true;
  for (const id of touched) if (!keptTrue(fn, parents, id, children, refPath)) good = false;
  if (good) ok(`${fn}/${down.key}: with ${other}, ${down.each.amounts.map(([f]) => f).join(", ")} of the ${touched.length} ${down.collection} documents touched equal what their children left give`);
}

// A delete of several children that re-reads a figure for every parent it
// touched (issue 41): one aggregation `$group`s the children left by parent,
// then a bulk write `$set`s each parent's figure from its group. Run with
// the delete's parameters taken from the child that holds the figure
// furthest in the group's order (the greatest value for a max, the latest
// for a last), so that every parent whose figure that value was loses it.
// One touched parent is first left with only the children the delete
// removes, its figure set from them: after the delete it has none, and its
// figure must be null (no group names it, so a write from the groups
// alone left the deleted children's value). After it, each touched parent
// stores the figure its children give.
function checkRegroup(fn, write) {
  const steps = plan[fn].steps;
  const group = steps.find((s) => s.key === write.each.source.step);
  if (!group || group.group === undefined || group.sort.length < 2) {
    fail(`${fn}: the bulk write's sets come from no grouped read`);
    return;
  }
  const refPath = group.group;
  const [byField, dir] = group.sort[1];
  const fnName = byField === "_id" ? (dir === -1 ? "last" : "first") : (dir === -1 ? "max" : "min");
  const children = db.getCollection(group.collection);
  const top = children.find().sort({ [byField]: dir, _id: dir }).limit(1).toArray()[0];
  if (!top) { fail(`${fn}: no ${group.collection} to delete`); return; }
  const values = {};
  const tests = {};
  for (const p of plan[fn].params) {
    if (p.collection !== group.collection) continue;
    values[p.name] = at(top, p.path)[0];
    tests[p.path] = values[p.name];
  }
  const touched = children.distinct(refPath, tests);
  if (touched.length < 2) { fail(`${fn}: the delete touches ${touched.length} parent(s), not several`); return; }
  const parents = db.getCollection(write.collection);
  // The parent the delete empties: the touched one with the fewest
  // children, its others removed, its figures those of the ones left.
  const counts = children.aggregate([{ $match: { [refPath]: { $in: touched } } }, { $group: { _id: `$${refPath}`, n: { $sum: 1 } } }, { $sort: { n: 1, _id: 1 } }, { $limit: 1 }]).toArray();
  const emptied = counts[0]._id;
  // Put back after the check: the later checks need parents with children.
  const removed = children.find({ [refPath]: emptied, $nor: [tests] }).toArray();
  children.deleteMany({ [refPath]: emptied, $nor: [tests] });
  const doomed = children.find({ [refPath]: emptied }).sort({ [byField]: dir, _id: dir }).limit(1).toArray()[0];
  const figures = {};
  // The child's own value, of the type the parent's validator takes.
  for (const [path, from] of write.each.sets) figures[path] = at(doomed, from)[0];
  parents.updateOne({ _id: emptied }, { $set: figures });
  const a = args(fn, values, []);
  if (a === null || !runs(fn, a)) return;
  let checked = 0;
  let nulled = 0;
  let good = true;
  for (const parentId of touched) {
    const left = children.find({ [refPath]: parentId }).sort({ _id: 1 }).toArray();
    if (left.length === 0) nulled += 1;
    const parent = parents.findOne({ _id: parentId });
    for (const [path, from] of write.each.sets) {
      const want = left.length === 0 ? null : figureOf(fnName, left.map((c) => num(at(c, from)[0])));
      const stored = at(parent, path)[0];
      const got = stored === undefined || stored === null ? null : num(stored);
      if (got !== want) {
        if (good) fail(`${fn}: ${write.collection} ${key(parentId)} stores ${path} ${got}, its ${group.collection} documents give ${want}`);
        good = false;
      }
    }
    checked += 1;
  }
  if (removed.length > 0) children.insertMany(removed);
  if (good && (nulled === 0 || nulled === checked)) { fail(`${fn}: of the ${checked} parents the delete touched, ${nulled} have no child left: the check needs both kinds`); good = false; }
  if (good) ok(`${fn}/${write.key}: ${write.each.sets.map(([p]) => p).join(", ")} of the ${checked} ${write.collection} documents the delete touched equal what their ${group.collection} documents give (${nulled} left with none: null)`);
}

// A child kept in a bucket whose parent also keeps figures of all its
// children (issue 41): the edit or the delete writes the bucket by its
// filter (the element, then the bucket's figures computed again), then the
// parent by its id (its sum by the caller's amount, its count down, its
// min and max read again from the buckets' own, its last from its newest
// bucket that holds children). With `mode` "least": run on the parent with
// the most children and the child that holds its least value: an edit
// raises it above every other (the parent's min must move up, its max
// too), a delete removes it (the min must move up). With `mode` "last":
// run on the newest child (the last of the newest bucket, by page) of a
// parent one of whose older buckets keeps a greater last value than the
// newest one will: an edit lowers it below every other, a delete removes
// it; the parent's last must be the newest bucket's (the bucket with the
// greatest last value is not). After it, every bucket's figures and the
// parent's equal what the elements give; the edit or delete then runs
// again with the same arguments (a retry), and must change nothing (the
// parent's count went down once, its sum moved once).
function checkBucketParent(fn, write, mode) {
  const array = write.recompute[0].over.split(".")[0];
  const valued = write.recompute.find((r) => r.over.startsWith(`${array}.`));
  const field = valued ? valued.over.slice(array.length + 1) : null;
  const refTest = write.filter.find(([p]) => !p.startsWith(`${array}.`));
  const parentStep = plan[fn].steps.find((s) => s.collection !== write.collection);
  if (!field || !refTest || !parentStep) { fail(`${fn}: a bucket write the check cannot sample: ${JSON.stringify(write.filter)}`); return; }
  const refPath = refTest[0];
  const buckets = db.getCollection(write.collection);
  const parents = db.getCollection(parentStep.collection);
  const dropping = write.modifies === true;
  // The buckets in their order (page, or time unit), those that hold elements.
  const order = (b) => (b.page !== undefined ? b.page : 0);
  const full = (id) => buckets.find({ [refPath]: id }).toArray().filter((b) => (b[array] || []).length > 0).sort((a, b) => order(a) - order(b));
  const elementsOf = (id) => full(id).flatMap((b) => b[array]);
  const lastName = `${array}_last_${field}`;
  let parentId;
  let chosen;
  let end = "";
  // The arguments that edit (`moved`) or delete `child` of `parentId`,
  // whose value is `old`, and how many of `among` the filter names.
  const argsFor = (child, old, moved, among) => {
    const values = {};
    const tests = [];
    // The bucket that holds `child`: a time bucket's unit (`hour`), which
    // the drop of an emptied bucket names, is the caller's to give.
    const holder = full(parentId).find((b) => (b[array] || []).some((e) => key(e) === key(child)));
    for (const p of plan[fn].params) {
      const inside = p.collection === write.collection && p.path.startsWith(`${array}.`);
      const test = write.filter.find(([path, e]) => e.eq === p.name && path === p.path);
      if (p.collection === write.collection && p.path === refPath) values[p.name] = parentId;
      else if (p.collection === write.collection && !inside && holder && holder[p.path] !== undefined) values[p.name] = holder[p.path];
      else if (inside && test) { values[p.name] = at(child, p.path.slice(array.length + 1))[0]; tests.push([p.path.slice(array.length + 1), values[p.name]]); }
      else if (inside && p.path === `${array}.${field}`) values[p.name] = typed(write.collection, p.path, moved);
      else if (p.name === `old_${field}`) values[p.name] = typed(write.collection, `${array}.${field}`, old);
      else if (p.collection === parentStep.collection && p.name.startsWith("add_")) values[p.name] = typed(p.collection, p.path, moved - old);
      else if (p.collection === parentStep.collection && p.name.startsWith("minus_")) values[p.name] = typed(p.collection, p.path, -old);
      // The new value a `$min` (`$max`) of the parent takes: the edit's.
      else if (p.collection === parentStep.collection) values[p.name] = typed(write.collection, `${array}.${field}`, moved);
    }
    const matched = tests.length === 0 ? 0 : among.filter((e) => tests.every(([f, v]) => key(at(e, f)[0]) === key(v))).length;
    return { a: args(fn, values, []), matched };
  };
  if (mode === "emptied") {
    // The newest bucket of a parent with two, emptied by the delete run
    // once for each of its children: the last run drops a bucket's only
    // child, and the bucket's first or last of none must be null, not
    // missing (a `$set` of missing removes the field the validator
    // requires: WriteError 121).
    for (const id of buckets.distinct(refPath).sort((a, b) => key(a).localeCompare(key(b)))) {
      if (full(id).length >= 2) { parentId = id; break; }
    }
    if (parentId === undefined) { fail(`${fn}: no ${parentStep.collection} has two buckets: the check shows nothing`); return; }
    // The end a read by page starts from (the oldest bucket, when one
    // reads oldest first), so that read meets the emptied bucket.
    end = pageReads(write).some(([, , dir]) => dir === 1) ? "oldest" : "newest";
    const target = (end === "oldest" ? full(parentId)[0] : full(parentId).pop())[array];
    for (const e of target.slice(0, -1)) {
      const { a, matched } = argsFor(e, num(at(e, field)[0]), 0, elementsOf(parentId));
      if (matched !== 1) { fail(`${fn}: the filter names ${matched} ${array} of ${parentStep.collection} ${key(parentId)}, the check needs one`); return; }
      if (a === null || !runs(fn, a)) return;
    }
    chosen = target[target.length - 1];
  } else if (mode === "least") {
    const [top] = buckets
      .aggregate([{ $group: { _id: `$${refPath}`, n: { $sum: { $size: { $ifNull: [`$${array}`, []] } } } } }, { $sort: { n: -1, _id: 1 } }, { $limit: 1 }])
      .toArray();
    if (!top || top.n < 2) { fail(`${fn}: no ${parentStep.collection} has two ${array}`); return; }
    parentId = top._id;
    const before = elementsOf(parentId);
    const vs = before.map((e) => num(at(e, field)[0]));
    chosen = before[vs.indexOf(Math.min(...vs))];
  } else {
    // A parent whose newest bucket, once its last element is lowered (or
    // dropped), keeps a last value below an older bucket's last.
    for (const id of buckets.distinct(refPath).sort((a, b) => key(a).localeCompare(key(b)))) {
      const bs = full(id);
      if (bs.length < 2) continue;
      const newest = bs[bs.length - 1][array];
      const all = bs.flatMap((b) => b[array]).map((e) => num(at(e, field)[0]));
      const after = dropping ? (newest.length > 1 ? num(at(newest[newest.length - 2], field)[0]) : null) : Math.min(...all) - 1;
      const olderLast = Math.max(...bs.slice(0, -1).map((b) => num(at(b[array][b[array].length - 1], field)[0])));
      if (after !== null && olderLast > after) { parentId = id; chosen = newest[newest.length - 1]; break; }
    }
    if (parentId === undefined) { fail(`${fn}: no ${parentStep.collection} whose newest bucket's last would fall below an older bucket's: the check shows nothing`); return; }
  }
  const before = elementsOf(parentId);
  const values0 = before.map((e) => num(at(e, field)[0]));
  const old = num(at(chosen, field)[0]);
  const moved = mode === "least" ? Math.max(...values0) + 1 : Math.min(...values0) - 1;
  const parentBefore = parents.findOne({ _id: parentId });
  // The parent's figures, by the names the design gives them.
  const figures = [["count", `${array}_count`], ["sum", `${array}_sum_${field}`], ["min", `${array}_min_${field}`], ["max", `${array}_max_${field}`], ["last", lastName]]
    .filter(([, name]) => parentBefore && parentBefore[name] !== undefined);
  const watched = mode === "least" ? `${array}_min_${field}` : lastName;
  if (mode !== "emptied" && (!figures.some(([, n]) => n === watched) || num(parentBefore[watched]) !== old)) {
    fail(`${fn}: ${parentStep.collection} ${key(parentId)} keeps no ${watched} equal to its ${mode} ${array}' ${field} (${old}): the check shows nothing`);
    return;
  }
  const { a, matched } = argsFor(chosen, old, moved, before);
  if (matched !== 1) { fail(`${fn}: the filter names ${matched} ${array} of ${parentStep.collection} ${key(parentId)}, the check needs one`); return; }
  if (a === null || !runs(fn, a)) return;
  // Each bucket's figures, and the parent's, against the elements.
  const agree = (when) => {
    let good = true;
    for (const b of buckets.find({ [refPath]: parentId }).toArray()) {
      const vs = (b[array] || []).map((e) => num(at(e, field)[0]));
      for (const r of write.recompute) {
        const want = r.over === array ? (b[array] || []).length : figureOf(r.function, vs);
        const got = b[r.path] === undefined || b[r.path] === null ? null : num(b[r.path]);
        if (got !== want) { fail(`${fn}${when}: ${write.collection} ${key(b._id)} stores ${r.path} ${got}, its ${array} give ${want}`); good = false; }
      }
    }
    const after = elementsOf(parentId);
    const vs = after.map((e) => num(at(e, field)[0]));
    const parent = parents.findOne({ _id: parentId });
    for (const [f, name] of figures) {
      const want = f === "count" ? after.length : vs.length === 0 ? null : figureOf(f, vs);
      const got = parent[name] === undefined || parent[name] === null ? null : num(parent[name]);
      if (got !== want) { fail(`${fn}${when}: ${parentStep.collection} ${key(parentId)} stores ${name} ${got}, its ${after.length} ${array} give ${want}`); good = false; }
    }
    return [good, after.length, parent];
  };
  let [good, n, parent] = agree("");
  const how = mode === "emptied" ? `deleted one by one until its ${end} bucket was empty` : n === before.length ? (mode === "least" ? "raised above every other" : "lowered below every other") : "deleted";
  if (good && mode === "least" && num(parent[watched]) === old) { fail(`${fn}: the least ${field} ${old} ${how}, yet the parent's min did not move: the check shows nothing`); good = false; }
  if (good && mode === "last") {
    // The greatest last value among the buckets is not the newest's.
    const byValue = Math.max(...full(parentId).map((b) => num(b[`last_${field}`])));
    if (byValue === num(parent[lastName])) { fail(`${fn}: the bucket with the greatest last_${field} is the newest: the check shows nothing`); good = false; }
  }
  // A delete or an edit retried: the bucket write matches nothing (a
  // delete) or changes nothing (an edit sets what is there), and nothing
  // the parent keeps may move (its count went down once, its sum moved
  // once by the edit's difference).
  let retried = "";
  if (good) {
    if (!runs(fn, a)) return;
    [good] = agree(" run again");
    retried = ", and again with the same arguments";
  }
  // An edit retried after another edit of the same child (issue 41):
  // the child edited again from the first edit's new value, then the
  // first edit run again with its own arguments. Its old value is no
  // longer the child's, so its bucket write must match nothing and the
  // parent's sum must not move by its difference a second time.
  if (good && mode !== "emptied" && n === before.length) {
    const keys = write.filter
      .filter(([p, e]) => p.startsWith(`${array}.`) && e.eq && e.eq !== `old_${field}` && p !== `${array}.${field}`)
      .map(([p]) => p.slice(array.length + 1));
    const now = elementsOf(parentId).find((e) => keys.length > 0 && keys.every((f) => key(at(e, f)[0]) === key(at(chosen, f)[0])));
    const again = mode === "least" ? moved + 1 : moved - 1;
    const second = now === undefined ? null : argsFor(now, moved, again, elementsOf(parentId));
    if (second === null || second.a === null || second.matched !== 1) {
      fail(`${fn}: the edited ${array} of ${parentStep.collection} ${key(parentId)} cannot be edited again by its key (${keys.join(", ")}): the check shows nothing`);
      good = false;
    } else {
      if (!runs(fn, second.a) || !runs(fn, a)) return;
      [good] = agree(" retried after another edit");
      retried += ", and again after another edit of the same child";
    }
  }
  // The reads by page skip the bucket just emptied: each returns buckets
  // that hold children, as many as its limit allows.
  let pages = "";
  if (good && mode === "emptied") {
    for (const [reader, step, dir] of pageReads(write)) {
      const values = {};
      for (const p of plan[reader].params) {
        if ((p.collection === parentStep.collection && p.path === "_id") || (p.collection === write.collection && p.path === refPath)) values[p.name] = parentId;
      }
      const ra = args(reader, values, []);
      if (ra === null) { good = false; break; }
      let got;
      try { got = globalThis[reader](...ra)[step.key]; } catch (e) { fail(`${reader}: ${e.message}`); good = false; break; }
      const want = Math.min(step.limit, full(parentId).length);
      const emptyOnes = (got || []).filter((b) => (b[array] || []).length === 0).length;
      if (!got || got.length !== want || emptyOnes > 0) {
        fail(`${reader}: after a ${write.collection} of ${parentStep.collection} ${key(parentId)} was emptied, the read by page ${dir === 1 ? "oldest" : "newest"} first returns ${got ? got.length : 0} bucket(s), ${emptyOnes} of them empty; ${want} hold children`);
        good = false;
      }
      if (good) pages += `; ${reader} skips the emptied bucket`;
    }
  }
  if (good) ok(`${fn}/${write.key}: ${write.recompute.map((r) => r.path).join(", ")} of each ${write.collection} and ${figures.map(([, x]) => x).join(", ")} of ${parentStep.collection} ${key(parentId)} equal what its ${n} ${array} give (the ${mode === "least" ? "least" : mode === "emptied" ? `${end} bucket's` : "latest"} ${field} ${how}${retried}${pages}), its validators on`);
}

// The reads of `write`'s buckets by page, one bucket or a few (the
// cookbook's functions): [function, step, 1 oldest first or -1].
function pageReads(write) {
  const out = [];
  for (const fn of Object.keys(plan)) {
    for (const s of plan[fn].steps) {
      // Not a figure read again (those run only when a test matched).
      if (s.action === "find" && !s.when && s.collection === write.collection && s.limit !== null && s.sort.length === 1 && s.sort[0][0] === "page") out.push([fn, s, s.sort[0][1]]);
    }
  }
  return out;
}

// A delete of all the children of a parent (issue 41): the parent's
// buckets deleted, and the figures it keeps over them set to those of
// none (a count and sums of 0, null extremes and last), with the
// validator on. Run on the parent with the most buckets.
function checkClear(fn, del, reset) {
  const [refPath] = del.filter[0];
  const buckets = db.getCollection(del.collection);
  const parents = db.getCollection(reset.collection);
  const [top] = buckets.aggregate([{ $group: { _id: `$${refPath}`, n: { $sum: 1 } } }, { $sort: { n: -1, _id: 1 } }, { $limit: 1 }]).toArray();
  if (!top || top.n < 2) { fail(`${fn}: no ${reset.collection} has two buckets: the check shows nothing`); return; }
  const values = {};
  for (const p of plan[fn].params) values[p.name] = top._id;
  const others = buckets.countDocuments({ [refPath]: { $ne: top._id } });
  const a = args(fn, values, []);
  if (a === null) return;
  // A failure between the two writes (they are not one transaction): the
  // parent's write throws once, after the buckets went. The parent then
  // keeps the figures of children it no longer has, until the operation
  // is retried: the retry deletes nothing and must still set the figures
  // (issue 41: the `$set` is not gated on the delete).
  const proto = Object.getPrototypeOf(parents);
  const original = proto.updateOne;
  proto.updateOne = function (...x) {
    if (this.getName() !== reset.collection) return original.apply(this, x);
    proto.updateOne = original;
    throw new Error("a failure planted between the two writes");
  };
  let interrupted = false;
  try { globalThis[fn](...a); } catch (e) { interrupted = /planted/.test(e.message); }
  proto.updateOne = original;
  if (!interrupted) { fail(`${fn}: the failure between its writes did not happen: the check shows nothing`); return; }
  if (!runs(fn, a)) return;
  let good = true;
  const left = buckets.countDocuments({ [refPath]: top._id });
  if (left !== 0) { fail(`${fn}: ${left} bucket(s) of ${key(top._id)} left`); good = false; }
  if (buckets.countDocuments({ [refPath]: { $ne: top._id } }) !== others) { fail(`${fn}: other parents' buckets deleted`); good = false; }
  const parent = parents.findOne({ _id: top._id });
  for (const [path, f] of reset.reset) {
    const want = f === "count" || f === "sum" || f === "avg" ? 0 : null;
    const got = parent[path] === undefined || parent[path] === null ? null : num(parent[path]);
    if (got !== want) { fail(`${fn}: ${reset.collection} ${key(top._id)} stores ${path} ${got}, with no child it is ${want}`); good = false; }
  }
  if (good) ok(`${fn}/${del.key}: the ${top.n} buckets of ${reset.collection} ${key(top._id)} deleted, and ${reset.reset.map(([p]) => p).join(", ")} set to those of none by the retry after a failure between the two writes, its validator on`);
}

let bulks = 0;
let regrouped = 0;
let overlapped = 0;
const overlaps = [];
let paged = 0;
let recomputed = 0;
let reread = 0;
let numbered = 0;
let counted = 0;
let lastDeleted = 0;
const lastChild = [];
// The edits and deletes of a bucketed child whose parent keeps figures
// too: checked whole, the bucket's write and the parent's (their steps
// together are what keeps the figures true).
const bucketParent = new Set(
  Object.keys(plan).filter((fn) => plan[fn].steps.some((s) => s.recompute !== undefined) && plan[fn].steps.some((s) => s.set_from !== undefined)),
);
let bucketParents = 0;
let lastOfBuckets = 0;
let clears = 0;
let emptiedBuckets = 0;
const emptied = [];
for (const fn of Object.keys(plan)) {
  if (bucketParent.has(fn)) {
    const write = plan[fn].steps.find((s) => s.recompute !== undefined);
    bucketParents += 1;
    checkBucketParent(fn, write, "least");
    if (write.recompute.some((r) => r.function === "last") && plan[fn].steps.some((s) => (s.set_from || []).some((x) => x.function === "last"))) {
      lastOfBuckets += 1;
      checkBucketParent(fn, write, "last");
    }
    // Last: it empties a bucket the other checks would sample.
    if (write.modifies === true) { emptiedBuckets += 1; emptied.push([fn, write]); }
    continue;
  }
  const reset = plan[fn].steps.find((s) => s.reset !== undefined);
  const cleared = reset && plan[fn].steps.find((s) => s.action === "delete_many");
  if (reset && cleared) { clears += 1; checkClear(fn, cleared, reset); continue; }
  for (const step of plan[fn].steps) {
    const source = step.each && plan[fn].steps.find((s) => s.key === step.each.source.step);
    // The recount after deletes that overlapped: checked with the
    // count down it stands in for (`checkOverlap`).
    if (step.when && step.when.deleted_all !== undefined && !step.when.holds) continue;
    if (step.action === "bulk_write" && step.each && step.each.sets !== undefined) { regrouped += 1; checkRegroup(fn, step); }
    else if (step.action === "bulk_write" && source && source.group_sums !== undefined) {
      counted += 1;
      checkCountDown(fn, step);
      // Last: each deletes more children the other checks sample.
      overlapped += 1;
      overlaps.push([fn, step]);
    }
    else if (step.action === "bulk_write" && step.each) { bulks += 1; checkBulk(fn, step); }
    if (step.action === "find" && step.filter.some(([, x]) => x.after !== undefined)) { paged += 1; checkPages(fn, step); }
    if (step.action === "find" && step.skip !== undefined) { numbered += 1; checkSkipPages(fn, step); }
    if (step.recompute !== undefined) { recomputed += 1; checkRecompute(fn, step); }
    if (step.set_from !== undefined) {
      reread += 1;
      checkReread(fn, step, false);
      // A delete's re-read runs again on a parent's last child.
      const coll = plan[fn].steps.find((s) => s.key === step.set_from[0].step).collection;
      // Last: it leaves parents with no child, which the checks of
      // several parents need.
      if (plan[fn].steps.some((s) => s.action === "delete_one" && s.collection === coll)) { lastDeleted += 1; lastChild.push([fn, step]); }
    }
  }
}
for (const [fn, step] of lastChild) checkReread(fn, step, true);
for (const [fn, write] of emptied) checkBucketParent(fn, write, "emptied");
// The inserts into buckets last: they add elements the checks above do
// not expect. A bucket's figures are those its edits recompute.
const bucketFigures = new Map();
for (const fn of Object.keys(plan)) {
  for (const s of plan[fn].steps) {
    for (const r of s.recompute || []) {
      const list = bucketFigures.get(s.collection) || [];
      if (!list.some((x) => x.path === r.path)) list.push(r);
      bucketFigures.set(s.collection, list);
    }
  }
}
let inserted = 0;
for (const fn of Object.keys(plan)) {
  for (const step of plan[fn].steps) {
    if (step.action === "upsert" && bucketFigures.has(step.collection)) { inserted += 1; checkInsert(fn, step, bucketFigures.get(step.collection)); }
  }
}
// A batch insert whose parent keeps the count of its children (review
// 40): a batch of new children of one parent, cloned from one of its
// children with ids of their own, inserted by the function; the parent's
// count must go up by as many as the documents stored for it, and equal
// them.
function checkBatchCount(fn, step) {
  const insert = plan[fn].steps.find((s) => s.action === "insert_many");
  const idParam = step.filter.find(([p]) => p === "_id");
  if (!insert || !idParam || idParam[1].eq === undefined) { fail(`${fn}: a batch count the check cannot sample: ${JSON.stringify(step.filter)}`); return; }
  const children = db.getCollection(insert.collection);
  const parents = db.getCollection(step.collection);
  let ref = null;
  let sample = null;
  for (const c of children.find().limit(50).toArray()) {
    ref = Object.keys(c).find((k) => k !== "_id" && parents.findOne({ _id: c[k] }) !== null);
    if (ref !== undefined) { sample = c; break; }
  }
  if (sample === null) { fail(`${fn}: no ${insert.collection} names a ${step.collection}`); return; }
  const parentId = sample[ref];
  const n = 7;
  const batch = [];
  for (let i = 0; i < n; i += 1) batch.push(Object.assign(EJSON.parse(EJSON.stringify(sample, { relaxed: false }), { relaxed: false }), { _id: new ObjectId() }));
  const values = {};
  values[idParam[1].eq] = parentId;
  for (const [, list] of step.counts_batch) values[list] = batch;
  const stored = () => children.countDocuments({ [ref]: parentId });
  const before = parents.findOne({ _id: parentId });
  const storedBefore = stored();
  const a = args(fn, values, []);
  if (a === null) return;
  globalThis[fn](...a);
  const after = parents.findOne({ _id: parentId });
  const storedAfter = stored();
  let good = storedAfter - storedBefore === n;
  if (!good) fail(`${fn}: the batch stored ${storedAfter - storedBefore} ${insert.collection} documents, expected ${n}`);
  for (const [path] of step.counts_batch) {
    const moved = num(at(after, path)[0]) - num(at(before, path)[0]);
    if (moved !== storedAfter - storedBefore) { fail(`${fn}: ${step.collection} ${path} went up by ${moved}, the ${insert.collection} documents stored by ${storedAfter - storedBefore}`); good = false; }
    if (num(at(after, path)[0]) !== storedAfter) { fail(`${fn}: ${step.collection} ${path} is ${num(at(after, path)[0])}, the ${insert.collection} documents stored for it ${storedAfter}`); good = false; }
  }
  if (good) ok(`${fn}/${step.key}: ${step.counts_batch.map(([p]) => p).join(", ")} went up by the ${n} ${insert.collection} documents one batch stored, and equals the ${storedAfter} stored for the parent`);
}
let batches = 0;
for (const fn of Object.keys(plan)) {
  for (const step of plan[fn].steps) {
    if (step.counts_batch !== undefined) { batches += 1; checkBatchCount(fn, step); }
  }
}
for (const [fn, step] of overlaps) {
  checkOverlap(fn, step, "whole");
  checkOverlap(fn, step, "one");
}
print(`checked ${bulks} bulk write(s), ${paged} keyset read(s), ${numbered} read(s) paged by skip`);
if (batches > 0) print(`checked ${batches} count(s) kept by a batch insert`);
if (bucketParents > 0) print(`checked ${bucketParents} edit(s) and delete(s) of a bucketed child whose parent keeps figures too (${lastOfBuckets} of them on the newest child, for the parent's last; ${emptiedBuckets} emptying a bucket), ${clears} delete(s) of all a parent's bucketed children`);
print(`checked ${recomputed} write(s) that recompute stored figures, ${reread} that set figures read again (${lastDeleted} of them on a parent's last child too), ${regrouped} that set them for every parent touched, ${counted} that count each parent down by its own amount (${overlapped} of them with another delete in between), ${inserted} insert(s) into buckets`);
db.dropDatabase();
if (failures.length > 0) {
  print(`${failures.length} check(s) failed`);
  quit(1);
}
