"""Runs a window read of children kept in time buckets (a minute of a
symbol's ticks) against a server in each language (issue 41), and checks
that it returns the ticks of the window, whose start and end fall inside a
minute: the buckets are picked by their key from the minute holding the
window's start to before its end, with the window's own bounds, and each
tick is tested by the window. The read once took a range of the key of its
own (`minute_from`, `minute_to`) beside the window's. Then ticks that
arrive out of order leave the bucket's first and last price those of its
earliest and latest tick (review46 item 5).

The ticks are stored by the cookbook's `record` (the caller passes the
minute, its time truncated): minutes 10:00, 10:01 and 10:02, with ticks at
:05 and :40, :10 and :50, :05 and :55 seconds.

python check_bucket_window.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote for the fixture `bucket-time-window`. Prints
"ok: ..." per check, "FAIL: ..." per failure; exits 1 on any failure.
"""

import datetime
import os
import sys

from bson.objectid import ObjectId
from pymongo import MongoClient

failures = []
BASE = datetime.datetime(2024, 1, 1, 10, 0, 0)


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def at(minute, second):
    return BASE + datetime.timedelta(minutes=minute, seconds=second)


TICKS = [(0, 5), (0, 40), (1, 10), (1, 50), (2, 5), (2, 55)]


def check(db, lang, book):
    symbol = ObjectId()
    db["symbol_ticks"].delete_many({})
    for minute, second in TICKS:
        tick = {"time": at(minute, second), "price": 1.5, "volume": 3}
        book.record(db, symbol_id=symbol, time_minute=at(minute, 0), new_ticks_item=tick)
    windows = [
        ("10:00:30 to 10:01:30", at(0, 30), at(1, 30)),
        ("10:01:00 to 10:02:00", at(1, 0), at(2, 0)),
        ("10:00:06 to 10:02:06", at(0, 6), at(2, 6)),
    ]
    for name, start, end in windows:
        try:
            got = book.minute_ticks(db, symbol_id=symbol, time_from=start, time_to=end)["symbol_ticks"]
        except Exception as e:  # noqa: BLE001 (a failure is the check's)
            fail(f"{lang} minute_ticks({name}): {type(e).__name__}: {e}")
            continue
        times = [d["ticks"]["time"] for d in got]
        want = [at(m, s) for m, s in TICKS if start <= at(m, s) < end]
        minutes = [t.replace(second=0) for t in times]
        if sorted(times) != want or minutes != sorted(minutes, reverse=True):
            fail(f"{lang} minute_ticks({name}): ticks {[str(t.time()) for t in times]}, "
                 f"want {[str(t.time()) for t in want]} by minute, newest first")
        else:
            ok(f"{lang} minute_ticks({name}): the {len(want)} ticks of the window, newest minute first")


LATE = [(30, 5.0), (10, 3.0), (50, 7.0)]


def check_late_tick(db, lang, book):
    """Ticks of one minute that arrive out of order (10:00:30 price 5, then
    10:00:10 price 3, then 10:00:50 price 7): the bucket's first_price and
    last_price are those of its earliest and latest tick (3 and 7), from
    the same ticks as its first_time/last_time where it keeps them. A
    `$setOnInsert`/`$set` in arrival order gave 5 and 7 (review46 item 5)."""
    symbol = ObjectId()
    for second, price in LATE:
        tick = {"time": at(0, second), "price": price, "volume": 1}
        book.record(db, symbol_id=symbol, time_minute=at(0, 0), new_ticks_item=tick)
    buckets = list(db["symbol_ticks"].find({"symbol": symbol}))
    if len(buckets) != 1:
        fail(f"{lang} late tick: {len(buckets)} buckets, want 1")
        return
    b = buckets[0]
    want = {"first_price": 3.0, "last_price": 7.0, "first_time": at(0, 10), "last_time": at(0, 50)}
    got = {k: b.get(k) for k in want if k in b or k.endswith("_price")}
    if any(got[k] != want[k] for k in got) or b.get("count") != 3:
        fail(f"{lang} late tick: bucket figures {got}, count {b.get('count')}, want {want}, count 3")
    else:
        ok(f"{lang} late tick: first_price and last_price are those of the earliest and latest tick ({sorted(got)})")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    _, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    for lang, book in books:
        check(db, lang, book)
        check_late_tick(db, lang, book)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
