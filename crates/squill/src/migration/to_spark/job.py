"""squill migrate --engine spark: a PostgreSQL database moved into the
documents of an advised MongoDB design, on Apache Spark.

Written by squill; see README.md beside it. Run it with spark-submit (it
never runs squill, and squill never runs it). It reads every table through
JDBC in partitions split on the table's key, builds each collection's
documents with joins and collect_list, and writes each partition either to
MongoDB (unordered bulk upserts by _id: a retried task writes nothing
twice) or to one Extended JSON or BSON file per partition (a retried task
replaces its file whole).

The JDBC password comes from the environment (PGPASSWORD), never from this
file or its arguments.
"""

import argparse
import json
import math
import os
import sys

PLAN_JSON = "[]"  # replaced by squill
DEFAULTS_JSON = "{}"  # replaced by squill

PLAN = json.loads(PLAN_JSON)
DEFAULTS = json.loads(DEFAULTS_JSON)


def arguments(argv):
    p = argparse.ArgumentParser(description="Move PostgreSQL rows into the advised MongoDB design.")
    p.add_argument("--jdbc-url", default=DEFAULTS.get("jdbc_url"),
                   help="jdbc:postgresql://host:port/database (no password in it)")
    p.add_argument("--user", default=DEFAULTS.get("user"), help="the PostgreSQL user")
    p.add_argument("--password-env", default="PGPASSWORD",
                   help="the environment variable holding the password (default PGPASSWORD)")
    p.add_argument("--to", metavar="MONGODB_URI", help="write into this deployment")
    p.add_argument("--out", metavar="DIR", help="write files here, one per partition (with --to: both)")
    p.add_argument("--database", default=DEFAULTS.get("database"),
                   help="the MongoDB database (--to) or the dump's folder name (--out)")
    p.add_argument("--format", choices=["json", "bson"], default="json",
                   help="with --out: canonical Extended JSON lines, or BSON for mongorestore")
    p.add_argument("--batch-size", type=int, default=1000,
                   help="documents per bulk write (default 1000)")
    p.add_argument("--rows-per-partition", type=int, default=200000,
                   help="rows of a table per JDBC partition (default 200000)")
    p.add_argument("--max-partitions", type=int, default=64,
                   help="most JDBC partitions of one table (default 64)")
    p.add_argument("--fetch-size", type=int, default=10000,
                   help="rows per JDBC round trip (default 10000)")
    p.add_argument("--collections", default="",
                   help="comma-separated collections to move (default: all)")
    p.add_argument("--changed-by", default=None,
                   help="a timestamp column: move only documents with a row changed after --since")
    p.add_argument("--since", default=None, help="with --changed-by: a timestamp, as PostgreSQL reads it")
    p.add_argument("--ignore-deletions", action="store_true",
                   help="with --changed-by: move the changes although rows deleted since --since are not seen")
    args = p.parse_args(argv)
    if args.batch_size < 1 or args.rows_per_partition < 1 or args.max_partitions < 1:
        p.error("--batch-size, --rows-per-partition and --max-partitions must be at least 1")
    if (args.changed_by is None) != (args.since is None):
        p.error("--changed-by and --since go together")
    if args.changed_by is not None and not args.ignore_deletions:
        # The native migrate sees deletions by its ledger of the rows each
        # run read (from_postgres/ledger.rs); this job keeps nothing
        # between runs, so a deleted row's document would silently stay.
        p.error("--changed-by: rows deleted since --since are not seen by this job (it keeps no "
                "record of the rows a run read, as the native migrate's ledger does), so their "
                "documents would stay as they were; give --ignore-deletions to move the changes "
                "anyway, or use the native migrate's run of changes")
    if not args.to and not args.out:
        p.error("give --to MONGODB_URI, --out DIR, or both")
    if not args.jdbc_url:
        p.error("--jdbc-url is required")
    return args


def quote(name):
    return '"' + name.replace('"', '""') + '"'


def literal(text):
    return "'" + text.replace("'", "''") + "'"


class Reader:
    """JDBC reads of the plan's tables, split on their integer key."""

    def __init__(self, spark, args):
        self.spark = spark
        self.args = args
        self.options = {
            "url": args.jdbc_url,
            "user": args.user or "",
            "password": os.environ.get(args.password_env, ""),
            "driver": "org.postgresql.Driver",
            "fetchsize": str(args.fetch_size),
            # Dates travel as milliseconds since the epoch; the session's
            # zone only matters to casts the plan does not make.
            "sessionInitStatement": "SET TIME ZONE 'UTC'",
        }
        self.bounds = {}

    def query(self, sql):
        return self.spark.read.format("jdbc").options(**self.options).option("query", sql).load()

    def measure(self, plans):
        """min, max of the key and the estimated rows (pg_class) of every
        split read of the plans, in one query (one Spark job, not one per
        table: each costs a scheduling round on the cluster)."""
        wanted = []
        for plan in plans:
            for read in plan["reads"]:
                if read.get("split"):
                    table = (read["table"], split_key(read))
                    if table not in wanted and table not in self.bounds:
                        wanted.append(table)
        if not wanted:
            return
        sql = " UNION ALL ".join(
            "SELECT " + str(i) + " AS i, min(x.k) AS lo, max(x.k) AS hi, "
            "(SELECT greatest(c.reltuples, 0)::int8 FROM pg_class c WHERE c.oid = to_regclass("
            + literal(table) + ")) AS n FROM (SELECT " + key + " AS k FROM " + table + " t) x"
            for i, (table, key) in enumerate(wanted))
        for row in self.query(sql).collect():
            self.bounds[wanted[row["i"]]] = (row["lo"], row["hi"], row["n"] or 0)

    def load(self, read, changed):
        columns = [sql + " AS " + quote(alias) for sql, alias in read["columns"]]
        if changed is not None:
            columns.append(changed + " AS " + quote(read_changed(read)))
        sub = "(SELECT " + ", ".join(columns) + " FROM " + read["table"] + " t) s"
        reader = self.spark.read.format("jdbc").options(**self.options).option("dbtable", sub)
        split = read.get("split")
        if split:
            lo, hi, n = self.bounds[(read["table"], split_key(read))]
            parts = max(1, min(self.args.max_partitions, math.ceil(n / self.args.rows_per_partition)))
            if lo is not None and hi is not None and parts > 1:
                reader = (reader.option("partitionColumn", split).option("lowerBound", str(lo))
                          .option("upperBound", str(hi + 1)).option("numPartitions", str(parts)))
        return reader.load()


def split_key(read):
    """The SQL of the column a read is split on."""
    return next(sql for sql, alias in read["columns"] if alias == read["split"])


def read_changed(read):
    return read["columns"][0][1] + "_changed" if read["columns"] else "changed"


class Builder:
    """A collection's documents as one Spark column, by the plan's nodes."""

    def __init__(self, reader, plan, changed):
        self.reader = reader
        self.plan = plan
        self.changed = changed
        self.names = 0
        self.flags = []

    def name(self):
        self.names += 1
        return "_squill_" + str(self.names)

    def frame(self, i):
        read = self.plan["reads"][i]
        changed = None
        if self.changed is not None:
            changed = self.changed(read)
            if changed is not None:
                self.flags.append(read_changed(read))
        return self.reader.load(read, changed)

    def related(self, node):
        """The related rows of a step, with the linking rows joined."""
        inner = self.frame(node["read"])
        if node.get("link"):
            j, link_col, other_key = node["link"]
            link = self.frame(j)
            inner = link.join(inner, link[link_col] == inner[other_key], "inner")
        return inner

    def build(self, node, df):
        from pyspark.sql import functions as F

        t = node["t"]
        if t == "value":
            return df, F.col(node["c"])
        if t == "object":
            cols = []
            for i, (_, sub) in enumerate(node["fields"]):
                df, c = self.build(sub, df)
                cols.append(c.alias("f" + str(i)))
            return df, F.struct(*cols)
        flags_before = len(self.flags)
        inner = self.related(node)
        key, val = self.name(), self.name()
        if t in ("many", "one"):
            inner, item = self.build(node["item"], inner)
            order = [F.col(c).alias("o" + str(i)) for i, c in enumerate(node["order"])]
            aggs = [F.sort_array(F.collect_list(F.struct(*order, item.alias("v"))),
                                 asc=not node["desc"]).alias(val)]
        elif t == "parent":
            inner, item = self.build(node["item"], inner)
            aggs = [F.first(item, ignorenulls=False).alias(val)]
        else:  # aggregate
            fn = node["fn"]
            if fn == "count":
                agg = F.count(F.lit(1))
            else:
                agg = {"sum": F.sum, "min": F.min, "max": F.max}[fn](F.col(node["c"]))
            aggs = [agg.alias(val)]
        flags = self.flags[flags_before:]
        if flags:
            # A related row changed: its document changed.
            flag = self.name()
            aggs.append((F.max(F.when(any_of(flags), 1).otherwise(0)) > 0).alias(flag))
            del self.flags[flags_before:]
            self.flags.append(flag)
        grouped = inner.groupBy(F.col(node["inner"]).alias(key)).agg(*aggs)
        df = df.join(grouped, df[node["outer"]] == grouped[key], "left")
        if t == "many":
            arr = F.transform(F.col(val), lambda x: x["v"])
            if node.get("limit") is not None:
                arr = F.slice(arr, 1, int(node["limit"]))
            return df, F.coalesce(arr, F.array())
        if t == "one":
            return df, F.element_at(F.col(val), 1)["v"]
        if t == "aggregate" and node["fn"] == "count":
            return df, F.coalesce(F.col(val), F.lit(0))
        return df, F.col(val)

    def documents(self):
        from pyspark.sql import functions as F

        df = self.frame(self.plan["root"])
        df, doc = self.build(self.plan["document"], df)
        if self.changed is not None:
            df = df.where(any_of(self.flags))
        return df.select(doc.alias("d"))


def any_of(flags):
    """Whether any of the change flags (columns, null when no row) is set."""
    from pyspark.sql import functions as F

    out = F.lit(False)
    for f in flags:
        out = out | F.coalesce(F.col(f), F.lit(False))
    return out


def to_bson(node, value):
    """A built value (Spark rows, lists, scalars) as the BSON value the
    native migrate writes: nulls left out of documents, typed by kind."""
    import bson
    from bson import json_util
    from bson.datetime_ms import DatetimeMS
    from bson.decimal128 import Decimal128
    from bson.int64 import Int64
    from bson.objectid import ObjectId

    t = node["t"]
    if value is None:
        return None
    if t == "object":
        out = {}
        for i, (name, sub) in enumerate(node["fields"]):
            v = to_bson(sub, value[i])
            if v is not None:
                out[name] = v
        return out
    if t == "many":
        return [to_bson(node["item"], v) for v in value]
    if t in ("one", "parent"):
        return to_bson(node["item"], value)
    kind = node["kind"]
    if kind == "int":
        return int(value) if -2**31 <= int(value) < 2**31 else Int64(value)
    if kind == "long":
        return Int64(value)
    if kind == "double":
        return float(value)
    if kind == "decimal":
        return Decimal128(value)
    if kind == "date":
        return DatetimeMS(int(value))
    if kind == "bool":
        return bool(value)
    if kind == "binData":
        return bson.Binary(bytes(value), 0)
    if kind == "objectId":
        return ObjectId(value)
    if kind == "string":
        return str(value)
    return json_util.loads(value)


def fail_once(collection, written):
    """Test only: SQUILL_SPARK_TEST_FAIL names a collection whose first
    partition's first attempt dies after writing a batch of its documents
    (how a lost executor looks to the partition's writes)."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if (os.environ.get("SQUILL_SPARK_TEST_FAIL") == collection and ctx is not None
            and ctx.partitionId() == 0 and ctx.attemptNumber() == 0 and written > 0):
        raise RuntimeError("squill test: this task fails once after writing")


def writer(args, collection, node, tally):
    """The function each partition runs: its documents into the deployment
    (--to) in unordered bulk upserts of --batch-size, and into its own file
    (--out), written under the attempt's name and renamed when complete.
    `tally` (accumulators: documents, milliseconds waiting for rows,
    milliseconds converting and writing them) tells where the time went."""
    to, out, database, fmt, batch_size = args.to, args.out, args.database, args.format, args.batch_size
    counted, waited, wrote = tally

    def write(rows):
        import time

        import bson
        from bson import json_util
        from pyspark import TaskContext

        ctx = TaskContext.get()
        client = coll = f = None
        if to:
            from pymongo import MongoClient, ReplaceOne

            client = MongoClient(to)
            coll = client[database][collection]
        if out:
            folder = os.path.join(out, database, collection)
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, "part-%05d.%s" % (ctx.partitionId(), fmt))
            tmp = path + ".attempt-%d" % ctx.attemptNumber()
            f = open(tmp, "wb")
        options = json_util.CANONICAL_JSON_OPTIONS
        batch = []
        written = 0

        def flush():
            if coll is not None and batch:
                coll.bulk_write(batch, ordered=False)
            if f is not None:
                f.flush()
            del batch[:]

        rows = iter(rows)
        clock = time.perf_counter
        wait = work = 0.0
        while True:
            t0 = clock()
            row = next(rows, None)
            t1 = clock()
            wait += t1 - t0
            if row is None:
                break
            doc = to_bson(node, row["d"])
            if f is not None:
                if fmt == "bson":
                    f.write(bson.encode(doc))
                else:
                    f.write(json_util.dumps(doc, json_options=options).encode("utf-8") + b"\n")
            if coll is not None:
                batch.append(ReplaceOne({"_id": doc["_id"]}, doc, upsert=True))
            written += 1
            if written % batch_size == 0:
                flush()
                fail_once(collection, written)
            work += clock() - t1
        t1 = clock()
        flush()
        fail_once(collection, written)
        work += clock() - t1
        counted.add(written)
        waited.add(int(wait * 1000))
        wrote.add(int(work * 1000))
        if client is not None:
            client.close()
        if f is not None:
            f.close()
            # A retried task's file replaces the failed attempt's whole.
            os.replace(tmp, path)
            for name in os.listdir(folder):
                if name.startswith(os.path.basename(path) + ".attempt-"):
                    os.remove(os.path.join(folder, name))

    return write


def main(argv):
    from pyspark.sql import SparkSession

    args = arguments(argv)
    spark = SparkSession.builder.appName("squill migrate").getOrCreate()
    reader = Reader(spark, args)
    wanted = {c for c in args.collections.split(",") if c}
    changed = None
    if args.changed_by is not None:
        def changed(read):
            # A table without the column has no changed flag: its rows are
            # taken as unchanged, and only its related rows' tell.
            column = quote(args.changed_by)
            return ("(t." + column + " > " + literal(args.since) + "::timestamptz)"
                    if args.changed_by in read["names"] else None)
    plans = [plan for plan in PLAN if not wanted or plan["collection"] in wanted]
    reader.measure(plans)
    for plan in plans:
        name = plan["collection"]
        docs = Builder(reader, plan, changed).documents()
        # Counted once per partition that succeeds (Spark applies an
        # action's accumulator updates once per task, retried or not).
        tally = [spark.sparkContext.accumulator(0) for _ in range(3)]
        docs.foreachPartition(writer(args, name, plan["document"], tally))
        print("squill migrate (spark): %s written: %d documents (the writers waited %.1f s for rows, "
              "converted and wrote them in %.1f s)" % (json.dumps(name), tally[0].value,
                                                     tally[1].value / 1000, tally[2].value / 1000),
              file=sys.stderr)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
