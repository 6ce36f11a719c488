"""Runs an upsert (`otherwise: insert`) from the three cookbooks for a key
no instance holds yet, and checks that the instance is added once and that
the amounts add up (issue 41).

Twice in a row for one new key: the first call adds the instance with its
amount, the second adds to it. Then, for another new key, many calls at
once (the Python cookbook's, in threads; mongosh's and Node.js's, each
served by one process, one after the other): every call finds no instance,
so every one tries to add it. Embedded in its parent's array, the `$push`
is guarded by `{array.key: {$ne: key}}`, so only one push matches and the
others add to that element; in a collection of its own, the unique index
refuses every insert but one (E11000), and the cookbook runs the upsert
again. Either way one instance must hold the key, with the sum of the
amounts.

python check_upsert.py DIR URI DB MONGOSH OPERATION, with DIR the directory
`squill generate` wrote and DB set up by its setup.js. Prints "ok: ..." per
check, "FAIL: ..." per failure, exits 1 on any failure.
"""

import copy
import datetime
import os
import sys
import threading

from bson.objectid import ObjectId
from pymongo import MongoClient
from pymongo.errors import DuplicateKeyError

AT_ONCE = 12
ROUNDS = 4
failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def like(example, value):
    """`value` in the type of `example` (an amount kept as a double takes a float)."""
    if isinstance(example, float):
        return float(value)
    return int(value)


class Layout:
    """Where the upserted instances are, read from the operation's PLAN: an
    array of a parent's documents (a parameter's path `array.field` in the
    collection the first step writes), or documents of their own."""

    def __init__(self, op, examples):
        first = op["steps"][0]
        self.coll = first["collection"]
        params = [p for p in op["params"] if p["collection"] == self.coll]
        amount = next(p for p in params if p["kind"] == "amount")
        self.amount = amount["name"]
        dotted = [p for p in params if "." in p["path"]]
        self.array = dotted[0]["path"].split(".")[0] if dotted else None
        self.field = amount["path"].split(".")[-1]
        if self.array:
            self.parent = next(p["name"] for p in params if p["path"] == "_id")
            self.keys = [(p["name"], p["path"].split(".", 1)[1]) for p in dotted if p is not amount]
            element = (examples[self.coll].get(self.array) or [{}])[0]
        else:
            # The parent's reference is the key that holds an ObjectId in the example.
            example = examples[self.coll]
            self.parent = None
            self.keys = [(p["name"], p["path"]) for p in params if p is not amount]
            element = example
            self.ids = [p["name"] for p in params if isinstance(example.get(p["path"]), ObjectId)]
        self.element = element
        self.example_amount = element.get(self.field, 0)

    def args(self, parent_id, key, amount):
        out = {self.amount: like(self.example_amount, amount)}
        if self.parent:
            out[self.parent] = parent_id
        for name, path in self.keys:
            if self.parent is None and name in self.ids:
                out[name] = parent_id
            elif isinstance(self.element.get(path), int):
                out[name] = abs(hash(key)) % 1_000_000_000
            elif isinstance(self.element.get(path), datetime.datetime):
                # A date the write sets (`changes: ["granted_at = :now"]`),
                # to the millisecond the server keeps.
                now = datetime.datetime.now(datetime.timezone.utc)
                out[name] = now.replace(tzinfo=None, microsecond=now.microsecond // 1000 * 1000)
            else:
                out[name] = key
        return out

    def held(self, db, parent_id, args):
        """The instances holding the key of `args`, as (count, amounts)."""
        if self.array:
            doc = db[self.coll].find_one({"_id": parent_id}) or {}
            match = [
                e for e in doc.get(self.array) or []
                if all(e.get(path) == args[name] for name, path in self.keys)
            ]
        else:
            match = list(db[self.coll].find({path: args[name] for name, path in self.keys}))
        return len(match), [m.get(self.field) for m in match]


def at_once(fn, db, args, calls, threaded):
    errors = []
    barrier = threading.Barrier(calls) if threaded else None

    def one():
        if barrier:
            barrier.wait()
        try:
            fn(db, **args)
        except Exception as e:  # noqa: BLE001 (any failure is the check's)
            errors.append(repr(e))

    if threaded:
        threads = [threading.Thread(target=one) for _ in range(calls)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        for _ in range(calls):
            one()
    return errors


class LosingDb:
    """The database as the loser of a race sees it, for the Python cookbook:
    the first upsert on `coll` is run once on its behalf (the winner's
    insert), and the caller's own gets the duplicate key error (E11000) the
    unique index gives the second insert. A server may serialize the
    threads' upserts, or retry them itself, so that no thread meets the
    error; this makes every run meet it."""

    class Coll:
        def __init__(self, real, lost):
            self._real = real
            self._lost = lost

        def __getattr__(self, attr):
            return getattr(self._real, attr)

        def update_one(self, flt, update, **kw):
            if kw.get("upsert") and not self._lost[0]:
                self._lost[0] = True
                self._real.update_one(flt, update, **kw)
                raise DuplicateKeyError("E11000 duplicate key error (a racing caller inserted it first)", 11000)
            return self._real.update_one(flt, update, **kw)

    def __init__(self, db, coll):
        self._db = db
        self._coll = coll
        self._lost = [False]

    def __getitem__(self, name):
        real = self._db[name]
        return LosingDb.Coll(real, self._lost) if name == self._coll else real

    def __getattr__(self, attr):
        return getattr(self._db, attr)


def lost_race(db, cookbook, name, op, examples):
    """The Python cookbook's upsert of a document of its own, as the loser
    of a race (`LosingDb`): it must run again and add to the winner's."""
    layout = Layout(op, examples)
    if layout.array:
        return
    args = layout.args(ObjectId(), "python-lost", 5)
    try:
        getattr(cookbook, name)(LosingDb(db, layout.coll), **args)
    except DuplicateKeyError as e:
        fail(f"python {name}: an upsert that lost a race to a duplicate key failed: {e!r}")
        return
    count, amounts = layout.held(db, None, args)
    if count != 1 or amounts != [like(layout.example_amount, 10)]:
        fail(f"python {name}: lost a race with 5 for a new key: {count} {layout.coll} hold it, with {amounts}")
        return
    ok(f"python {name}: an upsert that lost a race (E11000) runs again: one {layout.coll} with 10")


def shared_key(db, fn, lang, name, layout, parent_id, where):
    """A key of several fields (`unique: [[player, kind, grade]]`): two
    new keys that share one field are two elements. One `$ne` per field
    refused the second push (an element held `kind` already), and the
    third write found no element to add to."""
    texts = [(n, p) for n, p in layout.keys if isinstance(layout.element.get(p), str)]
    if len(texts) < 2:
        return
    first = layout.args(parent_id, f"{lang}-shared", 3)
    second = dict(first)
    second[texts[-1][0]] = f"{first[texts[-1][0]]}-other"
    errors = at_once(fn, db, first, 1, False) + at_once(fn, db, second, 1, False)
    held = [layout.held(db, parent_id, a) for a in (first, second)]
    want = (1, [like(layout.example_amount, 3)])
    if errors or held != [want, want]:
        fail(
            f"{lang} {name}: two new keys sharing `{texts[0][1]}`, differing in `{texts[-1][1]}`: "
            f"held {held}, wanted one {where} each with 3; errors {errors[:1]}"
        )
        return
    ok(f"{lang} {name}: two new keys sharing `{texts[0][1]}` are two {where}, each with 3")


def no_parent(db, fn, lang, name, layout, where):
    """A parent that does not exist (another tenant's, or a wrong id): the
    upsert's last write matches nothing, and the call must raise as the
    plain insert does, writing nothing."""
    missing = ObjectId()
    args = layout.args(missing, f"{lang}-no-parent", 3)
    errors = at_once(fn, db, args, 1, False)
    written = db[layout.coll].count_documents({"_id": missing})
    if not errors or written:
        fail(f"{lang} {name}: no parent with that id: {'returned' if not errors else errors[0]}; {written} written")
        return
    ok(f"{lang} {name}: no parent with that id raised ({errors[0][:60]}…), nothing written")


def check(db, book, lang, name, op, examples):
    layout = Layout(op, examples)
    parent_id = ObjectId()
    if layout.array:
        parent = copy.deepcopy(examples[layout.coll])
        parent["_id"] = parent_id
        parent[layout.array] = []
        db[layout.coll].insert_one(parent)
    fn = getattr(book, name)
    where = f"{layout.coll}.{layout.array}[]" if layout.array else layout.coll
    # Twice in a row, one new key.
    args = layout.args(parent_id, f"{lang}-twice", 3)
    errors = at_once(fn, db, args, 2, False)
    count, amounts = layout.held(db, parent_id, args)
    if errors or count != 1 or amounts != [like(layout.example_amount, 6)]:
        fail(f"{lang} {name}: called twice with 3 for a new key: {count} {where} hold it, with {amounts}; errors {errors[:1]}")
        return
    # Many at once, each round a new key.
    threaded = lang == "python"
    for r in range(ROUNDS):
        args = layout.args(parent_id, f"{lang}-race-{r}", 2)
        errors = at_once(fn, db, args, AT_ONCE, threaded)
        count, amounts = layout.held(db, parent_id, args)
        if errors or count != 1 or amounts != [like(layout.example_amount, 2 * AT_ONCE)]:
            fail(
                f"{lang} {name}: {AT_ONCE} calls with 2 for a new key (round {r + 1}): "
                f"{count} {where} hold it, with {amounts}; {len(errors)} failed {errors[:1]}"
            )
            return
    if layout.array:
        shared_key(db, fn, lang, name, layout, parent_id, where)
        no_parent(db, fn, lang, name, layout, where)
    how = "at once" if threaded else "one after the other"
    ok(
        f"{lang} {name}: twice for a new key leaves one {where} with 6; {AT_ONCE} calls {how} "
        f"for a new key, {ROUNDS} times, leave one {where} with {2 * AT_ONCE} each time"
    )


def main():
    directory, uri, db_name, mongosh, name = sys.argv[1:6]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri, maxPoolSize=50)[db_name]
    op = cookbook.PLAN[name]
    for lang, book in books:
        check(db, book, lang, name, op, examples)
    lost_race(db, cookbook, name, op, examples)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
