# shellcheck shell=bash
# What the Spark job's tests need (`squill migrate --engine spark`, the
# integration test migrate_spark); sourced by scripts/test.
#
#   setup_spark ROOT  → - installs Debian's openjdk-17-jre-headless when no
#                         `java` is on PATH, and libpostgresql-jdbc-java when
#                         /usr/share/java/postgresql.jar is missing (root only:
#                         apt-get update first);
#                       - creates ROOT/.venv-spark with pyspark and pymongo
#                         from PyPI (reused when present: pyspark is a
#                         450 MB download, built into a wheel once);
#                       - exports SQUILL_TEST_SPARK_SUBMIT (its spark-submit),
#                         SQUILL_TEST_SPARK_PYTHON (its python, for the
#                         executors and the comparison) and
#                         SQUILL_TEST_SPARK_JDBC_JAR (the driver's jar).
#                     Returns 1 with the failing step's output when a step fails.
#   spark_env FILE    → the exports above as lines of FILE, for a shell that
#                       ran setup_spark in the background (scripts/test).

setup_spark() {
    local root="$1" venv="$1/.venv-spark" jar=/usr/share/java/postgresql.jar
    local need=()
    command -v java >/dev/null || need+=(openjdk-17-jre-headless)
    [[ -f "$jar" ]] || need+=(libpostgresql-jdbc-java)
    if ((${#need[@]} > 0)); then
        if [[ "$(id -u)" != 0 ]]; then
            echo "testenv: ${need[*]} missing and installing needs root" >&2
            return 1
        fi
        echo "testenv: installing ${need[*]} (Debian packages)"
        local log
        log="$(mktemp -t spark-install.XXXXXX.log)"
        # It runs beside scripts/test's other installs (PostgreSQL,
        # Chromium): wait for their hold on apt's lock rather than fail.
        local wait=(-o DPkg::Lock::Timeout=600)
        if ! { apt-get "${wait[@]}" update -qq \
            && DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" install -y -qq "${need[@]}"; } >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            return 1
        fi
        rm -f "$log"
    fi
    if [[ ! -x "$venv/bin/spark-submit" ]] || ! "$venv/bin/python" -c 'import pyspark, pymongo' 2>/dev/null; then
        echo "testenv: creating $venv (pyspark, pymongo)"
        python3 -m venv "$venv" || return 1
        "$venv/bin/pip" install --quiet --disable-pip-version-check pyspark pymongo || return 1
    fi
    export SQUILL_TEST_SPARK_SUBMIT="$venv/bin/spark-submit"
    export SQUILL_TEST_SPARK_PYTHON="$venv/bin/python"
    export SQUILL_TEST_SPARK_JDBC_JAR="$jar"
}

spark_env() {
    {
        printf 'export SQUILL_TEST_SPARK_SUBMIT=%q\n' "$SQUILL_TEST_SPARK_SUBMIT"
        printf 'export SQUILL_TEST_SPARK_PYTHON=%q\n' "$SQUILL_TEST_SPARK_PYTHON"
        printf 'export SQUILL_TEST_SPARK_JDBC_JAR=%q\n' "$SQUILL_TEST_SPARK_JDBC_JAR"
    } >"$1"
}
