"""Pages through a statement of entries kept in count buckets by keyset
(audit48 A10), in each language, and checks that the pages together hold
every entry once, in the read's order (newest first).

The fixture `bucket-keyset` keeps an account's entries in buckets of a
count, each with its first and last `posted_at`. Four buckets of one
account are written here, filled in date order as the cookbook fills
them: the first full, its last entries on one date T; the second full and
every entry of it on T; the third full, its first entries on T; the
newest partly filled, its first entry on the third's last date. Many
entries share a date, and entries have no `_id`: a page that starts after
the last date seen loses the rest of that date, and one that starts at it
reads some twice. A page once had no cursor at all (pages past the first
could not be asked for).

Each language pages three times: with the buckets as written; with an
entry arriving after page 1 into the newest bucket, dated before most
older entries (bucket date ranges then overlap); and with an entry not yet
read deleted from the cursor's bucket between two pages (the entries after
it in the bucket move up one place). A cursor on the bucket's `_id` and
the entry's place in it lost entries in the first case and read one twice
in the second (paging49). The check asks for every entry once, dates never
rising, 50 to a page: it does not assume how ties are broken.

python check_bucket_keyset.py DIR URI DB MONGOSH [SCENARIO...], with DIR the
directory `squill generate` wrote for the fixture, and SCENARIO `in-order`,
`late` or `delete` (all three by default); `known:late` runs one that is
known to fail, printing KNOWN for its failures and FIXED if it passes. Prints "ok: ..." per check,
"FAIL: ..." per failure; exits 1 on any failure.
"""

import datetime
import json
import os
import sys

from bson.objectid import ObjectId
from pymongo import MongoClient

failures = []
# Scenarios known to fail on the cookbook as it is: their failures print
# "KNOWN: ..." and do not fail the run; a pass prints "FIXED: ..." and does,
# so that whoever fixes them turns the test's expectation around.
known = set()
scenario_now = [None]


def fail(msg):
    if scenario_now[0] in known:
        print(f"KNOWN: {msg}")
        return
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def capacity(directory):
    """The most entries a bucket holds: its array's `maxItems`."""
    with open(f"{directory}/validators.json") as f:
        found = []

        def walk(node, key=None):
            if isinstance(node, dict):
                if key == "entries" and "maxItems" in node:
                    found.append(node["maxItems"])
                for k, v in node.items():
                    walk(v, k)
            elif isinstance(node, list):
                for v in node:
                    walk(v, key)

        walk(json.load(f))
    return found[0]


def dates(cap, base):
    """Each bucket's entries' dates, oldest bucket first, in the order
    they arrived (never older than the entry before)."""
    second = datetime.timedelta(seconds=1)
    t = base + (cap // 7 + 1) * second
    first = [base + (i // 7) * second for i in range(cap - 5)] + [t] * 5
    second_bucket = [t] * cap
    third = [t] * 3 + [t + (1 + j // 7) * second for j in range(cap - 3)]
    last = third[-1]
    newest = [last] + [last + (1 + j // 3) * second for j in range(cap // 4)]
    return [first, second_bucket, third, newest]


def write(db, account, cap, base):
    """The buckets, each entry's memo naming it; every entry, with its
    bucket's `_id` and its place in the bucket."""
    docs, every = [], []
    for page, ds in enumerate(dates(cap, base)):
        bid = ObjectId()
        entries = [{"amount": 1, "posted_at": d, "memo": f"b{page}e{i}"} for i, d in enumerate(ds)]
        docs.append({
            "_id": bid,
            "account": account,
            "page": page,
            "count": len(entries),
            "arrived": len(entries),
            "first_posted_at": min(ds),
            "last_posted_at": max(ds),
            "entries": entries,
        })
        every += [(e["posted_at"], bid, i, e["memo"]) for i, e in enumerate(entries)]
    ids = [d["_id"] for d in docs]
    assert ids == sorted(ids), "bucket ids in the order the buckets were opened"
    db["account_entries"].insert_many(docs)
    return every


def cursor_of(last):
    """The cursor the page's last document gives: its date and whatever
    identifies it among the entries of that date (the entry's own `_id`, or
    its bucket's `_id` and its place there)."""
    entry = last["entries"]
    if "_position" in last:
        return {
            "after_posted_at": entry["posted_at"],
            "after_bucket": last["_id"],
            "after_position": last["_position"],
        }
    return {"after_posted_at": entry["posted_at"], "after_id": entry["_id"]}


def late_arrival(db, account, every, seen, base):
    """An entry that arrives after the first page, dated before every
    entry of the two older full buckets' overlap: it goes to the newest
    bucket, as the cookbook's insert puts it there, and that bucket's first
    date moves back (its range now overlaps every older bucket's)."""
    if len(seen) != 50:
        return
    newest = db["account_entries"].find_one({"account": account}, sort=[("_id", -1)])
    late = base + datetime.timedelta(seconds=30)
    entry = {"amount": 1, "posted_at": late, "memo": "late"}
    if "_id" in newest["entries"][0]:
        entry["_id"] = ObjectId()
    db["account_entries"].update_one(
        {"_id": newest["_id"]},
        {"$push": {"entries": entry}, "$inc": {"count": 1, "arrived": 1},
         "$min": {"first_posted_at": late}},
    )
    every.append((late, newest["_id"], len(newest["entries"]), "late"))


def delete_unread(db, account, every, seen, base):
    """Once the cursor lies in an older full bucket, one entry of that
    bucket not yet read is deleted (`$pull`): the entries after it in the
    bucket move up one place."""
    if getattr(delete_unread, "done", False) or not seen:
        return
    ordered = [m for *_, m in sorted(every, reverse=True)]
    read = set(seen)
    last = seen[-1]
    bucket_of = {m: b for _, b, _, m in every}
    unread = [m for m in ordered if m not in read and bucket_of[m] == bucket_of[last]]
    newest = max(b for _, b, _, _ in every)
    if bucket_of[last] == newest or len(unread) < 5:
        return
    gone = unread[len(unread) // 2]
    db["account_entries"].update_one(
        {"_id": bucket_of[last]}, {"$pull": {"entries": {"memo": gone}}, "$inc": {"count": -1}}
    )
    every[:] = [e for e in every if e[3] != gone]
    delete_unread.done = True


SCENARIOS = {
    "in-order": ("in date order", None),
    "late": ("an entry arriving late into the newest bucket after page 1", late_arrival),
    "delete": ("an unread entry deleted from the cursor's bucket", delete_unread),
}


def check(db, lang, book, cap, now, scenario, between):
    account = ObjectId()
    db["account_entries"].delete_many({})
    base = now - datetime.timedelta(days=10)
    every = write(db, account, cap, base)
    delete_unread.done = False
    start, end = now - datetime.timedelta(days=90), now + datetime.timedelta(days=1)
    seen, dates_seen, sizes, cursor = [], [], [], {}
    try:
        for _ in range(len(every) // 50 + 5):
            page = book.statement(db, account_id=account, posted_at_from=start, posted_at_to=end, **cursor)
            docs = page["account_entries"]
            if not docs:
                break
            sizes.append(len(docs))
            seen += [d["entries"]["memo"] for d in docs]
            dates_seen += [d["entries"]["posted_at"] for d in docs]
            cursor = cursor_of(docs[-1])
            if between:
                between(db, account, every, seen, base)
    except Exception as e:  # noqa: BLE001 - a cookbook without the cursor
        fail(f"{lang} statement, {scenario}: a page after the first could not be read: {type(e).__name__}: {e}")
        return
    truth = {m for *_, m in every}
    lost = len(truth - set(seen))
    twice = len(seen) - len(set(seen))
    backwards = sum(1 for a, b in zip(dates_seen, dates_seen[1:]) if b > a)
    whole = not (lost or twice or backwards or len(set(seen)) != len(truth))
    if whole and scenario_now[0] in known:
        failures.append(scenario)
        print(f"FIXED: {lang} statement, {scenario}: all {len(truth)} entries once; the scenario is no longer a known failure")
    if not whole:
        fail(f"{lang} statement, {scenario}: {len(seen)} entries over {len(sizes)} pages, {lost} lost, "
             f"{twice} read twice, {backwards} out of date order, want all {len(truth)} once, newest first")
    else:
        ok(f"{lang} statement, {scenario}: all {len(truth)} entries of 4 buckets over {len(sizes)} pages, "
           f"none lost or read twice, newest first")
    if any(n != 50 for n in sizes[:-1]):
        fail(f"{lang} statement, {scenario}: pages of {sizes}, want 50 each but the last")
    else:
        ok(f"{lang} statement, {scenario}: every page but the last holds 50 entries")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    _, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    cap = capacity(directory)
    # Milliseconds: what BSON keeps of a date.
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    now = now.replace(microsecond=now.microsecond // 1000 * 1000)
    asked = sys.argv[5:] or list(SCENARIOS)
    for lang, book in books:
        for key in asked:
            name = key.removeprefix("known:")
            if key != name:
                known.add(name)
            scenario_now[0] = name
            scenario, between = SCENARIOS[name]
            check(db, lang, book, cap, now, scenario, between)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
