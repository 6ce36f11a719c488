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
  documents as before;
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


def main():
    directory, uri, db_name, mongosh, tenant, name, parent = sys.argv[1:8]
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    op = cookbook.PLAN[name]
    insert = next(s for s in op["steps"] if s["action"] == "insert_one")
    coll = insert["collection"]
    params = {(p["collection"], p["path"], p["kind"]): p["name"] for p in op["params"]}
    doc_param = params[(coll, "", "document")]
    # The ids the function asks for, if it asks (before review46 item 8 it
    # took the document alone, and the calls below pass it only that).
    tenant_param = params.get((parent, tenant, "value"))
    parent_param = params.get((parent, "_id", "value"))
    db = MongoClient(uri)[db_name]
    with open(f"{directory}/validators.json") as f:
        validated(db, json.load(f))
    data = load_data(directory)
    for c, lines in data.items():
        if lines:
            db[c].insert_many(lines, ordered=True)
    if not data.get(coll) or not data.get(parent):
        print(f"FAIL: the data holds no {coll} or no {parent}")
        sys.exit(1)
    # A parent of tenant A, and a tenant B that is not A.
    first = data[parent][0]
    a = reference(first[tenant])
    b = next((reference(d[tenant]) for d in data[parent] if reference(d[tenant]) != a), None)
    if b is None:
        print(f"FAIL: the data holds {parent} of one tenant only")
        sys.exit(1)
    pid = first["_id"]
    # A document of another tenant than A: its references name neither A
    # nor A's parent, so only the ids the call is given can.
    template = copy.deepcopy(next((d for d in data[coll] if reference(d.get(tenant)) != a), data[coll][0]))
    template.pop("_id", None)

    def args(t, doc):
        out = {doc_param: doc}
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
        try:
            getattr(book, name)(db, **args(b, wrong))
            raised = None
        except Exception as e:  # noqa: BLE001 - the refusal the caller is told of
            raised = f"{type(e).__name__}: {e}"
        after = db[coll].count_documents({})
        if raised is None or after != before:
            failed = True
            print(f"FAIL: {lang} {name} with another tenant's parent: raised {raised}, {coll} {before} -> {after}")
        else:
            print(f"ok: {lang} {name} with another tenant's parent: refused ({raised.splitlines()[0][:160]}), {coll} unchanged")
        # Tenant A with A's parent, the document naming others.
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


if __name__ == "__main__":
    main()
