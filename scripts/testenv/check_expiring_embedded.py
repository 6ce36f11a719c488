"""Runs the operations of expiring children kept in their parent's array
(fixture `expiring-embedded`, expiry48) against a server, in each language,
beside elements already past their life, and checks that none is returned,
counted or kept by a write.

No TTL index deletes an element of an array, so the generated code must:
- leave the expired tickets out of a list of a mode's tickets, read on
  their own (unwound): it once returned them, while the count of the same
  tickets compared the date;
- leave them out of the count;
- drop them in the write that queues a new ticket (one update pipeline:
  MongoDB refuses `$push` and `$pull` on one path), and count the room
  under the cap among the live tickets alone. The push once left the
  expired tickets in the array, so a lane whose 3 places held expired
  tickets refused every new one for good.

Written here: lane 1 holds tickets 1 (10 minutes old, expired), 2 (30 s
old) and 3 (5 minutes old, expired), all of mode "m"; lane 2 holds ticket
4 (10 s old, mode "m") and ticket 5 (mode "x"); lane 3 holds three live
tickets (its cap, 3). The tickets expire 2 minutes after `queued_at`.

python check_expiring_embedded.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote for the fixture. Prints "ok: ..." per check,
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


def ticket(tid, mode, age):
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)
    return {"_id": tid, "queued_at": now - age, "mode": mode, "player": f"p{tid}"}


def elements(doc, array):
    """The elements a returned document holds: one unwound, or a list."""
    held = doc.get(array, [])
    return held if isinstance(held, list) else [held]


def check(db, lang, book):
    minutes = lambda n: datetime.timedelta(minutes=n)  # noqa: E731
    seconds = lambda n: datetime.timedelta(seconds=n)  # noqa: E731
    db["lane"].delete_many({})
    db["lane"].insert_many([
        {"_id": 1, "name": "a", "tickets": [ticket(1, "m", minutes(10)), ticket(2, "m", seconds(30)), ticket(3, "m", minutes(5))]},
        {"_id": 2, "name": "b", "tickets": [ticket(4, "m", seconds(10)), ticket(5, "x", seconds(10))]},
        {"_id": 3, "name": "c", "tickets": [ticket(i, "y", seconds(20)) for i in (6, 7, 8)]},
    ])
    got = book.mode_tickets(db, mode="m")["lane"]
    ids = [t.get("_id") for d in got for t in elements(d, "tickets")]
    if ids != [4, 2]:
        fail(f"{lang} mode_tickets(m): tickets {ids}, want the live tickets 4 and 2, newest first (1 and 3 expired)")
    else:
        ok(f"{lang} mode_tickets(m): the live tickets 4 and 2, newest first, no expired one")
    count = book.mode_count(db, mode="m")["lane"]
    if count != 2:
        fail(f"{lang} mode_count(m): {count}, want 2 (tickets 1 and 3 expired)")
    else:
        ok(f"{lang} mode_count(m): 2, the expired tickets not counted")
    try:
        book.queue(db, lane_id=1, new_tickets_item=ticket(9, "m", seconds(0)))
        held = [t["_id"] for t in db["lane"].find_one({"_id": 1})["tickets"]]
        if held != [2, 9]:
            fail(f"{lang} queue(1): lane 1 holds tickets {held}, want 2 and 9 (the expired 1 and 3 dropped)")
        else:
            ok(f"{lang} queue(1): lane 1 full of expired tickets took ticket 9 and dropped the expired ones")
    except Exception as e:  # noqa: BLE001 (a failure is the check's)
        fail(f"{lang} queue(1): refused ({e}); lane 1's 3 places held 2 expired tickets")
    refused = False
    try:
        book.queue(db, lane_id=3, new_tickets_item=ticket(10, "y", seconds(0)))
    except Exception:  # noqa: BLE001 (the refusal is what the check wants)
        refused = True
    held = [t["_id"] for t in db["lane"].find_one({"_id": 3})["tickets"]]
    if not refused or held != [6, 7, 8]:
        fail(f"{lang} queue(3): refused {refused}, lane 3 holds {held}; want it refused, 6, 7 and 8 kept (3 live, its cap)")
    else:
        ok(f"{lang} queue(3): refused, lane 3's 3 live tickets fill its cap")


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
