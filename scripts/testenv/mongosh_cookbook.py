"""The mongosh cookbook as check_generated.py calls the Python one.

`MongoshCookbook(out, mongosh, uri, db_name, plan, extra)` has an attribute
per function of `out/cookbook.mongosh.js`, called as the Python cookbook's
are (`fn(db, **params)`); each call runs the mongosh function in one
long-lived mongosh (scripts/testenv/serve_mongosh_cookbook.js), started on
first use and kept for this Python's life (a mongosh start costs more than
most calls, issue 47). Arguments and results cross as canonical Extended
JSON, so an ObjectId, a date, an int or a double keeps its BSON type.
"""

import atexit
import json
import os
import subprocess

from bson import json_util

_OPTS = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL, tz_aware=False)
_REPLY = "\x1esquill-cookbook-reply "
_SERVER = [None]


class MongoshError(RuntimeError):
    """The mongosh function threw (its own error, or the server's)."""


def _server(mongosh):
    proc = _SERVER[0]
    if proc is None or proc.poll() is not None:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "serve_mongosh_cookbook.js")
        proc = subprocess.Popen(
            [mongosh, "--quiet", "--norc", "--nodb", script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        _SERVER[0] = proc
    return proc


@atexit.register
def _stop():
    """The end of its input ends the mongosh; waited for, so that its CPU
    time counts as this Python's (and its test's)."""
    proc = _SERVER[0]
    if proc is not None:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _call(mongosh, request):
    proc = _server(mongosh)
    proc.stdin.write(json.dumps(request) + "\n")
    proc.stdin.flush()
    # What mongosh prints besides the reply (a warning) comes before it.
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"serve_mongosh_cookbook.js exited (status {proc.wait()})")
        if line.startswith(_REPLY):
            break
    reply = json.loads(line[len(_REPLY):])
    if "error" in reply:
        raise MongoshError(reply["error"])
    return json_util.loads(reply["result"], json_options=_OPTS)


class MongoshCookbook:
    def __init__(self, out, mongosh, uri, db_name, plan, extra=None):
        self._path = os.path.abspath(os.path.join(out, "cookbook.mongosh.js"))
        self._mongosh = mongosh
        self._uri = uri
        self._db = db_name
        self.PLAN = plan
        # Functions outside PLAN (an atomic group's), with their "params".
        self._extra = extra or {}

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        plan = self.PLAN.get(name) or self._extra.get(name)
        if plan is None:
            raise AttributeError(name)

        def call(_db, **params):
            args = [params.get(p["name"]) for p in plan["params"]]
            return _call(
                self._mongosh,
                {
                    "uri": self._uri,
                    "db": self._db,
                    "cookbook": self._path,
                    "fn": name,
                    "args": json_util.dumps(args, json_options=_OPTS),
                    # A batch's size is a number as JavaScript's caller
                    # passes it, not the Int32 the canonical EJSON gives.
                    "plain": [i for i, p in enumerate(plan["params"]) if p.get("kind") == "batch"],
                },
            )

        return call
