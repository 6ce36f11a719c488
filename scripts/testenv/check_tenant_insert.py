"""Calls a cookbook insert of an entity under a tenant with the id of a
parent of another tenant, and with one of the caller's own, and checks what
each call leaves (review46 item 8: a visit filed under clinic A for a
patient of clinic B was inserted as given, invisible to A's reads).

python check_tenant_insert.py DIR URI DB MONGOSH TENANT OP, with DIR the
directory `squill generate` wrote (the three cookbooks, validators.json,
data/*.json), DB a database it creates the collections of (with their
validators), TENANT the tenant's collection, also the name of the reference
to it in each scoped document, and OP the insert. Its parameters are the
tenant's id, the ids of the parents the insert finds first (a find on the
parent's collection by `_id`) and the new document. The data is loaded as
generated. Each language calls OP twice with a document of the inserted
collection taken from the data (without its `_id`, its references pointing
elsewhere):
- with tenant B and a parent of tenant A: the call must raise, and the
  inserted collection must hold as many documents as before;
- with tenant A and A's parent: one document more, holding A as its tenant
  and that parent as its reference.
Prints "ok: ..." per check, "FAIL: ..." per failure; exits 1 on any.
"""

import copy
import json
import os
import sys

from pymongo import MongoClient

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_tenant_scope import load_data, reference, validated  # noqa: E402


def parents(op):
    """The collections the insert finds a parent in first, with the name of
    the parameter that holds that parent's id."""
    out = {}
    for p in op["params"]:
        if p["path"] == "_id" and p["kind"] == "value":
            out[p["collection"]] = p["name"]
    return out


def main():
    directory, uri, db_name, mongosh, tenant, name = sys.argv[1:7]
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    op = cookbook.PLAN[name]
    insert = next(s for s in op["steps"] if s["action"] == "insert_one")
    coll = insert["collection"]
    doc_param = next(p["name"] for p in op["params"] if p["kind"] == "document")
    tenant_param = next(p["name"] for p in op["params"] if p["path"] == tenant)
    found = parents(op)
    db = MongoClient(uri)[db_name]
    with open(f"{directory}/validators.json") as f:
        validated(db, json.load(f))
    data = load_data(directory)
    for c, lines in data.items():
        if lines:
            db[c].insert_many(lines, ordered=True)
    if not found or not data.get(coll):
        print(f"FAIL: {name} finds no parent first, or the data holds no {coll}")
        sys.exit(1)
    failed = False
    for lang, book in books:
        # A parent of each collection in tenant A, and a tenant B that is not A.
        first = data[next(iter(found))][0]
        a = reference(first[tenant])
        b = next(reference(d[tenant]) for d in data[next(iter(found))] if reference(d[tenant]) != a)
        ids = {}
        for c, param in found.items():
            ids[param] = next(d["_id"] for d in data[c] if reference(d.get(tenant)) == a)
        # A document of another tenant than A: its references name neither
        # A nor A's parent, so only the ids the call is given can.
        template = copy.deepcopy(
            next((d for d in data[coll] if reference(d.get(tenant)) != a), data[coll][0])
        )
        template.pop("_id", None)
        before = db[coll].count_documents({})
        try:
            getattr(book, name)(db, **{tenant_param: b, doc_param: copy.deepcopy(template), **ids})
            raised = None
        except Exception as e:  # noqa: BLE001 - the refusal the caller is told of
            raised = f"{type(e).__name__}: {e}"
        after = db[coll].count_documents({})
        if raised is None or after != before:
            failed = True
            print(f"FAIL: {lang} {name} with another tenant's parent: raised {raised}, {coll} {before} -> {after}")
        else:
            print(f"ok: {lang} {name} with another tenant's parent: refused ({raised.splitlines()[0][:160]}), {coll} unchanged")
        before = after
        known = {d["_id"] for d in db[coll].find({}, {"_id": 1})}
        getattr(book, name)(db, **{tenant_param: a, doc_param: copy.deepcopy(template), **ids})
        after = db[coll].count_documents({})
        # Each parent's reference is named as its collection (the fixture's).
        held = {c: ids[param] for c, param in found.items()}
        new = [d for d in db[coll].find({}) if d["_id"] not in known]
        right = len(new) == 1 and reference(new[0].get(tenant)) == a
        right = right and all(reference(new[0].get(c)) == v for c, v in held.items())
        if after != before + 1 or not right:
            failed = True
            print(f"FAIL: {lang} {name} with the tenant's own parent: {coll} {before} -> {after}, {len(new)} {[(d.get(tenant), [d.get(c) for c in held]) for d in new]} where {a} {list(held.values())} was asked")
        else:
            print(f"ok: {lang} {name} with the tenant's own parent: 1 {coll} inserted, holding {tenant} and its parent as called")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
