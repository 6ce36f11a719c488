"""Calls the cookbook's bucket writes and reads under a tenant against a
server in each language (review46 items 1 and 5), and checks that another
org's children are neither written nor returned. The children of one
bucket share its parent and so its org, and the bucket holds the org at its
top level: the upsert of a new tick or comment names the org beside the
parent, and opens a bucket only in the caller's org; every read of the
buckets tests the org. Before, the upsert named the symbol alone, so a
caller of org A could push a tick into org B's bucket of B's symbol. Then
(review48) it opened a bucket `{org: A, symbol: B's}`: the symbol is now
found in the caller's org first, and a call naming another org's symbol or
article raises and writes nothing.

The collections are made with the design's validators (validators.json),
which require the org on each bucket: a bucket the upsert opens without it
is refused. Each org has a symbol and an article; org A's get children, so
do org B's; then org A's caller writes to B's symbol and article (the ids
of another org): each call must raise, and both bucket collections must be
as they were.

python check_bucket_tenant.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote for the fixture `bucket-tenant`. Prints "ok: ..."
per check, "FAIL: ..." per failure; exits 1 on any failure.
"""

import datetime
import json
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


def tick(price, second):
    return {"time": BASE + datetime.timedelta(seconds=second), "price": price, "volume": 3}


def comment(body, second):
    return {"at": BASE + datetime.timedelta(seconds=second), "body": body}


def check(db, lang, book):
    for c in ("symbol_ticks", "article_comments", "symbol", "article"):
        db[c].delete_many({})
    org_a, org_b = ObjectId(), ObjectId()
    sym_a, sym_b, art_a, art_b = ObjectId(), ObjectId(), ObjectId(), ObjectId()
    for sym, org, ticker in ((sym_a, org_a, "AAA"), (sym_b, org_b, "BBB")):
        db["symbol"].insert_one({"_id": sym, "org": org, "ticker": ticker})
    for art, org in ((art_a, org_a), (art_b, org_b)):
        db["article"].insert_one({"_id": art, "org": org, "title": "t"})
    try:
        book.record(db, org_id=org_a, symbol_id=sym_a, time_minute=BASE, new_ticks_item=tick(1.5, 5))
        book.record(db, org_id=org_b, symbol_id=sym_b, time_minute=BASE, new_ticks_item=tick(2.5, 10))
        book.add_comment(db, org_id=org_a, article_id=art_a, new_comments_item=comment("a", 5), page=0)
        book.add_comment(db, org_id=org_b, article_id=art_b, new_comments_item=comment("b", 10), page=0)
    except Exception as e:  # noqa: BLE001 (a failure is the check's)
        fail(f"{lang} writes: {type(e).__name__}: {e}")
        return
    # Org A's caller with org B's symbol and article: refused, nothing
    # written to either bucket collection.
    intruders = [
        ("record", lambda: book.record(db, org_id=org_a, symbol_id=sym_b, time_minute=BASE, new_ticks_item=tick(999.0, 20))),
        (
            "add_comment",
            lambda: book.add_comment(db, org_id=org_a, article_id=art_b, new_comments_item=comment("intruder", 20), page=0),
        ),
    ]
    for name, run in intruders:
        before = [list(db[c].find({}).sort("_id", 1)) for c in ("symbol_ticks", "article_comments")]
        try:
            run()
            raised = None
        except Exception as e:  # noqa: BLE001 (the refusal the caller is told of)
            raised = f"{type(e).__name__}: {e}"
        after = [list(db[c].find({}).sort("_id", 1)) for c in ("symbol_ticks", "article_comments")]
        if raised is None or after != before:
            fail(f"{lang} {name} with another org's parent: raised {raised}, buckets changed: {after != before}")
        else:
            ok(f"{lang} {name} with another org's parent: refused ({raised.splitlines()[0][:120]}), buckets unchanged")
    # B's buckets hold B's children only, and every bucket its org.
    b_ticks = [t["price"] for d in db["symbol_ticks"].find({"org": org_b}) for t in d["ticks"]]
    b_comments = [c["body"] for d in db["article_comments"].find({"org": org_b}) for c in d["comments"]]
    no_org = db["symbol_ticks"].count_documents({"org": {"$exists": False}}) + db[
        "article_comments"
    ].count_documents({"org": {"$exists": False}})
    if b_ticks != [2.5] or b_comments != ["b"] or no_org:
        fail(f"{lang} writes: org B's buckets hold ticks {b_ticks}, comments {b_comments}; {no_org} buckets without an org")
    else:
        ok(f"{lang} record, add_comment: org A's caller wrote nothing into org B's buckets, every bucket holds its org")
    window = {"time_from": BASE, "time_to": BASE + datetime.timedelta(minutes=1)}
    reads = [
        ("minute_ticks(B, B's symbol)", lambda: book.minute_ticks(db, org_id=org_b, symbol_id=sym_b, **window), [2.5]),
        ("minute_ticks(A, B's symbol)", lambda: book.minute_ticks(db, org_id=org_a, symbol_id=sym_b, **window), []),
        ("minute_ticks(A, A's symbol)", lambda: book.minute_ticks(db, org_id=org_a, symbol_id=sym_a, **window), [1.5]),
    ]
    for name, run, want in reads:
        try:
            got = run()["symbol_ticks"]
        except Exception as e:  # noqa: BLE001
            fail(f"{lang} {name}: {type(e).__name__}: {e}")
            continue
        prices = [d["ticks"]["price"] for d in got]
        if prices != want:
            fail(f"{lang} {name}: ticks of price {prices}, want {want}")
        else:
            ok(f"{lang} {name}: the caller's org's ticks only, each on its own ({prices})")
    try:
        got = book.comments_in_order(db, org_id=org_b, article_id=art_b)["article_comments"]
    except Exception as e:  # noqa: BLE001
        fail(f"{lang} comments_in_order: {type(e).__name__}: {e}")
        return
    bodies = [c["body"] for d in got for c in d["comments"]]
    if bodies != ["b"]:
        fail(f"{lang} comments_in_order(B, B's article): comments {bodies}, want ['b']")
    else:
        ok(f"{lang} comments_in_order(B, B's article): org B's comment only")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks
    from check_tenant_scope import validated

    _, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    with open(f"{directory}/validators.json") as f:
        validated(db, json.load(f))
    for lang, book in books:
        check(db, lang, book)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
