"""Runs a read or a claim of an expiring entity against a server, in each
language, beside a document already past its life that the TTL monitor has
not yet deleted, and checks that the operation neither returns nor changes
it (audit45 gap 5).

The monitor runs about every 60 s, so an expired document stays readable
for up to a minute. A claim sorted oldest first on the date the expiry
counts from reaches exactly those documents first; a lookup of a token
finds one that is no longer valid. The generated filter must compare the
date (`{"$gt": now - life}`).

python check_expiry.py DIR URI DB MONGOSH OP COLLECTION FIELD SECONDS
[FIELD=VALUE…], with DIR the directory `squill generate` wrote, OP the read or the claim, FIELD
the date of COLLECTION the expiry counts from, and SECONDS the life. Two
documents are made from the collection's example, equal but for `_id` and
FIELD: one SECONDS + 30 s old (expired, not yet deleted), one 5 s old.
Every parameter gets the example's value at its path (a `new_` one, a new
value: now for FIELD). A write by `_id` (a session touched) is called on the
expired document, then on the live one: only the live one may change. Prints "ok: ..." per language, "FAIL: ..." per failure, exits 1 on
any failure.
"""

import copy
import datetime
import os
import sys

from bson.objectid import ObjectId
from pymongo import MongoClient

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from result_walk import at, ids_in  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def main():
    directory, uri, db_name, mongosh, op_name, coll, field, seconds = sys.argv[1:9]
    seconds = int(seconds)
    # FIELD=VALUE: a value both documents take (the state a claim's
    # condition asks for).
    fixed = dict(spec.split("=", 1) for spec in sys.argv[9:])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    op = cookbook.PLAN[op_name]
    # Aware dates, to compare with the ones inserted.
    db = MongoClient(uri, tz_aware=True)[db_name]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    for lang, book in books:
        db[coll].delete_many({})
        expired = copy.deepcopy(examples[coll])
        expired["_id"] = ObjectId()
        expired.update(fixed)
        expired[field] = now - datetime.timedelta(seconds=seconds + 30)
        live = copy.deepcopy(expired)
        live["_id"] = ObjectId()
        live[field] = now - datetime.timedelta(seconds=5)
        db[coll].insert_many([expired, live])
        # A write by `_id` is called on each document in turn; a claim or a
        # lookup by a shared value, once.
        by_id = any(p["path"] == "_id" for p in op["params"])
        result = None
        for target in [expired, live] if by_id else [expired]:
            args = {}
            for p in op["params"]:
                if p["name"].startswith("new_"):
                    args[p["name"]] = now if p["path"] == field else f"{lang}-new"
                elif p["collection"] == coll:
                    args[p["name"]] = at(target, p["path"])
                else:
                    fail(f"{lang} {op_name}: a parameter the check cannot give: {p}")
            if failures:
                break
            try:
                result = getattr(book, op_name)(db, **args)
            except Exception as e:  # noqa: BLE001 - any failure of the call is the finding
                if target is live:
                    fail(f"{lang} {op_name}: failed: {type(e).__name__}: {str(e)[:200]}")
        if failures:
            break
        after = {d["_id"]: d for d in db[coll].find({})}
        if op["steps"][0]["action"] != "find":
            verb = "claimed" if op["steps"][0]["action"] == "find_one_and_update" else "changed"
            if after[expired["_id"]] != expired:
                fail(f"{lang} {op_name}: {verb} the {coll} that expired {seconds + 30} s after its {field}")
            elif after[live["_id"]] == live:
                fail(f"{lang} {op_name}: {verb} nothing, with a live {coll} there")
            else:
                print(f"ok: {lang} {op_name}: {verb} the live {coll}, not the expired one")
        else:
            found = ids_in(result, set())
            if expired["_id"] in found:
                fail(f"{lang} {op_name}: returned the {coll} that expired {seconds + 30} s after its {field}")
            elif live["_id"] not in found:
                fail(f"{lang} {op_name}: did not return the live {coll}")
            else:
                print(f"ok: {lang} {op_name}: returned the live {coll}, not the expired one")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
