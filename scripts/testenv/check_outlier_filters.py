"""Runs the reads of an outlier's children by a field of their own,
through their parent, against a server in each language (outcount48):
a parcel's scans of one kind (`kind_list`), how many there are
(`kind_count`), and how many scans it has (`scan_count`).

The fixture `outlier-child-filters` keeps a parcel's scans in its array up
to a threshold (the plan's `when: {full: [step, "scans", N]}`), the rest
in the `scan` collection. Written here: parcel A holds a full array of N
scans of 2020, one in three of kind "hub", and has 10 more scans of 2026
apart, 6 of them hubs; parcel B holds 5 scans, 2 of them hubs, and one
stray hub of B sits apart (no layout puts it there: it shows whether a
read looks apart for a parcel with room). The count once matched the
parcel's id against the scans' own ids and counted 0; the list returned
B's 5 scans, vans too.

python check_outlier_filters.py DIR URI DB MONGOSH [TENANT] [--expiring],
with DIR the directory `squill generate` wrote for the fixture, and TENANT
the name of the tenant's reference when the model has one (every document
then carries tenant "t1", and the reads pass it). --expiring: the model's
scans expire 30 days after `ts` (fixe48). The scans are then dated within
their life, and expired hubs are added: 3 in B's array and 2 kept apart
for A. No read and no count may see them (nothing deletes an element from
an array; the TTL monitor may not yet have reached the 2 apart). The count
once asked its caller for a range of `ts` and the list returned B's
expired hubs. Prints "ok: ..." per check,
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
    for step in plan["kind_list"]["steps"]:
        when = step.get("when") or {}
        if "full" in when:
            return when["full"][2]
    return None


def merged_of(got, parcel):
    """The merged scans of `parcel` in a result: a list per parcel read."""
    for p, scans in zip(got.get("parcel") or [], got.get("scans_merged") or []):
        if p["_id"] == parcel:
            if not isinstance(scans, list):
                return f"not a list per parcel: {scans!r:.60}"
            return [s["_id"] for s in scans]
    return None


def check(db, lang, book, n, tenant, expiring):
    db["parcel"].delete_many({})
    db["scan"].delete_many({})
    old = datetime.datetime(2020, 1, 1)
    new = datetime.datetime(2026, 1, 1)
    if expiring:
        now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
        old = now - datetime.timedelta(days=10)
        new = now - datetime.timedelta(days=1)
        dead = now - datetime.timedelta(days=60)
    minute = datetime.timedelta(minutes=1)
    scope = {tenant: "t1"} if tenant else {}

    def scan(sid, ts, kind, parcel=None):
        s = {"_id": sid, "ts": ts, "kind": kind, **scope}
        if parcel is not None:
            s["parcel"] = parcel
        return s

    def kind(i):
        return "hub" if i % 3 == 0 else "van"

    db["parcel"].insert_many([
        {"_id": "A", "tracking": "ta", **scope, "scans": [scan(i, old + i * minute, kind(i), "A") for i in range(n)]},
        {"_id": "B", "tracking": "tb", **scope, "scans": [scan(100000 + i, old + i * minute, kind(i), "B") for i in range(5)]},
    ])
    db["scan"].insert_many([scan(200000 + i, new + i * minute, "hub" if i < 6 else "van", "A") for i in range(10)]
                           + [scan(300000, new, "hub", "B")])
    if expiring:
        db["parcel"].update_one({"_id": "B"}, {"$push": {"scans": {"$each": [scan(100100 + i, dead, "hub", "B") for i in range(3)]}}})
        db["scan"].insert_many([scan(200100 + i, dead, "hub", "A") for i in range(2)])
    if tenant:
        # A parcel of another carrier, with hubs: read as carrier t1's,
        # nothing of it comes back.
        db["parcel"].insert_one({"_id": "X", "tracking": "tx", tenant: "t2",
                                 "scans": [{"_id": 900000 + i, "ts": new, "kind": "hub", "parcel": "X", tenant: "t2"} for i in range(3)]})
    args = {tenant + "_id": "t1"} if tenant else {}
    hubs_in_a = len([i for i in range(n) if kind(i) == "hub"])
    cases = [
        ("kind_count", "A", {"kind": "hub"}, hubs_in_a + 6, "its array's hubs and the 6 kept apart"),
        ("kind_count", "B", {"kind": "hub"}, 2, "its 2 embedded hubs, nothing apart for an array with room"),
        ("kind_count", "B", {"kind": "bike"}, 0, "no scan of that kind"),
        ("scan_count", "A", {}, n + 10, "its full array and the 10 kept apart"),
        ("scan_count", "B", {}, 5, "its 5 embedded scans"),
    ]
    if tenant:
        cases.append(("kind_count", "X", {"kind": "hub"}, 0, "a parcel of another carrier"))
    for fn, parcel, more, want, what in cases:
        try:
            got = getattr(book, fn)(db, parcel_id=parcel, **more, **args)
        except Exception as e:  # a parameter the caller cannot give (a range of the life)
            fail(f"{lang} {fn}({parcel}, {more.get('kind', 'all')}) raised {type(e).__name__}: {e}")
            continue
        count = got.get("scans_count") if isinstance(got, dict) else None
        if count != want:
            fail(f"{lang} {fn}({parcel}, {more.get('kind', 'all')}): returned {count!r} (result keys {sorted(got) if isinstance(got, dict) else got!r:.80}), want the number {want}: {what}")
        else:
            ok(f"{lang} {fn}({parcel}, {more.get('kind', 'all')}): {want} counted, {what}")
    got = book.kind_list(db, parcel_id="A", kind="hub", **args)
    want = [200000 + i for i in range(5, -1, -1)] + sorted([i for i in range(n) if kind(i) == "hub"], reverse=True)[:4]
    ids = merged_of(got, "A")
    if ids != want:
        fail(f"{lang} kind_list(A, hub): scans {ids}, want the 6 hubs kept apart and the array's newest 4 hubs {want}")
    else:
        ok(f"{lang} kind_list(A, hub): the newest 10 hubs, 6 kept apart and 4 of the array, newest first")
    got = book.kind_list(db, parcel_id="B", kind="hub", **args)
    ids = merged_of(got, "B")
    apart = got.get("scan") or []
    if ids != [100003, 100000] or apart:
        fail(f"{lang} kind_list(B, hub): scans {ids}, read apart {len(apart)}, want its 2 embedded hubs newest first and nothing read apart")
    else:
        ok(f"{lang} kind_list(B, hub): its 2 embedded hubs, newest first, no van; nothing read apart")
    if tenant:
        got = book.kind_list(db, parcel_id="X", kind="hub", **args)
        if got.get("parcel") or any(got.get("scans_merged") or []):
            fail(f"{lang} kind_list(X, hub): returned {got!r:.120}, want nothing of another carrier's parcel")
        else:
            ok(f"{lang} kind_list(X, hub): nothing of another carrier's parcel")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    rest = sys.argv[5:]
    expiring = "--expiring" in rest
    rest = [a for a in rest if a != "--expiring"]
    tenant = rest[0] if rest else None
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    n = threshold(cookbook.PLAN)
    if n is None:
        fail("the plan of kind_list reads the scans apart on no condition of the parcel's array")
        n = 1700
    db = MongoClient(uri)[db_name]
    for lang, book in books:
        check(db, lang, book, n, tenant, expiring)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
