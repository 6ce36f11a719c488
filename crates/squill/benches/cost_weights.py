"""Measures, on a running server, what the cost model's components take
relative to one round trip: the time of a find by _id of a small document
(one round trip), the extra time per document examined (a filter no index
serves, over N documents), per index key walked (a count over an indexed
range), per byte read (the same find returning a larger document), per
document written (insert_many against single inserts), per byte written (an
insert of a 64 KiB document against a small one) and per transaction (one
insert in a transaction against the same insert alone).

Usage: python cost_weights.py MONGODB_URI
Prints each component in microseconds and as a fraction of one round trip,
next to squill's default coefficient (docs/cost-model.md). The figures
describe the server measured: SecantusDB, which the tests start, is not
MongoDB, so they check orders of magnitude, not calibrate the defaults.
"""
import statistics
import sys
import time

from pymongo import MongoClient


def timed(fn, runs):
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main():
    db = MongoClient(sys.argv[1])["squill_cost_weights"]
    db.drop_collection("small")
    db.drop_collection("big")
    db.drop_collection("w")
    n = 2000
    db.small.insert_many([{"_id": i, "k": i % 10, "v": "x" * 40} for i in range(n)])
    db.big.insert_many([{"_id": i, "v": "x" * 64 * 1024} for i in range(20)])
    rt = timed(lambda: db.small.find_one({"_id": 7}), 300)
    # A filter on an unindexed field examines every document.
    scan = timed(lambda: list(db.small.find({"v": "none"})), 20)
    per_doc = max(scan - rt, 0.0) / n
    big = timed(lambda: db.big.find_one({"_id": 3}), 100)
    per_byte = max(big - rt, 0.0) / (64 * 1024)
    one = timed(lambda: db.w.insert_one({"v": "x" * 40}), 300)
    many = timed(lambda: db.w.insert_many([{"v": "x" * 40} for _ in range(100)]), 20)
    per_written = max(many - rt, 0.0) / 100
    # Index keys: a count over an indexed range walks that many keys.
    db.small.create_index("k")
    walk = timed(lambda: db.small.count_documents({"k": {"$gte": 0, "$lt": 10}}), 20)
    none = timed(lambda: db.small.count_documents({"k": {"$gte": 100, "$lt": 110}}), 20)
    per_key = max(walk - none, 0.0) / n
    # Bytes written: a 64 KiB insert against a 40-byte one.
    payload = "x" * 64 * 1024
    big_insert = timed(lambda: db.w.insert_one({"v": payload}), 100)
    per_byte_written = max(big_insert - one, 0.0) / (64 * 1024)
    rows = [
        ("round trip (find by _id)", rt, 1.0),
        ("document examined", per_doc, 0.01),
        ("index key", per_key, 0.002),
        ("byte read", per_byte, 0.0000025),
        ("document written", per_written, 0.1),
        ("byte written", per_byte_written, 0.0001),
    ]
    # A transaction: one insert in it against the same insert alone; a
    # server without transactions says so.
    try:
        with db.client.start_session() as s:
            def in_transaction():
                with s.start_transaction():
                    db.w.insert_one({"v": "x" * 40}, session=s)
            tx = timed(in_transaction, 100)
        rows.append(("transaction", max(tx - one, 0.0), 3.0))
    except Exception as e:  # noqa: BLE001 - any refusal is the finding
        print(f"(transactions: {type(e).__name__}: {e})")
    print(f"{'component':28} {'µs':>10} {'/ round trip':>14} {'default':>10}")
    for name, t, default in rows:
        print(f"{name:28} {t * 1e6:10.4g} {t / rt:14.4g} {default:10.4g}")
    print(f"(insert_one took {one * 1e6:.1f} µs; a count over 2,000 indexed keys {walk * 1e6:.1f} µs, over none {none * 1e6:.1f} µs)")
    db.client.drop_database("squill_cost_weights")


if __name__ == "__main__":
    main()
