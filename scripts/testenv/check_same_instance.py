"""Runs an atomic group with `same:` (audit48 A5) against a server, in each
language's cookbook: every write of the group must address one instance.

`place_bid(new_bid, auction_id, ...)` records the caller's bid, then raises
the auction's price. A bid whose own reference names another auction than
`auction_id` was recorded on that other auction while the first one's price
changed. The group's function must refuse it before any write: the call
fails and no document of any collection changes. A bid that names no
auction must be recorded on the group's one; one that names it, too.

python check_same_instance.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote (cookbook.py, cookbook.mongosh.js, cookbook.js,
examples.json) and DB set up by its setup.js. Driven by the cookbook's
UNDO: every group with a "same" entry is run. The conditional write is
made to match (each `eq` test of a literal set on both instances), so that
a group that does not refuse the document writes both. Prints "ok: ..."
per check, "FAIL: ..." per failure, exits 1 on any failure or when no
group was checked.
"""

import copy
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


def snapshot(db):
    """Every document of every collection, in `_id` order."""
    return {c: list(db[c].find().sort("_id")) for c in sorted(db.list_collection_names())}


def changes(before, after):
    """Each document that differs, as `collection _id: old -> new`."""
    out = []
    for c in sorted(set(before) | set(after)):
        old = {d["_id"]: d for d in before.get(c, [])}
        new = {d["_id"]: d for d in after.get(c, [])}
        for i in sorted(set(old) | set(new), key=str):
            if old.get(i) != new.get(i):
                out.append(f"{c} {i}: {old.get(i)!r} -> {new.get(i)!r}")
    return out


def param_of(plan, group, name):
    """The operation's parameter the group's parameter `name` is passed as."""
    gp = next(p for p in group["params"] if p["name"] == name)
    return next(q for q in plan[gp["operation"]]["params"] if q["name"] == gp["param"])


def literals(op):
    """The `eq` tests of literals of `op`'s conditional write: what the
    instance must hold for it to match."""
    out = {}
    for step in op["steps"]:
        for path, e in step["filter"]:
            if "test" in e and e["test"][0] == "eq" and e["test"][1].get("kind") != "param":
                out[path] = e["test"][1]["value"]
    return out


def set_path(doc, path, value):
    parts = path.split(".")
    for p in parts[:-1]:
        doc = doc.setdefault(p, {})
    doc[parts[-1]] = value


def get_path(doc, path):
    for p in path.split("."):
        if not isinstance(doc, dict) or p not in doc:
            return None
        doc = doc[p]
    return doc


def drop_path(doc, path):
    parts = path.split(".")
    for p in parts[:-1]:
        doc = doc.get(p, {})
    doc.pop(parts[-1], None)


def call(db, book, name, args):
    """None when the call returned; the error's words when it threw."""
    try:
        getattr(book, name)(db, **args)
    except Exception as e:  # noqa: BLE001 - a refusal is what one check wants
        return f"{type(e).__name__}: {e}"
    return None


def check(db, lang, book, group, plan, examples):
    same = group["same"]
    name = group["group"]
    entity = same["entity"]
    coll = param_of(plan, group, same["id"])["collection"]
    wanted = literals(plan[group["operations"][-1]])

    def instance():
        doc = copy.deepcopy(examples[coll])
        doc["_id"] = ObjectId()
        for path, v in wanted.items():
            set_path(doc, path, v)
        db[coll].insert_one(doc)
        return doc

    one, other = instance(), instance()

    def args(reference):
        out = {}
        for gp in group["params"]:
            p = param_of(plan, group, gp["name"])
            if gp["name"] == same["id"]:
                out[gp["name"]] = one["_id"]
            elif p["kind"] == "document":
                doc = copy.deepcopy(examples[p["collection"]])
                doc["_id"] = ObjectId()
                for d in same["documents"]:
                    if d["name"] == gp["name"]:
                        if reference is None:
                            drop_path(doc, d["path"])
                        else:
                            set_path(doc, d["path"], reference)
                out[gp["name"]] = doc
            else:
                # A value the field's own example holds: the validator takes it.
                example = examples.get(p["collection"], {})
                out[gp["name"]] = copy.deepcopy(get_path(example, p["path"]))
        return out

    documents = [d["name"] for d in same["documents"]]
    # A document naming the other instance: refused, nothing written.
    before = snapshot(db)
    told = call(db, book, name, args(other["_id"]))
    refused = (told or "").split(": ", 1)[0]
    changed = changes(before, snapshot(db))
    if told is None or changed:
        fail(
            f"{lang} {name}: {', '.join(documents)} naming another {entity} than {same['id']}: "
            f"{'returned' if told is None else told}; wrote {len(changed)} document(s): {'; '.join(changed)}"
        )
        return
    # A document naming none, then one naming the group's own: recorded there.
    for reference, words in [(None, "naming no " + entity), (one["_id"], f"naming its {entity}")]:
        a = args(reference)
        told = call(db, book, name, a)
        if told is not None:
            fail(f"{lang} {name}: a call with {', '.join(documents)} {words} failed: {told}")
            return
        for d in same["documents"]:
            doc = a[d["name"]]
            stored = db[plan_collection(plan, group, d["name"])].find_one({"_id": doc["_id"]})
            if stored is None or get_path(stored, d["path"]) != one["_id"]:
                fail(f"{lang} {name}: {d['name']} {words} stored as {stored!r}, not naming {one['_id']}")
                return
    ok(
        f"{lang} {name}: {', '.join(documents)} naming another {entity} refused with nothing written ({refused}); "
        f"naming none or its own recorded on {same['id']}"
    )


def plan_collection(plan, group, name):
    return param_of(plan, group, name)["collection"]


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
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
    checked = 0
    for g in getattr(cookbook, "UNDO", {}).values():
        if "same" not in g:
            continue
        for lang, book in books:
            check(db, lang, book, g, cookbook.PLAN, examples)
        checked += 1
    print(f"checked {checked} group(s) of one instance (same:)")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
