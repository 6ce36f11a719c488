"""Runs a conditional write that sets a field to the value its condition
tests (`when: ["price < :offer"]`, `changes: ["price = :offer"]`, audit48
A5) against a server, in each language's cookbook: a bid accepted only
above the current price can never lower it.

With the price at 100: an offer of 150 must leave 150; an offer of 120
then must change nothing (it is below 150) and fail ("nothing matched");
an offer of 90 likewise. Before the fix the function took the offer and a
separate new price, so a caller could set any price (even a lower one).

python check_set_to_caller.py DIR URI DB MONGOSH OPERATION FIELD VALUE
[F=V …], with DIR the directory `squill generate` wrote, OPERATION the
update, FIELD the changed field, VALUE the caller's value's name, and each
F=V a text field of the document set for the other conditions. Prints
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


def ok(msg):
    print(f"ok: {msg}")


def call(db, book, name, args):
    """None when the call returned; the error's words when it threw."""
    try:
        getattr(book, name)(db, **args)
    except Exception as e:  # noqa: BLE001 - a refusal is what the check wants
        return f"{type(e).__name__}: {e}"
    return None


def main():
    directory, uri, db_name, mongosh, name, field, value = sys.argv[1:8]
    # The document's other fields the conditions test (`status=open`).
    given = dict(a.split("=", 1) for a in sys.argv[8:])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    op = cookbook.PLAN[name]
    coll = op["steps"][0]["collection"]
    names = [p["name"] for p in op["params"]]
    if value not in names:
        fail(f"{name} takes no parameter `{value}`: {names}")
    for lang, book in books:
        doc = copy.deepcopy(examples[coll])
        doc["_id"] = ObjectId()
        doc[field] = 100
        doc.update(given)
        db[coll].insert_one(doc)
        args = {p["name"]: (doc["_id"] if p["path"] == "_id" else None) for p in op["params"]}
        seen = []
        offers = [(150, 150), (120, 150), (90, 150), (151, 151)]
        for offer, want in offers:
            args[value] = offer
            told = call(db, book, name, args)
            now = db[coll].find_one({"_id": doc["_id"]})[field]
            seen.append(now)
            moved = want != seen[-2] if len(seen) > 1 else want != 100
            if now != want or (moved and told is not None) or (not moved and told is None):
                fail(f"{lang} {name}: {field} 100, offers {[o for o, _ in offers][:len(seen)]} left {seen}; the last call: {told or 'returned'}")
                break
        else:
            ok(f"{lang} {name}: {field} 100, then offers 150, 120, 90, 151 left {seen}: never lower, the lower offers refused")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
