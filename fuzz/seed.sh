#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from ../shared/data (never committed).
set -euo pipefail
cd "$(dirname "$0")"
data=../../shared/data/mongo
[ -d "$data" ] || data=/work/shared/data/mongo
t=$data/mongo-tools-testdata
mkdir -p corpus/{bson_framing,ejson,archive,gzip_any,json_stream,model_file,scan_profile}
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
