//! The README written beside the job: what it does, what the driver and
//! the workers need and how to ship it, the commands for `local[N]` and
//! for a cluster (YARN, Kubernetes, standalone), and every setting with its
//! default and why. Names from the database go through `words::markdown`.

use super::JOB;
use crate::design::Design;
use crate::words::markdown;

/// The README's text.
pub(crate) fn text(design: &Design, source: &str, user: &str, collections: usize) -> String {
    let model = markdown::text(&design.model);
    let jdbc = shell(&format!("jdbc:postgresql://{source}"));
    let user_plain = shell(user);
    let db = shell(&crate::synthetic::data::database_name(design));
    let source = markdown::code_in_prose(source);
    let user = markdown::code_in_prose(user);
    let names: Vec<String> = design
        .collections
        .iter()
        .map(|c| format!("- {}", markdown::code_in_prose(&c.name)))
        .collect();
    format!(
        r#"# Moving {source} into the design of {model}, on Apache Spark

Written by `squill migrate --engine spark`. `{JOB}` is a PySpark job that
builds the {collections} collections of the design advised for the model
the same way `squill migrate` does on one machine (the same documents,
field for field), but with the work spread over a Spark cluster:

- **Reading.** Every table is read through JDBC, split into partitions on
  its first key column when that is an integer: the bounds are the key's
  minimum and maximum, measured when the job starts, and the number of
  partitions is the table's estimated rows (PostgreSQL's `pg_class`) over
  `--rows-per-partition`, at most `--max-partitions`. A table without an
  integer key is read in one partition.
- **Building.** Children are grouped by their reference to the parent
  (`collect_list` of a struct, sorted by the child's key, which is the
  order `squill migrate` writes them in) and joined to the parent's rows;
  parents are joined to their children; counts and sums are grouped the
  same way. Values are typed in the JDBC query exactly as `squill migrate`
  types them (`$numberLong`, `$numberDecimal`, `$date` in UTC).
- **Writing.** Each partition writes its documents itself: to MongoDB
  with the Python driver (`--to`), as unordered bulk writes of upserts by
  `_id`, so that a task Spark retries after a failure writes its documents
  again over the same `_id`s and leaves no duplicate; or to files
  (`--out`), one per partition, written under a temporary name and renamed
  when complete, so that a retried task replaces the failed attempt's file.

Collections:

{names}

## The command

```sh
export PGPASSWORD=…   # the password of {user}; never in the job or its arguments
spark-submit --master 'local[4]' \
  --jars /usr/share/java/postgresql.jar \
  {JOB} --jdbc-url {jdbc} --user {user_plain} \
  --to mongodb://mongo.example:27017/ --database {db}
```

`--out DIR` instead of `--to` (or beside it) writes `DIR/DATABASE/COLLECTION/part-NNNNN.json`
(canonical Extended JSON, one document a line: `mongoimport --file`) or,
with `--format bson`, `part-NNNNN.bson` files (concatenated BSON:
`mongorestore --db DATABASE --collection COLLECTION FILE`, one file at a
time, or cat a collection's parts into one `.bson` first).

## What the driver and the workers need

- Java 17 or later and Spark 4 (`pip install pyspark` brings both
  `spark-submit` and the Python side; Debian's `openjdk-17-jre-headless`
  gives Java).
- The PostgreSQL JDBC driver on the driver and every executor:
  `--jars /usr/share/java/postgresql.jar` (Debian's
  `libpostgresql-jdbc-java`) or `--packages org.postgresql:postgresql:42.7.4`,
  which Spark fetches and ships itself.
- `pymongo` (which brings `bson`) in the Python of every executor, also for
  `--out`: the files are encoded with its `bson` module. On YARN or
  Kubernetes ship a packed environment (`venv-pack`, `conda-pack`) with
  `--archives env.tar.gz#env` and `PYSPARK_PYTHON=./env/bin/python`, or
  bake it into the executor image.
- The executors must reach PostgreSQL and MongoDB; `--out` must be a
  folder every executor can write to (a shared file system).

## On a cluster

The job is the same file; only spark-submit's options change:

```sh
# YARN
spark-submit --master yarn --deploy-mode cluster --num-executors 8 \
  --executor-cores 4 --jars postgresql.jar \
  --conf spark.yarn.appMasterEnv.PGPASSWORD="$PGPASSWORD" \
  --conf spark.executorEnv.PGPASSWORD="$PGPASSWORD" \
  {JOB} --jdbc-url {jdbc} --user {user_plain} --to mongodb://…
# Kubernetes
spark-submit --master k8s://https://API:6443 --deploy-mode cluster \
  --conf spark.kubernetes.container.image=IMAGE_WITH_PYMONGO \
  --conf spark.kubernetes.driver.secretKeyRef.PGPASSWORD=pg:password \
  --conf spark.kubernetes.executor.secretKeyRef.PGPASSWORD=pg:password \
  local:///opt/job/{JOB} --jdbc-url {jdbc} --to mongodb://…
# standalone
spark-submit --master spark://HOST:7077 --total-executor-cores 16 \
  --jars postgresql.jar {JOB} --jdbc-url {jdbc} --to mongodb://…
```

The password reaches the JDBC reads from the driver's environment
(`--password-env`, default `PGPASSWORD`): Spark passes it to the executors
inside the read's options, so only the driver needs the variable. Prefer a
secret (Kubernetes) or a `.pgpass`-free role with read rights only.

## Settings

| option | default | why |
|---|---|---|
| `--rows-per-partition` | 200000 | one JDBC query and one task per partition: large enough that a task's start-up is small beside its reading, small enough that a retried task redoes little and a partition of wide rows fits an executor's memory |
| `--max-partitions` | 64 | the most concurrent queries one table sends PostgreSQL; raise it with the executors, not past what the database serves |
| `--fetch-size` | 10000 | rows per JDBC round trip; the driver's default (0: all rows at once) would hold a partition in memory |
| `--batch-size` | 1000 | documents per bulk write, MongoDB's usual batch: fewer round trips, and a retried task redoes at most the partition |
| `--format` | json | with `--out`: `json` or `bson` |
| `--collections` | all | a comma-separated list, to move or redo some collections |
| `--changed-by COLUMN --since TIME --ignore-deletions` | off | an incremental run: only documents one of whose rows has COLUMN later than TIME (tables without the column count as unchanged); with `--to` the upserts replace them. Refused without `--ignore-deletions`: rows deleted since TIME are not seen |

## Resuming and incremental runs

A failed task is retried by Spark (`spark.task.maxFailures`, default 4;
in `local[N]` mode write `local[N,4]`). A failed job is run again whole, or
for the collections that did not finish (`--collections`): upserts by `_id`
and whole-file writes make a rerun safe. An incremental run filters on a
timestamp column, as `squill migrate --changed-by` does. Unlike the native
one it does not see deleted rows: the native migrate keeps a ledger of the
keys and references of every row it read and compares it at the next run;
the job keeps nothing between runs, so a deleted row leaves its document
(and a parent's copy of it) as it was. The job refuses `--changed-by`
unless `--ignore-deletions` says that is acceptable (tables rows are never
deleted from, or a full run into a new database now and then); otherwise
run the native migrate's run of changes.
"#,
        names = names.join("\n"),
    )
}

/// `text` as one word of a shell command inside a fenced block: on one
/// line (`words::visible`) and single-quoted, a fence's backticks then
/// being plain characters of a word.
fn shell(text: &str) -> String {
    let text = crate::words::visible(text);
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@=,+".contains(c))
    {
        return text.into_owned();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}
