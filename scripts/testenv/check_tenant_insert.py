"""Calls a cookbook insert of an entity under a tenant with the id of a
parent of another tenant, and with one of the caller's own, and checks what
each call leaves (review46 item 8: a visit filed under clinic A for a
patient of clinic B was inserted as given, invisible to A's reads).

python check_tenant_insert.py DIR URI DB MONGOSH TENANT OP PARENT, with DIR the
directory `squill generate` wrote (the three cookbooks, validators.json,
data/*.json), DB a database it creates the collections of (with their
validators), TENANT the tenant's collection, also the name of the reference
to it in each scoped document, OP the insert and PARENT the parent's
collection, also the name of the new document's reference to it. The
function's parameters are the tenant's id and the parent's (where it asks
for them) and the new document. The data is loaded as
generated. Each language calls OP twice with a document of the inserted
collection taken from the data (without its `_id`, its references pointing
elsewhere):
- with tenant B and a parent of tenant A (the document saying the same):
  the call must raise, and the inserted collection must hold as many
  documents as before, and no collection may change (a push into the
  parent's array, an overflow insert, a bucket);
- with tenant A and A's parent: one document more, holding A as its tenant
  and that parent as its reference.

The shapes of review48 (issue 41) are found from the cookbook's PLAN, so
one script checks them all:
- the parent keeps no tenant id (the tenant keeps its id in an array: an
  org's `projects`): its tenant is the tenant document whose array holds
  it, and the function's ids are the ones its check (a find of the tenant
  by `_id` and the parent's id in the array) names;
- an outlier's overflow insert, which runs only when the push into the
  parent's array matched nothing: with A's parent, the array is first
  filled to the push's bound so that the insert is the one that runs; an
  element the function asks for is taken from the document.
"""

import copy
import json
import os
import sys

from bson.objectid import ObjectId
from pymongo import MongoClient

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_tenant_scope import load_data, reference, validated  # noqa: E402


def main():
    directory, uri, db_name, mongosh, tenant, name, parent = sys.argv[1:8]
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    op = cookbook.PLAN[name]
    at = next(i for i, s in enumerate(op["steps"]) if s["action"] == "insert_one")
    insert = op["steps"][at]
    coll = insert["collection"]
    params = {(p["collection"], p["path"], p["kind"]): p["name"] for p in op["params"]}
    doc_param = params[(coll, "", "document")]
    items = [p for p in op["params"] if p["kind"] == "item"]
    # The ids the function asks for, if it asks (before review46 item 8 it
    # took the document alone, and the calls below pass it only that): the
    # ones the check before the insert finds by (the tenant first), else
    # the ones a find of the parent would take.
    check = next(
        (
            s
            for s in op["steps"][:at]
            if s["action"] == "find"
            and len(s["filter"]) == 2
            and all(isinstance(v, dict) and "eq" in v for _, v in s["filter"])
        ),
        None,
    )
    if check:
        tenant_param, parent_param = (v["eq"] for _, v in check["filter"])
    else:
        tenant_param = params.get((parent, tenant, "value"))
        parent_param = params.get((parent, "_id", "value"))
    # A push into the parent's array bounded by a free last slot, with the
    # insert as its fallback (an outlier): the array's path and its bound.
    bound = None
    if insert.get("fallback_of"):
        push = next(s for s in op["steps"] if s["key"] == insert["fallback_of"])
        for path, v in push["filter"]:
            if isinstance(v, dict) and v.get("missing"):
                array, last = path.rsplit(".", 1)
                bound = (push["collection"], array, int(last) + 1)
    db = MongoClient(uri)[db_name]
    with open(f"{directory}/validators.json") as f:
        validated(db, json.load(f))
    data = load_data(directory)
    for c, lines in data.items():
        if lines:
            db[c].insert_many(lines, ordered=True)
    # An overflow collection may hold nothing yet: its documents are then
    # made from an element of the parent's array.
    if not data.get(coll) and bound and data.get(parent):
        data[coll] = [dict(e) for d in data[parent] for e in d.get(bound[1], [])][:1]
    if not data.get(coll) or not data.get(parent):
        print(f"FAIL: the data holds no {coll} or no {parent}")
        sys.exit(1)
    # A parent of tenant A, and a tenant B that is not A. A parent that
    # keeps no tenant id is its tenant's whose array holds its id.
    def tenant_of(doc):
        if tenant in doc:
            return reference(doc[tenant])
        for t in data.get(tenant, []):
            if any(isinstance(v, list) and doc["_id"] in v for v in t.values()):
                return t["_id"]
        return None

    first = next(d for d in data[parent] if tenant_of(d) is not None)
    a = tenant_of(first)
    b = next((tenant_of(d) for d in data[parent] if tenant_of(d) not in (a, None)), None)
    if b is None:
        print(f"FAIL: the data holds {parent} of one tenant only")
        sys.exit(1)
    pid = first["_id"]
    # A document of another tenant than A: its references name neither A
    # nor A's parent, so only the ids the call is given can.
    template = copy.deepcopy(next((d for d in data[coll] if reference(d.get(tenant)) != a), data[coll][0]))
    template.pop("_id", None)

    # An element of the parent's array (an outlier's), as its validator
    # wants it: an id of its own, the tenant and the parent.
    def element(t):
        return {**copy.deepcopy(template), "_id": ObjectId(), tenant: t, parent: pid}

    def args(t, doc):
        out = {doc_param: doc}
        for p in items:
            out[p["name"]] = element(t)
        if tenant_param:
            out[tenant_param] = t
        if parent_param:
            out[parent_param] = pid
        return out

    failed = False
    for lang, book in books:
        # Tenant B with A's parent, the document saying the same.
        wrong = {**copy.deepcopy(template), tenant: b, parent: pid}
        before = db[coll].count_documents({})
        everything = snapshot(db)
        try:
            getattr(book, name)(db, **args(b, wrong))
            raised = None
        except Exception as e:  # noqa: BLE001 - the refusal the caller is told of
            raised = f"{type(e).__name__}: {e}"
        after = db[coll].count_documents({})
        changed = [c for c, docs in snapshot(db).items() if docs != everything.get(c)]
        if raised is None or after != before or changed:
            failed = True
            print(f"FAIL: {lang} {name} with another tenant's parent: raised {raised}, {coll} {before} -> {after}, changed {changed}")
        else:
            print(f"ok: {lang} {name} with another tenant's parent: refused ({raised.splitlines()[0][:160]}), {coll} unchanged")
        # Tenant A with A's parent, the document naming others; where the
        # insert is a push's fallback, A's parent's array is full first.
        if bound:
            held, array, n = bound
            db[held].update_one({"_id": pid}, {"$set": {array: [element(a) for _ in range(n)]}})
        before = db[coll].count_documents({})
        known = {d["_id"] for d in db[coll].find({}, {"_id": 1})}
        getattr(book, name)(db, **args(a, copy.deepcopy(template)))
        after = db[coll].count_documents({})
        new = [d for d in db[coll].find({}) if d["_id"] not in known]
        right = len(new) == 1 and reference(new[0].get(tenant)) == a and reference(new[0].get(parent)) == pid
        if after != before + 1 or not right:
            failed = True
            held = [(d.get(tenant), d.get(parent)) for d in new]
            print(f"FAIL: {lang} {name} with the tenant's own parent: {coll} {before} -> {after}, inserted {held}, asked {a} {pid}")
        else:
            print(f"ok: {lang} {name} with the tenant's own parent: 1 {coll} inserted, holding {tenant} and its parent as called")
    sys.exit(1 if failed else 0)


def snapshot(db):
    """Every collection's documents, in `_id` order."""
    return {c: list(db[c].find({}).sort("_id", 1)) for c in sorted(db.list_collection_names())}


if __name__ == "__main__":
    main()
