"""Runs an atomic group that the plan made one update of one document
(issue 41: `same:` in the model, the seats embedded in their show), in
each language's cookbook, against a server.

A show with seat A1 held and A2 free: `GROUP(A1)` must sell A1 and take
`seats_left` down by one in one update (the Python call is watched: one
`update` command, no transaction); `GROUP(A2)`, a seat not held, must
change nothing and tell the caller (the group's `otherwise: fail`).

python check_one_update.py DIR URI DB MONGOSH GROUP OPERATION, with DIR the
directory `squill generate` wrote for the fixture show-purchase, DB a
database this script creates the collections of, with the validators of
DIR/validators.json (so the update must keep the show valid; setup.js would
take a mongosh start of its own), GROUP the group's function and OPERATION the operation
whose plan holds the update (its parameters are the group's). Prints
"ok: ..." per check, "FAIL: ..." per failure, exits 1 on any failure.
"""

import copy
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from bson import json_util
from bson.objectid import ObjectId
from pymongo import MongoClient, monitoring

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


class Commands(monitoring.CommandListener):
    """The commands the Python cookbook sends, by name."""

    def __init__(self):
        self.names = []

    def started(self, event):
        self.names.append(event.command_name)

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


def new_show(db, example):
    """A show of the example's shape with two seats: A1 held, A2 free."""
    doc = copy.deepcopy(example)
    doc["_id"] = ObjectId()
    seat = doc["seats"][0]
    doc["seats"] = [
        dict(copy.deepcopy(seat), _id=ObjectId(), label="A1", state="held"),
        dict(copy.deepcopy(seat), _id=ObjectId(), label="A2", state="free"),
    ]
    doc["seats_left"] = 5
    db["show"].insert_one(doc)
    return doc["_id"]


def arguments(params, show_id, label):
    by_path = {"_id": show_id, "seats.label": label, "seats.state": "sold", "seats_left": -1}
    return {p["name"]: by_path[p["path"]] for p in params}


def state(db, show_id):
    doc = db["show"].find_one({"_id": show_id})
    return {s["label"]: s["state"] for s in doc["seats"]}, doc["seats_left"]


def check(uri, db_name, book, lang, group, params, example):
    # A client of its own per language: the Python call's commands are
    # watched apart from the other languages' checks, run at once.
    watched = Commands()
    db = MongoClient(uri, event_listeners=[watched])[db_name]
    show_id = new_show(db, example)
    watched.names.clear()
    try:
        getattr(book, group)(db, **arguments(params, show_id, "A1"))
    except Exception as e:  # noqa: BLE001 - any failure of the call is the finding
        fail(f"{lang} {group}(A1): the call failed: {type(e).__name__}: {e}")
        return
    seats, left = state(db, show_id)
    if seats != {"A1": "sold", "A2": "free"} or left != 4:
        fail(f"{lang} {group}(A1): seats {seats}, seats_left {left}; wanted A1 sold, A2 free, 4 left")
        return
    if lang == "python":
        sent = [n for n in watched.names if n in ("update", "findAndModify", "commitTransaction", "abortTransaction", "insert", "delete")]
        if sent != ["update"]:
            fail(f"{lang} {group}(A1): sent {sent}, not one update")
            return
    ok(f"{lang} {group}(A1): A1 sold and seats_left 5 -> 4 in one update")
    try:
        getattr(book, group)(db, **arguments(params, show_id, "A2"))
    except Exception as e:  # noqa: BLE001 - the refusal the caller is told of
        told = f"{type(e).__name__}"
    else:
        fail(f"{lang} {group}(A2): a seat not held was bought without an error")
        return
    seats, left = state(db, show_id)
    if seats != {"A1": "sold", "A2": "free"} or left != 4:
        fail(f"{lang} {group}(A2): seats {seats}, seats_left {left}; nothing should have changed")
        return
    ok(f"{lang} {group}(A2): nothing changed, the caller was told ({told})")


def main():
    directory, uri, db_name, mongosh, group, operation = sys.argv[1:7]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    # The group's function is outside PLAN: the JavaScript cookbooks are
    # told its parameters, which are the operation's.
    cookbook, books, examples = three_cookbooks.load(
        directory, uri, db_name, mongosh, lambda plan: {group: {"params": plan[operation]["params"]}}
    )
    params = cookbook.PLAN[operation]["params"]
    with open(f"{directory}/validators.json") as f:
        validators = json_util.loads(f.read())
    db = MongoClient(uri)[db_name]
    for coll, validator in validators.items():
        db.create_collection(coll, validator=validator, validationLevel="strict", validationAction="error")
    # The languages at once, each on a show of its own: the mongosh and
    # Node.js processes start side by side.
    with ThreadPoolExecutor(len(books)) as pool:
        runs = [pool.submit(check, uri, db_name, book, lang, group, params, examples["show"]) for lang, book in books]
        for r in runs:
            r.result()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
