"""Calls each cookbook function whose writes test the tenant with one
tenant and the ids of another tenant's documents, and checks that nothing
of the other tenant changes (issue 41): the operation's own write and every
write its plan adds (a parent's kept count or sum, copies in other
documents, a count-down after a delete of many, an element written through
its parent's `_id`).

python check_tenant_scope.py DIR URI DB MONGOSH TENANT, with DIR the
directory `squill generate` wrote (cookbook.py, cookbook.mongosh.js,
cookbook.js) and its synthetic data (data/*.json, `generate data`), DB a
database it creates the collections of (with their validators,
validators.json), and TENANT the tenant's collection, which is also the
name of the reference to it in each scoped document. The synthetic data
keeps every reference of a tenant's document within that tenant, so a
tenant's documents as generated are the world its calls run on. Of each
collection a call's parameters name, it takes the tenant's document that
a document taken before references (a review's product), else the one
the tenant's documents reference most (a customer with orders).

Each language checks its own tenant of the data. Before each call, that
tenant's documents are loaded again as generated, changed only to meet the
conditions of the writes. Each operation runs twice per language: once with
the tenant the documents belong to (something of the tenant must change:
the call reaches its writes), once with a tenant that is no other's and the
same ids (nothing of the tenant may change). Prints "ok: ..." per check,
"FAIL: ..." per failure, exits 1 on any failure or when no operation was
checked.
"""

import copy
import datetime
import glob
import json
import os
import sys
import threading

from bson import json_util
from bson.objectid import ObjectId
from pymongo import MongoClient

OPTS = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL, tz_aware=False)

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


def load_data(directory):
    """Each collection's generated documents (data/COLL.json)."""
    data = {}
    for path in sorted(glob.glob(os.path.join(directory, "data", "*.json"))):
        with open(path, encoding="utf-8") as f:
            lines = [json_util.loads(line, json_options=OPTS) for line in f if line.strip()]
        data[os.path.basename(path)[: -len(".json")]] = lines
    return data


def reference(v):
    """The id a reference holds: the id itself, or an extended
    reference's `_id`."""
    return v.get("_id") if isinstance(v, dict) else v


def tenant_of(doc, coll, tenant):
    return doc["_id"] if coll == tenant else reference(doc.get(tenant))


def by_tenant(coll, tenant, t):
    return {"_id": t} if coll == tenant else {"$or": [{tenant: t}, {f"{tenant}._id": t}]}


def object_ids(v, out):
    if isinstance(v, ObjectId):
        out.append(v)
    elif isinstance(v, list):
        for x in v:
            object_ids(x, out)
    elif isinstance(v, dict):
        for x in v.values():
            object_ids(x, out)
    return out


def references(doc):
    return set(object_ids({k: v for k, v in doc.items() if k != "_id"}, []))


def of_tenant(data, tenant, t, conds):
    """Tenant `t`'s documents as generated, each collection's, made to meet
    the conditions of the writes."""
    docs = {}
    for coll, lines in data.items():
        mine = [copy.deepcopy(d) for d in lines if tenant_of(d, coll, tenant) == t]
        for doc in mine:
            for path, test in conds.get(coll, []):
                meet(doc, path, test)
        if mine:
            docs[coll] = mine
    return docs


def tenants(data, tenant, n):
    """`n` tenants of the data, those with documents in the most
    collections (then the most documents) first."""
    held = {}
    for coll, lines in data.items():
        for d in lines:
            t = tenant_of(d, coll, tenant)
            if t is not None:
                held.setdefault(t, {}).setdefault(coll, 0)
                held[t][coll] += 1
    ranked = sorted(held, key=lambda t: (-len(held[t]), -sum(held[t].values()), str(t)))
    return ranked[:n]


def reload(db, docs, tenant, t):
    """Tenant `t`'s documents, and nothing else of it (what earlier calls
    inserted or deleted), back in the collections."""
    for coll, mine in docs.items():
        db[coll].delete_many(by_tenant(coll, tenant, t))
        db[coll].insert_many(copy.deepcopy(mine), ordered=True)


def chosen(op, docs, tenant):
    """One document of each collection the call's parameters name: one the
    documents chosen before reference (a review's product), else the one
    the tenant's documents reference most (a customer with orders)."""
    counts = {}
    for mine in docs.values():
        for d in mine:
            for x in references(d):
                counts[x] = counts.get(x, 0) + 1
    out = {}
    for p in op["params"]:
        coll = p["collection"]
        if coll in out or coll not in docs or (p["path"] == tenant and p["kind"] == "value"):
            continue
        pool = [d for d in docs[coll] if any(d["_id"] in references(o) for o in out.values())]
        out[coll] = max(pool or docs[coll], key=lambda d: counts.get(d["_id"], 0))
    return out


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


def arguments(op, docs, tenant, called_with, validators):
    """The call's arguments: `called_with` as the tenant, the ids of the
    documents of `docs` (one per collection), values from them (a new value
    changed, a range that holds every date or number)."""
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
            args[name] = docs[coll]["_id"]
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


def snapshot(db, colls, tenant, t):
    """Every document of tenant `t`, by collection, in `_id` order."""
    return {c: list(db[c].find(by_tenant(c, tenant, t)).sort("_id", 1)) for c in colls}


def call(book, name, db, args):
    """Runs the function; a conditional write that matched nothing raises,
    which is what the other tenant's call may do."""
    try:
        getattr(book, name)(db, **args)
        return None
    except Exception as e:  # noqa: BLE001 - reported with the check
        return f"{type(e).__name__}: {e}"


def check(db, book, lang, name, op, setting, t):
    data, tenant, conds, validators = setting
    docs = of_tenant(data, tenant, t, conds)
    picked = chosen(op, docs, tenant)
    # Its own tenant: the call reaches its writes.
    reload(db, docs, tenant, t)
    before = snapshot(db, docs, tenant, t)
    err = call(book, name, db, arguments(op, picked, tenant, t, validators))
    after = snapshot(db, docs, tenant, t)
    moved = [c for c in docs if after[c] != before[c]]
    if err is not None or not moved:
        return f"FAIL: {lang} {name}: with its own tenant, the call changed nothing of it ({err or 'no error'})"
    # A tenant that is no other's: the same call with this tenant's ids.
    reload(db, docs, tenant, t)
    before = snapshot(db, docs, tenant, t)
    err = call(book, name, db, arguments(op, picked, tenant, ObjectId(), validators))
    after = snapshot(db, docs, tenant, t)
    hit = [c for c in docs if after[c] != before[c]]
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

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    with open(f"{directory}/validators.json") as f:
        validators = json.load(f)
    data = load_data(directory)
    setting = (data, tenant, conditions(cookbook), validators)
    validated(db, validators)
    # The data as generated, then one tenant per language (the calls of
    # one language touch no other's tenant).
    for coll, lines in data.items():
        if lines:
            db[coll].insert_many(copy.deepcopy(lines), ordered=True)
    mine = tenants(data, tenant, len(books))
    if len(mine) < len(books):
        print(f"FAIL: the data holds {len(mine)} tenant(s), one per language wanted")
        sys.exit(1)
    ops = [(name, op) for name, op in cookbook.PLAN.items() if scoped_writes(op, tenant)]
    # One thread per language, each on documents of its own: mongosh's and
    # Node.js's starts overlap the other languages' calls.
    lines = {}

    def run(lang, book, t):
        lines[lang] = [check(db, book, lang, name, op, setting, t) for name, op in ops]

    threads = [threading.Thread(target=run, args=(lang, book, t)) for (lang, book), t in zip(books, mine)]
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
