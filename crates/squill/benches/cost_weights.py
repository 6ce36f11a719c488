"""Measures, on a running server, what the cost model's components take
relative to one round trip: the time of a find by _id of a small document
(one round trip), the extra time per document examined (a filter no index
serves, over N documents), per byte read (the same find returning a larger
document) and per document written (insert_many against single inserts).

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
    rows = [
        ("round trip (find by _id)", rt, 1.0),
        ("document examined", per_doc, 0.01),
        ("byte read", per_byte, 0.0000025),
        ("document written", per_written, 0.1),
    ]
    print(f"{'component':28} {'µs':>10} {'/ round trip':>14} {'default':>10}")
    for name, t, default in rows:
        print(f"{name:28} {t * 1e6:10.4g} {t / rt:14.4g} {default:10.4g}")
    print(f"(insert_one took {one * 1e6:.1f} µs)")
    db.client.drop_database("squill_cost_weights")


if __name__ == "__main__":
    main()
