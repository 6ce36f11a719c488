"""Calls each cookbook function whose writes test the tenant with one
tenant and the ids of another tenant's documents, and checks that nothing
of the other tenant changes (issue 41): the operation's own write and every
write its plan adds (a parent's kept count or sum, copies in other
documents, a count-down after a delete of many, an element written through
its parent's `_id`).

python check_tenant_scope.py DIR URI DB MONGOSH TENANT, with DIR the
directory `squill generate` wrote (cookbook.py, cookbook.mongosh.js,
cookbook.js), DB a database it creates the collections of (with their
validators, validators.json), and TENANT the tenant's collection,
which is also the name of the reference to it in each scoped document. A
document's reference to another collection is the field named after it (as
in the fixture tenant-writes): each tenant's documents are one of each
collection's example (examples.json), linked to one another and to the
tenant, made to meet the conditions of the writes.

Each operation runs twice per language, on documents of its own: once with
the tenant the documents belong to (something of it must change: the call
reaches its writes), once with another tenant (nothing of it may change).
Prints "ok: ..." per check, "FAIL: ..." per failure, exits 1 on any failure
or when no operation was checked.
"""

import copy
import datetime
import json
import os
import sys
import threading

from bson.objectid import ObjectId
from pymongo import MongoClient

WRITES = {"update_one", "update_many", "upsert", "delete_one", "delete_many", "find_one_and_update", "bulk_write"}
def scoped_writes(op, tenant):
    """The write steps of `op` that test the tenant."""
    return [s for s in op["steps"] if s["action"] in WRITES and any(p == tenant for p, _ in s["filter"])]


def conditions(cookbook):
    """Per collection, the tests the writes apply only under (path, test)."""
    out = {}
    for op in cookbook.PLAN.values():
        for s in op["steps"]:
            for path, e in s["filter"]:
                if "test" in e:
                    out.setdefault(s["collection"], []).append((path, e["test"]))
    return out


def meet(doc, path, test):
    """Sets `path` in `doc` (in every element of an array on the way) to a
    value that passes `test`."""
    kind, literal = test
    value = literal.get("value")
    wanted = {"eq": value, "gte": value, "lte": value}.get(kind)
    if kind == "gt" and isinstance(value, (int, float)):
        wanted = value + 1000
    if kind == "lt" and isinstance(value, (int, float)):
        wanted = value - 1000
    if wanted is None:
        return
    head, _, rest = path.partition(".")
    if not rest:
        # In the type the document holds (the validator checks it): a
        # test's number is a double.
        current = doc.get(head)
        if isinstance(current, int) and not isinstance(current, bool) and float(wanted).is_integer():
            wanted = int(wanted)
        doc[head] = wanted
        return
    inner = doc.get(head)
    for item in inner if isinstance(inner, list) else [inner]:
        if isinstance(item, dict):
            meet(item, rest, test)


def world(db, examples, tenant, tenant_id, conds):
    """One tenant's documents: one of each collection, the tenant's own
    with `tenant_id` as its `_id`. Returns each collection's id and
    document."""
    ids = {coll: ObjectId() for coll in examples}
    ids[tenant] = tenant_id
    docs = {}
    for coll, example in examples.items():
        doc = copy.deepcopy(example)
        doc["_id"] = ids[coll]
        for field, value in list(doc.items()):
            if field == "_id" or field not in ids:
                continue
            if isinstance(value, ObjectId):
                doc[field] = ids[field]
            elif isinstance(value, dict) and "_id" in value:
                value["_id"] = ids[field]
        for path, test in conds.get(coll, []):
            meet(doc, path, test)
        db[coll].insert_one(doc)
        docs[coll] = doc
    return ids, docs


def value_at(doc, path):
    v = doc
    for seg in path.split("."):
        if isinstance(v, list):
            v = v[0] if v else None
        v = v.get(seg) if isinstance(v, dict) else None
    return v


def enum_at(schema, path):
    """The values a validator's `$jsonSchema` allows at `path`, if it lists
    them (an enum): a new value must be one of them."""
    node = schema
    for seg in path.split("."):
        while node.get("bsonType") == "array" or "items" in node:
            node = node.get("items", {})
        node = node.get("properties", {}).get(seg)
        if node is None:
            return None
    return node.get("enum")


def changed(v, allowed=None):
    if allowed:
        others = [a for a in allowed if a != v]
        return others[0] if others else v
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float)):
        return v + 1
    if isinstance(v, str):
        return v + "x"
    if isinstance(v, datetime.datetime):
        return v + datetime.timedelta(seconds=1)
    return v


def arguments(op, ids, docs, tenant, called_with, validators):
    """The call's arguments: `called_with` as the tenant, the ids of the
    documents of `ids`, values from them (a new value changed, a range
    that holds every date or number)."""
    args = {}
    for p in op["params"]:
        coll, path, kind, name = p["collection"], p["path"], p["kind"], p["name"]
        if kind in ("document", "documents"):
            doc = copy.deepcopy(docs[coll])
            doc["_id"] = ObjectId()
            if tenant in doc:
                doc[tenant] = called_with
            args[name] = doc if kind == "document" else [doc]
        elif path == tenant:
            args[name] = called_with
        elif path == "_id":
            args[name] = ids[coll]
        elif kind in ("from", "to"):
            v = value_at(docs[coll], path)
            if isinstance(v, datetime.datetime):
                args[name] = datetime.datetime(1970, 1, 1) if kind == "from" else datetime.datetime(2100, 1, 1)
            else:
                args[name] = -1e18 if kind == "from" else 1e18
        else:
            v = value_at(docs[coll], path)
            if name.startswith("new_"):
                schema = validators.get(coll, {}).get("$jsonSchema", {})
                v = changed(v, enum_at(schema, path))
            args[name] = 1 if v is None else v
    return args


def snapshot(db, ids):
    return {coll: db[coll].find_one({"_id": i}) for coll, i in ids.items()}


def call(book, name, db, args):
    """Runs the function; a conditional write that matched nothing raises,
    which is what the other tenant's call may do."""
    try:
        getattr(book, name)(db, **args)
        return None
    except Exception as e:  # noqa: BLE001 - reported with the check
        return f"{type(e).__name__}: {e}"


def check(db, book, lang, name, op, setting):
    examples, tenant, conds, validators = setting
    # Its own tenant: the call reaches its writes.
    own = ObjectId()
    ids, docs = world(db, examples, tenant, own, conds)
    before = snapshot(db, ids)
    err = call(book, name, db, arguments(op, ids, docs, tenant, own, validators))
    moved = [c for c, d in snapshot(db, ids).items() if d != before[c]]
    if err is not None or not moved:
        return f"FAIL: {lang} {name}: with its own tenant, the call changed nothing of it ({err or 'no error'})"
    # Another tenant: the same call with the ids of this tenant's documents.
    ids, docs = world(db, examples, tenant, ObjectId(), conds)
    before = snapshot(db, ids)
    err = call(book, name, db, arguments(op, ids, docs, tenant, ObjectId(), validators))
    after = snapshot(db, ids)
    hit = [c for c in ids if after[c] != before[c]]
    if hit:
        return f"FAIL: {lang} {name}: called with another tenant, it changed this tenant's {', '.join(hit)}"
    said = f" (the call said: {err})" if err else ""
    return f"ok: {lang} {name}: with its own tenant it changed {', '.join(moved)}; with another, nothing of this tenant{said}"


def validated(db, validators):
    """Each collection created with its validator (validators.json), as
    setup.js creates it: the documents and the writes are checked as they
    would be. Done here rather than by setup.js, whose mongosh would cost
    more than every check."""
    for coll, validator in validators.items():
        db.create_collection(coll, validator=validator)


def main():
    directory, uri, db_name, mongosh, tenant = sys.argv[1:6]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    with open(f"{directory}/validators.json") as f:
        validators = json.load(f)
    setting = (examples, tenant, conditions(cookbook), validators)
    validated(db, validators)
    ops = [(name, op) for name, op in cookbook.PLAN.items() if scoped_writes(op, tenant)]
    # One thread per language, each on documents of its own: mongosh's and
    # Node.js's starts overlap the other languages' calls.
    lines = {}

    def run(lang, book):
        lines[lang] = [check(db, book, lang, name, op, setting) for name, op in ops]

    threads = [threading.Thread(target=run, args=(lang, book)) for lang, book in books]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    failed = False
    for lang, _ in books:
        for line in lines.get(lang, [f"FAIL: {lang}: the checks did not finish"]):
            print(line)
            failed = failed or line.startswith("FAIL")
    checked = len(ops)
    print(f"checked {checked} operation(s) whose writes test the tenant")
    sys.exit(1 if failed or checked == 0 else 0)


if __name__ == "__main__":
    main()
