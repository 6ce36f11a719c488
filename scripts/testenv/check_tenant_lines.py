"""Reads and counts lines embedded in their orders, under the tenant
`shop`, against a server in each language (review47 item 4), on documents
written here: shop A's order holds 2 lines of sku "x" and one of "y";
shop B's order holds 3 lines of sku "x". With shop A, `sku_count` must
return 2 and `sku_lines` the 2 lines of A's order, none of B's. Both once
tested the sku alone and counted 5 and returned 5 lines of both shops.

python check_tenant_lines.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote for the fixture `tenant-lines`. Prints "ok: ..."
per check, "FAIL: ..." per failure; exits 1 on any failure.
"""

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


def line(sku):
    return {"_id": ObjectId(), "sku": sku, "qty": 1}


def check(db, lang, book):
    db["order"].delete_many({})
    shop_a, shop_b = ObjectId(), ObjectId()
    order_a, order_b = ObjectId(), ObjectId()
    db["order"].insert_many([
        {"_id": order_a, "shop": shop_a, "lines": [line("x"), line("x"), line("y")]},
        {"_id": order_b, "shop": shop_b, "lines": [line("x"), line("x"), line("x")]},
    ])
    count = book.sku_count(db, shop_id=shop_a, sku="x")["order"]
    if isinstance(count, bool) or count != 2:
        fail(f"{lang} sku_count(shop A, x): returned {count!r}, want 2")
    else:
        ok(f"{lang} sku_count(shop A, x): 2 counted")
    found = book.sku_lines(db, shop_id=shop_a, sku="x")["order"]
    holders = [d["_id"] for d in found]
    if len(found) != 2 or any(h != order_a for h in holders):
        fail(f"{lang} sku_lines(shop A, x): {len(found)} lines, of orders {holders}")
    else:
        ok(f"{lang} sku_lines(shop A, x): 2 lines, all of shop A's order")


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
