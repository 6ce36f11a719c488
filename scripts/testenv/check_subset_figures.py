"""Runs a sequence of writes through the cookbook of the fixture
`subset-figures` in each language, and after each compares the figures a
queue keeps over its open tickets (`tickets_count_status_open`,
`tickets_sum_cost_status_open`) with the truth recomputed from the
tickets themselves.

The sequence covers every write that can move such a figure: a ticket
opened in the subset and one outside it; a ticket that leaves the subset
(closed), one that enters it (reopened), one that stays in it (set open
again); a price changed inside the subset and outside it; a ticket
closed after its price changed; deletes of a ticket in the subset and of
one outside it; a write of a ticket that does not exist.

python check_subset_figures.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote for the fixture. Prints "ok: ..." per check,
"FAIL: ..." per failure; exits 1 on any failure.
"""

import os
import sys

from bson import Int64, ObjectId
from pymongo import MongoClient

failures = []

COUNT = "tickets_count_status_open"
SUM = "tickets_sum_cost_status_open"


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def truth(db, queue):
    open_ = list(db["ticket"].find({"queue_id": queue, "status": "open"}, {"cost": 1}))
    return len(open_), float(sum(t["cost"] for t in open_))


def compare(db, lang, step, queues):
    """The kept figures of every queue against its open tickets."""
    bad = []
    for name, q in queues.items():
        doc = db["queue"].find_one({"_id": q})
        kept = (int(doc.get(COUNT, 0)), float(doc.get(SUM, 0)))
        want = truth(db, q)
        if kept != want:
            bad.append(f"queue {name} keeps count {kept[0]} and sum {kept[1]:g}, its open tickets are {want[0]} summing to {want[1]:g}")
    if bad:
        fail(f"{lang} after {step}: " + "; ".join(bad))
    else:
        ok(f"{lang} after {step}: the kept figures equal the open tickets")


def check(db, lang, book):
    db["queue"].delete_many({})
    db["ticket"].delete_many({})
    queues = {"a": ObjectId(), "b": ObjectId()}
    for name, q in queues.items():
        db["queue"].insert_one({"_id": q, "name": name, COUNT: Int64(0), SUM: 0.0})
    t = {n: ObjectId() for n in ("t1", "t2", "t3", "t4")}

    def open_ticket(name, queue, status, cost):
        doc = {"_id": t[name], "title": name, "status": status, "cost": cost, "queue_id": queues[queue]}
        book.open_ticket(db, new_ticket=doc, queue_id=queues[queue])
        compare(db, lang, f"open_ticket({name}, {status}, {cost})", queues)

    def set_status(name, status):
        book.set_status(db, ticket_id=t.get(name, ObjectId()), new_status=status)
        compare(db, lang, f"set_status({name}, {status})", queues)

    def reprice(name, cost):
        book.reprice(db, ticket_id=t[name], new_cost=cost)
        compare(db, lang, f"reprice({name}, {cost})", queues)

    def drop(name):
        book.drop_ticket(db, ticket_id=t[name])
        compare(db, lang, f"drop_ticket({name})", queues)

    open_ticket("t1", "a", "open", 10)
    open_ticket("t2", "a", "pending", 5)
    open_ticket("t3", "a", "open", 7)
    open_ticket("t4", "b", "open", 3)
    set_status("t1", "closed")
    set_status("t2", "open")
    set_status("t3", "open")
    reprice("t3", 20)
    reprice("t1", 100)
    set_status("t1", "open")
    set_status("t4", "pending")
    set_status("missing", "closed")
    drop("t3")
    drop("t4")


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
