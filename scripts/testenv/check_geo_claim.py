"""Runs a claim that finds its document by a place (audit43 O) against a
server, in each language, and checks that it claims within the model's
radius and nothing past it.

The claim `findOneAndUpdate`s the nearest document near the caller's point
(`$near` within the radius, or `$geoWithin` a circle when the claim has a
sort of its own), on the `2dsphere` index `squill generate` wrote. It once
keyed the point on a B-tree (MongoDB refuses `$near` there) and tested
`$maxDistance: 0`, which finds only a document at the very point. Here a
document 1 km from the caller's point and one 5 km away both meet the
claim's conditions; a claim of radius 3 km must take the first, leave the
second, and then find nothing (and say so, `otherwise: fail`).

python check_geo_claim.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote (cookbook.py, cookbook.mongosh.js, cookbook.js,
indexes.js, examples.json). The indexes are created from indexes.js
(no validators: the check is about what the claim finds). Driven by the
cookbook's PLAN: every operation whose step is a find_one_and_update with a
place test is run. Prints "ok: ..." per check, "FAIL: ..." per failure,
exits 1 on any failure or when no operation was checked.
"""

import copy
import json
import os
import re
import sys

from bson.objectid import ObjectId
from pymongo import MongoClient

failures = []
HERE = [2.35, 48.85]
# Metres per degree of latitude on the sphere MongoDB measures on
# (radius 6,378,100 m).
M_PER_DEGREE = 6378100 * 3.141592653589793 / 180


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def point(north_m):
    """A GeoJSON point `north_m` metres north of HERE."""
    return {"type": "Point", "coordinates": [HERE[0], HERE[1] + north_m / M_PER_DEGREE]}


def create_indexes(db, directory):
    """The indexes indexes.js creates, each `createIndexes` command as written."""
    with open(f"{directory}/indexes.js") as f:
        text = f.read()
    for coll, specs in re.findall(r'createIndexes: ("(?:[^"\\]|\\.)*"), indexes: \[(.*?)\n\] \}\);', text, re.S):
        db.command({"createIndexes": json.loads(coll), "indexes": json.loads(f"[{specs}]")})


def place_claim(op):
    """The step of `op` that claims by a place, with its place test: the
    path, the parameter that gives the point and the radius in metres."""
    for step in op["steps"]:
        if step["action"] != "find_one_and_update":
            continue
        for path, test in step["filter"]:
            for word in ("near", "within_circle"):
                if word in test:
                    param, metres = test[word]
                    return step, path, param, metres
    return None


def equal_tests(step):
    """The constant each `eq` condition of the claim wants."""
    out = {}
    for path, test in step["filter"]:
        if "test" in test and test["test"][0] == "eq":
            out[path] = test["test"][1]["value"]
    return out


def check(db, lang, book, name, op, found, examples):
    step, path, param, metres = found
    coll = step["collection"]
    db[coll].delete_many({})
    wanted = equal_tests(step)
    docs = {}
    for label, north in (("1 km", 1000), ("5 km", 5000)):
        doc = copy.deepcopy(examples[coll])
        doc["_id"] = ObjectId()
        doc.update(wanted)
        doc[path] = point(north)
        db[coll].insert_one(doc)
        docs[label] = doc["_id"]
    args = {}
    for p in op["params"]:
        args[p["name"]] = point(0) if p["name"] == param else "claimed"
    try:
        getattr(book, name)(db, **args)
    except Exception as e:  # noqa: BLE001 - any failure of the call is the finding
        fail(f"{lang} {name}: with a document 1 km away and a radius of {metres} m, the claim failed: {type(e).__name__}: {str(e)[:200]}")
        return
    still = {label: db[coll].find_one({"_id": i}) for label, i in docs.items()}
    meets = lambda d: all(d.get(k) == v for k, v in wanted.items())  # noqa: E731
    if meets(still["1 km"]):
        fail(f"{lang} {name}: the document 1 km away was not claimed (radius {metres} m)")
        return
    if not meets(still["5 km"]):
        fail(f"{lang} {name}: the document 5 km away was claimed (radius {metres} m)")
        return
    try:
        getattr(book, name)(db, **args)
        fail(f"{lang} {name}: a second claim with only a document 5 km away returned instead of failing")
        return
    except Exception:  # noqa: BLE001 - the claim finds nothing within the radius: it must fail
        pass
    if not meets(db[coll].find_one({"_id": docs["5 km"]})):
        fail(f"{lang} {name}: the second claim took the document 5 km away")
        return
    ok(f"{lang} {name}: claimed the {coll} 1 km away, left the one 5 km away (radius {metres} m), then found nothing")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    # mongosh and Node.js start while Python's claims run (each start
    # costs more than the calls): the check stays within a few seconds.
    import mongosh_cookbook
    import node_cookbook

    mongosh_cookbook._server(mongosh)
    node_cookbook._server()
    db = MongoClient(uri)[db_name]
    create_indexes(db, directory)
    checked = 0
    for name, op in cookbook.PLAN.items():
        found = place_claim(op)
        if found is None:
            continue
        for lang, book in books:
            check(db, lang, book, name, op, found, examples)
        checked += 1
    print(f"checked {checked} claim(s) by a place")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
