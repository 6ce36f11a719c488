"""Runs a feed read on demand over follows kept as an outlier against a
server, in each language, and checks that it finds the followed parents
in both places the follows live (feed44).

With the outlier layout most follows sit in the followed parent's array
(`member.followers`, up to the threshold) and only the rest in the
follows' own collection. The feed's first step once read that collection
alone, so a reader saw only the posts of parents past the threshold. Here
the reader follows one parent through an embedded follow and another
through a follow kept apart; a third parent, followed by someone else,
also posts. The feed must return the posts of the first two and none of
the third.

python check_outlier_feed.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote. Driven by the cookbook's PLAN: every operation
whose last step matches the ids of several earlier steps (`ids_from_all`),
one a query of a parent's array by the follower (returning the parent's
`_id`), one of the follows apart (returning their reference to the parent).
The documents are written in those shapes directly (no validators: the
check is about what the read finds). Prints "ok: ..." per check,
"FAIL: ..." per failure, exits 1 on any failure or when nothing was checked.
"""

import datetime
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


def outlier_feed(op):
    """The feed's shape from its plan: (the parents' collection, the array,
    the follower key in it, the follows' collection, their follower and
    parent fields, the last step), or None when `op` is no such read."""
    steps = {s["key"]: s for s in op["steps"]}
    last = op["steps"][-1]
    sources = [e["ids_from_all"] for _, e in last["filter"] if "ids_from_all" in e]
    if last["action"] != "find" or not sources:
        return None
    inside = apart = None
    for key, path in sources[0]:
        step = steps.get(key)
        if step is None or len(step["filter"]) != 1:
            return None
        tested = step["filter"][0][0]
        if path == "_id" and "." in tested:
            array, follower = tested.split(".", 1)
            inside = (step["collection"], array, follower)
        else:
            apart = (step["collection"], tested, path)
    if inside is None or apart is None:
        return None
    param = op["steps"][0]["filter"][0][1].get("eq")
    # The feed's other parameters (the tenant the posts are read in, a
    # game): one value each, held by every document a step tests with it.
    scoped = {}
    for p in op["params"]:
        if p["name"] == param:
            continue
        fields = {(s["collection"], f) for s in op["steps"] for f, e in s["filter"] if e.get("eq") == p["name"] and "." not in f}
        scoped[p["name"]] = (ObjectId(), fields)
    return inside, apart, last, param, scoped


def check(db, lang, book, name, found):
    (parents, array, follower), (edges, edge_follower, edge_parent), last, param, scoped = found

    def held(coll):
        """The fields of `coll`'s documents a step tests with a scoped
        parameter, at its value."""
        return {f: v for v, fields in scoped.values() for c, f in fields if c == coll}
    for coll in {parents, edges, last["collection"]}:
        db[coll].delete_many({})
    reader, embedded, overflow, other, stranger = (ObjectId() for _ in range(5))
    now = datetime.datetime(2024, 1, 1)
    # The reader follows `embedded` through a follow in its array and
    # `overflow` through one kept apart; `other` is followed by a stranger.
    db[parents].insert_many([
        {"_id": reader, array: []} | held(parents),
        {"_id": embedded, array: [{"_id": ObjectId(), follower: reader, edge_parent: embedded, "since": now}]} | held(parents),
        {"_id": overflow, array: []} | held(parents),
        {"_id": other, array: [{"_id": ObjectId(), follower: stranger, edge_parent: other, "since": now}]} | held(parents),
    ])
    db[edges].insert_one({"_id": ObjectId(), edge_follower: reader, edge_parent: overflow, "since": now} | held(edges))
    (by, _), = [(p, e) for p, e in last["filter"] if "ids_from_all" in e]
    sort = last["sort"][0][0] if last["sort"] else "created_at"
    names = {embedded: "embedded", overflow: "overflow", other: "other"}
    for i, author in enumerate(names):
        db[last["collection"]].insert_one({"_id": ObjectId(), by: author, sort: now + datetime.timedelta(minutes=i)} | held(last["collection"]))
    args = {param: reader} | {n: v for n, (v, _) in scoped.items()}
    try:
        got = getattr(book, name)(db, **args)
    except Exception as e:  # noqa: BLE001 - any failure of the call is the finding
        fail(f"{lang} {name}: the feed failed: {type(e).__name__}: {str(e)[:200]}")
        return
    items = got.get(last["key"]) if isinstance(got, dict) else None
    if items is None:
        fail(f"{lang} {name}: the result has no {last['key']!r}: {str(got)[:200]}")
        return
    authors = sorted(names.get(d.get(by), repr(d.get(by))) for d in items)
    if authors != ["embedded", "overflow"]:
        fail(f"{lang} {name}: the feed returned posts of {authors}, wanted those of the parents followed through the embedded and the overflow follow")
        return
    ok(f"{lang} {name}: the feed has the posts of the parent followed through an embedded follow and of the one followed through a follow apart, none of another")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    checked = 0
    for name, op in cookbook.PLAN.items():
        found = outlier_feed(op)
        if found is None:
            continue
        for lang, book in books:
            check(db, lang, book, name, found)
        checked += 1
    print(f"checked {checked} feed(s) over outlier follows")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
