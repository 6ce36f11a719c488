"""Checks what `squill generate` wrote against a running MongoDB-compatible server.

    python check_generated.py --uri URI --db NAME --dir OUT [--broken FILE] [--no-load]
                              [--expect FILE] [--node [--node-skip FUNCTION=REASON]...]
                              [--mongosh MONGOSH]

OUT holds the artifacts (setup already run) and the data of one design:
  data/*.json        Extended JSON lines, loaded into the collections (the validators
                     are on: a document that does not match fails the load)
  dump/DB/*.bson     must decode (pymongo's bson) to the same documents as data/*.json
  cookbook.py        every function in its PLAN is called on the loaded data with
                     parameters sampled from it, and its results are checked against
                     what the step promises: the filter's matches (count_documents),
                     the sort order, the limit; writes match the documents they target.
  timelines          (fan-out on write, when PLAN has a feed merged from a timeline)
                     each loaded timeline equals the newest items of the parents its
                     reader follows, outliers apart, recomputed from the loaded edges
                     and items; a new item published, edited and deleted through the
                     cookbook is in, updated in and gone from its parent's followers'
                     timelines; the feed merges a timeline with an outlier's items in
                     order, at most the limit.
--no-load: the database already holds the design's data (a migration's result):
load nothing, compare no dump, check the cookbook on what is there.
--expect FILE: check_migrated.py's checks (its --expect format: counts and fan-out
against the source tables) on the data as loaded, before the cookbook writes to it:
a migration's documents loaded once for both scripts' checks.
--node: then the same documents loaded again in every collection the Python
cookbook may have written to, and the Node.js cookbook (cookbook.js) checked the
same way, each function run with the mongodb Node.js driver in one long-lived node
(node_cookbook.py); --node-skip leaves a function out, printed as SKIP with its
reason (a feature the server lacks).
--mongosh MONGOSH: then the same documents loaded again, and the mongosh cookbook
(cookbook.mongosh.js) run with MONGOSH in one long-lived mongosh (mongosh_cookbook.py)
under the checks of `otherwise` (a function that fails when its write matches nothing,
an atomic group's undo) and of the nearest-first reads.
--broken FILE: Extended JSON lines {"collection": C, "document": D}; each insert must be
refused by the server with code 121 (document failed validation).

Exits 1 with a message per failed check; prints one line per check that passed.
"""

import argparse
import datetime
import glob
import importlib.util
import json
import math
import os
import sys

import bson
from bson import json_util
from bson.decimal128 import Decimal128
from bson.objectid import ObjectId
from pymongo import MongoClient
from pymongo.errors import WriteError

FAILURES = []
# Operations whose failure is a known flaw of the design (named by the test
# with its reason); their failures are reported as KNOWN and do not fail the run,
# but one that passes does, so the list shrinks when the flaw is fixed.
EXPECTED = set()
# Functions of the Node.js cookbook not run (--node-skip FUNCTION=REASON):
# what the server lacks for them, printed as SKIP with the reason.
NODE_SKIPPED = {}
_current = [None]


def fail(msg):
    if _current[0] in EXPECTED:
        print("KNOWN: " + msg)
        _current[0] = ("known", _current[0])
        return
    if isinstance(_current[0], tuple):
        print("KNOWN: " + msg)
        return
    FAILURES.append(msg)
    print("FAIL: " + msg)


def ok(msg):
    print("ok: " + msg)


OPTS = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL, tz_aware=False)


def load_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json_util.loads(line, json_options=OPTS) for line in f if line.strip()]


def load_data(db, out):
    loaded = {}
    for path in sorted(glob.glob(os.path.join(out, "data", "*.json"))):
        name = os.path.basename(path)[: -len(".json")]
        docs = load_lines(path)
        if docs:
            db[name].insert_many(docs, ordered=True)
        loaded[name] = docs
        ok(f"loaded {len(docs)} documents into {name} under its validator")
    return loaded


def check_dump(out, loaded):
    for path in sorted(glob.glob(os.path.join(out, "dump", "*", "*.bson"))):
        name = os.path.basename(path)[: -len(".bson")]
        with open(path, "rb") as f:
            raw = f.read()
        decoded = bson.decode_all(raw)
        ejson = loaded.get(name, [])
        if decoded != ejson:
            fail(f"dump {name}.bson: {len(decoded)} documents differ from data/{name}.json ({len(ejson)})")
            continue
        # Byte-identical re-encoding: the BSON is canonical.
        again = b"".join(bson.encode(d) for d in decoded)
        if again != raw:
            fail(f"dump {name}.bson does not re-encode byte-identically")
            continue
        ok(f"dump {name}.bson decodes to the {len(decoded)} documents of data/{name}.json")


def check_counts(db, path):
    """check_migrated.py's checks of `path` on what `db` holds."""
    import check_migrated  # beside this script, which is on sys.path

    with open(path, encoding="utf-8") as f:
        checks = json.load(f)
    failed = check_migrated.run_checks(db, checks)
    if failed:
        FAILURES.append(f"{failed} migrated figure(s) differ from PostgreSQL's")


def check_broken(db, path):
    for item in load_lines(path):
        coll, doc = item["collection"], item["document"]
        try:
            db[coll].insert_one(doc)
        except WriteError as e:
            if e.code == 121:
                ok(f"{coll}: a document that breaks the shape is refused (121)")
            else:
                fail(f"{coll}: broken document refused with code {e.code}, not 121")
            continue
        fail(f"{coll}: a document that breaks the shape was accepted: {doc}")


def check_points(db, out, loaded):
    """Each top-level GeoJSON Point field of a collection's validator: a
    loaded document with whole-number coordinates (Python ints, stored as
    int32, as a driver stores them) is taken; with one number, or a
    latitude past 90, refused (121). The inserted copy is deleted again."""
    with open(os.path.join(out, "validators.json"), encoding="utf-8") as f:
        validators = json.load(f)
    for coll, validator in sorted(validators.items()):
        props = validator.get("$jsonSchema", {}).get("properties", {})
        points = [n for n, p in props.items() if p.get("properties", {}).get("type", {}).get("enum") == ["Point"]]
        docs = loaded.get(coll, [])
        for field in points:
            base = next((d for d in docs if isinstance(d.get(field), dict)), None)
            if base is None:
                continue
            for coordinates, taken in (([13, 52], True), ([13.4], False), ([13.4, 91.0], False)):
                doc = {k: v for k, v in base.items() if k != "_id"}
                doc[field] = {"type": "Point", "coordinates": coordinates}
                try:
                    _id = db[coll].insert_one(doc).inserted_id
                except WriteError as e:
                    if taken or e.code != 121:
                        fail(f"{coll}.{field}: {coordinates} refused with code {e.code}")
                    else:
                        ok(f"{coll}.{field}: the point {coordinates} is turned away (code 121)")
                    continue
                db[coll].delete_one({"_id": _id})
                if taken:
                    ok(f"{coll}.{field}: the point {coordinates} (ints) is taken")
                else:
                    fail(f"{coll}.{field}: the point {coordinates} was accepted")


def at_path(doc, path):
    """Values at a dotted path, through arrays."""
    out = []

    def walk(v, parts):
        if isinstance(v, list):
            for x in v:
                walk(x, parts)
            return
        if not parts:
            out.append(v)
            return
        if isinstance(v, dict) and parts[0] in v:
            walk(v[parts[0]], parts[1:])

    parts = [p for p in path.split(".") if not p.startswith("$")] if path else []
    walk(doc, parts)
    return out


def shift(v):
    """A value after `v` of the same type, for the end of a range."""
    if isinstance(v, datetime.datetime):
        return v + datetime.timedelta(days=3650)
    if isinstance(v, (int, float)):
        return v + 10**9
    if isinstance(v, Decimal128):
        return Decimal128(v.to_decimal() + 10**9)
    if isinstance(v, str):
        return v + "\uffff"
    return v


def truncated(v, unit):
    """`v` cut to the start of its `unit`, as the cookbook does."""
    zero = {"month": dict(day=1, hour=0, minute=0, second=0, microsecond=0),
            "day": dict(hour=0, minute=0, second=0, microsecond=0),
            "hour": dict(minute=0, second=0, microsecond=0)}.get(unit, dict(second=0, microsecond=0))
    return v.replace(**zero)


def new_id(db, coll, like):
    """An `_id` no document of `coll` has, of the type the design gives it:
    an ObjectId, or for a key kept from a table (an integer) the next one."""
    if isinstance(like, int) and not isinstance(like, bool):
        last = db[coll].find_one({}, {"_id": 1}, sort=[("_id", -1)])
        top = last["_id"] if last and isinstance(last["_id"], int) else like
        return type(like)(top + 1)
    if isinstance(like, str):
        return f"{like}-{ObjectId()}"
    return ObjectId()


def related_doc(db, plan, coll, path, values):
    """A document of coll with `path` that the other conditions of the step
    ranging over `path` select, with the parameters sampled so far (a
    customer's own buckets, not another customer's): a range is then taken
    where the rest of the filter leads. None when no step says."""
    def param_of(step_key, field):
        for s in plan["steps"]:
            if s["key"] == step_key:
                for f, e in s["filter"]:
                    if f == field and isinstance(e, dict) and "eq" in e:
                        return e["eq"]
        return None

    def value_of(step_key, field):
        """The `field` of the document the earlier step finds with the
        parameters sampled so far (a sensor's `_id` from its `sensor_id`):
        the ids it feeds into this step, without relying on `_id` order."""
        for s in plan["steps"]:
            if s["key"] != step_key or s["action"] != "find":
                continue
            cond = {}
            for f, e in s["filter"]:
                if not (isinstance(e, dict) and "eq" in e and e["eq"] in values):
                    return None
                cond[f] = values[e["eq"]]
            found = db[s["collection"]].find_one(cond, sort=[("_id", 1)]) if cond else None
            vals = at_path(found, field) if found else []
            return vals[0] if vals else None
        return None

    for step in plan["steps"]:
        if step["collection"] != coll:
            continue
        if not any(f == path and isinstance(e, dict) and "range" in e for f, e in step["filter"]):
            continue
        cond = {path: {"$exists": True}}
        for f, e in step["filter"]:
            if not isinstance(e, dict):
                continue
            name = e.get("eq")
            if "ids_from" in e:
                name = param_of(*e["ids_from"])
                if name is None:
                    found = value_of(*e["ids_from"])
                    if found is not None:
                        cond[f] = found
                    continue
            if isinstance(name, str) and name in values:
                cond[f] = values[name]
        if len(cond) > 1:
            found = db[coll].find_one(cond, sort=[("_id", 1)])
            if found:
                return found
    return None


def held(db, coll, keys, doc):
    """Whether a document of `coll` holds `doc`'s values at all of `keys`."""
    vals = [at_path(doc, k) for k in keys]
    if any(not v for v in vals):
        return False
    return db[coll].count_documents({k: v[0] for k, v in zip(keys, vals)}, limit=1) > 0


def candidates(db, coll, doc, key):
    """Other values for the field of `doc` that holds `key`, each whole: the
    field as other documents of `coll` hold it, then, for a reference (its
    value, or its `_id`, is the `_id` of a document of some collection),
    the other documents of that collection (with the copies beside the id
    taken from them)."""
    top = key.split(".")[0]
    for o in db[coll].find({key: {"$exists": True}}, {top: 1}).sort("_id", 1).limit(500):
        yield o[top]
    field = doc.get(top)
    sub = isinstance(field, dict) and key == f"{top}._id"
    if key != top and not sub:
        return
    # The referenced collection, found by the example's value or one the
    # data holds (the example's document may have been deleted by now).
    values = [field["_id"] if sub else field] + [v for o in db[coll].find({key: {"$exists": True}}).limit(5) for v in at_path(o, key)]
    target = next((c for v in values for c in db.list_collection_names() if db[c].find_one({"_id": v}, {"_id": 1})), None)
    if target is None:
        return
    for o in db[target].find({}).sort("_id", 1).limit(500):
        yield {f: o.get(f, v) for f, v in field.items()} | {"_id": o["_id"]} if sub else o["_id"]


def unheld(db, coll, doc, keep=()):
    """`doc` changed, where a unique index of `coll` over several fields
    would refuse it, to values no document holds together: the example's
    values may be a pair the data already links (the first book and the
    first tag). When the data links every pair (a small sample), the last
    field gets a new id: a link to nothing, but the insert is what is
    checked. Fields in `keep` stay as they are (a step matches on them)."""
    for info in db[coll].list_indexes():
        keys = list(info["key"].keys())
        if not info.get("unique") or len(keys) < 2 or not held(db, coll, keys, doc):
            continue
        for key in reversed(keys):
            top = key.split(".")[0]
            if top in keep:
                continue
            free = next((v for v in candidates(db, coll, doc, key) if not held(db, coll, keys, {**doc, top: v})), None)
            if free is not None:
                doc[top] = free
                break
        else:
            top = next((k.split(".")[0] for k in reversed(keys) if k.split(".")[0] not in keep), keys[-1].split(".")[0])
            field = doc[top]
            if isinstance(field, dict):
                doc[top] = {**field, "_id": new_id(db, coll, field.get("_id"))}
            else:
                doc[top] = new_id(db, coll, field)
    return doc


def now_utc():
    """Now, as pymongo gives dates back (UTC, without a zone)."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def revive(db, plan):
    """Every document a step tests as not yet expired (`date > now − life`)
    made alive: synthetic dates lie in the past, so each would be expired,
    and the read or claim would rightly find none."""
    for step in plan["steps"]:
        for path, expr in step["filter"]:
            if "unexpired" in expr and "." not in path:
                db[step["collection"]].update_many({path: {"$exists": True}}, {"$set": {path: now_utc()}})


def sample_params(db, plan, examples):
    """A value for each parameter, taken from the loaded data."""
    revive(db, plan)
    values = {}
    # A keyset page's last key seen (and its `_id`): none, the first page,
    # which build_filter counts; check_cookbook_effects.js walks the pages.
    first_page = {
        name
        for step in plan["steps"]
        for _, expr in step["filter"]
        if "after" in expr
        for name in (
            expr["after"][0],
            expr.get("after_id"),
            *(param for _, param, _ in expr.get("then", [])),
        )
    }
    windows = {
        expr["key_in_window"]["from"]
        for step in plan["steps"]
        for _, expr in step["filter"]
        if "key_in_window" in expr
    }
    for p in plan["params"]:
        coll, path, kind = p["collection"], p["path"], p["kind"]
        if p["name"] in first_page:
            values[p["name"]] = None
            continue
        if kind in ("document", "documents"):
            doc = dict(examples[coll]["typical"])
            doc["_id"] = new_id(db, coll, doc.get("_id"))
            doc = unheld(db, coll, doc)
            values[p["name"]] = doc if kind == "document" else [doc]
            continue
        # A yes-or-no the caller knows (a followed account is an outlier):
        # yes, so that the step it guards runs.
        if kind == "flag":
            values[p["name"]] = True
            continue
        # A page by number (`skip`): the first, which build_filter counts;
        # check_cookbook_effects.js walks every page.
        if kind == "page":
            values[p["name"]] = 1
            continue
        # A batch job's batch: its default (the PLAN's `limit`).
        if kind == "batch":
            values[p["name"]] = None
            continue
        found = db[coll].find_one({path: {"$exists": True}}, sort=[("_id", 1)])
        if kind in ("from", "to"):
            found = related_doc(db, plan, coll, path, values) or found
        # A window over time buckets starts at the earliest child, so the
        # read finds every bucket of the parent sampled (a later start
        # may leave none of them in the window).
        if kind == "from" and p["name"] in windows:
            found = db[coll].find_one({path: {"$exists": True}}, sort=[(path, 1)])
        vals = at_path(found, path) if found else []
        if kind in ("item", "items"):
            vals = [x for v in at_path(found, path) for x in (v if isinstance(v, list) else [v])] if found else []
        if not vals:
            raise RuntimeError(f"no value for parameter {p['name']} at {coll}.{path}")
        v = min(vals) if kind == "from" and p["name"] in windows else vals[0]
        # A batch's new elements (`count:` above 1): a list of one.
        if kind in ("list", "items"):
            v = [v]
        elif kind == "to":
            v = shift(v)
        # The caller's amount must be above 0 (the function refuses any
        # other before its write): the data's value when it is, else 1 in
        # its type.
        elif kind == "amount":
            plain = v.to_decimal() if hasattr(v, "to_decimal") else v
            if not plain > 0:
                v = type(v)("1") if hasattr(v, "to_decimal") else type(v)(1)
        values[p["name"]] = v
    # A field of a new document that a step matches on (the new post's
    # author, whose followers are found): a value the data holds there.
    # Set after `unheld` chose free values, it may make a pair the data
    # holds again (a follow of the member followed): then the other fields
    # of the unique index change instead.
    matched = {}
    for step in plan["steps"]:
        for path, expr in step["filter"]:
            if "field_of" in expr:
                param, field = expr["field_of"]
                found = db[step["collection"]].find_one({path: {"$exists": True}}, sort=[("_id", 1)])
                vals = at_path(found, path) if found else []
                if isinstance(values.get(param), dict) and vals:
                    values[param][field] = vals[0]
                    matched.setdefault(param, set()).add(field)
    for p in plan["params"]:
        if p["kind"] == "document" and p["name"] in matched:
            values[p["name"]] = unheld(db, p["collection"], values[p["name"]], keep=matched[p["name"]])
    return values


class _Tests:
    """A filter under construction whose paths may come more than once (a
    parameter's equality and a condition's `$ne` on one path): each test
    is kept, those of a repeated path under one `$and`, as the cookbook
    writes them (render.rs, `and_repeated`)."""

    def __init__(self):
        self.pairs = []

    def __setitem__(self, path, value):
        self.pairs.append((path, value))

    def combined(self, elem_match=None):
        pairs = self.pairs
        # The tests of one array's element that must hold for the same
        # element, under one `$elemMatch` (render.rs, `elem_matched`).
        if elem_match:
            inside = elem_match + "."
            # A position (`members.49`) tests the array, not the element.
            def element(p):
                return p.startswith(inside) and not p[len(inside):].split(".")[0].isdigit()

            one = {p[len(inside):]: v for p, v in pairs if element(p)}
            if one:
                first = next(i for i, (p, _) in enumerate(pairs) if element(p))
                rest = [(p, v) for p, v in pairs if not element(p)]
                pairs = rest[:first] + [(elem_match, {"$elemMatch": one})] + rest[first:]
        repeated = {p for p, _ in pairs if sum(1 for q, _ in pairs if q == p) > 1}
        out = {p: v for p, v in pairs if p not in repeated}
        if repeated:
            out["$and"] = [{p: v} for p, v in pairs if p in repeated]
        return out


def build_filter(step, params, results):
    filt = _Tests()
    for path, expr in step["filter"]:
        if "eq" in expr:
            filt[path] = params[expr["eq"]]
        elif "in" in expr:
            filt[path] = {"$in": params[expr["in"]]}
        elif "range" in expr:
            a, b = expr["range"]
            filt[path] = {"$gte": params[a], "$lt": params[b]}
        elif "unexpired" in expr:
            filt[path] = {"$gt": now_utc() - datetime.timedelta(seconds=expr["unexpired"])}
        elif "key_in_window" in expr:
            # A time bucket's key in its children's window: from the
            # window's start truncated to the bucket's unit (render.rs,
            # `truncated`), to before its end.
            w = expr["key_in_window"]
            filt[path] = {"$gte": truncated(params[w["from"]], w["unit"]), "$lt": params[w["to"]]}
        elif "ids_from" in expr or "ids_from_all" in expr:
            # One earlier step's ids, or several steps' together (an
            # outlier's children in their parents' arrays and apart).
            sources = [expr["ids_from"]] if "ids_from" in expr else expr["ids_from_all"]
            ids = []
            for src, src_path in sources:
                for d in results.get(src, []):
                    for v in at_path(d, src_path):
                        ids.append(v.get("_id", v) if isinstance(v, dict) else v)
            filt[path] = {"$in": ids}
        elif "below" in expr:
            filt[path] = {"$lt": expr["below"]}
        elif "missing" in expr:
            filt[path] = {"$exists": False}
        elif "live_room_in" in expr:
            # Room under an array's cap among its live elements, the
            # expired ones dropped by the same write (expiry48).
            array, field, seconds, cap, items = expr["live_room_in"]
            since = now_utc() - datetime.timedelta(seconds=seconds)
            live = {"$filter": {"input": {"$ifNull": ["$" + array, []]}, "cond": {"$gt": ["$$this." + field, since]}}}
            filt[path] = {"$lte": [{"$size": live}, cap - (len(params[items]) if items else 1)]}
        elif "number" in expr:
            filt[path] = expr["number"]
        elif "pair" in expr:
            k, v = expr["pair"]
            filt[path] = {"$elemMatch": {"k": params[k], "v": params[v]}}
        elif "field_of" in expr:
            param, field = expr["field_of"]
            filt[path] = params[param][field]
        elif "subtree_from" in expr:
            src, into = expr["subtree_from"]
            ids = []
            for d in results.get(src, []):
                ids.append(d["_id"])
                ids.extend(x["_id"] for x in d.get(into, []))
            filt[path] = {"$in": ids}
        # Geo filters, counted as the set they select without an order
        # (count_documents refuses $near): the circle of a `near` or
        # `within_circle` as $centerSphere (radians: metres over the
        # Earth's radius), an area or a point as $geometry.
        # That a `near` returns the nearest first is checked apart
        # (check_nearest): the cookbook reads it with a `$geoNear` stage,
        # which SecantusDB gets right where its `$near` with a limit
        # returns neither the nearest nor an ordered list
        # (probe_server_features.py).
        elif "near" in expr or "within_circle" in expr:
            point, metres = expr.get("near") or expr["within_circle"]
            centre = params[point]["coordinates"]
            filt[path] = {"$geoWithin": {"$centerSphere": [centre, metres / 6378100.0]}}
        elif "within" in expr:
            filt[path] = {"$geoWithin": {"$geometry": params[expr["within"]]}}
        elif "intersects" in expr:
            filt[path] = {"$geoIntersects": {"$geometry": params[expr["intersects"]]}}
        elif "test" in expr:
            # A conditional write's test on a constant (`status = running`):
            # counted with it, so a document that fails the test is
            # expected to match nothing.
            # A test against the caller's amount (`available >= quantity`)
            # compares with that parameter's value.
            op, literal = expr["test"]
            value = params[literal["value"]] if literal["kind"] == "amount" else literal["value"]
            filt[path] = {"$" + op: value}
    return filt.combined(step.get("elem_match"))


def tree_of(db, tree_collection, parent_field):
    """The nodes of a tree as the data has them: each id's parent and children."""
    parent, children = {}, {}
    for d in db[tree_collection].find({}, {parent_field: 1}):
        p = d.get(parent_field)
        parent[d["_id"]] = p
        if p is not None:
            children.setdefault(p, []).append(d["_id"])
    return parent, children


def subtree(children, node):
    """The node and everything below it: a breadth-first walk of the parent references."""
    seen, frontier = {node}, [node]
    while frontier:
        nxt = []
        for n in frontier:
            for c in children.get(n, []):
                if c not in seen:
                    seen.add(c)
                    nxt.append(c)
        frontier = nxt
    return seen


def chain(parent, node):
    """The ids from the root down to `node`, following the parent references."""
    out, seen = [node], {node}
    while parent.get(out[-1]) is not None and parent[out[-1]] not in seen:
        seen.add(parent[out[-1]])
        out.append(parent[out[-1]])
    return out[::-1]


def check_under(db, step, params, result, label):
    """A filter on a path from a tree's root: it matches exactly the documents
    whose node is in the subtree a breadth-first walk of the parent references
    finds under the given node; ids fed from a subtree walk are exactly that
    subtree."""
    good = True
    for u in step.get("under", []):
        expr = dict(step["filter"]).get(u["path"], {})
        if "eq" not in expr:
            continue
        parent, children = tree_of(db, u["tree_collection"], u["parent_field"])
        below = subtree(children, params[expr["eq"]])
        want = {d["_id"] for d in db[step["collection"]].find({}, {u["node_field"]: 1}) if d.get(u["node_field"]) in below}
        filt = build_filter(step, params, result)
        matched = {d["_id"] for d in db[step["collection"]].find(filt, {"_id": 1})}
        if matched != want or not want:
            fail(f"{label}: {u['path']} matches {len(matched)} documents, the parent references put {len(want)} under the node")
            good = False
    for path, expr in step["filter"]:
        if "subtree_from" not in expr:
            continue
        src, into = expr["subtree_from"]
        for d in result.get(src, []):
            coll = next(s["collection"] for s in PLAN_STEPS[0] if s["key"] == src)
            g = next(s["graph"] for s in PLAN_STEPS[0] if s["key"] == src)
            _, children = tree_of(db, coll, g["connect_to"])
            want = subtree(children, d["_id"])
            got = {d["_id"]} | {x["_id"] for x in d.get(into, [])}
            if got != want:
                fail(f"{label}: the subtree of {d['_id']} has {len(got)} ids, the parent references {len(want)}")
                good = False
    return good


def path_fields(plan):
    """Every path from a tree's root the cookbook tests: (collection, field,
    tree collection, parent field, node field)."""
    out = set()
    for op in plan.values():
        for step in op["steps"]:
            for u in step.get("under", []):
                out.add((step["collection"], u["path"].split(".")[0], u["tree_collection"], u["parent_field"], u["node_field"]))
    return sorted(out)


def check_paths(db, fields, label):
    """Every path agrees with the parent references: the ids from the root
    down to the node, and in a node's own path each item's copies equal that
    node's own fields."""
    good = True
    for coll, field, tree_coll, parent_field, node_field in fields:
        parent, _ = tree_of(db, tree_coll, parent_field)
        nodes = {d["_id"]: d for d in db[tree_coll].find({})}
        checked = 0
        for d in db[coll].find({}):
            node = d.get(node_field)
            if node is None or field not in d:
                continue
            items = d[field]
            ids = [x["_id"] if isinstance(x, dict) else x for x in items]
            want = chain(parent, node)
            if ids != want:
                fail(f"{label}: {coll} {d['_id']}: {field} is {ids}, the parent references say {want}")
                return False
            for x in items:
                if isinstance(x, dict):
                    own = nodes.get(x["_id"], {})
                    wrong = [k for k in x if k != "_id" and own.get(k) != x[k]]
                    if wrong:
                        fail(f"{label}: {coll} {d['_id']}: {field} copies {wrong} of {x['_id']} differ from the node's")
                        return False
            checked += 1
        if checked == 0:
            fail(f"{label}: no {coll} document holds a {field}; the check would be empty")
            good = False
    return good


def sample_move(db, plan, params):
    """A move that changes the paths: a node with a parent and children (and,
    when a rebase rewrites another collection's paths, documents there)
    under a new parent outside its subtree that is not its parent."""
    for step in plan["steps"]:
        for r in step.get("rebase", []):
            u = next((u for u in step.get("under", []) if u["path"].split(".")[0] == r["path"]), None)
            if u is None:
                continue
            parent, children = tree_of(db, u["tree_collection"], u["parent_field"])
            new_parent = next((p["name"] for p in plan["params"] if p["collection"] == u["tree_collection"] and p["path"] == u["parent_field"]), None)
            if new_parent is None:
                continue
            holders = [s for s in plan["steps"] if s.get("rebase")]
            for node in sorted(parent, key=str):
                if parent[node] is None or not children.get(node):
                    continue
                below = subtree(children, node)
                if any(
                    db[s["collection"]].count_documents({s["rebase"][0]["path"] + ("._id" if s["rebase"][0]["objects"] else ""): node}) == 0
                    for s in holders
                ):
                    continue
                root = chain(parent, node)[0]
                target = next((n for n in sorted(parent, key=str) if n not in below and n != parent[node] and chain(parent, n)[0] != root), None)
                if target is None:
                    continue
                params[r["node"]] = node
                params[new_parent] = target
                return True
    return False


def unwound(filt, arr):
    """`filt` for the documents `$unwind` made of `arr`: a test of one
    element (`{arr: {$elemMatch: {k: v}}}`) becomes tests of the one
    object there (`{arr.k: v}`), which `$elemMatch` no longer matches."""
    out = {}
    for path, test in filt.items():
        if path == arr and isinstance(test, dict) and set(test) == {"$elemMatch"}:
            for k, v in test["$elemMatch"].items():
                out[f"{arr}.{k}"] = v
        else:
            out[path] = test
    return out


def check_walk(db, step, filt, got, label):
    """A $graphLookup step: one result per document the filter matches,
    each holding exactly the documents a breadth-first walk of the same
    references reaches within maxDepth (computed here from the data)."""
    g = step["graph"]
    coll = db[step["collection"]]
    want = coll.count_documents(filt)
    if len(got) != want or want == 0:
        fail(f"{label}: {len(got)} documents, expected {want} (filter {filt})")
        return False
    docs = list(coll.find({}))
    for doc in got:
        frontier = [v for v in at_path(doc, g["start_with"]) if v is not None]
        seen = set()
        for _ in range(g["max_depth"] + 1):
            nxt = []
            for d in docs:
                if d["_id"] in seen:
                    continue
                if any(v in frontier for v in at_path(d, g["connect_to"])):
                    seen.add(d["_id"])
                    nxt.extend(v for v in at_path(d, g["connect_from"]) if v is not None)
            frontier = nxt
            if not frontier:
                break
        # (A root has no ancestors and a leaf no descendants: an empty walk
        # is checked like any other.)
        found = {d["_id"] for d in doc.get(g["into"], [])}
        if found != seen:
            fail(f"{label}: {doc['_id']} walked to {len(found)} documents, expected {len(seen)}")
            return False
    return True


def sort_key(doc, path, direction):
    """The value MongoDB sorts a document by: for an array, its smallest
    element ascending and its largest descending."""
    # Decimal128 has no order in Python: compare its decimal value.
    vals = [v.to_decimal() if isinstance(v, Decimal128) else v for v in at_path(doc, path) if v is not None]
    if not vals:
        return None
    return max(vals) if direction < 0 else min(vals)


def check_sorted(docs, sort, label):
    if not sort or len(docs) < 2:
        return True
    path, direction = sort[0]
    keys = [sort_key(d, path, direction) for d in docs]
    # Missing and null sort before every value, as in MongoDB.
    expected = sorted(keys, key=lambda k: (k is not None, k if k is not None else 0), reverse=direction < 0)
    if keys != expected:
        fail(f"{label}: not sorted by {path} {direction}")
        return False
    return True


# Fan-out on write: a timeline per reader with copies of the newest items of
# those it follows (found from PLAN: the feed that merges a timeline with the
# items read at feed time, and the writes that push into timelines).


def _cmp(a, b):
    """MongoDB's order of two values of one sort key (missing first)."""
    if a is None or b is None:
        return (a is not None) - (b is not None)
    if isinstance(a, Decimal128):
        a = a.to_decimal()
    if isinstance(b, Decimal128):
        b = b.to_decimal()
    try:
        return (a > b) - (a < b)
    except TypeError:
        return 0


def feed_order(sort):
    """A sort key for documents in the feed's order, ties by `_id`."""
    import functools

    def cmp(x, y):
        for path, direction in sort:
            vx = (at_path(x, path) or [None])[0]
            vy = (at_path(y, path) or [None])[0]
            c = _cmp(vx, vy) * (-1 if direction < 0 else 1)
            if c:
                return c
        return _cmp(x.get("_id"), y.get("_id"))

    return functools.cmp_to_key(cmp)


def timeline_spec(plans):
    """What PLAN says of the timeline, or None without one."""
    spec = None
    for fn, plan in plans.items():
        m = plan.get("merge")
        if not m:
            continue
        steps = {s["key"]: s for s in plan["steps"]}
        items_step = steps[m["items"]]
        spec = {
            "feed": fn,
            "timeline": steps[m["timeline"]]["collection"],
            "reader_param": steps[m["timeline"]]["filter"][0][1].get("eq"),
            "items": items_step["collection"],
            "parent_field": items_step["filter"][0][0],
            "sort": m["sort"],
            "limit": m["limit"],
        }
    if spec is None:
        return None
    for fn, plan in plans.items():
        steps = {s["key"]: s for s in plan["steps"]}
        for s in plan["steps"]:
            if s["collection"] != spec["timeline"] or s["action"] != "update_many":
                continue
            src = [e["ids_from"] for _, e in s["filter"] if "ids_from" in e]
            if not src or src[0][0] not in steps:
                continue
            followers = steps[src[0][0]]
            kept = followers["filter"][0][1].get("ids_from")
            if kept and kept[0] in steps:
                # The followers keep the edges' ids: the edges by the
                # followed side, then the readers whose array holds them.
                edges = steps[kept[0]]
                spec["edges"] = edges["collection"]
                spec["followed"] = edges["filter"][0][0]
                spec["kept"] = (followers["collection"], followers["filter"][0][0])
                spec["follower"] = None
            else:
                spec["edges"] = followers["collection"]
                spec["followed"] = followers["filter"][0][0]
                spec["follower"] = src[0][1]
            when = s.get("when") or {}
            if "at_most" in when:
                spec["threshold"] = when["at_most"][1]
            actions = {x["action"] for x in plan["steps"] if x["collection"] == spec["items"]}
            if "insert_one" in actions:
                spec["publish"] = fn
            elif "update_one" in actions:
                spec["edit"] = fn
            elif "delete_one" in actions:
                spec["delete"] = fn
    return spec if "edges" in spec else None


def follower_counts(db, spec):
    """Followers per followed parent: an edge document names one; a
    followed document holding its edges in an array (`followers.follower`
    by its `_id`) names as many as the array holds."""
    counts = {}
    follower = spec["follower"]
    for f in db[spec["edges"]].find({}, {spec["followed"]: 1, **({follower: 1} if follower else {})}):
        for p in at_path(f, spec["followed"]):
            counts[p] = counts.get(p, 0) + (max(1, len(at_path(f, follower))) if follower else 1)
    return counts


def followers_of(db, spec, parent):
    """The followers of `parent`, each once: the edges' follower field, or
    the readers keeping the ids of its edges (`kept`)."""
    edges = list(db[spec["edges"]].find({spec["followed"]: parent}))
    if spec.get("kept"):
        readers, path = spec["kept"]
        ids = [e["_id"] for e in edges]
        return [d["_id"] for d in db[readers].find({path: {"$in": ids}}, {"_id": 1})]
    return list(dict.fromkeys(v for f in edges for v in at_path(f, spec["follower"])))


def expected_timeline(db, spec, reader, counts):
    """The timeline of `reader` recomputed from the follows and the items."""
    followed = set()
    if spec.get("kept"):
        readers, path = spec["kept"]
        ids = at_path(db[readers].find_one({"_id": reader}) or {}, path)
        for f in db[spec["edges"]].find({"_id": {"$in": ids}}):
            followed.update(at_path(f, spec["followed"]))
    for f in db[spec["edges"]].find({spec["follower"]: reader}) if spec["follower"] else []:
        followed.update(at_path(f, spec["followed"]))
    threshold = spec.get("threshold")
    outliers = sorted(p for p in followed if threshold is not None and counts.get(p, 0) > threshold)
    pushed = [p for p in followed if p not in outliers]
    items = list(db[spec["items"]].find({spec["parent_field"]: {"$in": pushed}}))
    items.sort(key=feed_order(spec["sort"]))
    return items[: spec["limit"]], outliers


def check_loaded_timelines(db, spec):
    counts = follower_counts(db, spec)
    timelines = list(db[spec["timeline"]].find())
    readers = 0
    for t in timelines:
        items, outliers = expected_timeline(db, spec, t["_id"], counts)
        if t.get("items") != items:
            got = [x.get("_id") for x in t.get("items", [])]
            fail(f"loaded {spec['timeline']} {t['_id']}: items {got}, expected the newest {[x['_id'] for x in items]}")
            return
        if "threshold" in spec and sorted(t.get("outliers", [])) != outliers:
            fail(f"loaded {spec['timeline']} {t['_id']}: outliers {t.get('outliers')}, expected {outliers}")
            return
        readers += bool(items)
    if not readers:
        fail(f"loaded {spec['timeline']}: every timeline is empty; the check would be empty")
        return
    ok(f"loaded data: each of {len(timelines)} {spec['timeline']} holds the newest items of those its reader follows ({readers} not empty)")


def check_feed(db, cookbook, spec, reader, label):
    """The feed of `reader`: the timeline's items and its outliers', merged."""
    result = getattr(cookbook, spec["feed"])(db, **{spec["reader_param"]: reader})
    feed = result.get("feed")
    t = db[spec["timeline"]].find_one({"_id": reader}) or {}
    outliers = t.get("outliers", [])
    extra = list(db[spec["items"]].find({spec["parent_field"]: {"$in": outliers}})) if outliers else []
    want = sorted(t.get("items", []) + extra, key=feed_order(spec["sort"]))[: spec["limit"]]
    if feed is None or len(feed) > spec["limit"]:
        fail(f"{label}: the feed has {None if feed is None else len(feed)} items, at most {spec['limit']} expected")
        return False
    if [x["_id"] for x in feed] != [x["_id"] for x in want]:
        fail(f"{label}: the feed {[x['_id'] for x in feed]}, expected {[x['_id'] for x in want]}")
        return False
    return check_sorted(feed, spec["sort"], label)


def check_timeline_writes(db, cookbook, spec, prefix):
    """publish, edit and delete of one item, seen in its parent's followers'
    timelines; the feed of one of them, with and without an outlier."""
    plans = cookbook.PLAN
    if not all(k in spec for k in ("publish", "edit", "delete")):
        fail(f"{spec['timeline']}: no publish, edit and delete of {spec['items']} in the cookbook")
        return
    edge = db[spec["edges"]].find_one({spec["followed"]: {"$exists": True}}, sort=[("_id", 1)])
    parent = at_path(edge, spec["followed"])[0]
    # Each follower once: a follow the cookbook's own checks added may
    # repeat one (its example's follower), and a follower has one timeline.
    followers = followers_of(db, spec, parent)
    label = f"{prefix}{spec['timeline']}: {spec['publish']}, {spec['edit']}, {spec['delete']}"
    # A new item of `parent`, newer than any.
    model = db[spec["items"]].find_one({}, sort=[("_id", 1)])
    post = {k: v for k, v in model.items() if k != "_id"}
    if not isinstance(model["_id"], ObjectId):
        # A key kept from a table: the server would make an ObjectId.
        post["_id"] = new_id(db, spec["items"], model["_id"])
    post[spec["parent_field"]] = parent
    path, direction = spec["sort"][0]
    newest = db[spec["items"]].find_one({path: {"$exists": True}}, sort=[(path, direction)])
    if direction < 0 and "." not in path:
        post[path] = shift(newest[path])
    (doc_param,) = [p["name"] for p in plans[spec["publish"]]["params"] if p["kind"] == "document"]
    getattr(cookbook, spec["publish"])(db, **{doc_param: post})
    stored = db[spec["items"]].find_one({spec["parent_field"]: parent, path: post.get(path)})
    if stored is None:
        fail(f"{label}: the published item is not in {spec['items']}")
        return
    pid = stored["_id"]
    pushed = spec.get("threshold") is None or len(followers) <= spec["threshold"]

    def copies(pid):
        return [
            (t["_id"], [x for x in t.get("items", []) if x.get("_id") == pid])
            for t in db[spec["timeline"]].find({"_id": {"$in": followers}})
        ]

    held = copies(pid)
    if pushed and (len(held) != len(followers) or any(c != [stored] for _, c in held)):
        fail(f"{label}: after {spec['publish']}, {len(held)} timelines of {len(followers)} followers, copies {held}")
        return
    if not pushed and any(c for _, c in held):
        fail(f"{label}: an outlier's item was pushed into its followers' timelines")
        return
    if any(len(t.get("items", [])) > spec["limit"] for t in db[spec["timeline"]].find()):
        fail(f"{label}: a timeline holds more than {spec['limit']} items")
        return
    # Edited: each copy as the item now is.
    edit = {}
    for p in plans[spec["edit"]]["params"]:
        if p["collection"] == spec["items"] and p["path"] == "_id":
            edit[p["name"]] = pid
        elif p["collection"] == spec["items"] and p["path"] == spec["parent_field"]:
            edit[p["name"]] = parent
        else:
            old = (at_path(stored, p["path"]) or [None])[0]
            edit[p["name"]] = "edited by the check" if isinstance(old, str) or old is None else shift(old)
    getattr(cookbook, spec["edit"])(db, **edit)
    stored = db[spec["items"]].find_one({"_id": pid})
    held = copies(pid)
    if pushed and any(c != [stored] for _, c in held):
        fail(f"{label}: after {spec['edit']}, the copies {held} differ from the item {stored}")
        return
    # The feed of a follower, then with the parent noted as an outlier.
    reader = followers[0] if followers else db[spec["timeline"]].find_one()["_id"]
    if not check_feed(db, cookbook, spec, reader, f"{label}/{spec['feed']}"):
        return
    db[spec["timeline"]].update_one({"_id": reader}, {"$addToSet": {"outliers": parent}})
    result = getattr(cookbook, spec["feed"])(db, **{spec["reader_param"]: reader})
    if not any(k != "feed" and isinstance(v, list) and any(x.get(spec["parent_field"]) == parent for x in v) for k, v in result.items()):
        fail(f"{label}/{spec['feed']}: the outlier's items were not read")
        return
    if not check_feed(db, cookbook, spec, reader, f"{label}/{spec['feed']} with an outlier"):
        return
    db[spec["timeline"]].update_one({"_id": reader}, {"$pull": {"outliers": parent}})
    # Deleted: no copy left.
    delete = {}
    for p in plans[spec["delete"]]["params"]:
        if p["path"] == "_id":
            delete[p["name"]] = pid
        elif p["path"] == spec["parent_field"]:
            delete[p["name"]] = parent
    getattr(cookbook, spec["delete"])(db, **delete)
    left = [t for t, c in copies(pid) if c]
    if left:
        fail(f"{label}: after {spec['delete']}, timelines {left} still hold the item")
        return
    ok(f"{label}: the item pushed into {len(followers)} followers' timelines, its copies edited and pulled; the feed merged with an outlier's items, at most {spec['limit']} in order")


PATH_FIELDS = [[]]


def check_cookbook(db, out, node=None, mongosh=None):
    """Every function of the cookbook checked on the loaded data: the Python
    module's, or with `node` (uri, db name) the Node.js module's, run with
    the mongodb driver (node_cookbook.py), under the same checks; labels
    then read `node cookbook FN`. With `mongosh` (mongosh, uri, db name)
    the mongosh cookbook's, run in a long-lived mongosh (mongosh_cookbook.py),
    under the checks of `otherwise` and of the nearest-first reads only
    (the others run its functions' effects in check_cookbook_effects.js)."""
    spec = importlib.util.spec_from_file_location("cookbook", os.path.join(out, "cookbook.py"))
    cookbook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cookbook)
    prefix = "cookbook"
    # The functions of the atomic groups kept by undo (none: no `UNDO`),
    # with their parameters (each one operation's, a name two operations
    # share qualified by the operation).
    undo = getattr(cookbook, "UNDO", {})
    extra = {fn_name: {"params": group["params"]} for fn_name, group in undo.items()}
    if mongosh is not None:
        import mongosh_cookbook  # beside this script, which is on sys.path

        cookbook = mongosh_cookbook.MongoshCookbook(out, mongosh[0], mongosh[1], mongosh[2], cookbook.PLAN, extra)
        prefix = "mongosh cookbook"
        with open(os.path.join(out, "examples.json"), encoding="utf-8") as f:
            examples = json_util.loads(f.read(), json_options=OPTS)
        for fn_name, plan in cookbook.PLAN.items():
            check_near_order(db, cookbook, examples, fn_name, plan, f"{prefix} {fn_name}")
        check_nothing_matched(db, cookbook, examples, prefix, undo)
        return written_collections(cookbook.PLAN, None)
    if node is not None:
        import node_cookbook  # beside this script, which is on sys.path

        cookbook = node_cookbook.NodeCookbook(out, node[0], node[1], cookbook.PLAN, extra)
        prefix = "node cookbook"
    with open(os.path.join(out, "examples.json"), encoding="utf-8") as f:
        examples = json_util.loads(f.read(), json_options=OPTS)
    PATH_FIELDS[0] = path_fields(cookbook.PLAN)
    if PATH_FIELDS[0] and check_paths(db, PATH_FIELDS[0], "loaded data"):
        ok(f"loaded data: the paths of {', '.join(c + '.' + f for c, f, *_ in PATH_FIELDS[0])} agree with the parent references")
    spec = timeline_spec(cookbook.PLAN)
    if spec is not None:
        check_loaded_timelines(db, spec)
    for fn_name, plan in cookbook.PLAN.items():
        label = f"{prefix} {fn_name}"
        if node is not None and fn_name in NODE_SKIPPED:
            print(f"SKIP: {label}: {NODE_SKIPPED[fn_name]}")
            continue
        if plan.get("merged_away"):
            # Its write is another operation's one update (an atomic group
            # with `same:`): alone, the function must refuse, not pass.
            try:
                getattr(cookbook, fn_name)(db)
            except Exception as e:  # noqa: BLE001 - the refusal is the check
                if "call the function of atomic group" in str(e):
                    ok(f"{label}: merged into another operation's update, refuses alone: {e}")
                else:
                    fail(f"{label}: raised {type(e).__name__}: {e}, not the refusal of a merged write")
            else:
                fail(f"{label}: merged into another operation's update, but ran alone without an error")
            continue
        _current[0] = fn_name
        try:
            check_operation(db, cookbook, examples, fn_name, plan, label)
            check_near_order(db, cookbook, examples, fn_name, plan, label)
        finally:
            if _current[0] == fn_name and fn_name in EXPECTED:
                _current[0] = None
                fail(f"{label}: expected to fail (a known flaw of the design) but passed; remove it from the list")
            _current[0] = None
    if spec is not None:
        check_timeline_writes(db, cookbook, spec, "" if node is None else "Node.js: ")
    check_nothing_matched(db, cookbook, examples, prefix, undo)
    return written_collections(cookbook.PLAN, spec)


WRITE_ACTIONS = ("update_one", "update_many", "delete_one", "delete_many", "find_one_and_update")


def hidden(db, step, params):
    """The documents the step's filter matches, taken out of the collection
    (the caller puts them back with `restore`), so that the step matches
    nothing; None when the filter is fed by an earlier step's results."""
    if any("ids_from" in e or "ids_from_all" in e or "subtree_from" in e for _, e in step["filter"]):
        return None
    coll = db[step["collection"]]
    docs = list(coll.find(build_filter(step, params, {})))
    if docs:
        coll.delete_many({"_id": {"$in": [d["_id"] for d in docs]}})
    return docs


def restore(db, step, docs):
    if docs:
        db[step["collection"]].insert_many(docs, ordered=True)


def check_nothing_matched(db, cookbook, examples, prefix, undo):
    """What `otherwise` promises when the write matches nothing, on the
    server: with the documents its filter matches taken away, a function
    whose conditional write or claim says `fail` throws, naming itself;
    an atomic group's function (`undo`) throws, naming the group, and the
    documents the group's earlier operations inserted are gone."""
    for fn_name, plan in cookbook.PLAN.items():
        steps = [s for s in plan["steps"] if s.get("otherwise") == "fail" and s["action"] in WRITE_ACTIONS and s.get("when") is None]
        if not steps:
            continue
        label = f"{prefix} {fn_name} (nothing matched)"
        step = steps[0]
        try:
            params = sample_params(db, plan, examples)
        except RuntimeError as e:
            fail(f"{label}: {e}")
            continue
        docs = hidden(db, step, params)
        if docs is None:
            continue
        try:
            getattr(cookbook, fn_name)(db, **params)
            fail(f"{label}: returned although its {step['key']} matched nothing (otherwise: fail)")
        except Exception as e:  # noqa: BLE001 - the error is what is checked
            if fn_name in str(e) and "nothing matched" in str(e):
                ok(f"otherwise: {label}: raised {e}")
            else:
                fail(f"{label}: raised {type(e).__name__}: {e}, which does not say the operation matched nothing")
        finally:
            restore(db, step, docs)
    for fn_name, group in undo.items():
        label = f"{prefix} {fn_name} (undo)"
        try:
            sampled = {op: sample_params(db, cookbook.PLAN[op], examples) for op in group["operations"]}
        except RuntimeError as e:
            fail(f"{label}: {e}")
            continue
        params = {p["name"]: sampled[p["operation"]][p["param"]] for p in group["params"]}
        last = cookbook.PLAN[group["operations"][-1]]
        step = next(s for s in last["steps"] if s["key"] == group["step"])
        inserted = {
            s["collection"]
            for op in group["operations"][:-1]
            for s in cookbook.PLAN[op]["steps"]
            if s["action"] in ("insert_one", "insert_many")
        }
        # The documents an earlier update adds amounts to: the undo takes
        # the amounts back, so they read as before the call.
        updated = {
            s["collection"]
            for op in group["operations"][:-1]
            for s in cookbook.PLAN[op]["steps"]
            if s["action"] == "update_one"
        }
        before = {c: db[c].count_documents({}) for c in inserted}
        check_undone_after_a_failed_write(db, cookbook, fn_name, group, params, inserted, prefix)
        docs = hidden(db, step, sampled[group["operations"][-1]])
        if docs is None:
            fail(f"{label}: the conditional write's filter is fed by an earlier step; not checked")
            continue
        held = {c: list(db[c].find({}, sort=[("_id", 1)])) for c in updated}
        try:
            getattr(cookbook, fn_name)(db, **params)
            fail(f"{label}: returned although {group['operations'][-1]} matched nothing")
        except Exception as e:  # noqa: BLE001 - the error is what is checked
            after = {c: db[c].count_documents({}) for c in inserted}
            now = {c: list(db[c].find({}, sort=[("_id", 1)])) for c in updated}
            if group["group"] not in str(e) or "undone" not in str(e):
                fail(f"{label}: raised {type(e).__name__}: {e}, which does not say the group was undone")
            elif after != before or not (inserted or updated):
                fail(f"{label}: the documents before and after the undo: {before} against {after}")
            elif now != held:
                changed = sorted(c for c in updated if now[c] != held[c])
                fail(f"{label}: the undo left {', '.join(changed)} changed: an earlier update's amounts were not taken back")
            else:
                ok(f"otherwise: {label}: raised {e}; {', '.join(sorted(inserted | updated))} as before")
        finally:
            restore(db, step, docs)


def check_undone_after_a_failed_write(db, cookbook, fn_name, group, params, inserted, prefix):
    """An atomic group whose write throws after an earlier operation
    inserted undoes that insert, and the error reaches the caller: the new
    document of the first operation that inserts one after another insert
    (and before the conditional write) is given the `_id` of a document
    its collection holds (a duplicate key); then the collections the group
    inserts into hold what they held before."""
    plan = cookbook.PLAN

    def inserts(op):
        return [s["collection"] for s in plan[op]["steps"] if s["action"] == "insert_one"]

    ops = group["operations"]
    middle = None
    for k, op in enumerate(ops[:-1]):
        kinds = {q["name"]: q["kind"] for q in plan[op]["params"]}
        doc = next((p for p in group["params"] if p["operation"] == op and kinds[p["param"]] == "document"), None)
        if inserts(op) and doc is not None and any(inserts(x) for x in ops[:k]):
            middle = (op, doc, inserts(op)[0])
            break
    if middle is None:
        return
    op, p, coll = middle
    label = f"{prefix} {fn_name} (duplicate key in {op})"
    taken = db[coll].find_one({}, {"_id": 1}, sort=[("_id", 1)])
    if taken is None:
        fail(f"{label}: {coll} holds no document whose _id to take again")
        return
    before = {c: db[c].count_documents({}) for c in inserted}
    args = dict(params)
    args[p["name"]] = {**params[p["name"]], "_id": taken["_id"]}
    try:
        getattr(cookbook, fn_name)(db, **args)
        fail(f"{label}: returned although {op} inserted an _id {coll} holds")
    except Exception as e:  # noqa: BLE001 - the error is what is checked
        after = {c: db[c].count_documents({}) for c in inserted}
        if "E11000" not in str(e) and "duplicate key" not in str(e).lower():
            fail(f"{label}: raised {type(e).__name__}: {e}, not the duplicate key")
        elif after != before:
            fail(f"{label}: the documents before and after the undo: {before} against {after}")
        else:
            ok(f"undone after a failed write: {label}: raised the duplicate key; {', '.join(sorted(inserted))} as before ({before})")


# Steps that only read; any other action writes its collection.
READ_ACTIONS = ("find", "graph_lookup")


def written_collections(plans, spec):
    """The collections the cookbook's functions may have written to, and
    the timeline, which the timeline checks also write directly."""
    out = {
        step["collection"]
        for plan in plans.values()
        for step in plan["steps"]
        if step["action"] not in READ_ACTIONS
    }
    if spec is not None:
        out.add(spec["timeline"])
    return out


def reload_written(db, written, loaded):
    """The loaded documents again in every collection the Python cookbook
    may have changed (the validators and indexes stay), and in any other
    whose count moved; the collections it only read hold what was loaded.
    In the seed-example test the server's CPU was 27.8 s with every
    collection loaded again, 22.9 s with only these (one run each, issue
    47; BENCHMARKS.md, "Test suite time"). Not loading again at all (15.3 s)
    fails: the fixtures' timelines no longer hold the newest items after
    the Python cookbook's delete, which the loaded-data checks require."""
    for name in db.list_collection_names():
        if name.startswith("system."):
            continue
        docs = loaded.get(name, [])
        if name not in written and db[name].estimated_document_count() == len(docs):
            continue
        db[name].delete_many({})
        if docs:
            db[name].insert_many(docs, ordered=True)
    ok(f"loaded again: {', '.join(sorted(n for n in written if n in loaded)) or 'nothing'}")


PLAN_STEPS = [[]]


def metres_between(a, b):
    """The great-circle distance between two [longitude, latitude] points,
    on the sphere of MongoDB's radius (6,378,100 m), as `$geoNear` with
    `spherical: true` measures it."""
    lng1, lat1, lng2, lat2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
    return 2 * 6378100.0 * math.asin(min(1.0, math.sqrt(h)))


def check_nearest(db, step, params, result, got, label):
    """A `near` read with no sort of its own returns, of the documents its
    filter selects within the radius, the nearest ones (as many as the
    limit keeps), nearest first: their distances are the smallest of all,
    in order (1 m of slack, for rounding)."""
    near = [(path, e["near"]) for path, e in step["filter"] if "near" in e]
    if not near or step["sort"]:
        return True
    path, (point, _metres) = near[0]
    centre = params[point]["coordinates"]
    every = db[step["collection"]].find(build_filter(step, params, result), {path: 1})
    want = sorted(metres_between(centre, at_path(d, path)[0]["coordinates"]) for d in every)
    if step["limit"] is not None:
        want = want[: step["limit"]]
    dists = [metres_between(centre, at_path(d, path)[0]["coordinates"]) for d in got]
    if any(b < a - 1.0 for a, b in zip(dists, dists[1:])):
        fail(f"{label}: not nearest first: {[round(x) for x in dists]} m")
        return False
    if len(dists) != len(want) or any(abs(a - b) > 1.0 for a, b in zip(dists, want)):
        fail(f"{label}: not the nearest: {[round(x) for x in dists]} m, the nearest are {[round(x) for x in want]} m")
        return False
    return True


def check_near_order(db, cookbook, examples, fn_name, plan, label):
    """A `near` read with a limit, called where more documents lie within
    its radius than the limit keeps: copies of a document its filter
    selects, placed north of the point at distances spread over the
    radius and inserted in a scrambled order, must come back the nearest
    first (check_nearest). The sample data hold too few places near one
    point for the order to show; the copies are deleted after."""
    steps = [s for s in plan["steps"] if s["action"] == "find" and not s["sort"] and s["limit"] and any("near" in e for _, e in s["filter"])]
    if not steps:
        return
    step = steps[0]
    label = f"nearest first: {label}"
    try:
        params = sample_params(db, plan, examples)
    except RuntimeError as e:
        fail(f"{label}: {e}")
        return
    path, (point, metres) = next((p, e["near"]) for p, e in step["filter"] if "near" in e)
    template = db[step["collection"]].find_one(build_filter(step, params, {}))
    if template is None:
        fail(f"{label}: the sampled parameters match nothing; the check would be empty")
        return
    lng, lat = params[point]["coordinates"]
    n = step["limit"] + 10
    # Distances over the radius, in an order that is neither near-first
    # nor far-first (7 is prime to n, so each slot is taken once).
    slots = [(i * 7) % n for i in range(n)]
    copies = []
    for k in slots:
        d = metres * (k + 1) / (n + 1)
        doc = dict(template)
        doc["_id"] = new_id(db, step["collection"], template["_id"])
        doc[path.split(".")[0]] = {"type": "Point", "coordinates": [lng, lat + math.degrees(d / 6378100.0)]}
        copies.append(doc)
    try:
        for doc in copies:
            db[step["collection"]].insert_one(doc)
    except Exception as e:  # noqa: BLE001 - the setup failing is the finding
        fail(f"{label}: could not place the copies: {e}")
        db[step["collection"]].delete_many({"_id": {"$in": [d["_id"] for d in copies]}})
        return
    try:
        result = getattr(cookbook, fn_name)(db, **params)
        got = result.get(step["key"]) or []
        if len(got) != step["limit"]:
            fail(f"{label}: {len(got)} documents, expected the limit, {step['limit']}")
        elif check_nearest(db, step, params, result, got, label):
            within = db[step["collection"]].count_documents(build_filter(step, params, {}))
            ok(f"{label}: {len(got)} of {within} within {metres} m, nearest first")
    except Exception as e:  # noqa: BLE001 - any failure of the operation is the finding
        fail(f"{label}: raised {type(e).__name__}: {e}")
    finally:
        db[step["collection"]].delete_many({"_id": {"$in": [d["_id"] for d in copies]}})


def when_holds(when, params, result):
    if "flag" in when:
        return bool(params[when["flag"]])
    if "at_most" in when:
        step, n = when["at_most"]
        return len(result.get(step) or []) <= n
    if "any" in when:
        step, path = when["any"]
        return len(at_path_all(result.get(step) or [], path)) > 0
    if "full" in when:
        # An outlier's rest: read only for a document whose array is full.
        step, path, n = when["full"]
        return any(len(d.get(path) or []) >= n for d in (result.get(step) or []))
    if "deleted_all" in when:
        # A delete of many: the `deleteMany` deleted every document the
        # find returned (`holds`), or fewer (another delete took some).
        delete, found = when["deleted_all"]
        every = (result.get(delete) or {}).get("deleted_count", 0) == len(result.get(found) or [])
        return every if when.get("holds") else not every
    if "matched" in when:
        # `changed`: only when that write changed its document (an edit
        # retried, or one that sets the value already there, changes none).
        count = "modified_count" if when.get("changed") else "matched_count"
        if (result.get(when["matched"]) or {}).get(count, 0) > 0:
            return True
        # `or_deleted`: or the delete at that step deleted (a time bucket
        # deleted with its last child, which the drop then does not match).
        deleted = when.get("or_deleted")
        return deleted is not None and (result.get(deleted) or {}).get("deleted_count", 0) > 0
    return True


def at_path_all(docs, path):
    return [v for d in docs for v in at_path(d, path)]


def first_by_sort(db, step, params):
    """The ids of the documents a claim may take before it runs: those its
    filter matches that come first by its sort (ties included); None when
    its filter matches none."""
    coll = db[step["collection"]]
    filt = build_filter(step, params, {})
    sort = [(path, direction) for path, direction in step["sort"]]
    first = coll.find_one(filt, sort=sort) if sort else coll.find_one(filt)
    if first is None:
        return None
    if not sort:
        return {d["_id"] for d in coll.find(filt, {"_id": 1})}
    tied = dict(filt)
    for path, _ in sort:
        values = at_path(first, path)
        tied[path] = values[0] if values else None
    return {d["_id"] for d in coll.find({"$and": [filt, tied]}, {"_id": 1})}


def check_operation(db, cookbook, examples, fn_name, plan, label):
    PLAN_STEPS[0] = plan["steps"]
    try:
        params = sample_params(db, plan, examples)
    except RuntimeError as e:
        fail(f"{label}: {e}")
        return
    moves = any(s.get("rebase") for s in plan["steps"])
    if moves and not sample_move(db, plan, params):
        fail(f"{label}: no node to move outside its subtree in the data")
        return
    # What each write should match, counted before it runs.
    # Finds are counted before the operation too: a find that precedes a
    # delete in the same plan (find the star, then delete it) sees the
    # document the delete then removes.
    expected_writes = {}
    expected_finds = {}
    expected_claims = {}
    for step in plan["steps"]:
        # (A filter fed by an earlier step is counted when that step has run.)
        if all("ids_from" not in e and "ids_from_all" not in e and "subtree_from" not in e
               for _, e in step["filter"]):
            n = db[step["collection"]].count_documents(build_filter(step, params, {}))
            if step["action"] in ("update_one", "update_many", "delete_one", "delete_many", "upsert"):
                expected_writes[step["key"]] = n
            elif step["action"] == "find":
                expected_finds[step["key"]] = n
            elif step["action"] == "find_one_and_update":
                expected_claims[step["key"]] = first_by_sort(db, step, params)
    try:
        result = getattr(cookbook, fn_name)(db, **params)
    except Exception as e:  # noqa: BLE001 - any failure of the operation is the finding
        # A conditional write or a claim that says `otherwise: fail` throws
        # when it matches nothing: right, when nothing was there to match.
        empty = [
            s["key"]
            for s in plan["steps"]
            if s.get("otherwise") == "fail"
            and (expected_writes.get(s["key"]) == 0 or (s["key"] in expected_claims and expected_claims[s["key"]] is None))
        ]
        if empty and fn_name in str(e):
            ok(f"{label}: raised, as it should with nothing to match in {', '.join(empty)}: {e}")
        else:
            fail(f"{label}: raised {type(e).__name__}: {e}")
        return
    good = True
    for step in plan["steps"]:
        key, action = step["key"], step["action"]
        got = result.get(key)
        # A step that runs only when a condition holds: when it does not,
        # it must not have run (no documents, no write).
        if step.get("when") is not None and not when_holds(step["when"], params, result):
            if got not in (None, []):
                fail(f"{label}/{key}: ran although its condition {step['when']} does not hold")
                good = False
            continue
        # A fallback runs only when the write it stands in for matched
        # nothing: then it must have written, otherwise not have run.
        prev = step.get("fallback_of")
        if prev is not None:
            before = result.get(prev) or {}
            if before.get("matched_count", 0) != 0 and got is not None:
                fail(f"{label}/{key}: ran although {prev} matched")
                good = False
            if got is None:
                continue
        if action in ("find", "graph_lookup") or step.get("rebase"):
            good &= check_under(db, step, params, result, f"{label}/{key}")
        if action == "find":
            filt = build_filter(step, params, result)
            matching = expected_finds.get(key)
            # Totals of the children a delete removes, grouped before it:
            # one group per parent among the documents the find feeding
            # it returned (they are gone now), and the counts add up to
            # those documents.
            if matching is None and step.get("group_sums") is not None:
                src = next(e["ids_from"][0] for _, e in step["filter"] if "ids_from" in e)
                fed = result.get(src) or []
                matching = len({repr(v) for v in at_path_all(fed, step["group"])})
                for name, field in step["group_sums"]:
                    total = sum(g.get(name, 0) for g in got)
                    if field is None and total != len(fed):
                        fail(f"{label}/{key}: the groups count {total} {step['collection']}, the find before gave {len(fed)}")
                        good = False
            if step.get("elements") is not None:
                # One result per matching element of the array: each
                # element of the matching documents tested on its own.
                arr = step["elements"]
                matching = len(list(db[step["collection"]].aggregate(
                    [{"$match": filt}, {"$unwind": "$" + arr}, {"$match": unwound(filt, arr)}])))
                for g in ([] if step.get("counts") else got):
                    if not isinstance(g.get(arr), dict):
                        fail(f"{label}/{key}: {arr} is not one element: {g.get(arr)!r}")
                        good = False
            if matching is None and step.get("group") is not None:
                # One document per value of the grouped path.
                matching = len(db[step["collection"]].distinct(step["group"], filt))
            if matching is None:
                matching = db[step["collection"]].count_documents(filt)
            # A count (`returns: count`): the number of matches, no documents.
            if step.get("counts"):
                if got != matching or isinstance(got, bool) or not isinstance(got, int):
                    fail(f"{label}/{key}: counted {got!r}, expected {matching} (filter {filt})")
                    good = False
                if matching == 0:
                    fail(f"{label}/{key}: the sampled parameters match nothing; the check would be empty")
                    good = False
                continue
            want = matching if step["limit"] is None else min(matching, step["limit"])
            if len(got) != want:
                fail(f"{label}/{key}: {len(got)} documents, expected {want} (filter {filt})")
                good = False
            # A rare step (an outlier's overflow) may find nothing at test scale.
            if want == 0 and step.get("every") is None:
                fail(f"{label}/{key}: the sampled parameters match nothing; the check would be empty")
                good = False
            # Groups come in no order of their own.
            if step.get("group") is None:
                good &= check_sorted(got, step["sort"], f"{label}/{key}")
            good &= check_nearest(db, step, params, result, got, f"{label}/{key}")
        elif action == "graph_lookup":
            good &= check_walk(db, step, build_filter(step, params, result), got, f"{label}/{key}")
        elif action == "upsert" and "chunks" in step:
            # A batch upserted a chunk at a time: one result per chunk,
            # each matched a bucket or opened one.
            if not isinstance(got, list) or not got or not all(r.get("matched_count", 0) == 1 or r.get("upserted_id") is not None for r in got):
                fail(f"{label}/{key}: a chunk's upsert neither matched nor inserted: {got!r}")
                good = False
        elif action in ("update_one", "upsert"):
            n = expected_writes.get(key)
            matched = got.get("matched_count", 0)
            upserted = got.get("upserted_id") is not None
            if action == "update_one" and n is not None and matched != min(n, 1):
                fail(f"{label}/{key}: matched {matched}, expected {min(n, 1)}")
                good = False
            # A $push or $pull that matched and changed nothing wrote to
            # the wrong path (`$pull: {"a._id": x}` leaves `a` as it was).
            if action == "update_one" and step.get("modifies") and matched and got.get("modified_count", 0) != matched:
                fail(f"{label}/{key}: matched {matched} but modified {got.get('modified_count')}")
                good = False
            if action == "upsert" and not (matched == 1 or upserted):
                fail(f"{label}/{key}: the upsert neither matched nor inserted")
                good = False
        elif action == "find_one_and_update" and key in expected_claims:
            # A claim takes the first document by its sort among those its
            # filter matches (any of those tied with it), or none when none
            # matches. A write that returns the document as it was (a
            # figure over a subset, `before`) returns it as a list of 0 or 1.
            first = expected_claims[key]
            if step.get("before") and isinstance(got, list) and len(got) <= 1:
                got = got[0] if got else None
            claimed = got.get("_id") if isinstance(got, dict) else None
            if first is None and got is not None:
                fail(f"{label}/{key}: claimed {claimed!r} although no document matched")
                good = False
            elif first is not None and claimed not in first:
                fail(f"{label}/{key}: claimed {claimed!r}, but the first by {step['sort']} was one of {sorted(first, key=repr)!r}")
                good = False
        elif action == "update_many":
            n = expected_writes.get(key)
            if n is not None and got.get("matched_count") != n:
                fail(f"{label}/{key}: matched {got.get('matched_count')}, expected {n}")
                good = False
            # An update of every copy that matches none with a value taken
            # from the data passes the count above and checks nothing (it hid
            # a product id passed where a part's belonged).
            if n == 0:
                fail(f"{label}/{key}: the sampled parameters match nothing; the check would be empty")
                good = False
        elif action in ("insert_one", "insert_many"):
            # An archive's insert that skips what a stopped run copied
            # (`_insert_new`, `insertNew`) returns its count only.
            if not (got.get("inserted_id") or got.get("inserted_ids")
                    or got.get("inserted_count") or got.get("insertedCount")):
                fail(f"{label}/{key}: nothing inserted")
                good = False
    # A write to a path (a rename into the copies, a move that rebases the
    # paths below the node): every path still agrees with the parents.
    writes_paths = any(
        s["action"] in ("update_one", "update_many") and (s.get("rebase") or s.get("under"))
        for s in plan["steps"]
    )
    if writes_paths:
        good &= check_paths(db, PATH_FIELDS[0], label)
    if good:
        summary = ", ".join(
            f"{s['key']}: {result[s['key']]} counted" if s.get("counts") else f"{s['key']}: {len(result[s['key']])} docs" if s["action"] in ("find", "graph_lookup") else f"{s['key']}: {s['action']}"
            for s in plan["steps"]
            if result.get(s["key"]) is not None
        )
        ok(f"{label} ({summary})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uri", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--broken")
    ap.add_argument("--expect-fail", action="append", default=[], metavar="FUNCTION")
    ap.add_argument("--no-load", action="store_true", help="check the data the database holds")
    ap.add_argument("--expect", help="check_migrated.py's checks, run before the cookbook's")
    ap.add_argument(
        "--node",
        action="store_true",
        help="then reload the data and check the Node.js cookbook (cookbook.js) the same way",
    )
    ap.add_argument("--node-skip", action="append", default=[], metavar="FUNCTION=REASON")
    ap.add_argument(
        "--mongosh",
        metavar="MONGOSH",
        help="then reload the data and check the mongosh cookbook's otherwise and nearest-first reads with this mongosh",
    )
    args = ap.parse_args()
    if (args.node or args.mongosh) and args.no_load:
        ap.error("--node and --mongosh load the documents again where the Python cookbook wrote: not with --no-load")
    EXPECTED.update(args.expect_fail)
    NODE_SKIPPED.clear()
    NODE_SKIPPED.update(x.split("=", 1) for x in args.node_skip)
    client = MongoClient(args.uri, serverSelectionTimeoutMS=10000)
    db = client[args.db]
    if not args.no_load:
        loaded = load_data(db, args.dir)
        check_dump(args.dir, loaded)
    if args.expect:
        check_counts(db, args.expect)
    if args.broken:
        check_broken(db, args.broken)
    if not args.no_load:
        check_points(db, args.dir, loaded)
    written = check_cookbook(db, args.dir)
    if args.node:
        # The Python cookbook's writes undone: the same documents again
        # where it may have written.
        reload_written(db, written, loaded)
        written |= check_cookbook(db, args.dir, node=(args.uri, args.db))
    if args.mongosh:
        reload_written(db, written, loaded)
        check_cookbook(db, args.dir, mongosh=(args.mongosh, args.uri, args.db))
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
