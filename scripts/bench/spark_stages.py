"""Where a Spark application's time went, from its event log
(spark.eventLog.enabled): per kind of stage, the stages, tasks, the sum of
their wall spans, the tasks' run and CPU time, the JDBC rows read and the
shuffle bytes written and read; and how long no stage ran at all (the
driver alone: starting, planning, between jobs).

    spark_stages.py EVENT_LOG [--stages]

Kinds, from each stage's RDDs (their names and scopes): `reads` scan JDBC
and end in a shuffle write (the map side of a join or a grouping);
`writes` run the job's Python writers (`foreachPartition`: the shuffle
read, the joins after it and the writes); `joins` read a shuffle and write
another (a join between two groupings); `driver` a collect to the driver
(the job's measuring of key bounds). --stages lists every stage too.
"""

import json
import os
import sys


def lines(path):
    """The event log's lines: one file, or a rolling log's folder
    (eventlog_v2_…, its events_N_… files in order)."""
    if os.path.isdir(path):
        names = sorted((n for n in os.listdir(path) if n.startswith("events_")),
                       key=lambda n: int(n.split("_")[1]))
        for n in names:
            yield from open(os.path.join(path, n), encoding="utf-8")
    else:
        yield from open(path, encoding="utf-8")


def stages_of(path):
    events = [json.loads(line) for line in lines(path) if line.strip()]
    start = next(e["Timestamp"] for e in events if e["Event"] == "SparkListenerApplicationStart")
    end = next((e["Timestamp"] for e in events if e["Event"] == "SparkListenerApplicationEnd"), None)
    jobs = sum(1 for e in events if e["Event"] == "SparkListenerJobStart")
    stages = [e["Stage Info"] for e in events if e["Event"] == "SparkListenerStageCompleted"]
    return start, end, jobs, stages


def metric(stage, name):
    return sum(int(a.get("Value", 0)) for a in stage.get("Accumulables", [])
               if a.get("Name") == name and str(a.get("Value", "")).lstrip("-").isdigit())


def kind(stage):
    text = " ".join(str(r.get("Scope", "")) + " " + str(r.get("Name", "")) + " " + str(r.get("Callsite", ""))
                    for r in stage.get("RDD Info", []))
    name = stage.get("Stage Name", "") + " " + stage.get("Details", "")
    if "foreachPartition" in name or "PythonRDD" in text:
        return "writes"
    if "JDBC" in text and metric(stage, "internal.metrics.shuffle.write.bytesWritten") > 0:
        return "reads"
    if "collect" in name:
        return "driver"
    return "joins"


def covered(spans):
    """Milliseconds during which at least one of the spans ran."""
    total, end = 0, None
    for a, b in sorted(spans):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def report(path, every=False):
    start, end, jobs, stages = stages_of(path)
    busy = covered([(s["Submission Time"], s["Completion Time"]) for s in stages])
    lines = []
    if end is not None:
        lines.append(f"application {(end - start) / 1000:.1f} s from the session's start to its stop, "
                     f"{jobs} jobs, {len(stages)} stages; some stage running {busy / 1000:.1f} s, "
                     f"none {(end - start - busy) / 1000:.1f} s (the driver alone: start, planning, between jobs)")
    lines.append("| kind | stages | tasks | wall s (sum of stage spans) | task run s | task CPU s | JDBC rows | shuffle written MB | shuffle read MB |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    kinds = {}
    for s in stages:
        kinds.setdefault(kind(s), []).append(s)
    for k in ["reads", "joins", "writes", "driver"]:
        ss = kinds.get(k, [])
        if not ss:
            continue
        wall = sum(s["Completion Time"] - s["Submission Time"] for s in ss) / 1000
        rows = sum(metric(s, "number of output rows") for s in ss) if k in ("reads", "driver") else 0
        read = sum(metric(s, "internal.metrics.shuffle.read.remoteBytesRead")
                   + metric(s, "internal.metrics.shuffle.read.localBytesRead") for s in ss)
        lines.append(
            f"| {k} | {len(ss)} | {sum(s['Number of Tasks'] for s in ss)} | {wall:.1f} | "
            f"{sum(metric(s, 'internal.metrics.executorRunTime') for s in ss) / 1000:.1f} | "
            f"{sum(metric(s, 'internal.metrics.executorCpuTime') for s in ss) / 1e9:.1f} | "
            f"{rows:,} | {sum(metric(s, 'internal.metrics.shuffle.write.bytesWritten') for s in ss) / 1e6:.2f} | "
            f"{read / 1e6:.2f} |")
    if every:
        lines.append("| stage | kind | name | tasks | wall s | task run s | shuffle written MB |")
        lines.append("|---|---|---|---|---|---|---|")
        for s in stages:
            lines.append(f"| {s['Stage ID']} | {kind(s)} | {s['Stage Name'][:60]} | {s['Number of Tasks']} | "
                         f"{(s['Completion Time'] - s['Submission Time']) / 1000:.2f} | "
                         f"{metric(s, 'internal.metrics.executorRunTime') / 1000:.2f} | "
                         f"{metric(s, 'internal.metrics.shuffle.write.bytesWritten') / 1e6:.2f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(sys.argv[1], "--stages" in sys.argv[2:]))
