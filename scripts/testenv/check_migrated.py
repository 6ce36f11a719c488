"""Compares what `squill migrate` loaded into a MongoDB-compatible server with
figures counted in the source PostgreSQL database.

    python check_migrated.py --uri URI --db NAME [--dir OUT] --expect FILE

OUT/data/*.json (Extended JSON lines, as `squill migrate` writes them) is loaded
into database NAME first, which must be empty. check_generated.py's cookbook
writes to the data it checks: to check both on one load, give FILE to
check_generated.py's --expect, which runs these checks before its cookbook.

FILE is JSON: a list of checks, each
  {"collection": C, "kind": "count", "expected": N}
      the collection holds N documents (one per source row);
  {"collection": C, "field": F, "kind": "array_total", "expected": N}
      the arrays in field F (top level) hold N elements in all (the source's
      child rows, or linking rows, whose reference is set);
  {"collection": C, "field": F, "kind": "array_max", "expected": N}
      the longest of those arrays has N elements (the most children a parent has);
  {"collection": C, "field": F, "kind": "present", "expected": N}
      N documents have field F (a reference that is set in N source rows);
  {"collection": C, "field": F, "kind": "sum", "expected": X}
      the numbers in field F (top level) add up to X (a bucket's counts to the
      child rows, a kept sum to the column's), within 1e-6 relative.

Prints one line per check; exits 1 when one fails.
"""

import argparse
import glob
import json
import os
import sys

from bson import json_util
from bson.json_util import JSONOptions
from pymongo import MongoClient

OPTS = JSONOptions(tz_aware=True)


def load(db, out):
    for path in sorted(glob.glob(os.path.join(out, "data", "*.json"))):
        name = os.path.basename(path)[: -len(".json")]
        with open(path, encoding="utf-8") as f:
            docs = [json_util.loads(line, json_options=OPTS) for line in f if line.strip()]
        if docs:
            db[name].insert_many(docs, ordered=True)


def measure(db, check):
    coll = db[check["collection"]]
    kind = check["kind"]
    field = check.get("field")
    if kind == "count":
        return coll.count_documents({})
    if kind == "present":
        return coll.count_documents({field: {"$exists": True}})
    if kind == "sum":
        return sum(float(str(d.get(field) or 0)) for d in coll.find({}, {field: 1}))
    sizes = [
        len(d.get(field) or [])
        for d in coll.find({}, {field: 1})
        if isinstance(d.get(field), list) or d.get(field) is None
    ]
    if kind == "array_total":
        return sum(sizes)
    if kind == "array_max":
        return max(sizes) if sizes else 0
    raise ValueError(f"unknown check kind {kind}")


def run_checks(db, checks):
    """Prints one line per check of `checks` on what `db` holds; the number
    that failed. check_generated.py --expect calls it between its load and
    its cookbook, which writes: the data are then loaded once, not twice."""
    failed = 0
    for check in checks:
        got = measure(db, check)
        label = f"{check['collection']}{'.' + check['field'] if check.get('field') else ''} {check['kind']}"
        expected = check["expected"]
        same = got == expected
        if check["kind"] == "sum":
            same = abs(got - expected) <= 1e-6 * max(1.0, abs(expected))
        if same:
            print(f"ok: migrated {label} = {got}, as in PostgreSQL")
        else:
            failed += 1
            print(f"FAIL: migrated {label} = {got}, PostgreSQL says {check['expected']}")
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uri", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--dir", help="load OUT/data/*.json first (else check what the database holds)")
    ap.add_argument("--expect", required=True)
    args = ap.parse_args()
    with open(args.expect, encoding="utf-8") as f:
        checks = json.load(f)
    db = MongoClient(args.uri, serverSelectionTimeoutMS=10000)[args.db]
    if args.dir:
        load(db, args.dir)
    failed = run_checks(db, checks)
    if failed:
        print(f"{failed} check(s) failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
