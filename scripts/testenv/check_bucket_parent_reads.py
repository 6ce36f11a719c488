"""Runs reads of children kept in buckets by their parent, and includes of
them from it (issue 41), against a server in each language, and checks that
they return the newest children they ask for, newest first, across as many
buckets as hold them: not the buckets. They once returned whole buckets:
two pages of readings for "the last 50", two pages of 100 comments for
"the latest 20".

The fixture `bucket-parent-reads` keeps a sensor's readings and an
article's comments in buckets of 100. Stored here by the cookbook's own
inserts: 230 readings (one a minute: pages of 100, 100 and 30, so the
newest 50 span two) and 150 comments (one a second), each insert given its page as the caller must: the parent's
buckets so far (no setup here, so no unique index to move it on).

python check_bucket_parent_reads.py DIR URI DB MONGOSH, with DIR the
directory `squill generate` wrote for the fixture. Prints "ok: ..." per
check, "FAIL: ..." per failure; exits 1 on any failure.
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


def same(lang, name, got, want):
    if got != want:
        fail(f"{lang} {name}: {len(got)} children {[str(t) for t in got[:3]]}..., "
             f"want the newest {len(want)}, newest first {[str(t) for t in want[:3]]}...")
    else:
        ok(f"{lang} {name}: the newest {len(want)}, newest first")


def returned(docs, array, field):
    """The `field` of each child returned: each document an unwound child,
    or (what the reads once returned) a bucket whose array holds many."""
    out = []
    for d in docs:
        v = d[array]
        out += [x[field] for x in v] if isinstance(v, list) else [v[field]]
    return out


def check(db, lang, book):
    for c in ("sensor", "sensor_readings", "article", "article_comments"):
        db[c].delete_many({})
    sensor = ObjectId()
    db["sensor"].insert_one({"_id": sensor, "sensor_id": "s1"})
    times = [BASE + datetime.timedelta(minutes=i) for i in range(230)]
    for i, t in enumerate(times):
        book.record(db, sensor_id=sensor, new_readings_item={"time": t, "value": float(i)}, page=i // 100)
    newest = sorted(times, reverse=True)[:50]
    got = returned(book.last_readings(db, sensor_id=sensor)["sensor_readings"], "readings", "time")
    same(lang, "last_readings", got, newest)
    got = returned(book.sensor_latest(db, sensor_id=sensor)["sensor_readings"], "readings", "time")
    same(lang, "sensor_latest", got, newest)
    article = ObjectId()
    db["article"].insert_one({"_id": article, "title": "t"})
    ats = [BASE + datetime.timedelta(seconds=i) for i in range(150)]
    for i, at in enumerate(ats):
        book.add_comment(db, article_id=article, new_comments_item={"at": at, "body": "b"}, page=i // 100)
    got = returned(book.article_page(db, article_id=article)["article_comments"], "comments", "at")
    same(lang, "article_page", got, sorted(ats, reverse=True)[:20])


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    _, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    for lang, book in books:
        try:
            check(db, lang, book)
        except Exception as e:  # noqa: BLE001 (a failure is the check's)
            fail(f"{lang}: {type(e).__name__}: {e}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
