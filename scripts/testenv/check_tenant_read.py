"""Calls a cookbook read that picks its documents by fields of their own
(not by `_id`, not by a parent's id) with one tenant, on data where another
tenant holds a document with the same values, and checks that only the
caller's tenant's documents come back (audit45 gap 1: a visit of one clinic
found by its code returned every clinic's).

python check_tenant_read.py DIR URI DB MONGOSH TENANT OP, with DIR the
directory `squill generate` wrote (the three cookbooks, validators.json,
data/*.json), DB a database it creates the collections of (with their
validators), TENANT the tenant's collection, also the name of the reference
to it in each scoped document, and OP the read. The data is loaded as
generated, then one document of a second tenant is given the values of the
first tenant's document in every field the read's filter tests (the
validator checks that write as it would any other). Each language calls OP
with the first tenant and those values and a range that holds them all:
"ok: ..." when it returns the first tenant's document and nothing of any
other tenant, "FAIL: ..." otherwise; exits 1 on any failure.
"""

import datetime
import json
import os
import sys

from pymongo import MongoClient

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_tenant_scope import load_data, reference, validated, value_at  # noqa: E402


def first_two(lines, tenant):
    """A document of each of two tenants, the first document's tenant first."""
    a = lines[0]
    ta = reference(a.get(tenant))
    for b in lines[1:]:
        tb = reference(b.get(tenant))
        if tb is not None and tb != ta:
            return a, b
    return None


def arguments(op, doc, tenant, coll):
    args = {}
    for p in op["params"]:
        path, kind, name = p["path"], p["kind"], p["name"]
        v = value_at(doc, path) if p["collection"] == coll else None
        if path == tenant:
            args[name] = reference(doc[tenant])
        elif kind in ("from", "to"):
            if isinstance(v, datetime.datetime):
                args[name] = datetime.datetime(1970, 1, 1) if kind == "from" else datetime.datetime(2100, 1, 1)
            else:
                args[name] = -1e18 if kind == "from" else 1e18
        else:
            args[name] = 1 if v is None else v
    return args


def main():
    directory, uri, db_name, mongosh, tenant, name = sys.argv[1:7]
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    op = cookbook.PLAN[name]
    coll = op["steps"][0]["collection"]
    db = MongoClient(uri)[db_name]
    with open(f"{directory}/validators.json") as f:
        validated(db, json.load(f))
    data = load_data(directory)
    for c, lines in data.items():
        if lines:
            db[c].insert_many(lines, ordered=True)
    pair = first_two(data.get(coll, []), tenant)
    if pair is None:
        print(f"FAIL: the data holds no two tenants' {coll}")
        sys.exit(1)
    a, b = pair
    # The other tenant's document matches the read on every field it tests.
    tested = {p["path"] for p in op["params"] if p["collection"] == coll and p["path"] not in (tenant, "_id")}
    same = {path: value_at(a, path) for path in tested}
    db[coll].update_one({"_id": b["_id"]}, {"$set": same})
    args = arguments(op, a, tenant, coll)
    failed = False
    for lang, book in books:
        found = getattr(book, name)(db, **args).get(coll, [])
        ids = [d["_id"] for d in found]
        others = [d["_id"] for d in found if reference(d.get(tenant)) != reference(a[tenant])]
        if a["_id"] not in ids or others or b["_id"] in ids:
            failed = True
            print(f"FAIL: {lang} {name}: {len(found)} {coll} found, {len(others)} of another tenant")
        else:
            print(f"ok: {lang} {name}: {len(found)} {coll} of the caller's tenant, none of the other that shares {sorted(tested)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
