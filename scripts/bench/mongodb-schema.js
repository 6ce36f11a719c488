#!/usr/bin/env node
// Feeds the documents of .bson files (or every .bson under a directory) to
// mongodb-schema, the analyzer behind MongoDB Compass's schema tab, one
// collection at a time, streaming (never more than one file's documents in
// flight), and prints documents, bytes, seconds and documents per second.
// usage: node scripts/bench/mongodb-schema.js PATH...
const path = require('path');
const fs = require('fs');
const root = path.resolve(__dirname, '..', '..');
const mod = path.join(root, 'bench-data', 'node', 'node_modules');
const { parseSchema } = require(path.join(mod, 'mongodb-schema'));
const BSON = require(path.join(mod, 'bson'));

function bsonFiles(p) {
  const st = fs.statSync(p);
  if (st.isFile()) return [p];
  return fs.readdirSync(p).sort().flatMap((n) => bsonFiles(path.join(p, n)))
    .filter((f) => f.endsWith('.bson') && !path.basename(f).startsWith('system.'));
}

// Reads a file in 8 MiB chunks and yields its documents, decoded.
async function* documents(file, stats) {
  const fd = fs.openSync(file, 'r');
  let buf = Buffer.alloc(0);
  const chunk = Buffer.alloc(8 << 20);
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    buf = Buffer.concat([buf, chunk.subarray(0, n)]);
    let at = 0;
    while (at + 4 <= buf.length) {
      const len = buf.readInt32LE(at);
      if (at + len > buf.length) break;
      stats.bytes += len;
      stats.docs += 1;
      yield BSON.deserialize(buf.subarray(at, at + len), { promoteValues: true });
      at += len;
    }
    buf = buf.subarray(at);
  }
  fs.closeSync(fd);
}

(async () => {
  const files = process.argv.slice(2).flatMap(bsonFiles);
  const stats = { docs: 0, bytes: 0 };
  const t0 = process.hrtime.bigint();
  let fields = 0;
  for (const f of files) {
    if (fs.statSync(f).size === 0) continue;
    const schema = await parseSchema(documents(f, stats), { storeValues: false });
    fields += schema.fields.length;
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(JSON.stringify({
    tool: 'mongodb-schema', files: files.length, documents: stats.docs, bytes: stats.bytes,
    top_level_fields: fields, seconds: +s.toFixed(3),
    docs_per_second: Math.round(stats.docs / s), mb_per_second: +(stats.bytes / s / 1e6).toFixed(2),
  }));
})();
