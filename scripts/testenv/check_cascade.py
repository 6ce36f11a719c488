"""Runs a delete of a parent against a server, in each language, and checks
that it deletes the parent, the children it owns (and theirs), and nothing
else (audit43 Q).

A delete once wrote the parent's collection only: with the children kept in
their own collection, each deleted issue left its comments, reached by
nothing. Here two parents each have owned children and grandchildren, and
a child with a life of its own (`standalone`); the delete of the first must
take the first's owned children and grandchildren, and leave the second
parent, its children, the standalone children of both, and the parents
above (a project) as they were.

python check_cascade.py DIR URI DB MONGOSH OP PARENT LINK…, with DIR the
directory `squill generate` wrote, OP the delete, PARENT its collection,
and each LINK `collection.field=parent_collection` (a child's reference to
its parent); a LINK ending in `!` is a child that must stay. A LINK
`host.array[].field=parent_collection` is a child embedded in another
entity's documents (a member's comments, owned by their issue): two host
documents hold, each, one element of each parent, and the delete must pull
the first parent's elements from both and leave the rest (issue 41). Prints
"ok: ..." per language, "FAIL: ..." per failure, exits 1 on any failure.
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


def seed(db, examples, parent, links, embedded):
    """Two parents, each with two children through every link and two
    grandchildren under each child: the ids of each document by
    collection, and which of them the delete of the first parent owns."""
    colls = {parent} | {c for c, _, _, _ in links} | {h for h, _, _, _ in embedded}
    for c in colls:
        db[c].delete_many({})
    made = {}
    owned = set()

    def insert(coll, refs, under_first, keeps):
        doc = copy.deepcopy(examples[coll])
        doc["_id"] = ObjectId()
        doc.update(refs)
        db[coll].insert_one(doc)
        made.setdefault(coll, set()).add(doc["_id"])
        if under_first and not keeps:
            owned.add((coll, doc["_id"]))
        # Its own children, through the links whose parent it is.
        for child, field, of, stays in links:
            if of == coll and coll != parent:
                for _ in range(2):
                    insert(child, {field: doc["_id"]}, under_first and not keeps, stays or keeps)

    # Children embedded in another entity: two hosts, each holding one
    # element of each parent, so that each host loses some and keeps some.
    hosts = {}
    for host, array, field, of in embedded:
        for _ in range(2):
            doc = copy.deepcopy(examples[host])
            doc["_id"] = ObjectId()
            doc[array] = []
            db[host].insert_one(doc)
            made.setdefault(host, set()).add(doc["_id"])
            hosts.setdefault((host, array), []).append(doc["_id"])

    first = None
    for i in range(2):
        top = copy.deepcopy(examples[parent])
        top["_id"] = ObjectId()
        db[parent].insert_one(top)
        made.setdefault(parent, set()).add(top["_id"])
        if i == 0:
            first = top["_id"]
            owned.add((parent, first))
        for child, field, of, stays in links:
            if of == parent:
                for _ in range(2):
                    insert(child, {field: top["_id"]}, i == 0, stays)
        for host, array, field, of in embedded:
            if of != parent:
                continue
            for at in hosts[(host, array)]:
                item = copy.deepcopy(examples[host][array][0])
                item["_id"] = ObjectId()
                item[field] = top["_id"]
                db[host].update_one({"_id": at}, {"$push": {array: item}})
                key = f"{host}.{array}[]"
                made.setdefault(key, set()).add(item["_id"])
                if i == 0:
                    owned.add((key, item["_id"]))
    return first, made, owned


def ids_now(db, made):
    """The ids present now: each collection's documents, and each
    embedded array's elements (`host.array[]`) in every host document."""
    now = {}
    for c in made:
        if c.endswith("[]"):
            host, array = c[:-2].split(".", 1)
            now[c] = {e["_id"] for d in db[host].find({}, {array: 1}) for e in d.get(array) or []}
        else:
            now[c] = {d["_id"] for d in db[c].find({}, {"_id": 1})}
    return now


def main():
    directory, uri, db_name, mongosh, op_name, parent = sys.argv[1:7]
    links = []
    embedded = []
    for spec in sys.argv[7:]:
        stays = spec.endswith("!")
        left, of = spec.rstrip("!").split("=")
        if "[]." in left:
            where, field = left.split("[].", 1)
            host, array = where.split(".", 1)
            embedded.append((host, array, field, of))
            continue
        coll, field = left.split(".", 1)
        links.append((coll, field, of, stays))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    op = cookbook.PLAN[op_name]
    db = MongoClient(uri)[db_name]
    for lang, book in books:
        first, made, owned = seed(db, examples, parent, links, embedded)
        args = {}
        for p in op["params"]:
            by_parent = any(p["collection"] == c and p["path"] == f and of == parent for c, f, of, _ in links) or any(
                p["collection"] == h and p["path"] == f"{a}.{f}" and of == parent for h, a, f, of in embedded
            )
            if (p["collection"] == parent and p["path"] == "_id") or by_parent:
                args[p["name"]] = first
            else:
                fail(f"{lang} {op_name}: a parameter the check cannot give: {p}")
        if failures:
            break
        try:
            getattr(book, op_name)(db, **args)
        except Exception as e:  # noqa: BLE001 - any failure of the call is the finding
            fail(f"{lang} {op_name}: the delete failed: {type(e).__name__}: {str(e)[:200]}")
            continue
        now = ids_now(db, made)
        left = sorted(f"{c} {i}" for c, i in owned if i in now[c])
        gone = sorted(f"{c} {i}" for c, ids in made.items() for i in ids if (c, i) not in owned and i not in now[c])
        if left:
            fail(f"{lang} {op_name}: left {len(left)} document(s) the deleted {parent} owned: {left[:4]}")
        if gone:
            fail(f"{lang} {op_name}: deleted {len(gone)} document(s) it did not own: {gone[:4]}")
        if not left and not gone:
            counts = ", ".join(f"{sum(1 for c, _ in owned if c == x)} {x}" for x in sorted(made))
            print(f"ok: {lang} {op_name}: deleted {counts} and nothing else")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
