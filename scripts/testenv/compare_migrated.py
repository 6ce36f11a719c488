"""Compares the documents two migrations wrote, collection by collection and
document by document: each document as canonical Extended JSON (field order
kept), sorted by its _id.

    compare_migrated.py NATIVE_DIR --files SPARK_DIR/DATABASE
        the native `squill migrate` (NATIVE_DIR/data/NAME.json) against the
        Spark job's files (SPARK_DIR/DATABASE/NAME/part-*.json)
    compare_migrated.py NATIVE_DIR --uri URI --db DB
        against a deployment's database (the Spark job's --to)
    compare_migrated.py NATIVE_DIR --increment N --files SPARK_DIR/DATABASE
        the native run of changes number N (NATIVE_DIR/increments/000N/
        NAME.json) against the Spark job's run with --changed-by and
        --since; a native increment that deleted documents
        (NAME.deleted.json) is a difference of its own, since the job
        does not see deletions

Prints "identical: C collections, D documents" and exits 0, or prints each
collection's first difference (and counts of missing, extra and duplicated
_ids) and exits 1.
"""

import argparse
import glob
import os
import sys

from bson import json_util
from bson.json_util import CANONICAL_JSON_OPTIONS, DatetimeConversion, JSONOptions

READ = JSONOptions(datetime_conversion=DatetimeConversion.DATETIME_MS)
CANONICAL = CANONICAL_JSON_OPTIONS.with_options(datetime_conversion=DatetimeConversion.DATETIME_MS)


def canonical(doc):
    return json_util.dumps(doc, json_options=CANONICAL)


def lines(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json_util.loads(line, json_options=READ)


def native(folder, increment=None):
    """The native run's documents by collection; with `increment`, that run
    of changes' documents, and the collections it deleted documents of."""
    data = os.path.join(folder, "data") if increment is None else os.path.join(
        folder, "increments", "%04d" % increment)
    out, deleted = {}, []
    for path in sorted(glob.glob(os.path.join(data, "*.json"))):
        name = os.path.basename(path)[: -len(".json")]
        if name.endswith(".deleted"):
            if any(True for _ in lines([path])):
                deleted.append(name[: -len(".deleted")])
            continue
        out[name] = list(lines([path]))
    return out, deleted


def spark_files(folder):
    out = {}
    for coll in sorted(os.listdir(folder)):
        parts = sorted(glob.glob(os.path.join(folder, coll, "part-*.json")))
        out[coll] = list(lines(parts))
    return out


def deployment(uri, db):
    from pymongo import MongoClient
    from bson.codec_options import CodecOptions, DatetimeConversion as DC

    client = MongoClient(uri)
    database = client.get_database(db, codec_options=CodecOptions(datetime_conversion=DC.DATETIME_MS))
    return {name: list(database[name].find()) for name in database.list_collection_names()}


def keyed(docs):
    by_id = {}
    duplicates = 0
    for d in docs:
        k = canonical({"_id": d.get("_id")})
        if k in by_id:
            duplicates += 1
        by_id[k] = canonical(d)
    return by_id, duplicates


def main():
    p = argparse.ArgumentParser()
    p.add_argument("native")
    p.add_argument("--files")
    p.add_argument("--uri")
    p.add_argument("--db")
    p.add_argument("--increment", type=int)
    a = p.parse_args()
    left, deleted = native(a.native, a.increment)
    right = spark_files(a.files) if a.files else deployment(a.uri, a.db)
    problems = ["collection %s: the native run deleted documents" % name for name in deleted]
    total = 0
    for name in sorted(set(left) | set(right)):
        # A collection with no documents may have no file on one side.
        if not right.get(name) and left.get(name):
            problems.append("collection %s: missing" % name)
            continue
        if not left.get(name) and right.get(name):
            problems.append("collection %s: not in the native migration" % name)
            continue
        l, ldup = keyed(left.get(name, []))
        r, rdup = keyed(right.get(name, []))
        missing = sorted(set(l) - set(r))
        extra = sorted(set(r) - set(l))
        differ = [k for k in sorted(set(l) & set(r)) if l[k] != r[k]]
        total += len(l)
        if ldup or rdup or missing or extra or differ:
            problems.append("collection %s: %d documents, %d missing, %d extra, %d duplicated, %d differ"
                            % (name, len(l), len(missing), len(extra), rdup, len(differ)))
            if differ:
                k = differ[0]
                problems.append("  native: " + l[k][:2000])
                problems.append("  other:  " + r[k][:2000])
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("identical: %d collections, %d documents" % (len(set(left) | set(right)), total))


if __name__ == "__main__":
    main()
