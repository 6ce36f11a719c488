// Runs the mongosh cookbook's bulk writes and paged reads against a
// server and checks what they do to the data, not only that they run
// (issue 41): each document of a bulk write changed by its own amount and
// no other document changed; a paged read's pages (from the last key
// seen, or by number with `skip`) disjoint, in the read's order, and
// together every matching document, also where the sort key ties across
// a page's edge.
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

for (const file of fs.readdirSync(`${dir}/data`).filter((f) => f.endsWith(".json")).sort()) {
  const docs = fs.readFileSync(`${dir}/data/${file}`, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => EJSON.parse(l, { relaxed: false }));
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
// is tested with ties.
function checkPages(fn, step) {
  const [afterPath, e] = step.filter.find(([, x]) => x.after !== undefined);
  const afterParam = e.after[0];
  const afterId = e.after_id;
  walkPages(fn, step, "from the last key seen", afterPath, afterId === null, [afterParam], (values, last) => {
    values[afterParam] = last === undefined ? undefined : at(last, afterPath)[0];
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

let bulks = 0;
let paged = 0;
let numbered = 0;
for (const fn of Object.keys(plan)) {
  for (const step of plan[fn].steps) {
    if (step.action === "bulk_write" && step.each) { bulks += 1; checkBulk(fn, step); }
    if (step.action === "find" && step.filter.some(([, x]) => x.after !== undefined)) { paged += 1; checkPages(fn, step); }
    if (step.action === "find" && step.skip !== undefined) { numbered += 1; checkSkipPages(fn, step); }
  }
}
print(`checked ${bulks} bulk write(s), ${paged} keyset read(s), ${numbered} read(s) paged by skip`);
db.dropDatabase();
if (failures.length > 0) {
  print(`${failures.length} check(s) failed`);
  quit(1);
}
