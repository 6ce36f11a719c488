"""Runs a count bucket's insert from the Python cookbook many times at once on
one parent with no open bucket, and checks that each page is held by one
bucket and that the children add up (issue 41).

Two inserts that find no open bucket both upsert a new one. The unique
{parent, page} index refuses the second at the same page with a duplicate
key, and the cookbook's upsert runs again at the next page, where it joins
the bucket the other writer opened while that has room. Every caller here
passes page 0, the stalest guess there is: the first round races for page 0
and spills into page 1, the second starts from 0 again when page 0 is full.

python check_page_race.py DIR URI DB MONGOSH, with DIR the directory `squill
generate` wrote (cookbook.py, cookbook.mongosh.js, cookbook.js,
examples.json) and DB set up by its setup.js. The Python cookbook's calls
run at once, in threads; the mongosh and Node.js cookbooks' (each served
by one process, scripts/testenv/*_cookbook.py) one after the other, which
still makes every call past the first full bucket meet a page taken.
Prints "ok: ..." per check, "FAIL: ..." per failure, exits 1 on any failure.
Driven by the cookbook's PLAN: every operation with a step that retries a
page (`next_page`) is run.
"""

import copy
import datetime
import os
import sys
import threading

from bson.objectid import ObjectId
from pymongo import MongoClient

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def at(doc, path):
    for part in path.split("."):
        doc = doc.get(part) if isinstance(doc, dict) else None
    return doc


def like(example, value):
    """`value` in the type of `example` (a sum kept as a double takes a float)."""
    if isinstance(example, float):
        return float(value)
    if isinstance(example, int) and not isinstance(example, bool):
        return int(value)
    return value


def args_for(op, step, examples, parent_id, n):
    """The arguments of one call: the n-th new child of the parent, at page 0."""
    bucket_coll = step["collection"]
    bucket = examples[bucket_coll]
    parent_field = step["filter"][0][0]
    out = {}
    item = None
    for p in op["params"]:
        if p["kind"] == "item":
            array = at(bucket, p["path"])
            item = copy.deepcopy(array[0])
            # Distinct children, each with its own key and a value of its own.
            for k, v in item.items():
                if isinstance(v, datetime.datetime):
                    item[k] = v + datetime.timedelta(seconds=n)
            out[p["name"]] = item
    for p in op["params"]:
        name = p["name"]
        if name in out:
            continue
        if name == step["next_page"]:
            out[name] = 0
        elif p["path"] in ("_id", parent_field):
            out[name] = parent_id
        else:
            # A figure's amount: the new child's own value, in the type the
            # collection keeps that figure in.
            example = examples[p["collection"]]
            field = p["path"].split(".")[-1]
            value = next((v for v in (item or {}).values() if isinstance(v, (int, float)) and not isinstance(v, bool)), n)
            out[name] = like(at(example, field), value)
    return out


def one_by_one(fn, db, op, step, examples, parent_id, first, calls):
    """The calls one after the other (the mongosh and Node.js cookbooks run
    in one served process each): every call past the first full bucket
    passes page 0, taken, and must move on."""
    errors = []
    for n in range(first, first + calls):
        try:
            fn(db, **args_for(op, step, examples, parent_id, n))
        except Exception as e:  # noqa: BLE001 (any failure is the check's)
            errors.append(repr(e))
    return errors


def race(fn, db, op, step, examples, parent_id, first, calls):
    errors = []
    barrier = threading.Barrier(calls)

    def one(n):
        args = args_for(op, step, examples, parent_id, n)
        barrier.wait()
        try:
            fn(db, **args)
        except Exception as e:  # noqa: BLE001 (any failure is the check's)
            errors.append(repr(e))

    threads = [threading.Thread(target=one, args=(first + i,)) for i in range(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def check(db, cookbook, lang, name, op, step, examples, per_bucket):
    bucket_coll = step["collection"]
    parent_field = step["filter"][0][0]
    parent_coll = next(
        (s["collection"] for s in op["steps"] if s["collection"] != bucket_coll), None
    )
    parent = copy.deepcopy(examples[parent_coll]) if parent_coll else {}
    parent_id = ObjectId()
    parent["_id"] = parent_id
    if parent_coll:
        db[parent_coll].insert_one(parent)
    fn = getattr(cookbook, name)
    run = race if lang == "python" else one_by_one
    total = 0
    # A first round that opens page 0 and spills past it, then a second
    # that passes page 0 again when it is full.
    for calls in (per_bucket + per_bucket // 5, per_bucket // 2):
        errors = run(fn, db, op, step, examples, parent_id, total, calls)
        total += calls
        if errors:
            fail(f"{lang} {name}: {len(errors)} of {calls} inserts failed: {errors[0]}")
            return
    buckets = list(db[bucket_coll].find({parent_field: parent_id}))
    pages = [b.get("page") for b in buckets]
    shared = sorted({p for p in pages if pages.count(p) > 1}, key=str)
    if shared:
        fail(f"{lang} {name}: page(s) {shared} of one {parent_field} held by more than one bucket: pages {sorted(pages, key=str)}")
        return
    counts = sum(b.get("count", 0) for b in buckets)
    arrived = sum(b.get("arrived", 0) for b in buckets)
    array = next(p["path"] for p in op["params"] if p["kind"] == "item")
    held = sum(len(b.get(array, [])) for b in buckets)
    if not (counts == arrived == held == total):
        fail(f"{lang} {name}: {total} inserts; the buckets count {counts}, arrived {arrived}, hold {held}")
        return
    over = [b.get("page") for b in buckets if b.get("count", 0) > per_bucket]
    if over:
        fail(f"{lang} {name}: page(s) {over} hold more than {per_bucket}")
        return
    how = "at once" if lang == "python" else "one after the other"
    ok(
        f"{lang} {name}/{bucket_coll}: {total} inserts in two rounds {how}, every one passing page 0, "
        f"fill {len(buckets)} bucket(s) with pages {sorted(pages)}, each page held by one bucket, "
        f"and their count, arrived and children add up to {total}"
    )


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri, maxPoolSize=200)[db_name]
    checked = 0
    for name, op in cookbook.PLAN.items():
        for step in op["steps"]:
            if "next_page" not in step:
                continue
            per_bucket = next(e["below"] for _, e in step["filter"] if "below" in e)
            for lang, book in books:
                check(db, book, lang, name, op, step, examples, per_bucket)
            checked += 1
    print(f"checked {checked} bucket upsert(s) that retry a page taken")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
