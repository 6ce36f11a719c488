#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from ../shared/data (never committed).
set -euo pipefail
cd "$(dirname "$0")"
data=../../shared/data/mongo
[ -d "$data" ] || data=/work/shared/data/mongo
t=$data/mongo-tools-testdata
mkdir -p corpus/{bson_framing,ejson,archive,gzip_any,json_stream,model_file,scan_profile,sql_import}
# The model files of the examples (they are the project's own).
cp ../examples/*.yaml ../examples/*.json corpus/model_file/
cp "$t"/bsondump/testdata/*.bson corpus/bson_framing/
cp "$t"/mongorestore/testdata/aws_test_db/c1.bson corpus/bson_framing/
# The same documents for the profile (small ones: the fuzzer cuts at 4 KB).
cp "$t"/bsondump/testdata/*.bson corpus/scan_profile/
for f in "$t"/mongorestore/testdata/*.archive "$t"/mongorestore/testdata/timeseries_tests/dump.archive; do cp "$f" corpus/archive/; done
cp "$t"/mongorestore/testdata/prelude_test/prelude_gzip/test/*.gz corpus/gzip_any/
for f in corpus/bson_framing/sample.bson corpus/archive/test.bar.archive; do gzip -c "$f" > "corpus/gzip_any/$(basename "$f").gz"; done
head -c 4000 "$data"/atlas-sample-ejson/sample_mflix/users.json > corpus/json_stream/users.json
cp "$t"/mongoimport/testdata/test_array.json "$t"/bsondump/testdata/sample.json corpus/json_stream/
# One document per seed for the transcoder, from the corpus' canonical forms too.
i=0
while IFS= read -r line; do i=$((i+1)); printf '%s' "$line" > "corpus/ejson/line$i.json"; [ $i -ge 40 ] && break; done < "$t"/bsondump/testdata/sample.json
python3 - "$data/bson-corpus" corpus/ejson <<'PY'
import json, sys, glob, os
src, dst = sys.argv[1], sys.argv[2]
n = 0
for f in sorted(glob.glob(os.path.join(src, "*.json"))):
    d = json.load(open(f))
    for c in d.get("valid", [])[:6]:
        for k in ("canonical_extjson", "relaxed_extjson", "degenerate_extjson"):
            if k in c:
                n += 1
                open(os.path.join(dst, f"c{n}.json"), "w").write(c[k])
PY
# DDL: the shared sample schemas (cut to the fuzzer's 4 KB) and the
# project's own SQL fixtures.
sql=$data/../sql
for f in "$sql"/sakila/postgres-sakila-db/postgres-sakila-schema.sql "$sql"/sakila/mysql-sakila-db/mysql-sakila-schema.sql \
    "$sql"/northwind/northwind.sql "$sql"/chinook/ChinookDatabase/DataSources/Chinook_PostgreSql.sql \
    "$sql"/rubis/database/rubis.sql; do
    if [ -f "$f" ]; then head -c 4000 "$f" > "corpus/sql_import/$(basename "$f")"; fi
done
cp ../crates/squill/tests/fixtures/sql/*.sql corpus/sql_import/ 2>/dev/null || true
# The shapes issue 40 names: hostile names, GO batches, schema elements
# and domains, a LATIN1 dump, link tables.
printf 'CREATE TABLE "a.b" ("$id" int PRIMARY KEY, "_id" int, "x\ny" text, "null" text);\nCREATE TABLE "$m" (id int PRIMARY KEY, r int REFERENCES "a.b"("$id"));\n' > corpus/sql_import/names.sql
printf 'CREATE TABLE [dbo].[A] ([Id] INT NOT NULL PRIMARY KEY)\nGO\nCREATE TABLE [dbo].[B] ([Id] INT PRIMARY KEY, [AId] INT REFERENCES [dbo].[A]([Id]))\nGO\n' > corpus/sql_import/go.sql
printf 'CREATE DOMAIN "Name" varchar(50) NULL;\nCREATE SCHEMA p CREATE TABLE e (id serial PRIMARY KEY) CREATE TABLE q (id int PRIMARY KEY REFERENCES e, n "Name");\n' > corpus/sql_import/schema.sql
printf "SET client_encoding = 'LATIN1';\nCREATE TABLE caf\xe9 (id int PRIMARY KEY);\n" > corpus/sql_import/latin1.sql
printf 'CREATE TABLE u (id int PRIMARY KEY);\nCREATE TABLE f (a int REFERENCES u(id), b int REFERENCES u(id), PRIMARY KEY (a, b));\nCREATE TABLE g (a int REFERENCES u(id), b int REFERENCES u(id), PRIMARY KEY (a, b));\n' > corpus/sql_import/links.sql
