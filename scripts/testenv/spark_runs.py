"""Runs a Spark job written by `squill migrate --engine spark` more than once
in one spark-submit, for the integration test migrate_spark.

    spark-submit [OPTIONS] spark_runs.py JOB DIR

Each run is a request file DIR/run-N.json (N = 1, 2, ...), written by the
test when it wants the run, waited for here:

    {"master": "local[2,4]", "env": {"NAME": "VALUE"}, "argv": [ARG, ...]}

and runs JOB's `main(ARGV)` as `spark-submit --master MASTER JOB ARGV...`
would, with the executors' environment holding ENV (the job reads its
test-only SQUILL_SPARK_TEST_FAIL there). Then DIR/run-N.done holds its exit
status, after everything the run printed. A request file {"stop": true}
ends the process.

Why: a spark-submit first starts a JVM and loads Spark's classes, about 10 s
of CPU on this project's machine before the job's first line (BENCHMARKS.md,
"Test suite time"). The job's own `spark.stop()` ends its SparkContext; the
next run's starts again in the same JVM, warm, with the run's master and
environment, so each run still gets a SparkContext of its own.
"""

import json
import os
import runpy
import sys
import time
import traceback


def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.05)
    # Written whole and renamed by the test: complete when it exists.
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    job, folder = sys.argv[1], sys.argv[2]
    from pyspark.sql import SparkSession

    main_of = runpy.run_path(job, run_name="squill_migrate")["main"]
    n = 1
    while True:
        request = wait_for(os.path.join(folder, "run-%d.json" % n))
        if request.get("stop"):
            return
        builder = SparkSession.builder.master(request["master"])
        for name, value in request.get("env", {}).items():
            builder = builder.config("spark.executorEnv." + name, value)
        # The job's own getOrCreate() finds this session, with this master
        # and environment; the job stops it at its end.
        builder.getOrCreate()
        code = 0
        try:
            main_of(request["argv"])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except Exception:  # noqa: BLE001 - the run's failure, as its own process would show it
            traceback.print_exc()
            code = 1
        finally:
            active = SparkSession.getActiveSession()
            if active is not None:
                active.stop()
        sys.stdout.flush()
        sys.stderr.flush()
        done = os.path.join(folder, "run-%d.done" % n)
        with open(done + ".tmp", "w", encoding="utf-8") as f:
            f.write(str(code))
        os.replace(done + ".tmp", done)
        n += 1


if __name__ == "__main__":
    main()
