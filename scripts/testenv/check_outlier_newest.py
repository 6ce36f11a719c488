"""Runs an include of an outlier's newest children (audit45 gap 2)
against a server in each language, and checks that it returns the
newest of the parent's array and of the children kept apart, merged in
the include's order and cut to its limit, and that it reads the
children apart only for a parent whose array is full.

The fixture `outlier-include-newest` keeps a parcel's scans in its array
up to a threshold (the plan's `when: {full: [step, "scans", N]}`), the
rest in the `scan` collection. Written here: parcel A holds a full array
of N scans of 2020 and has 10 more scans of 2026 apart; parcel B holds 3
scans in its array, and one stray scan of B sits apart (no layout puts
it there: it shows whether the read looks apart for a parcel with room).
The read once returned every scan of the array and every scan apart,
unsorted, and always queried the collection.

`track_batch` reads a batch of parcels with their newest 5 scans each
(embed46): parcels A and C both full, C's scans apart older than A's, and
B with room. Each parcel gets its own newest 5 (a list per parcel, in the
order the parcels came back). One query over the batch cut to 5 per
parcel read (15) once gave A its 10 and C 5, and the merge then cut the
whole to 5: C got none.

python check_outlier_newest.py DIR URI DB MONGOSH [TENANT], with DIR the
directory `squill generate` wrote for the fixture, and TENANT the name of
the tenant's reference when the model has one (outcount48): every
document then carries tenant "t1", the reads pass it, and a parcel of
tenant "t2" with A's tracking and batch must never come back. Prints "ok: ..." per check,
"FAIL: ..." per failure; exits 1 on any failure.
"""

import datetime
import os
import sys

from pymongo import MongoClient

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def threshold(plan):
    """N of the plan's `full` condition on the parcel's array."""
    for step in plan["track"]["steps"]:
        when = step.get("when") or {}
        if "full" in when:
            return when["full"][2]
    return None


SCOPE = {}


def scan(sid, ts, parcel=None):
    s = {"_id": sid, "ts": ts, "kind": "hub", **SCOPE}
    if parcel is not None:
        s["parcel"] = parcel
    return s


def merged_of(got, parcel):
    """The merged scans of `parcel` in a result: a list per parcel read."""
    for p, scans in zip(got.get("parcel") or [], got.get("scans_merged") or []):
        if p["_id"] == parcel:
            if not isinstance(scans, list):
                return f"not a list per parcel: {scans!r:.60}"
            return [s["_id"] for s in scans]
    return None


def check(db, lang, book, n, tenant):
    db["parcel"].delete_many({})
    db["scan"].delete_many({})
    old = datetime.datetime(2020, 1, 1)
    new = datetime.datetime(2026, 1, 1)
    minute = datetime.timedelta(minutes=1)
    db["parcel"].insert_many([
        {"_id": "A", "tracking": "ta", "batch": "b1", **SCOPE, "scans": [scan(i, old + i * minute) for i in range(n)]},
        {"_id": "B", "tracking": "tb", "batch": "b1", **SCOPE, "scans": [scan(100000 + i, old + i * minute) for i in range(3)]},
        {"_id": "C", "tracking": "tc", "batch": "b1", **SCOPE, "scans": [scan(400000 + i, old + i * minute) for i in range(n)]},
    ])
    if tenant:
        # Another tenant's parcel with A's tracking and the same batch.
        db["parcel"].insert_one({"_id": "X", "tracking": "ta", "batch": "b1", tenant: "t2",
                                 "scans": [{"_id": 900000, "ts": new, "kind": "hub", tenant: "t2"}]})
    args = {tenant + "_id": "t1"} if tenant else {}
    older = datetime.datetime(2025, 1, 1)
    db["scan"].insert_many([scan(200000 + i, new + i * minute, "A") for i in range(10)]
                           + [scan(300000, new, "B")]
                           + [scan(500000 + i, older + i * minute, "C") for i in range(10)])
    got = book.track(db, tracking="ta", **args)
    if tenant and merged_of(got, "X") is not None:
        fail(f"{lang} track(A): returned tenant t2's parcel X")
    ids = merged_of(got, "A")
    want = [200000 + i for i in range(9, 4, -1)]
    if ids != want:
        fail(f"{lang} track(A): scans {ids[:12]}{'…' if len(ids) > 12 else ''} ({len(ids)}), want the newest 5 kept apart, {want}")
    else:
        ok(f"{lang} track(A): the newest 5 scans, all kept apart, newest first, from a full array of {n}")
    got = book.track(db, tracking="tb", **args)
    ids = merged_of(got, "B")
    apart = got.get("scan") or []
    if ids != [100002, 100001, 100000] or apart:
        fail(f"{lang} track(B): scans {ids}, read apart {len(apart)}, want its 3 embedded newest first and nothing read apart")
    else:
        ok(f"{lang} track(B): its 3 embedded scans, newest first; nothing read apart for an array with room")
    got = book.track_batch(db, batch="b1", **args)
    if tenant and merged_of(got, "X") is not None:
        fail(f"{lang} track_batch(b1): returned tenant t2's parcel X")
    want = {
        "A": [200000 + i for i in range(9, 4, -1)],
        "B": [100002, 100001, 100000],
        "C": [500000 + i for i in range(9, 4, -1)],
    }
    have = {p: merged_of(got, p) for p in want}
    if have != want:
        fail(f"{lang} track_batch(b1): scans {have}, want each parcel's own newest 5 {want}")
    else:
        ok(f"{lang} track_batch(b1): each parcel's own newest scans (A's and C's 5 kept apart, B's 3 embedded)")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    tenant = sys.argv[5] if len(sys.argv) > 5 else None
    if tenant:
        SCOPE[tenant] = "t1"
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    n = threshold(cookbook.PLAN)
    if n is None:
        fail("the plan of track reads the scans apart on no condition of the parcel's array")
        n = 1700
    db = MongoClient(uri)[db_name]
    for lang, book in books:
        check(db, lang, book, n, tenant)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
