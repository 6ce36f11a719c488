"""Runs the reads of children kept in count buckets, read on their own
(audit44 B), against a server in each language, and checks that they
return the matching children in the read's order, cut to its limit; and
the count of the project's events per hour of the last week (audit44 C),
grouped on the server; and that a child ingested after a newer one keeps
its bucket's first and last `ts` right.

The fixture `bucket-child-reads` keeps a project's events in buckets of a
count, each with its first and last `ts`. Two buckets of one project are
written here: the older holds one `signup` 30 days old beside 59
`pageview`s of an hour before (so its `last_ts` is inside a 7-day window),
the newer 15 `signup`s and 5 `pageview`s of the last hour (buckets of a
count are filled in time order). A read once
returned whole buckets: a bucket where *some* event is a signup and
*another* is in the window matched, every event of it came back, and the
read's sort, limit and skip paging were replaced by the buckets' pages.

python check_bucket_elements.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote for the fixture. Prints "ok: ..." per check,
"FAIL: ..." per failure; exits 1 on any failure.
"""

import datetime
import os
import sys

from bson.objectid import ObjectId
from pymongo import MongoClient

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def event(name, ts, user):
    return {"name": name, "ts": ts, "user_key": user}


def buckets(project, now):
    """The two buckets, oldest page first, and every event they hold."""
    minute = datetime.timedelta(minutes=1)
    old = [event("signup", now - datetime.timedelta(days=30), "u0")]
    old += [event("pageview", now - (120 - i) * minute, "u1" if i % 3 == 0 else "u2") for i in range(59)]
    new = [event("signup", now - (30 - i) * minute - 30 * datetime.timedelta(seconds=1), "u1" if i % 2 else "u3") for i in range(15)]
    new += [event("pageview", now - (10 - i) * minute, "u2") for i in range(5)]
    docs = []
    for page, evs in enumerate((old, new)):
        docs.append({
            "_id": ObjectId(),
            "project": project,
            "page": page,
            "count": len(evs),
            "arrived": len(evs),
            "first_ts": min(e["ts"] for e in evs),
            "last_ts": max(e["ts"] for e in evs),
            "events": evs,
        })
    return docs, old + new


def returned(result):
    """The events a read returned, each the unwound element."""
    return [d["events"] for d in result["project_events"]]


def key(e):
    return (e["name"], e["ts"], e["user_key"])


def check(db, lang, book, now):
    project = ObjectId()
    db["project_events"].delete_many({})
    db["project"].delete_many({})
    db["project"].insert_one({"_id": project, "name": "p"})
    docs, every = buckets(project, now)
    db["project_events"].insert_many(docs)
    newest = lambda evs: sorted(evs, key=lambda e: e["ts"], reverse=True)  # noqa: E731
    week = now - datetime.timedelta(days=7)
    end = now + datetime.timedelta(hours=1)
    signups = newest([e for e in every if e["name"] == "signup" and e["ts"] >= week])
    got = []
    for page in (1, 2, 3):
        got.append(returned(book.explore(db, project_id=project, name="signup", ts_from=week, ts_to=end, page=page)))
    want = [signups[0:10], signups[10:20], []]
    if [list(map(key, g)) for g in got] != [list(map(key, w)) for w in want]:
        fail(f"{lang} explore(signup, 7 days): pages of {[len(g) for g in got]} events, "
             f"names {[sorted({e['name'] for e in g}) for g in got]}, want pages of {[len(w) for w in want]} "
             f"of this week's signups, newest first, the 30-day-old one in none")
    else:
        ok(f"{lang} explore(signup, 7 days): pages of 10, 5 and 0 of this week's signups, newest first; "
           f"the bucket holding the 30-day-old signup gave none")
    user = returned(book.by_user(db, project_id=project, user_key="u1"))
    want = newest([e for e in every if e["user_key"] == "u1"])[:5]
    if list(map(key, user)) != list(map(key, want)):
        fail(f"{lang} by_user(u1): {len(user)} events of users {sorted({e['user_key'] for e in user})}, want u1's newest 5")
    else:
        ok(f"{lang} by_user(u1): u1's newest 5 events, newest first")
    month = now - datetime.timedelta(days=31)
    latest = returned(book.latest(db, project_id=project, ts_from=month, ts_to=end))
    want = newest(every)[:25]
    if list(map(key, latest)) != list(map(key, want)):
        fail(f"{lang} latest: {len(latest)} events, want the newest 25 (of both buckets), newest first")
    else:
        ok(f"{lang} latest: the project's newest 25 events, of both buckets, newest first")
    # Counts per hour of the last week (audit44 C): the buckets the window
    # picks, their events unwound, tested by the window and grouped by the
    # hour on the server; the 30-day-old signup counts in no hour.
    rows = book.hourly(db, project_id=project, ts_from=week, ts_to=end)["project_events"]
    got = {r["_id"]["ts"]: r["count"] for r in rows}
    want = {}
    for e in every:
        if week <= e["ts"] < end:
            hour = e["ts"].replace(minute=0, second=0, microsecond=0)
            want[hour] = want.get(hour, 0) + 1
    if got != want or any(r["_id"]["project"] != project for r in rows):
        fail(f"{lang} hourly: rows {sorted((str(k), v) for k, v in got.items())}, want {sorted((str(k), v) for k, v in want.items())}")
    else:
        ok(f"{lang} hourly: {len(rows)} rows keyed by the project and the hour, {sum(got.values())} events of the week counted")


def check_late_child(db, lang, book, now):
    """A child that arrives after a newer one (out of order) leaves the
    bucket's bounds right: `last_ts` stays the newest date and `first_ts`
    becomes the late child's. A `$set` of `last_ts` from the arriving
    child moved it back, and the TTL and the window reads key on it."""
    project = ObjectId()
    db["project_events"].delete_many({})
    hour = datetime.timedelta(hours=1)
    for ts in (now, now + hour, now - hour):
        book.ingest(db, project_id=project, new_events_item=event("pageview", ts, "u1"), page=0)
    got = [(d["first_ts"], d["last_ts"], d["count"]) for d in db["project_events"].find({"project": project})]
    if got != [(now - hour, now + hour, 3)]:
        fail(f"{lang} late child: buckets (first_ts, last_ts, count) {[(str(a), str(b), c) for a, b, c in got]}, "
             f"want one bucket ({now - hour}, {now + hour}, 3)")
    else:
        ok(f"{lang} late child: first_ts and last_ts are the least and the greatest ts after an out-of-order ingest")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    _, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    # Milliseconds: what BSON keeps of a date.
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    now = now.replace(microsecond=now.microsecond // 1000 * 1000)
    for lang, book in books:
        check(db, lang, book, now)
        check_late_child(db, lang, book, now)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
