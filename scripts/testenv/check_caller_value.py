"""Runs conditional writes on the caller's own values (audit45 gap 7)
against a server, in each language's cookbook.

A compare-and-set, `when: ["version = :expected"]` with `increments:
{version: 1}`, is one `updateOne({_id, version: expected}, {$set: ...,
$inc: {version: 1}})`: with the document at version 5, a save that read
version 4 (stale) must change nothing and fail ("nothing matched"), and a
save that read 5 must leave version 6.

A bound on the value the write leaves, `when: ["available + rooms <=
total"]` with `increments: {available: rooms}`, is one `updateOne({_id,
$expr: {$lte: [{$add: ["$available", rooms]}, "$total"]}}, {$inc:
{available: rooms}})`: with 7 of 10 available, releasing 5 must change
nothing and fail, and releasing 3 must leave 10.

python check_caller_value.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote. Driven by the cookbook's PLAN: every update_one
whose filter tests a field with a parameter of the caller's
(`{"kind": "param"}`), or under `$expr` with the caller's amount added
(`"added"`), is run. Prints "ok: ..." per check, "FAIL: ..." per failure,
exits 1 on any failure or when nothing was checked.
"""

import copy
import os
import sys

from bson.objectid import ObjectId
from pymongo import MongoClient

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def tested(op):
    """The update_one step of `op` and what its filter tests: ("param",
    path, name) or ("added", path, amount, other field), or None."""
    for step in op["steps"]:
        if step["action"] != "update_one":
            continue
        for path, test in step["filter"]:
            if "test" in test and test["test"][1].get("kind") == "param":
                return step, ("param", path, test["test"][1]["value"])
            if "added" in test:
                _, field, amount, negative, value = test["added"]
                if not negative and value.get("kind") == "field":
                    return step, ("added", field, amount, value["value"])
    return None


def new_doc(db, examples, coll, values):
    doc = copy.deepcopy(examples[coll])
    doc["_id"] = ObjectId()
    doc.update(values)
    db[coll].insert_one(doc)
    return doc["_id"]


def call(db, book, name, args):
    """None when the call returned; the error's words when it threw."""
    try:
        getattr(book, name)(db, **args)
    except Exception as e:  # noqa: BLE001 - a refusal is what the checks want
        return f"{type(e).__name__}: {e}"
    return None


def run(db, lang, book, name, op, step, test, examples):
    coll = step["collection"]
    if test[0] == "param":
        _, path, param = test
        before, stale, fresh, after = {path: 5}, 4, 5, 6
    else:
        _, path, param, other = test
        before, stale, fresh, after = {path: 7, other: 10}, 5, 3, 10
    doc = new_doc(db, examples, coll, before)
    args = {p["name"]: (doc if p["path"] == "_id" else None) for p in op["params"]}
    kept = db[coll].find_one({"_id": doc})
    args[param] = stale
    told = call(db, book, name, args)
    now = db[coll].find_one({"_id": doc})
    if told is None or "nothing matched" not in told or now != kept:
        fail(f"{lang} {name}: {param} = {stale} with {path} = {before[path]}: {told or 'returned'}; the document is now {now}")
        return
    args[param] = fresh
    told = call(db, book, name, args)
    now = db[coll].find_one({"_id": doc})[path]
    if told is not None or now != after:
        fail(f"{lang} {name}: {param} = {fresh}: {told or 'returned'}, {path} = {now}; wanted {after}")
        return
    ok(f"{lang} {name}: {param} = {stale} with {path} = {before[path]} changed nothing (nothing matched); {param} = {fresh} left {after}")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    checked = 0
    for name, op in cookbook.PLAN.items():
        found = tested(op)
        if found is None or found[0].get("otherwise") != "fail":
            continue
        for lang, book in books:
            run(db, lang, book, name, op, found[0], found[1], examples)
        checked += 1
    print(f"checked {checked} write(s) conditional on the caller's values")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
