"""Runs a read through a chain of hops whose first hop is embedded (the
stories of everyone I follow, the stories embedded in their author;
audit48 A1) against a server in each language, and checks that it
returns the followed authors' stories, newest first, and no one else's.

Written here: users 1, 2 and 3, each with its stories inside it (1: two,
2: one, 3: one); user 9 follows users 1 and 2 (a follow names the
followee and the follower), user 3 follows user 9. The tray once asked
`user {followers: user_id}`, a field no user holds: it returned nothing.

python check_chained_tray.py DIR URI DB MONGOSH, with DIR the directory
`squill generate` wrote for the model. Prints "ok: ..." per check,
"FAIL: ..." per failure; exits 1 on any failure.
"""

import datetime
import inspect
import os
import sys

from pymongo import MongoClient

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def story(sid, day):
    return {"_id": sid, "media_url": f"m{sid}", "posted_at": datetime.datetime(2026, 1, day)}


def stories_of(docs):
    """The stories the returned documents hold: one unwound each, or a
    whole array."""
    out = []
    for d in docs:
        held = d.get("stories", [])
        out.extend(held if isinstance(held, list) else [held])
    return [s["_id"] for s in out]


def check(db, lang, book, caller):
    db["user"].delete_many({})
    db["follow"].delete_many({})
    db["user"].insert_many([
        {"_id": 1, "handle": "a", "stories": [story(11, 3), story(12, 5)]},
        {"_id": 2, "handle": "b", "stories": [story(21, 4)]},
        {"_id": 3, "handle": "c", "stories": [story(31, 9)]},
        {"_id": 9, "handle": "me", "stories": [story(91, 8)]},
    ])
    db["follow"].insert_many([
        {"_id": 1, "followee": 1, "follower": 9, "since": datetime.datetime(2025, 1, 1)},
        {"_id": 2, "followee": 2, "follower": 9, "since": datetime.datetime(2025, 1, 1)},
        {"_id": 3, "followee": 9, "follower": 3, "since": datetime.datetime(2025, 1, 1)},
    ])
    got = stories_of(book.story_tray(db, **{caller: 9})["user"])
    want = [12, 21, 11]
    if got != want:
        fail(f"{lang} story_tray(9): stories {got}, want {want}: the stories of users 1 and 2, newest first")
    else:
        ok(f"{lang} story_tray(9): the 3 stories of the 2 users followed, newest first")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    # The caller's id, whatever the generated code names it (`user_id`;
    # the code that asked `user {followers: …}` named it `followers`).
    caller = list(inspect.signature(cookbook.story_tray).parameters)[1]
    db = MongoClient(uri)[db_name]
    for lang, book in books:
        check(db, lang, book, caller)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
