"""Runs the updates of many children embedded in an array (audit46 D1)
against a server in each language, and checks that each changes the
elements its filter names and no other.

The fixture `embedded-element-updates` embeds a purchase's lines in it,
each naming its tier. Written here: purchase P1 holds a line of tier A
then one of tier B; P2 holds one line of tier B; P3 one of tier A.
Repricing tier B's lines must change P1's second line and P2's line and
leave both tier A lines as they were. The plan once found the purchases
holding a tier B line, took every line id they held, and wrote
`purchase_lines.$.qty` by those ids: `$` is the first element that
matched, P1's tier A line. Resetting P1's lines must change both of
its lines and no other purchase's.

Deleting one line of P1 (by the purchase and the line's id), then tier
A's lines, must pull those lines and no other (review47 item 1): the
plan once read every line id of the holder and pulled them all.

Conditions that compare two fields of each line (issue 41): in
purchase P4, tier C holds a line below its cap, one at its cap, and a
tier A line below its cap; P5 holds a tier C line at its cap. Bumping
tier C's lines below their cap must raise only P4's first line; filling
them by 2 while they fit under the cap likewise; filling one line by the
caller's amount must fail (and change nothing) when it would pass the
cap, and add it when it fits. The plan once compared the arrays of all
the lines' values with `$expr` and raised every line of the tier, then
left the comparison out and raised them all again; the single line's
`$add` of the array of values fails on MongoDB. A purchase's lines
under `qty > 0`, then under `qty < cap`, must change only the lines
that meet it.

python check_element_updates.py DIR URI DB MONGOSH, with DIR the
directory `squill generate` wrote for the fixture. Prints "ok: ..." per
check, "FAIL: ..." per failure; exits 1 on any failure.
"""

import os
import sys

from pymongo import MongoClient

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def ok(msg):
    print(f"ok: {msg}")


def line(lid, tier):
    return {"_id": lid, "tier": tier, "qty": 1, "cap": 10}


def quantities(db):
    """Each line's (purchase, line, qty), in the purchases' order."""
    return [
        (p["_id"], l["_id"], l["qty"])
        for p in db["purchase"].find({}, sort=[("_id", 1)])
        for l in p["purchase_lines"]
    ]


def check(db, lang, book):
    db["purchase"].delete_many({})
    db["purchase"].insert_many([
        {"_id": 1, "purchase_lines": [line(11, "A"), line(12, "B")]},
        {"_id": 2, "purchase_lines": [line(21, "B")]},
        {"_id": 3, "purchase_lines": [line(31, "A")]},
    ])
    book.reprice_tier_lines(db, tier_id="B", new_qty=7)
    got = quantities(db)
    want = [(1, 11, 1), (1, 12, 7), (2, 21, 7), (3, 31, 1)]
    if got != want:
        fail(f"{lang} reprice_tier_lines(B, 7): lines {got}, want {want}")
    else:
        ok(f"{lang} reprice_tier_lines(B, 7): both tier B lines at 7, both tier A lines unchanged")
    book.reset_purchase_lines(db, purchase_id=1, new_qty=0)
    got = quantities(db)
    want = [(1, 11, 0), (1, 12, 0), (2, 21, 7), (3, 31, 1)]
    if got != want:
        fail(f"{lang} reset_purchase_lines(1, 0): lines {got}, want {want}")
    else:
        ok(f"{lang} reset_purchase_lines(1, 0): both lines of purchase 1 at 0, no other purchase's")
    book.drop_line(db, purchase_id=1, line_id=11)
    got = quantities(db)
    want = [(1, 12, 0), (2, 21, 7), (3, 31, 1)]
    if got != want:
        fail(f"{lang} drop_line(1, 11): lines {got}, want {want}")
    else:
        ok(f"{lang} drop_line(1, 11): line 11 pulled, line 12 of the same purchase kept")
    db["purchase"].update_one({"_id": 1}, {"$push": {"purchase_lines": line(13, "A")}})
    book.drop_tier_lines(db, tier_id="A")
    got = quantities(db)
    want = [(1, 12, 0), (2, 21, 7)]
    if got != want:
        fail(f"{lang} drop_tier_lines(A): lines {got}, want {want}")
    else:
        ok(f"{lang} drop_tier_lines(A): both tier A lines pulled, the tier B lines kept")


def capped(lid, tier, qty, cap):
    return {"_id": lid, "tier": tier, "qty": qty, "cap": cap}


def levels(db):
    """Each line's (line, qty), in the purchases' order."""
    return [
        (l["_id"], l["qty"])
        for p in db["purchase"].find({}, sort=[("_id", 1)])
        for l in p["purchase_lines"]
    ]


def expect(lang, what, got, want, says):
    if got != want:
        fail(f"{lang} {what}: lines {got}, want {want}")
    else:
        ok(f"{lang} {what}: {says}")


def check_caps(db, lang, book):
    db["purchase"].delete_many({})
    db["purchase"].insert_many([
        {"_id": 4, "purchase_lines": [capped(41, "C", 1, 5), capped(42, "C", 5, 5), capped(43, "A", 1, 5)]},
        {"_id": 5, "purchase_lines": [capped(51, "C", 5, 5)]},
    ])
    try:
        book.bump_tier_lines(db, tier_id="C")
    except Exception as e:  # noqa: BLE001 (a failure is the check's)
        fail(f"{lang} bump_tier_lines(C) failed: {e}")
    expect(lang, "bump_tier_lines(C)", levels(db), [(41, 2), (42, 5), (43, 1), (51, 5)],
           "only the tier C line below its cap gained one")
    try:
        book.fill_tier_lines(db, tier_id="C", amount=2)
    except Exception as e:  # noqa: BLE001 (a failure is the check's)
        fail(f"{lang} fill_tier_lines(C, 2) failed: {e}")
    expect(lang, "fill_tier_lines(C, 2)", levels(db), [(41, 4), (42, 5), (43, 1), (51, 5)],
           "only the tier C line with room for 2 gained 2")
    refused = False
    try:
        book.fill_line(db, purchase_id=4, line_id=42, amount=1)
    except Exception:  # noqa: BLE001 (the refusal is what is wanted)
        refused = True
    if not refused:
        fail(f"{lang} fill_line(4, 42, 1): a line at its cap was not refused")
    expect(lang, "fill_line(4, 42, 1)", levels(db), [(41, 4), (42, 5), (43, 1), (51, 5)],
           "refused at the cap, no line changed")
    try:
        book.fill_line(db, purchase_id=4, line_id=41, amount=1)
    except Exception as e:  # noqa: BLE001 (a failure is the check's)
        fail(f"{lang} fill_line(4, 41, 1) failed: {e}")
    expect(lang, "fill_line(4, 41, 1)", levels(db), [(41, 5), (42, 5), (43, 1), (51, 5)],
           "the line with room gained 1, no other")


def check_every(db, lang, book):
    """A purchase's lines under a condition on each (`qty > 0`, `qty < cap`):
    the lines that fail it stay as they were. The plan once wrote every
    line (`$[]`, and `$` beside it)."""
    db["purchase"].delete_many({})
    db["purchase"].insert_many([
        {"_id": 6, "purchase_lines": [capped(61, "C", 0, 5), capped(62, "C", 2, 2), capped(63, "C", 1, 5)]},
        {"_id": 7, "purchase_lines": [capped(71, "C", 1, 5)]},
    ])
    try:
        book.restock_purchase_lines(db, purchase_id=6)
    except Exception as e:  # noqa: BLE001 (a failure is the check's)
        fail(f"{lang} restock_purchase_lines(6) failed: {e}")
    expect(lang, "restock_purchase_lines(6)", levels(db), [(61, 0), (62, 3), (63, 2), (71, 1)],
           "the lines above 0 gained one, the empty one did not")
    try:
        book.bump_purchase_lines(db, purchase_id=6)
    except Exception as e:  # noqa: BLE001 (a failure is the check's)
        fail(f"{lang} bump_purchase_lines(6) failed: {e}")
    expect(lang, "bump_purchase_lines(6)", levels(db), [(61, 1), (62, 3), (63, 3), (71, 1)],
           "the lines below their cap gained one, the one past it did not")


def main():
    directory, uri, db_name, mongosh = sys.argv[1:5]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import three_cookbooks

    _, books, _ = three_cookbooks.load(directory, uri, db_name, mongosh)
    db = MongoClient(uri)[db_name]
    for lang, book in books:
        check(db, lang, book)
        check_caps(db, lang, book)
        check_every(db, lang, book)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
