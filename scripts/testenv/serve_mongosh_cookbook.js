// Runs functions of generated mongosh cookbooks (cookbook.mongosh.js) in
// one long-lived mongosh, for check_generated.py --mongosh: the checks of
// what `otherwise` promises and of the nearest-first reads, on what the
// mongosh code really does against the server (issue 41). Started by its
// `mongosh_cookbook` module on first use: starting mongosh costs more than
// most calls (issue 47).
//
//     mongosh --quiet --norc --nodb serve_mongosh_cookbook.js
//
// One request per line on stdin, one reply per line on stdout, after RS
// (U+001E) and "squill-cookbook-reply " (anything else mongosh prints
// comes before it):
//
//     request  {"uri": URI, "db": NAME, "cookbook": PATH, "fn": NAME, "args": EJSON, "plain": [INDEX]}
//     reply    {"result": EJSON}   or   {"error": TEXT}
//
// `args` is canonical Extended JSON of the function's arguments in its
// parameters' order (a mongosh function has no `db` parameter: `db` is
// the request's database); `result` the function's result in the Python
// cookbook's shape (a write's counts under pymongo's names). Exits at the
// end of its input.
(function serve() {
  const fs = require("fs");

  const REPLY = "\u001esquill-cookbook-reply ";

  // One client per URI, kept open.
  const clients = {};
  const database = (uri, name) => {
    if (!clients[uri]) clients[uri] = connect(uri);
    return clients[uri].getSiblingDB(name);
  };

  // Requests from a blocking descriptor of standard input (see
  // serve_mongosh.js: mongosh leaves descriptor 0 non-blocking).
  let input = 0;
  try {
    input = fs.openSync("/dev/stdin", "r");
  } catch {
    input = 0;
  }
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const buffer = Buffer.alloc(1 << 16);
  let pending = "";
  const readLine = () => {
    for (;;) {
      const i = pending.indexOf("\n");
      if (i >= 0) {
        const line = pending.slice(0, i);
        pending = pending.slice(i + 1);
        return line;
      }
      let n;
      try {
        n = fs.readSync(input, buffer, 0, buffer.length, null);
      } catch (e) {
        if (e.code === "EAGAIN") {
          Atomics.wait(pause, 0, 0, 5);
          continue;
        }
        throw e;
      }
      if (n === 0) {
        const last = pending;
        pending = "";
        return last === "" ? null : last;
      }
      pending += buffer.toString("utf8", 0, n);
    }
  };

  // Replies written to a blocking descriptor of standard output, whole:
  // print() to a pipe is asynchronous in Node.js, and a reply larger than
  // what the pipe took at once was left half-written while the loop
  // blocked reading the next request, which never came (a find of a
  // thousand documents hung its caller, audit43 H).
  let output = null;
  try {
    output = fs.openSync("/dev/stdout", "w");
  } catch {
    output = null;
  }
  const send = (text) => {
    if (output === null) {
      print(text);
      return;
    }
    const bytes = Buffer.from(`${text}\n`, "utf8");
    for (let at = 0; at < bytes.length; ) {
      try {
        at += fs.writeSync(output, bytes, at);
      } catch (e) {
        if (e.code !== "EAGAIN") throw e;
        Atomics.wait(pause, 0, 0, 5);
      }
    }
  };

  // A write result's counts under pymongo's names; anything else (a
  // find's documents, a claimed document, null) as it is.
  const COUNTS = [
    ["matchedCount", "matched_count"],
    ["modifiedCount", "modified_count"],
    ["upsertedId", "upserted_id"],
    ["insertedId", "inserted_id"],
    ["insertedIds", "inserted_ids"],
    ["deletedCount", "deleted_count"],
  ];
  const pythonShape = (v) => {
    // A batch upserted a chunk at a time returns one result per chunk.
    if (Array.isArray(v)) return v.map(pythonShape);
    if (v === null || v === undefined || typeof v !== "object") return v;
    if (!COUNTS.some(([js]) => js in v) || !("acknowledged" in v)) return v;
    const out = {};
    // mongosh's UpdateResult reports an upsert's new `_id` as
    // `insertedId` (with `upsertedCount`), where pymongo says `upserted_id`.
    const update = "matchedCount" in v;
    for (const [js, py] of COUNTS) {
      if (!(js in v) || v[js] === undefined) continue;
      if (update && js === "insertedId") { out.upserted_id = v[js]; continue; }
      out[py] = js === "insertedIds" ? Object.keys(v[js]).sort((a, b) => a - b).map((k) => v[js][k]) : v[js];
    }
    return out;
  };

  // The cookbook last loaded (path, time and size): its functions are global (a cookbook
  // declares nothing else at its top level), and loading another
  // replaces those of the same name.
  let loaded = null;
  const describe = (e) =>
    e !== null && typeof e === "object" && typeof e.message === "string"
      ? `${e.name}: ${e.message}`
      : String(e);

  for (let line = readLine(); line !== null; line = readLine()) {
    if (line.trim() === "") continue;
    let reply;
    try {
      const request = JSON.parse(line);
      db = database(request.uri, request.db);
      // A file written again at the same path (a test run again in this
      // process) is loaded again.
      const stat = fs.statSync(request.cookbook);
      const version = `${request.cookbook}\n${stat.mtimeMs}\n${stat.size}`;
      if (loaded !== version) {
        load(request.cookbook);
        loaded = version;
      }
      const fn = globalThis[request.fn];
      if (typeof fn !== "function") throw new Error(`${request.cookbook} defines no function ${request.fn}`);
      const values = EJSON.parse(request.args, { relaxed: false });
      // Arguments a caller passes as plain numbers (a batch's size).
      for (const i of request.plain || []) if (values[i] != null) values[i] = Number(values[i]);
      const result = fn(...values);
      const shaped = {};
      for (const [k, v] of Object.entries(result)) shaped[k] = pythonShape(v);
      reply = { result: EJSON.stringify(shaped, { relaxed: false }) };
    } catch (e) {
      reply = { error: describe(e) };
    }
    send(REPLY + JSON.stringify(reply));
  }
})();
