"""Loads the synthetic data of an expiring collection and reads it back
through a read that compares the date the expiry counts from, in each
language (audit46 D3).

The synthetic dates of such a field once lay in 2024, so a read that
compares the date (`{"$gt": now - life}`) found none of the loaded
documents, and a TTL index would have deleted them all on its first pass.
`squill generate data` places them within their life before its `--now`.

python check_live_data.py DIR URI DB MONGOSH OP COLLECTION

DIR is the directory `squill generate` wrote (with data/COLLECTION.json);
OP a read of COLLECTION whose parameters are all paths of its documents.
Every document of data/COLLECTION.json is inserted (as mongoimport would),
then OP is called with the values of the first, middle and last one: each
call must return the document it was given. Prints "ok: ..." per
language, "FAIL: ..." per failure, exits 1 on any failure.
"""

import os
import sys

from bson import json_util
from pymongo import MongoClient

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from result_walk import at, ids_in  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def main():
    directory, uri, db_name, mongosh, op_name, coll = sys.argv[1:7]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    op = cookbook.PLAN[op_name]
    with open(f"{directory}/data/{coll}.json") as f:
        docs = [json_util.loads(line) for line in f if line.strip()]
    if not docs:
        fail(f"data/{coll}.json holds no document")
        sys.exit(1)
    db = MongoClient(uri)[db_name]
    db[coll].delete_many({})
    db[coll].insert_many(docs)
    picked = [docs[0], docs[len(docs) // 2], docs[-1]]
    for lang, book in books:
        found = 0
        for doc in picked:
            args = {}
            for p in op["params"]:
                if p["collection"] != coll or at(doc, p["path"]) is None:
                    fail(f"{lang} {op_name}: a parameter the check cannot give: {p}")
                    sys.exit(1)
                args[p["name"]] = at(doc, p["path"])
            result = getattr(book, op_name)(db, **args)
            if doc["_id"] in ids_in(result, set()):
                found += 1
            else:
                fail(f"{lang} {op_name}: did not return the loaded {coll} {doc['_id']}")
        if found == len(picked):
            print(f"ok: {lang} {op_name}: returned each of {found} loaded {coll} documents asked for")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
