"""Runs an archiving job (an entity split by age) on a date range that holds
more than the job's batch, and checks that no document is lost or kept twice
(audit43 H).

The job is three functions of the cookbook, `archive_X_find` (a batch of the
documents in the range), `archive_X_insert` (them, into the archive) and
`archive_X_delete` (from the live collection). The delete used to take the
date range again: a range holding more than the batch lost every document
past it, deleted and never archived. It must take the ids the find returned,
and the insert must be safe to run again after a run that stopped between the
insert and the delete (the same documents copied twice).

Here the range holds a tenth of a batch more than a batch. Three runs, in each language:
a whole run, a run that stops after its insert, and that run again whole.
After each, every document is in exactly one of the two collections, except
after the stopped run, where the copied ones are in both and none is missing.

Under a tenant (audit49 A3) the job spans every tenant: with TENANT, the
field that holds each document's tenant, the documents are spread over three
tenants, and the batch must move whole (a delete of one tenant's part left
the rest in both collections).

python check_archive_job.py DIR URI DB MONGOSH [BATCH [TENANT]], with DIR the
directory `squill generate` wrote (cookbook.py, cookbook.mongosh.js,
cookbook.js) and DB set up by its setup.js. Driven by the cookbook's PLAN.
With BATCH, each run's find is called with that batch (its parameter,
`limit_param` in the PLAN) rather than its default, the PLAN's `limit`: a
smaller batch is the same job on fewer documents (the server's `$in`
delete of 1,000 ids takes seconds). Prints "ok: ..." per check, "FAIL: ..."
per failure, exits 1 on any failure or when no job was checked.
"""

import copy
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


def jobs(plan):
    """(find, insert, delete) function names of each archiving job."""
    for name in plan:
        if name.startswith("archive_") and name.endswith("_find"):
            stem = name[: -len("_find")]
            if f"{stem}_insert" in plan and f"{stem}_delete" in plan:
                yield name, f"{stem}_insert", f"{stem}_delete"


def param(op, kind):
    return next(p for p in op["params"] if p["kind"] == kind)


def where(db, live, archive, ids):
    """How many of `ids` each collection holds, and how many neither or both.
    The check's database holds only its own documents: both collections are
    read whole (an `$in` of the ids costs seconds on the test server)."""
    in_live = {d["_id"] for d in db[live].find({}, {"_id": 1})}
    in_archive = {d["_id"] for d in db[archive].find({}, {"_id": 1})}
    lost = [i for i in ids if i not in in_live and i not in in_archive]
    both = [i for i in ids if i in in_live and i in in_archive]
    return len(in_live), len(in_archive), len(lost), len(both)


def check(db, book, lang, plan, job, examples, chosen, tenant=None):
    find, insert, delete = job
    fop, iop, dop = plan[find], plan[insert], plan[delete]
    live = fop["steps"][0]["collection"]
    archive = iop["steps"][0]["collection"]
    batch = fop["steps"][0]["limit"]
    # The batch the caller may choose, when the job takes one.
    given = {}
    limit_param = fop["steps"][0].get("limit_param")
    if chosen is not None:
        if limit_param is None:
            fail(f"{lang} {find}: takes no batch of the caller's (no limit_param in its PLAN)")
            return
        batch = chosen
        given = {limit_param: chosen}
    date = param(fop, "from")["path"]
    db[live].delete_many({})
    db[archive].delete_many({})
    # A tenth of a batch more than a batch, one a second, all in the range.
    start = datetime.datetime(2020, 1, 1)
    n = batch + max(1, batch // 10)
    tenants = [ObjectId() for _ in range(3)]
    docs = []
    for i in range(n):
        doc = copy.deepcopy(examples[live])
        doc["_id"] = ObjectId()
        doc[date] = start + datetime.timedelta(seconds=i)
        if tenant is not None:
            doc[tenant] = tenants[i % 3]
        docs.append(doc)
    db[live].insert_many(docs)
    ids = [d["_id"] for d in docs]
    window = {
        param(fop, "from")["name"]: start,
        param(fop, "to")["name"]: start + datetime.timedelta(seconds=n),
    }

    def run(stop_before_delete=False):
        found = getattr(book, find)(db, **window, **given)[live]
        getattr(book, insert)(db, **{param(iop, "documents")["name"]: found})
        if not stop_before_delete:
            # The ids the find returned; a delete that asks for the range
            # instead (as it used to) gets the range.
            args = {}
            for p in dop["params"]:
                if p["kind"] == "list":
                    args[p["name"]] = [d["_id"] for d in found]
                elif tenant is not None and p["name"] not in window:
                    # A delete that asks for a tenant gets the first
                    # document's, as a caller holding one would pass.
                    args[p["name"]] = found[0][tenant]
                else:
                    args[p["name"]] = window.get(p["name"])
            getattr(book, delete)(db, **args)
        return len(found)

    def expect(after, want_live, want_archive, want_both):
        got = where(db, live, archive, ids)
        want = (want_live, want_archive, 0, want_both)
        if got != want:
            fail(
                f"{lang} {find[: -len('_find')]}: after {after}, (in {live}, in {archive}, lost, in both) "
                f"is {got}, not {want}"
            )
            return False
        return True

    try:
        first = run()
        good = expect(f"a run over {n} documents (a batch of {batch})", n - first, first, 0)
        second = run(stop_before_delete=True)
        good &= expect("a run stopped before its delete", n - first, n, second)
        run()
        good &= expect("that run again", 0, n, 0)
    except Exception as e:  # noqa: BLE001 - any failure of the call is the finding
        fail(f"{lang} {find}: the job failed: {type(e).__name__}: {e}")
        return
    if good:
        spread = " over three tenants" if tenant is not None else ""
        ok(
            f"{lang} {find[: -len('_find')]}: {n} documents in a range{spread}, a batch of {batch}: each in one "
            f"collection after each run, none lost after a run stopped before its delete and run again"
        )


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    chosen = int(sys.argv[5]) if len(sys.argv) > 5 else None
    tenant = sys.argv[6] if len(sys.argv) > 6 else None
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    cookbook, books, examples = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    checked = 0
    for job in jobs(cookbook.PLAN):
        for lang, book in books:
            check(db, book, lang, cookbook.PLAN, job, examples, chosen, tenant)
        checked += 1
    print(f"checked {checked} archiving job(s) on a range past their batch")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
