"""The TTL indexes a generated setup.js created, seen deleting (issue 41):
for each expiry the model states (`--expect COLLECTION=FIELD:SECONDS`),
the collection must have exactly one TTL index on `{FIELD: 1}`, and its
`expireAfterSeconds` must be SECONDS: the wait below cannot tell the
model's expiry from one up to ten minutes shorter or a minute longer,
so the index itself is checked first. Then the design's example
document of the collection (EXAMPLES: a JSON
object of Extended JSON documents by collection) is inserted EXPIRED
times with FIELD a minute past the model's expiry and LIVE times ten
minutes before it, then the collections are polled once a second until
the expired ones are gone, for at most DEADLINE seconds. The indexes
setup.js created and the server's monitor do the deleting; nothing here
asks them to. Exits 1 when an expired document stays past the deadline
(no TTL index, one on another field, or one that waits longer than the
model says) or when a live one goes (one that expires too early), and
before waiting when the index is missing, doubled or has other seconds.

    python check_ttl.py --uri URI --db DB --examples EXAMPLES --expect C=F:S …

SecantusDB runs its TTL monitor every 60 s, as mongod does; neither
`setParameter ttlMonitorSleepSecs` (refused there: "attempted to set
unrecognized parameter") nor its config file's `ttl_sweep_seconds`
(read, but not passed to the server by `secantusd-py`) shortens it, so
the wait is up to a minute plus one sweep.
"""

import argparse
import copy
import datetime
import sys
import time

import pymongo
from bson import json_util


def set_path(doc, path, value):
    """Sets a dotted path inside sub-documents (not through arrays)."""
    parts = path.split(".")
    for part in parts[:-1]:
        doc = doc.setdefault(part, {})
        if not isinstance(doc, dict):
            raise SystemExit(f"{path}: the example has no sub-document at {part}")
    doc[parts[-1]] = value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uri", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--examples", required=True)
    # COLLECTION=FIELD:SECONDS, the expiry the model states.
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--expired", type=int, default=3)
    ap.add_argument("--live", type=int, default=2)
    ap.add_argument("--deadline", type=float, default=90.0)
    a = ap.parse_args()
    with open(a.examples) as f:
        examples = json_util.loads(f.read())
    db = pymongo.MongoClient(a.uri)[a.db]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    watched = []
    index_failed = False
    for expect in a.expect:
        name, rest = expect.split("=", 1)
        field, seconds = rest.rsplit(":", 1)
        seconds = int(seconds)
        ttl = [i for i in db[name].list_indexes() if i.get("expireAfterSeconds") is not None]
        print(f"{name}: TTL indexes {[(dict(i['key']), i['expireAfterSeconds']) for i in ttl]}")
        on_field = [i for i in ttl if list(dict(i["key"]).items()) == [(field, 1)]]
        if len(on_field) != 1:
            print(f"FAIL {name}: {len(on_field)} TTL indexes on {{{field}: 1}}, not 1")
            index_failed = True
            continue
        after = on_field[0]["expireAfterSeconds"]
        if after != seconds:
            print(f"FAIL {name}: the TTL index on {field} expires after {after} s, the model after {seconds} s")
            index_failed = True
            continue
        example = examples.get(name)
        if example is None:
            raise SystemExit(f"{name}: no example document")
        docs = []
        for i in range(a.expired + a.live):
            # A deep copy: with a dotted FIELD, a shallow one shares the
            # sub-document, and every document would get the last date.
            doc = copy.deepcopy(example)
            doc["_id"] = f"ttl-{'expired' if i < a.expired else 'live'}-{i}"
            # Expired by the model: a minute past its expiry. Live: ten
            # minutes before it (or half its span, when shorter), which
            # an index that expires too early deletes.
            margin = min(600, seconds // 2)
            at = now - datetime.timedelta(seconds=seconds + 60 if i < a.expired else seconds - margin)
            set_path(doc, field, at)
            docs.append(doc)
        db[name].insert_many(docs)
        watched.append(name)
        print(f"{name}: {a.expired} expired and {a.live} live documents by {field} (the model: {seconds} s)")
    if index_failed:
        # The indexes are wrong: waiting for the monitor proves nothing.
        db.client.drop_database(a.db)
        return 1
    if not watched:
        print("NO expiry expected")
        return 1
    start = time.monotonic()
    while True:
        left = {n: db[n].count_documents({"_id": {"$regex": "^ttl-expired-"}}) for n in watched}
        if not any(left.values()) or time.monotonic() - start > a.deadline:
            break
        time.sleep(1.0)
    waited = time.monotonic() - start
    failed = False
    for name in watched:
        live = db[name].count_documents({"_id": {"$regex": "^ttl-live-"}})
        if left[name]:
            print(f"FAIL {name}: {left[name]} expired documents still there after {waited:.0f} s")
            failed = True
        elif live != a.live:
            print(f"FAIL {name}: {a.live - live} live documents deleted")
            failed = True
        else:
            print(f"ok: ttl {name}: the expired documents went within {waited:.0f} s, the {live} live ones stayed")
    db.client.drop_database(a.db)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
