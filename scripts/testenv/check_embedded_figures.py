"""Reads a queue of the fixture `embedded-figures` through its cookbook in
each language and checks the figures its find computes on the server
over the tickets embedded in it: `tickets_count_status_open` is the
number of its live open tickets, `tickets_sum_cost_status_open` the sum
of their cost. Queue a holds live and expired tickets, open and closed;
queue b has none. The tickets returned are the live ones
only: nothing deletes an expired ticket from the array.

python check_embedded_figures.py DIR URI DB MONGOSH, with DIR the
directory `squill generate` wrote for the fixture. Prints "ok: ..." per
check, "FAIL: ..." per failure; exits 1 on any failure.
"""

import datetime
import os
import sys

from bson import ObjectId
from pymongo import MongoClient

failures = []

COUNT = "tickets_count_status_open"
SUM = "tickets_sum_cost_status_open"


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def ticket(title, status, cost, days_old):
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)
    return {
        "_id": ObjectId(),
        "title": title,
        "status": status,
        "cost": cost,
        "opened_at": now - datetime.timedelta(days=days_old),
    }


def check(db, lang, book):
    db["queue"].delete_many({})
    a, b = ObjectId(), ObjectId()
    tickets = [
        ticket("live open 10", "open", 10, 1),
        ticket("expired open 5", "open", 5, 40),
        ticket("live closed 7", "closed", 7, 2),
        ticket("live open 3", "open", 3, 29),
        ticket("expired closed 100", "closed", 100, 31),
    ]
    db["queue"].insert_one({"_id": a, "name": "a", "tickets": tickets})
    db["queue"].insert_one({"_id": b, "name": "b", "tickets": []})
    live = sorted(t["title"] for t in tickets if not t["title"].startswith("expired"))
    for name, q, want in (("a", a, (2, 13)), ("b", b, (0, 0))):
        got = book.queue_page(db, queue_id=q)["queue"]
        if len(got) != 1:
            fail(f"{lang} queue_page({name}): {len(got)} queues, want 1")
            continue
        doc = got[0]
        figures = (doc.get(COUNT), doc.get(SUM))
        if figures[0] is None or figures[1] is None or (int(figures[0]), float(figures[1])) != (want[0], float(want[1])):
            fail(f"{lang} queue_page({name}): figures {figures} (keys {sorted(doc)}), want {want}: the live open tickets")
        else:
            ok(f"{lang} queue_page({name}): {int(figures[0])} open tickets costing {float(figures[1]):g}, computed on the server")
        titles = sorted(t.get("title") for t in (doc.get("tickets") or []))
        expect = live if name == "a" else []
        if titles != expect:
            fail(f"{lang} queue_page({name}): tickets {titles}, want the live ones {expect}")
        else:
            ok(f"{lang} queue_page({name}): the live tickets only")


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
