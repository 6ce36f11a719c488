"""The cookbooks `squill generate` wrote, in the three languages, for a check
script to call alike (check_page_race.py, check_guard_conflict.py).

`load(directory, uri, db_name, mongosh, extra)` gives the Python cookbook module
(with its PLAN), a list of (language, cookbook) whose functions are called
as the Python cookbook's are (`fn(db, **params)`; mongosh's and Node.js's
served by scripts/testenv/*_cookbook.py), and examples.json's example
document of each collection at typical cardinality. `extra`, when given,
maps the PLAN to the functions outside it (an atomic group's) with their
"params", for the JavaScript cookbooks to call them too.
"""

import importlib.util
import os
import sys

from bson import json_util


def load(directory, uri, db_name, mongosh, extra=None):
    spec = importlib.util.spec_from_file_location("cookbook", f"{directory}/cookbook.py")
    cookbook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cookbook)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import mongosh_cookbook
    import node_cookbook

    outside = extra(cookbook.PLAN) if extra else None
    books = [
        ("python", cookbook),
        ("mongosh", mongosh_cookbook.MongoshCookbook(directory, mongosh, uri, db_name, cookbook.PLAN, outside)),
        ("node", node_cookbook.NodeCookbook(directory, uri, db_name, cookbook.PLAN, outside)),
    ]
    with open(f"{directory}/examples.json") as f:
        raw = json_util.loads(f.read())
    examples = {coll: docs["typical"] for coll, docs in raw.items()}
    return cookbook, books, examples
