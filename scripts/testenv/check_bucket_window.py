"""Runs a window read of children kept in time buckets (a minute of a
symbol's ticks) against a server in each language (issue 41), and checks
that it returns the ticks of the window, whose start and end fall inside a
minute: the buckets are picked by their key from the minute holding the
window's start to before its end, with the window's own bounds, and each
tick is tested by the window. The read once took a range of the key of its
own (`minute_from`, `minute_to`) beside the window's.

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
