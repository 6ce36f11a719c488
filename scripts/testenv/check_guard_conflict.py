"""Runs a guarded link (issue 41) while another transaction holds its guard,
and checks that the cookbook's transaction waits the conflict out.

A link whose conditions test a document the link does not write (a user
joins a team only while it is open, the ids kept in the users only) starts
with a conditional `$inc` of that document's `_version`, in one transaction
with the link. A concurrent transaction that changed the same document (a
join of the same team, the team closed) makes the guard's write a write
conflict, labelled TransientTransactionError: the transaction must run
again, not fail the call. Here a transaction of this script raises the
team's `_version` and commits a little later, while the cookbook's function
runs: it must return, with the link recorded, in each language.

python check_guard_conflict.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote (cookbook.py, cookbook.mongosh.js, cookbook.js) and
DB set up by its setup.js and loaded with its data. Driven by the cookbook's
PLAN: every operation in a transaction whose first step is a conditional
update_one (a guard) is run. Prints "ok: ..." per check, "FAIL: ..." per
failure, exits 1 on any failure or when no operation was checked.
"""

import copy
import os
import sys
import threading
import time

from bson.objectid import ObjectId
from pymongo import MongoClient

failures = []
HOLD_SECONDS = 0.3


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def guard_of(op):
    """The guard step of `op`: its first, a conditional update_one."""
    if not op.get("transaction") or not op["steps"]:
        return None
    first = op["steps"][0]
    tested = [e for _, e in first["filter"] if "test" in e]
    if first["action"] != "update_one" or not tested:
        return None
    return first


def literal(test):
    """The value a condition's `eq` test wants."""
    kind, value = test["test"]
    return value["value"] if kind == "eq" else None


def arguments(db, op, guard, examples):
    """The call's arguments: a new document of each collection the call
    names by `_id` (from examples.json), the guarded one made to meet the
    conditions, and for an item the guarded document's fields."""
    wanted = {path: literal(e) for path, e in guard["filter"] if "test" in e}
    made = {}

    def new(coll):
        if coll not in made:
            doc = copy.deepcopy(examples[coll])
            doc["_id"] = ObjectId()
            if coll == guard["collection"]:
                doc.update(wanted)
                doc.pop("_version", None)
            db[coll].insert_one(doc)
            made[coll] = doc
        return made[coll]

    guarded = new(guard["collection"])
    args = {}
    for p in op["params"]:
        if p["path"] == "_id":
            args[p["name"]] = new(p["collection"])["_id"]
        elif p["kind"] == "item":
            args[p["name"]] = copy.deepcopy(guarded)
        else:
            args[p["name"]] = None
    return guarded["_id"], args


def check(client, db, book, lang, name, op, guard, examples):
    gid, args = arguments(db, op, guard, examples)
    coll = guard["collection"]
    # Once with nothing in its way: the call works, and the language's
    # process (mongosh, Node.js) is started before the timed conflict.
    try:
        getattr(book, name)(db, **args)
    except Exception as e:  # noqa: BLE001 - any failure of the call is the finding
        fail(f"{lang} {name}: with nothing in its way, the call failed: {type(e).__name__}: {e}")
        return
    before = db[coll].find_one({"_id": gid}).get("_version", 0)
    session = client.start_session()
    session.start_transaction()
    db[coll].update_one({"_id": gid}, {"$inc": {"_version": 1}}, session=session)
    timer = threading.Timer(HOLD_SECONDS, session.commit_transaction)
    start = time.monotonic()
    timer.start()
    try:
        getattr(book, name)(db, **args)
    except Exception as e:  # noqa: BLE001 - any failure of the call is the finding
        timer.join()
        fail(f"{lang} {name}: with another transaction holding the {coll}, the call failed: {type(e).__name__}: {e}")
        return
    finally:
        timer.join()
        session.end_session()
    waited = time.monotonic() - start
    after = db[coll].find_one({"_id": gid}).get("_version", 0)
    if after != before + 2:
        fail(f"{lang} {name}: {coll}._version went from {before} to {after}, not by 2 (the other transaction and the guard)")
        return
    ok(f"{lang} {name}: the guard on {coll} met another transaction's write, ran again and committed after {waited:.2f} s; _version {before} -> {after}")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    client = MongoClient(uri)
    db = client[db_name]
    checked = 0
    for name, op in cookbook.PLAN.items():
        guard = guard_of(op)
        if guard is None:
            continue
        for lang, book in books:
            check(client, db, book, lang, name, op, guard, examples)
        checked += 1
    print(f"checked {checked} guarded operation(s) against a conflicting transaction")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
