"""Calls a cookbook insert whose new document has two parents of one
entity under a tenant (a follow of the leaderboard: its `follower` keeps
the follow's id in `following`, its `followed` is named by the follow),
and checks that a caller of tenant A can attach it to neither parent of
tenant B (review48, issue 41). Before, the function took one `player_id`
for both: the check found it in A and the insert set the followed player
to it, so a follow named B's player as followed nowhere, and the follower's
push went to the followed player.

python check_tenant_two_parents.py DIR URI DB MONGOSH TENANT OP COLL PARENT
REF, with DIR the directory `squill generate` wrote, TENANT the tenant's
collection (also each document's reference to it), OP the insert, COLL the
inserted collection, PARENT the parents' collection and REF the new
document's reference to the parent it names. The parent that keeps the
new document's id is the one whose id the push into PARENT takes. Each
language:
- names a parent of tenant B as the one the document names, then as the
  one that keeps its id: each call must raise and change no collection;
- with both parents of A: one new document naming A and the parent given,
  whose id only the other parent's array holds.
Prints "ok: ..." per check, "FAIL: ..." per failure; exits 1 on any.
"""

import os
import sys

from bson.objectid import ObjectId
from pymongo import MongoClient


def snapshot(db):
    return {c: list(db[c].find({}).sort("_id", 1)) for c in sorted(db.list_collection_names())}


def main():
    directory, uri, db_name, mongosh, tenant, name, coll, parent, ref = sys.argv[1:10]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    op = cookbook.PLAN[name]
    params = {p["name"]: p for p in op["params"]}
    doc_param = next(n for n, p in params.items() if p["kind"] == "document")
    tenant_param = next(n for n, p in params.items() if p["kind"] == "value" and p["path"] in (tenant, f"{tenant}._id"))
    # The push into the parent's array: the id it takes is the keeper's.
    push = next(s for s in op["steps"] if s["collection"] == parent and s["action"] == "update_one")
    keeper_param = next(v["eq"] for p, v in push["filter"] if p == "_id")
    array = next(p for p, v in push["filter"] if isinstance(v, dict) and v.get("missing")).rsplit(".", 1)[0]
    # The parent the document names: a parameter of its own, if the function
    # asks for one (before review48 it did not).
    named_param = next(
        (n for n, p in params.items() if p["kind"] == "value" and n not in (tenant_param, keeper_param)), None
    )
    db = MongoClient(uri)[db_name]
    failed = False
    for lang, book in books:
        for c in db.list_collection_names():
            db[c].delete_many({})
        a, b = ObjectId(), ObjectId()
        a1, a2, b1 = ObjectId(), ObjectId(), ObjectId()
        for pid, t in ((a1, a), (a2, a), (b1, b)):
            db[parent].insert_one({"_id": pid, tenant: t, array: []})

        def call(keeper, named):
            args = {tenant_param: a, keeper_param: keeper, doc_param: {ref: named, tenant: a}}
            if named_param:
                args[named_param] = named
            return getattr(book, name)(db, **args)

        for what, keeper, named in (("named", a1, b1), ("keeping its id", b1, a1)):
            before = snapshot(db)
            try:
                call(keeper, named)
                raised = None
            except Exception as e:  # noqa: BLE001 - the refusal the caller is told of
                raised = f"{type(e).__name__}: {e}"
            changed = [c for c, docs in snapshot(db).items() if docs != before.get(c)]
            if raised is None or changed:
                failed = True
                print(f"FAIL: {lang} {name} with another tenant's parent {what}: raised {raised}, changed {changed}")
            else:
                print(f"ok: {lang} {name} with another tenant's parent {what}: refused ({raised.splitlines()[0][:120]}), nothing changed")
        known = {d["_id"] for d in db[coll].find({}, {"_id": 1})}
        try:
            call(a1, a2)
        except Exception as e:  # noqa: BLE001
            failed = True
            print(f"FAIL: {lang} {name} with both parents of the tenant: {type(e).__name__}: {e}")
            continue
        new = [d for d in db[coll].find({}) if d["_id"] not in known]
        holders = sorted(str(d["_id"]) for d in db[parent].find({array: {"$in": [d["_id"] for d in new]}}))
        if len(new) != 1 or new[0].get(ref) != a2 or new[0].get(tenant) != a or holders != [str(a1)]:
            failed = True
            held = [(d.get(tenant), d.get(ref)) for d in new]
            print(f"FAIL: {lang} {name} with both parents of the tenant: inserted {held}, ids held by {holders}, asked {a} {a1} {a2}")
        else:
            print(f"ok: {lang} {name} with both parents of the tenant: 1 {coll} naming its parent, its id in the other's {array}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
