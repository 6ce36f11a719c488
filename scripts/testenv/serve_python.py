"""Runs many Python checks in one long-lived process, for the integration tests.

    python serve_python.py

A check started as its own process pays for starting Python and importing
pymongo (about 0.3 s of CPU) each time, and the end-to-end tests start
hundreds. This server pays once: the tests' harness (support.rs, `run_tool`)
writes one request per line on stdin and reads one reply per line on stdout:

    request  {"argv": ["-c", CODE, ARG...]}   or   {"argv": [SCRIPT, ARG...]}
    reply    {"code": EXIT_STATUS, "stdout": TEXT, "stderr": TEXT}

Each request runs as `python ARGV...` would: `__name__` is "__main__", in
fresh globals, with `sys.argv` set; `sys.exit(n)` is its exit status and an
uncaught exception prints its traceback to its stderr and exits 1. Imported
modules (pymongo, bson) stay loaded between requests, which is the point.
The replies go to a private copy of the original stdout; anything written to
file descriptor 1 directly ends on stderr, so that it cannot break a reply.
Every MongoClient a request opens is closed when it ends, as the end of
its process would close it (no connection or monitor thread piles up).
The server exits at the end of its input.
"""

import contextlib
import io
import json
import os
import runpy
import sys
import traceback


_clients = []


def track_clients():
    """Remembers every MongoClient made from now on, to close it after its request."""
    try:
        import pymongo
    except ImportError:
        return
    init = pymongo.MongoClient.__init__

    def tracked(self, *args, **kwargs):
        _clients.append(self)
        init(self, *args, **kwargs)

    pymongo.MongoClient.__init__ = tracked


def close_clients():
    while _clients:
        try:
            _clients.pop().close()
        except Exception:  # noqa: BLE001 - a client that failed to start has nothing to close
            pass


def is_ours(filename):
    """Whether a frame is this server's or runpy's, not the check's."""
    return filename in (__file__, runpy.__file__) or filename.startswith("<frozen runpy")


def run(argv):
    """(exit status, stdout, stderr) of one `python ARGV...`."""
    out, err = io.StringIO(), io.StringIO()
    saved_argv, saved_path = sys.argv, list(sys.path)
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if argv[0] == "-c":
                sys.argv = ["-c", *argv[2:]]
                sys.path.insert(0, "")
                exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
            else:
                sys.argv = list(argv)
                sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
                runpy.run_path(argv[0], run_name="__main__")
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException as e:  # noqa: BLE001 - reported as the check's own failure
            # As the process would print it: from the check's own frames.
            tb = e.__traceback__
            while tb is not None and is_ours(tb.tb_frame.f_code.co_filename):
                tb = tb.tb_next
            traceback.print_exception(type(e), e, tb)
            code = 1
        finally:
            close_clients()
            sys.argv = saved_argv
            sys.path[:] = saved_path
    return code, out.getvalue(), err.getvalue()


def main():
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    track_clients()
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding="utf-8", line_buffering=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        code, out, err = run(json.loads(line)["argv"])
        replies.write(json.dumps({"code": code, "stdout": out, "stderr": err}) + "\n")
        replies.flush()


if __name__ == "__main__":
    main()
