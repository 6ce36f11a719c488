"""Stores batches of new children (a batch insert, `count:` above 1) with the
three cookbooks and checks what they wrote (issue 41).

Into buckets (a step with `chunks` in the cookbook's PLAN): batches of one
parent whose sizes cross a bucket's edge, one of them larger than a bucket
(for buckets of 50: 30, 30, 10, 70). Every child must be stored once, each
bucket's count must equal its array's length and stay within the bound, the
buckets read by page must give the children in the order they were sent (a
chunk that opened a page closed the bucket it passed over, so the batch of
10 does not land in page 0 behind page 1), and the parent's figures kept
after the batch (`counts_batch`, `batch_figures`) must have moved by the
whole batch: its count by the children stored, its sum by their sum, its
least, greatest and last as theirs.

Into the parent's own array (a parameter of kind `items` with no chunks):
batches until the array's bound, each one `$push` of the list, then one
that does not fit, which must fail and store nothing.

python check_batch_buckets.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote and DB set up by its setup.js. Prints "ok: ..." per
check, "FAIL: ..." per failure, exits 1 on any failure or when nothing was
checked.
"""

import copy
import datetime
import os
import sys

from bson import json_util
from bson.objectid import ObjectId
from pymongo import MongoClient

failures = []
BASE = datetime.datetime(2024, 1, 1, 10, 0, 0)


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def numeric(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def children(example, n0, n):
    """`n` distinct children cloned from `example`, numbered from `n0`: each
    date `BASE` plus its number in seconds, each number its number (in the
    number's own type), so that every child can be told from the others."""
    out = []
    for k in range(n0, n0 + n):
        item = copy.deepcopy(example)
        item.pop("_id", None)
        for f, v in item.items():
            if isinstance(v, datetime.datetime):
                item[f] = BASE + datetime.timedelta(seconds=k)
            elif isinstance(v, float):
                item[f] = float(k) + 0.5
            elif numeric(v):
                item[f] = k % 97
        out.append(item)
    return out


def key(item):
    """What tells one child from another (`children`)."""
    return tuple(sorted((f, str(v)) for f, v in item.items() if isinstance(v, datetime.datetime) or numeric(v)))


def call(book, name, args):
    try:
        return getattr(book, name)(book_db[0], **args), None
    except Exception as e:  # noqa: BLE001 (a failure is the check's)
        return None, e


book_db = [None]


def figure(function, values):
    if function == "sum":
        return sum(values)
    if function == "min":
        return min(values)
    if function == "max":
        return max(values)
    if function == "first":
        return values[0]
    return values[-1]


def check_buckets(db, lang, book, name, op, step, examples):
    coll = step["collection"]
    ch = step["chunks"]
    per = ch["per"]
    array = next(p["path"] for p in op["params"] if p["kind"] == "items")
    parent_field = step["filter"][0][0]
    keys = [e["eq"] for _, e in step["filter"] if "eq" in e]
    parent_step = next((s for s in op["steps"] if s["collection"] != coll), None)
    parent_id = ObjectId()
    if parent_step is not None:
        parent = copy.deepcopy(examples[parent_step["collection"]])
        parent["_id"] = parent_id
        db[parent_step["collection"]].insert_one(parent)
        before = db[parent_step["collection"]].find_one({"_id": parent_id})
    example = examples[coll][array][0]
    sizes = [3 * per // 5, 3 * per // 5, per // 5, per + 2 * per // 5]
    sent = []
    for n in sizes:
        batch = children(example, len(sent), n)
        args = {}
        for p in op["params"]:
            if p["kind"] == "items":
                args[p["name"]] = batch
            elif p["path"] == "page":
                args[p["name"]] = db[coll].count_documents({parent_field: parent_id})
            elif p["name"] == keys[0] or p["path"] == "_id":
                args[p["name"]] = parent_id
            elif p["name"] in keys:
                # A time bucket's key: the hour (day, minute) every child
                # of the batches falls in.
                args[p["name"]] = BASE
        _, err = call(book, name, args)
        if err is not None:
            fail(f"{lang} {name}: a batch of {n} failed: {err!r}")
            return
        sent.extend(batch)
    buckets = list(db[coll].find({parent_field: parent_id}))
    stored = [x for b in buckets for x in b.get(array, [])]
    if sorted(map(key, stored)) != sorted(map(key, sent)):
        fail(f"{lang} {name}: {len(sent)} children sent in batches {sizes}, {len(stored)} stored, not each once")
        return
    bad = [(b.get("page"), b.get("count"), len(b.get(array, []))) for b in buckets if b.get("count") != len(b.get(array, [])) or len(b.get(array, [])) > per]
    if bad:
        fail(f"{lang} {name}: buckets whose count is not their length or past {per} (page, count, length): {bad}")
        return
    how = f"{len(buckets)} buckets"
    # A count bucket (its page set on insert): read by page, the children
    # come in the order sent.
    if any(p["path"] == "page" for p in op["params"]):
        by_page = [x for b in sorted(buckets, key=lambda b: b["page"]) for x in b.get(array, [])]
        if list(map(key, by_page)) != list(map(key, sent)):
            fail(f"{lang} {name}: the buckets read by page do not give the children in the order sent: pages {[(b['page'], len(b.get(array, []))) for b in sorted(buckets, key=lambda b: b['page'])]}")
            return
        how = f"pages {[(b['page'], len(b.get(array, []))) for b in sorted(buckets, key=lambda b: b['page'])]} in the order sent"
    figures = ""
    if parent_step is not None:
        after = db[parent_step["collection"]].find_one({"_id": parent_id})
        moved = []
        for path, _ in parent_step.get("counts_batch", []):
            if after.get(path, 0) - before.get(path, 0) != len(sent):
                fail(f"{lang} {name}: {path} went up by {after.get(path, 0) - before.get(path, 0)}, {len(sent)} children sent")
                return
            moved.append(path)
        for path, _, field, function in parent_step.get("batch_figures", []):
            values = [x[field] for x in sent]
            want = figure(function, values)
            if function == "sum":
                got = after.get(path, 0) - before.get(path, 0)
            elif function in ("min", "max"):
                want = figure(function, [want, before[path]]) if before.get(path) is not None else want
                got = after.get(path)
            else:
                got = after.get(path)
            if got != want:
                fail(f"{lang} {name}: {path} ({function} of {field}) is {got}, the batches' {want}")
                return
            moved.append(path)
        figures = f"; {', '.join(moved)} of the {parent_step['collection']} moved by the whole batches"
    ok(f"{lang} {name}/{coll}: {len(sent)} children in batches {sizes} stored once each, in {how}, each count its length and at most {per}{figures}")


def check_host(db, lang, book, name, op, param, examples):
    coll = param["collection"]
    array = param["path"]
    step = next(s for s in op["steps"] if s["collection"] == coll)
    room = next((e["room_in"] for _, e in step["filter"] if "room_in" in e), None)
    if room is None:
        fail(f"{lang} {name}: the push of a batch into {coll}.{array} tests no room for it")
        return
    most = room[1]
    host = copy.deepcopy(examples[coll])
    host_id = ObjectId()
    host["_id"] = host_id
    db[coll].insert_one(host)
    start = list(host.get(array, []))
    n = max(1, most // 4)
    sent = []
    id_param = next(e["eq"] for p, e in step["filter"] if p == "_id")
    while len(start) + len(sent) + n <= most:
        batch = children(start[0] if start else {}, 1000 + len(sent), n)
        _, err = call(book, name, {param["name"]: batch, id_param: host_id})
        if err is not None:
            fail(f"{lang} {name}: a batch of {n} with room failed: {err!r}")
            return
        sent.extend(batch)
    _, err = call(book, name, {param["name"]: children(start[0] if start else {}, 5000, n), id_param: host_id})
    held = db[coll].find_one({"_id": host_id}).get(array, [])
    if err is None:
        fail(f"{lang} {name}: a batch of {n} past the {most} {array} of a {coll} did not fail")
        return
    if list(map(key, held)) != list(map(key, start + sent)):
        fail(f"{lang} {name}: {coll}.{array} holds {len(held)}, expected the {len(start)} it had and the {len(sent)} sent, in order")
        return
    ok(f"{lang} {name}/{coll}: batches of {n} pushed whole into {array} ({len(start)} to {len(held)}, at most {most}), the next one refused with nothing stored")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    # The validators (what refuses a bucket past its bound, a figure of
    # the wrong type) from validators.json, without a mongosh for setup.js:
    # the checks pass each page exactly, so the unique page index has
    # nothing to refuse (check_page_race.py races for pages).
    with open(f"{directory}/validators.json") as f:
        validators = json_util.loads(f.read())
    for coll, validator in validators.items():
        if coll not in db.list_collection_names():
            db.create_collection(coll, validator=validator)
    checked = 0
    for name, op in cookbook.PLAN.items():
        chunked = next((s for s in op["steps"] if "chunks" in s), None)
        host = next((p for p in op["params"] if p["kind"] == "items"), None) if chunked is None else None
        if chunked is None and host is None:
            continue
        for lang, book in books:
            # mongosh (one process, slow to start) only where its own
            # spelling matters: a count bucket's page opened and closed
            # (it names an upsert's id `insertedId`, not `upsertedId`).
            if lang == "mongosh" and not (chunked and any(p["path"] == "page" for p in op["params"])):
                continue
            book_db[0] = db
            if chunked is not None:
                check_buckets(db, lang, book, name, op, chunked, examples)
            else:
                check_host(db, lang, book, name, op, host, examples)
        checked += 1
    print(f"checked {checked} batch insert(s) into buckets or their parent's array")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
