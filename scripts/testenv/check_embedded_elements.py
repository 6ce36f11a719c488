"""Runs the reads of children embedded in an array, read by their own
fields (audit45 gap 3), against a server in each language, and checks
that they return the matching elements in the read's order, paged by
skip, not the documents that hold them.

The fixture `embedded-child-reads` embeds a product's sales in it and a
page's preview tokens in it. Written here: product 1 holds a live sale
that started in 2020 and an ended one of 2026; product 2 holds a live
sale of 2025; product 3 holds two live sales that start at the same
instant (a tie, broken by the sale's `_id`). A read once returned the
products, each with every sale, ordered by any sale's date: product 1
first, by its ended sale, which came back as "live". Page 1 holds a
preview token and two others.

A product read with its newest sale (`newest_sale`) or its first sale as
stored (`first_sale`) gets its array cut to one on the server (embed46):
product 1 stored its sale of 2020 first and its sale of 2026 second. The
read once returned both, in stored order, for either.

Promotions sit in a mall's stores, each store with its own array
(embed46): mall 1 holds store 1 (a live promotion of 2020, an ended one
of 2026) and store 2 (a live one of 2025), mall 2 holds store 3 (a live
one of 2024). `live_promos(live)` returns the three live promotions,
newest first, each alone; it once returned the malls.

A player holds a ticket queued 30 s ago and one queued 10 minutes ago,
past its 2-minute life (tickets pinned inside players, embed46):
`my_tickets` returns the player with the live ticket alone.

python check_embedded_elements.py DIR URI DB MONGOSH, with DIR the
directory `squill generate` wrote for the fixture. Prints "ok: ..." per
check, "FAIL: ..." per failure; exits 1 on any failure.
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


def day(y, m, d):
    return datetime.datetime(y, m, d)


def sale(sid, state, starts):
    return {"_id": sid, "left": 5, "starts_at": starts, "state": state}


def elements(doc, array):
    """The elements a returned document holds: one unwound, or (as the
    read once returned) the whole array."""
    held = doc.get(array, [])
    return held if isinstance(held, list) else [held]


def check(db, lang, book):
    db["product"].delete_many({})
    db["page"].delete_many({})
    db["product"].insert_many([
        {"_id": 1, "sku": "a", "sales": [sale(11, "live", day(2020, 1, 1)), sale(12, "ended", day(2026, 1, 1))]},
        {"_id": 2, "sku": "b", "sales": [sale(21, "live", day(2025, 1, 1))]},
        {"_id": 3, "sku": "c", "sales": [sale(31, "live", day(2024, 1, 1)), sale(32, "live", day(2024, 1, 1))]},
    ])
    db["page"].insert_one({
        "_id": 1, "title": "T", "body": "B",
        "previews": [{"_id": i, "token": f"t{i}", "made_at": day(2026, 1, 1)} for i in (1, 2, 3)],
    })
    # Newest first; the tie at 2024 in `_id` order descending, as the sort.
    want = [21, 32, 31, 11]
    pages = []
    for page in (1, 2, 3):
        got = book.live_sales(db, state="live", page=page)["product"]
        pages.append([(d["_id"], s["_id"], s["state"]) for d in got for s in elements(d, "sales")])
    flat = [s for p in pages for (_, s, _) in p]
    states = {st for p in pages for (_, _, st) in p}
    if flat != want or [len(p) for p in pages] != [3, 1, 0] or states != {"live"}:
        fail(f"{lang} live_sales(live): pages {pages}, want sales {want} in pages of 3, 1 and 0, each live")
    else:
        ok(f"{lang} live_sales(live): pages of 3, 1 and 0 live sales, newest first, the tie by _id; no ended sale")
    for name, want in (("newest_sale", [12]), ("first_sale", [11])):
        got = getattr(book, name)(db, sku="a")["product"]
        ids = [s["_id"] for d in got for s in d.get("sales", [])]
        if ids != want or [d.get("sku") for d in got] != ["a"]:
            fail(f"{lang} {name}(a): {got}, want product 1 with its sku and sales {want} alone")
        else:
            ok(f"{lang} {name}(a): product 1 with its sku and sale {want[0]} alone, cut on the server")
    db["mall"].delete_many({})
    db["mall"].insert_many([
        {"_id": 1, "city": "x", "stores": [
            {"_id": 1, "brand": "a", "promos": [sale(101, "live", day(2020, 1, 1)), sale(102, "ended", day(2026, 1, 1))]},
            {"_id": 2, "brand": "b", "promos": [sale(201, "live", day(2025, 1, 1))]},
        ]},
        {"_id": 2, "city": "y", "stores": [
            {"_id": 3, "brand": "c", "promos": [sale(301, "live", day(2024, 1, 1))]},
        ]},
    ])
    got = book.live_promos(db, state="live")["mall"]
    promos = [(d["_id"], (d.get("stores") or {}).get("promos")) for d in got]
    ids = [p.get("_id") if isinstance(p, dict) else p for _, p in promos]
    if ids != [201, 301, 101]:
        fail(f"{lang} live_promos(live): {promos}, want the live promotions 201, 301, 101 each alone, newest first")
    else:
        ok(f"{lang} live_promos(live): the 3 live promotions of both arrays, each alone, newest first")
    db["player"].delete_many({})
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    db["player"].insert_one({"_id": 1, "nick": "n", "tickets": [
        {"_id": 1, "queued_at": now - datetime.timedelta(minutes=10)},
        {"_id": 2, "queued_at": now - datetime.timedelta(seconds=30)},
    ]})
    got = book.my_tickets(db, nick="n")["player"]
    ids = [t["_id"] for d in got for t in d.get("tickets", [])]
    if ids != [2] or [d.get("nick") for d in got] != ["n"]:
        fail(f"{lang} my_tickets(n): {got}, want the player with ticket 2 alone (ticket 1 expired)")
    else:
        ok(f"{lang} my_tickets(n): the player with its live ticket alone, the expired one left out")
    got = book.preview_by_token(db, token="t2")["page"]
    tokens = [p.get("token") for d in got for p in elements(d, "previews")]
    if tokens != ["t2"] or got[0].get("title") != "T" or "body" in got[0]:
        fail(f"{lang} preview_by_token(t2): {got}, want the one preview t2 with the page's title alone")
    else:
        ok(f"{lang} preview_by_token(t2): the one preview with its page's title, no other token")


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
