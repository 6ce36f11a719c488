"""Runs writes that take the caller's amount (audit43 B) against a server,
in each language's cookbook, and an atomic group whose earlier `$inc` is
taken back when its conditional write matches nothing.

A write `increments: {available: -quantity}, when: ["available >= quantity"]`
is one `updateOne({_id, available: {$gte: quantity}}, {$inc: {available:
-quantity}})`: with 3 left, taking 5 must change nothing and fail (the
operation's `otherwise: fail`, "nothing matched"), and taking 3 must leave 0.

A group kept by compensation (`otherwise: undo`) whose earlier operation
adds the caller's amount (`$inc held by units`): when the take matches
nothing, the group's function must add the opposite back (`held` as it
was) and fail; when it matches, both amounts stay.

python check_amount.py DIR URI DB MONGOSH, with DIR the directory `squill
generate` wrote (cookbook.py, cookbook.mongosh.js, cookbook.js,
examples.json). Driven by the cookbook's PLAN and UNDO: every operation
whose update_one tests a field against a parameter (`{"kind": "amount"}`)
is run, and every group whose last operation is one. Prints "ok: ..." per
check, "FAIL: ..." per failure, exits 1 on any failure or when nothing was
checked.

Amounts are passed in the field's own BSON type (validators.json: an
Int64 for a long, a Decimal128 for a decimal), and the field must keep that
type (issue 41: JavaScript's `0 - x` made a Long a double, which a long
field's validator refuses; Python's `-x` fails on a Decimal128). An amount
of 0 or below must be refused before the write, the field unchanged (a
negative one would add what the write means to take).
"""

import copy
import os
import sys

import json

from bson.decimal128 import Decimal128
from bson.int64 import Int64
from bson.objectid import ObjectId
from pymongo import MongoClient

failures = []
LEFT = 3
HELD = 10


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


KINDS = {}  # (collection, path) -> the validator's bsonType


def kind(coll, path):
    return KINDS.get((coll, path), "int")


def as_kind(k, n):
    """The number n in BSON type k, as the caller would pass it."""
    if k == "long":
        return Int64(n)
    if k == "decimal":
        return Decimal128(str(n))
    if k == "double":
        return float(n)
    return int(n)


def kind_of(v):
    if isinstance(v, Int64):
        return "long"
    if isinstance(v, Decimal128):
        return "decimal"
    if isinstance(v, float):
        return "double"
    return "int" if isinstance(v, int) and not isinstance(v, bool) else type(v).__name__


def plain(v):
    """A number to compare: a Decimal128's Decimal, others as they are."""
    return v.to_decimal() if isinstance(v, Decimal128) else v


def amount_test(op):
    """The update_one step of `op` that compares a field with the caller's
    amount: (step, path, parameter), or None."""
    for step in op["steps"]:
        if step["action"] != "update_one":
            continue
        for path, test in step["filter"]:
            if "test" in test and test["test"][1].get("kind") == "amount":
                return step, path, test["test"][1]["value"]
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
    except Exception as e:  # noqa: BLE001 - a refusal is what some checks want
        return f"{type(e).__name__}: {e}"
    return None


def amounts(k):
    """What a document holds and an amount above it, in a field of type k: a
    long past 2**53 and a decimal of 19 digits, which a double holds
    inexactly (a JavaScript number made of a Long or a Decimal128 shows
    there)."""
    if k == "long":
        return 2**53 + 3, 2**53 + 5
    if k == "decimal":
        return "1234567890.123456789", "1234567892.123456789"
    return LEFT, LEFT + 2


def negative(n):
    return f"-{n}" if isinstance(n, str) else -n


def check_take(db, lang, book, name, op, found, examples):
    step, path, amount = found
    coll = step["collection"]
    k = kind(coll, path)
    left, more = amounts(k)
    held = plain(as_kind(k, left))
    doc = new_doc(db, examples, coll, {path: as_kind(k, left)})
    args = {}
    for p in op["params"]:
        args[p["name"]] = doc if p["path"] == "_id" else None
    for refused in (0, negative(left)):
        args[amount] = as_kind(k, refused)
        told = call(db, book, name, args)
        now = db[coll].find_one({"_id": doc})[path]
        if told is None or plain(now) != held:
            fail(f"{lang} {name}: taking {refused} when {left} are left: {told or 'returned'}, {path} = {now}; wanted a refusal and {left}")
            return
    args[amount] = as_kind(k, more)
    told = call(db, book, name, args)
    now = db[coll].find_one({"_id": doc})[path]
    if told is None or "nothing matched" not in told:
        fail(f"{lang} {name}: taking {more} when {left} are left returned ({told}) instead of failing with 'nothing matched'")
        return
    if plain(now) != held:
        fail(f"{lang} {name}: taking {more} when {left} are left left {path} = {now}")
        return
    args[amount] = as_kind(k, left)
    told = call(db, book, name, args)
    now = db[coll].find_one({"_id": doc})[path]
    if told is not None or plain(now) != 0 or kind_of(now) != k:
        fail(f"{lang} {name}: taking {left} ({k}) when {left} are left: {told or 'returned'}, {path} = {now!r}; wanted 0 ({k})")
        return
    ok(f"{lang} {name}: amounts of 0 and {negative(left)} refused; taking {more} when {left} are left changed nothing (nothing matched); taking {left} left 0 ({k})")


def snapshot(db):
    """Every document of every collection, in `_id` order: what a group that
    failed must leave as it found."""
    return {c: list(db[c].find().sort("_id")) for c in sorted(db.list_collection_names())}


def first_change(before, after):
    for c in sorted(set(before) | set(after)):
        a, b = before.get(c, []), after.get(c, [])
        if a != b:
            old = {d["_id"]: d for d in a}
            new = {d["_id"]: d for d in b}
            for i in sorted(set(old) | set(new), key=str):
                if old.get(i) != new.get(i):
                    return f"{c} {i}: {old.get(i)!r} -> {new.get(i)!r}"
    return None


def check_group(db, lang, book, group, plan, examples):
    """`group`'s function with amounts the take cannot meet, then can.

    A group that failed must leave every document as it was: its earlier
    writes are taken back, amounts the caller passed (`$inc held by
    units`) and figures an inserted child moved on its parent (a kept sum
    of its amount: audit48 A4) alike."""
    last = plan[group["operations"][-1]]
    step, path, _ = amount_test(last)
    ids = {step["collection"]: new_doc(db, examples, step["collection"], {path: LEFT})}
    added = []  # (collection, path) of the earlier operations' amounts
    documents = {}  # parameter -> collection of the documents the group inserts
    for name in group["operations"][:-1]:
        for p in plan[name]["params"]:
            coll = p["collection"]
            if p["kind"] == "document":
                documents[(name, p["name"])] = coll
                continue
            if p["path"] != "_id" and (coll, p["path"]) not in added:
                added.append((coll, p["path"]))
                if coll not in ids:
                    ids[coll] = new_doc(db, examples, coll, {p["path"]: HELD})
                else:
                    db[coll].update_one({"_id": ids[coll]}, {"$set": {p["path"]: HELD}})
    if not added and not documents:
        return False

    def args(units):
        out = {}
        for gp in group["params"]:
            p = next(q for q in plan[gp["operation"]]["params"] if q["name"] == gp["param"])
            if p["kind"] == "document":
                doc = copy.deepcopy(examples[p["collection"]])
                doc["_id"] = ObjectId()
                out[gp["name"]] = doc
            elif p["path"] == "_id":
                out[gp["name"]] = ids.get(p["collection"]) or new_doc(db, examples, p["collection"], {})
                ids.setdefault(p["collection"], out[gp["name"]])
            else:
                out[gp["name"]] = units
        return out

    def state():
        return [db[c].find_one({"_id": ids[c]})[f] for c, f in added], db[step["collection"]].find_one({"_id": ids[step["collection"]]})[path]

    name = group["group"]
    failing = args(LEFT + 2)
    before = snapshot(db)
    told = call(db, book, name, failing)
    held, left = state()
    if told is None:
        fail(f"{lang} {name}: taking {LEFT + 2} when {LEFT} are left returned instead of failing")
        return True
    if held != [HELD] * len(added) or left != LEFT:
        fail(f"{lang} {name}: after a take of {LEFT + 2} that matched nothing, {added} = {held} (wanted {HELD}, the earlier $inc taken back) and {path} = {left}")
        return True
    changed = first_change(before, snapshot(db))
    if changed:
        fail(f"{lang} {name}: a take of {LEFT + 2} that matched nothing left a change: {changed}")
        return True
    told = call(db, book, name, args(LEFT))
    held, left = state()
    if told is not None or held != [HELD + LEFT] * len(added) or left != 0:
        fail(f"{lang} {name}: taking {LEFT}: {told or 'returned'}, {added} = {held}, {path} = {left}; wanted {HELD + LEFT} and 0")
        return True
    if added:
        ok(f"{lang} {name}: a take of {LEFT + 2} with {LEFT} left failed and took back the earlier $inc ({HELD} again); a take of {LEFT} kept both ({HELD + LEFT}, 0)")
    else:
        inserted = ", ".join(sorted(set(documents.values())))
        ok(f"{lang} {name}: a take of {LEFT + 2} with {LEFT} left failed and left every document as it was (the {inserted} inserted and the figures it moved taken back); a take of {LEFT} left 0")
    return True


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    with open(f"{directory}/validators.json") as f:
        for coll, v in json.load(f).items():
            for field, spec in v["$jsonSchema"].get("properties", {}).items():
                if isinstance(spec.get("bsonType"), str):
                    KINDS[(coll, field)] = spec["bsonType"]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    # The groups' functions are outside PLAN: the JavaScript cookbooks are
    # told their parameters (the Python cookbook's UNDO).
    def outside(plan):
        import importlib.util

        spec = importlib.util.spec_from_file_location("undo_of", f"{directory}/cookbook.py")
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        return {g["group"]: {"params": g["params"]} for g in getattr(m, "UNDO", {}).values()}

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh, outside)
    db = MongoClient(uri)[db_name]
    takes = groups = 0
    for name, op in cookbook.PLAN.items():
        found = amount_test(op)
        if found is None or found[0].get("otherwise") != "fail":
            continue
        for lang, book in books:
            check_take(db, lang, book, name, op, found, examples)
        takes += 1
    for g in getattr(cookbook, "UNDO", {}).values():
        if amount_test(cookbook.PLAN[g["operations"][-1]]) is None:
            continue
        if all([check_group(db, lang, book, g, cookbook.PLAN, examples) for lang, book in books]):
            groups += 1
    print(f"checked {takes} take(s) of the caller's amount and {groups} group(s) that take an amount back")
    sys.exit(1 if failures or takes + groups == 0 else 0)


if __name__ == "__main__":
    main()
