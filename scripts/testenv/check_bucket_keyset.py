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

python check_bucket_keyset.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote for the fixture. Prints "ok: ..." per check,
"FAIL: ..." per failure; exits 1 on any failure.
"""

import datetime
import json
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


def check(db, lang, book, cap, now):
    account = ObjectId()
    db["account_entries"].delete_many({})
    every = write(db, account, cap, now - datetime.timedelta(days=10))
    truth = [m for *_, m in sorted(every, reverse=True)]
    start, end = now - datetime.timedelta(days=90), now + datetime.timedelta(days=1)
    seen, sizes, cursor = [], [], {}
    try:
        for _ in range(len(every) // 50 + 5):
            page = book.statement(db, account_id=account, posted_at_from=start, posted_at_to=end, **cursor)
            docs = page["account_entries"]
            if not docs:
                break
            sizes.append(len(docs))
            seen += [d["entries"]["memo"] for d in docs]
            last = docs[-1]
            cursor = {
                "after_posted_at": last["entries"]["posted_at"],
                "after_bucket": last["_id"],
                "after_position": last["_position"],
            }
    except Exception as e:  # noqa: BLE001 - a cookbook without the cursor
        fail(f"{lang} statement: a page after the first could not be read: {type(e).__name__}: {e}")
        return
    lost = len(set(truth) - set(seen))
    twice = len(seen) - len(set(seen))
    if seen != truth:
        fail(f"{lang} statement: {len(seen)} entries over {len(sizes)} pages, {lost} lost, {twice} read twice, "
             f"want all {len(truth)} once, newest first")
    else:
        ok(f"{lang} statement: all {len(truth)} entries of 4 buckets over {len(sizes)} pages, none lost or "
           f"read twice, newest first, ties by bucket and place")
    if any(n != 50 for n in sizes[:-1]):
        fail(f"{lang} statement: pages of {sizes}, want 50 each but the last")
    else:
        ok(f"{lang} statement: every page but the last holds 50 entries")


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
    for lang, book in books:
        check(db, lang, book, cap, now)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
