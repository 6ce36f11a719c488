"""Runs the counts of children kept inside other documents (REVIEW46 4
and 10) against a server in each language, on documents written here,
and checks that each returns the number of matching children: not the
documents that hold them, not how many of those there are, and not a
tick past its life that the TTL monitor has not deleted yet.

The fixture `child-counts` embeds a product's sales in it and keeps a
symbol's ticks in minute buckets; ticks expire 30 days after their time.
Written here:
- product 1 holds a live sale, an ended one and another live one;
  product 2 holds one live sale; product 3 holds one ended sale. So 3
  live sales lie in 2 products, and product 1 holds 2 of them;
- symbol 1 has a bucket of the minute two hours ago with 3 ticks (10 s,
  20 s, 40 s into it) and one of the next minute with 2 ticks (5 s and
  50 s), plus a bucket 40 days old with 2 expired ticks. Symbol 2 has a
  bucket of the same minute with 4 ticks. A window from 15 s into the
  first minute to 30 s into the next holds 3 ticks of symbol 1, in 2
  buckets.
A count once returned the products or buckets themselves (a list), and
a count of bucketed ticks was a find of whole buckets. The ticks of every
symbol in a window (not filtered by one) are counted and listed one by one
too: the count and the list once returned the 3 buckets (review47 item 5).

python check_child_counts.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote for the fixture. Prints "ok: ..." per check,
"FAIL: ..." per failure; exits 1 on any failure.
"""

import datetime
import os
import sys

from bson import ObjectId
from pymongo import MongoClient

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def sale(state):
    return {"_id": ObjectId(), "state": state, "left": 5}


def bucket(symbol, minute, seconds):
    ticks = [{"time": minute + datetime.timedelta(seconds=s), "price": 1.5} for s in seconds]
    return {"_id": ObjectId(), "symbol": symbol, "minute": minute, "count": len(ticks), "ticks": ticks}


def expect(lang, what, got, want):
    """`got` must be the number `want` (an int, not a list or a bool)."""
    if isinstance(got, bool) or not isinstance(got, int) or got != want:
        fail(f"{lang} {what}: returned {got!r}, want the number {want}")
    else:
        ok(f"{lang} {what}: {got} counted")


def check(db, lang, book):
    db["product"].delete_many({})
    db["symbol_ticks"].delete_many({})
    p1, p2, p3 = ObjectId(), ObjectId(), ObjectId()
    db["product"].insert_many([
        {"_id": p1, "title": "a", "sales": [sale("live"), sale("ended"), sale("live")]},
        {"_id": p2, "title": "b", "sales": [sale("live")]},
        {"_id": p3, "title": "c", "sales": [sale("ended")]},
    ])
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    m0 = (now - datetime.timedelta(hours=2)).replace(second=0, microsecond=0)
    m1 = m0 + datetime.timedelta(minutes=1)
    old = (now - datetime.timedelta(days=40)).replace(second=0, microsecond=0)
    s1, s2 = ObjectId(), ObjectId()
    db["symbol_ticks"].insert_many([
        bucket(s1, m0, [10, 20, 40]),
        bucket(s1, m1, [5, 50]),
        bucket(s1, old, [1, 2]),
        bucket(s2, m0, [1, 2, 3, 4]),
    ])
    expect(lang, "live_count(live)", book.live_count(db, state="live")["product"], 3)
    expect(lang, "product_live_count(1, live)", book.product_live_count(db, product_id=p1, state="live")["product"], 2)
    expect(lang, "live_count(gone)", book.live_count(db, state="gone")["product"], 0)
    window = book.tick_count(
        db, symbol_id=s1,
        time_from=m0 + datetime.timedelta(seconds=15),
        time_to=m1 + datetime.timedelta(seconds=30))["symbol_ticks"]
    expect(lang, "tick_count(1, a window over 2 buckets)", window, 3)
    reaching_back = book.tick_count(
        db, symbol_id=s1, time_from=old - datetime.timedelta(days=1), time_to=now)["symbol_ticks"]
    expect(lang, "tick_count(1, a window reaching past the life)", reaching_back, 5)
    expect(lang, "symbol_ticks(1)", book.symbol_ticks(db, symbol_id=s1)["symbol_ticks"], 5)
    # Every symbol's ticks (review47 item 5): the minute two hours ago and
    # 30 s of the next hold 4 + 4 ticks in 3 buckets; reaching back past
    # the life, the 2 expired ticks are not counted. Each once returned
    # the buckets (a list of 3).
    both = {"time_from": m0, "time_to": m1 + datetime.timedelta(seconds=30)}
    expect(lang, "window_count(every symbol, 3 buckets)", book.window_count(db, **both)["symbol_ticks"], 8)
    expect(lang, "window_count(every symbol, past the life)",
           book.window_count(db, time_from=old - datetime.timedelta(days=1), time_to=now)["symbol_ticks"], 9)
    ticks = book.window_ticks(db, **both)["symbol_ticks"]
    singles = [t for t in ticks if isinstance(t.get("ticks"), dict)]
    if len(ticks) != 8 or len(singles) != 8:
        fail(f"{lang} window_ticks(every symbol): {len(ticks)} returned, {len(singles)} single ticks, want 8")
    else:
        ok(f"{lang} window_ticks(every symbol): 8 ticks, each on its own")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    _, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    for lang, book in books:
        check(db, lang, book)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
