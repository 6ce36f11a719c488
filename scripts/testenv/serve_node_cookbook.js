// Runs functions of generated Node.js cookbooks (cookbook.js) with the
// mongodb Node.js driver, for check_generated.py --node: the same checks
// as the Python cookbook's, on what the Node.js code really does against
// the server (issue 41). One long-lived process per Python checker (its
// `node_cookbook` module starts it on first use): starting node and
// loading the driver costs more than most calls (issue 47).
//
//     node serve_node_cookbook.js        (NODE_PATH: where `mongodb` is)
//
// One request per line on stdin, one reply per line on stdout:
//
//     request  {"uri": URI, "db": NAME, "cookbook": PATH, "fn": NAME, "args": EJSON, "plain": [INDEX]}
//     reply    {"result": EJSON}   or   {"error": TEXT}
//
// `args` is canonical Extended JSON of the function's arguments after
// `db`, in its parameters' order; `result` the function's result in the
// Python cookbook's shape: a find's documents as they are, a write's
// counts under pymongo's names (`matched_count`, `inserted_ids`, ...).
// Exits at the end of its input, closing its clients.

const readline = require("readline");
const { MongoClient, BSON } = require("mongodb");

const { EJSON } = BSON;

const clients = new Map();
const client = async (uri) => {
  if (!clients.has(uri)) clients.set(uri, await MongoClient.connect(uri, { serverSelectionTimeoutMS: 10000 }));
  return clients.get(uri);
};

// A write result's counts under pymongo's names; anything else (a find's
// documents, a claimed document, null) as it is.
const COUNTS = [
  ["matchedCount", "matched_count"],
  ["modifiedCount", "modified_count"],
  ["upsertedId", "upserted_id"],
  ["insertedId", "inserted_id"],
  ["insertedIds", "inserted_ids"],
  ["deletedCount", "deleted_count"],
];
function pythonShape(v) {
  // A batch upserted a chunk at a time returns one result per chunk.
  if (Array.isArray(v)) return v.map(pythonShape);
  if (v === null || v === undefined || typeof v !== "object") return v;
  if (!COUNTS.some(([js]) => js in v) || !("acknowledged" in v || "ok" in v)) return v;
  const out = {};
  for (const [js, py] of COUNTS) {
    if (!(js in v) || v[js] === undefined) continue;
    // insertMany's ids are an object by position; pymongo's a list.
    out[py] = js === "insertedIds" ? Object.keys(v[js]).sort((a, b) => a - b).map((k) => v[js][k]) : v[js];
  }
  return out;
}

async function serve(request) {
  const { uri, db, cookbook, fn, args, plain } = request;
  const functions = require(cookbook);
  if (typeof functions[fn] !== "function") throw new Error(`${cookbook} exports no function ${fn}`);
  const values = EJSON.parse(args, { relaxed: false });
  // Arguments a caller passes as plain numbers (a batch's size).
  for (const i of plain || []) if (values[i] != null) values[i] = Number(values[i]);
  const result = await functions[fn]((await client(uri)).db(db), ...values);
  const shaped = {};
  for (const [k, v] of Object.entries(result)) shaped[k] = pythonShape(v);
  return EJSON.stringify(shaped, { relaxed: false });
}

async function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let reply;
    try {
      reply = { result: await serve(JSON.parse(line)) };
    } catch (e) {
      reply = { error: `${(e && e.name) || "Error"}: ${(e && e.message) || e}` };
    }
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
  for (const c of clients.values()) await c.close();
}

main().catch((e) => {
  process.stderr.write(`serve_node_cookbook: ${e && e.stack}\n`);
  process.exit(1);
});
