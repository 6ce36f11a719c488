// Runs many mongosh scripts in one long-lived mongosh, for the integration
// tests (issue 47):
//
//     mongosh --quiet --norc --nodb serve_mongosh.js
//
// Starting mongosh costs 1.2-1.5 s of CPU (Node.js loading mongosh), more
// than most of the scripts the tests run, and a migration case ran it 4 to
// 7 times. The tests' harness (crates/squill-cli/tests/integration/
// mongosh_server.rs) writes one request per line on stdin:
//
//     {"uri": URI, "file": PATH}
//
// and each runs as `mongosh --quiet --norc URI PATH` would: `db` is URI's
// database; an uncaught error ends it with exit status 1 and the error as
// mongosh prints it on standard error, `quit(n)` with status n.
// What the scripts print comes on stdout as it is printed, followed by one
// line that starts with RS (U+001E), "squill-mongosh-reply " and a JSON
// object {"code": EXIT_STATUS, "error": TEXT}; what is written to standard
// error comes on stdout too, in order, so that a request's output is all of
// it. The server exits at the end of its input.
//
// What a process of its own gave that one process must do on purpose:
// - Each script runs in a function scope of its own (its text between
//   `(function () {` and `})();`, on its first and after its last line, so
//   that line numbers stay): a top-level declaration of one script (a
//   helper, a constant) is not seen by the next, so a script that uses a
//   helper it does not define fails here as it would alone. mongosh's
//   global scope keeps every top-level name of a loaded file, and they
//   cannot be deleted.
// - `quit()` and `exit()` end the script, not this server.
// - The driver's own names live in this function, not in the global scope.
(function serve() {
  const fs = require("fs");
  const os = require("os");
  const path = require("path");
  const vm = require("vm");

  const REPLY = "\u001esquill-mongosh-reply ";
  const QUIT = "squillMongoshServerQuit";

  // What a script writes to standard error belongs to its request's output.
  process.stderr.write = process.stdout.write.bind(process.stdout);

  const quit = (code) => {
    const e = new Error("quit() in a served script");
    e[QUIT] = typeof code === "number" ? code : 0;
    throw e;
  };
  globalThis.quit = quit;
  globalThis.exit = quit;

  // mongosh rewrites the text of every script it loads so that its calls
  // wait for the server (@mongosh/async-rewriter2: four babel passes over
  // the text), and that was most of this process's CPU: 7 of the 10 s one
  // migration shard used, which loads each migration.js three times (issue
  // 47; BENCHMARKS.md, "Test suite time"). The rewrite is a function of the
  // text alone, so a text loaded again takes its earlier rewrite. (Where
  // mongosh is laid out otherwise and the module is not found, every load
  // rewrites, as a mongosh of its own would.)
  try {
    const writer = require("@mongosh/async-rewriter2").default.prototype;
    const rewrite = writer.process;
    const rewritten = new Map();
    writer.process = function rewriteOnce(code) {
      let out = rewritten.get(code);
      if (out === undefined) {
        out = rewrite.call(this, code);
        // The most recent texts only: a worker serves hundreds of scripts.
        if (rewritten.size >= 32) rewritten.delete(rewritten.keys().next().value);
        rewritten.set(code, out);
      }
      return out;
    };
  } catch {
    // Not found: no cache.
  }

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "squill-mongosh-"));
  let serial = 0;
  // The file mongosh loads for one script: its text in a function scope.
  const scoped = (name, text) => {
    serial += 1;
    const dir = path.join(scratch, String(serial));
    fs.mkdirSync(dir);
    const file = path.join(dir, path.basename(name));
    fs.writeFileSync(file, `(function () {${text}\n})();\n`);
    return file;
  };
  // Whether a script's text parses: one that does not is loaded as it is,
  // so that mongosh reports its syntax error as it would alone (where the
  // function around it would shift the position), having run nothing.
  const parses = (text) => {
    try {
      new vm.Script(text);
      return true;
    } catch {
      return false;
    }
  };

  // One client per server (the URI without its database), kept open.
  const clients = {};
  const database = (uri) => {
    const m = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(?:\/([^?]*))?(\?.*)?$/.exec(uri);
    if (m === null) throw new Error(`serve_mongosh: not a MongoDB URI: ${uri}`);
    const base = `${m[1]}/${m[3] || ""}`;
    if (!clients[base]) clients[base] = connect(base);
    return clients[base].getSiblingDB(decodeURIComponent(m[2] || "test"));
  };

  // The requests are read from a blocking descriptor of standard input:
  // mongosh leaves descriptor 0 non-blocking, and reading it in a loop
  // that retried on EAGAIN kept this process busy the whole time it
  // waited for the next request, about a third of a core on this
  // machine (issue 47; BENCHMARKS.md, "Test suite time"). Reopening the
  // pipe (/dev/stdin, a new open file description) gives a descriptor of
  // its own that blocks; where that cannot be done, a failed read sleeps
  // before it tries again instead of spinning.
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
        // The end of the input: its last line, if it has no newline.
        const last = pending;
        pending = "";
        return last === "" ? null : last;
      }
      pending += buffer.toString("utf8", 0, n);
    }
  };

  // As mongosh prints an uncaught error of a script file: its name and
  // message (the stack would point into mongosh's rewriting of the file).
  // (Not `instanceof Error`: the driver's errors come from another realm.)
  const describe = (e) =>
    e !== null && typeof e === "object" && typeof e.message === "string"
      ? `${e.name}: ${e.message}`
      : String(e);

  for (let line = readLine(); line !== null; line = readLine()) {
    if (line.trim() === "") continue;
    let code = 0;
    let error = "";
    try {
      const request = JSON.parse(line);
      db = database(request.uri);
      const text = fs.readFileSync(request.file, "utf8");
      if (parses(text)) {
        const file = scoped(request.file, text);
        try {
          load(file);
        } finally {
          fs.rmSync(path.dirname(file), { recursive: true, force: true });
        }
      } else {
        load(request.file);
      }
    } catch (e) {
      if (e !== null && typeof e === "object" && QUIT in e) {
        code = e[QUIT];
      } else {
        code = 1;
        error = describe(e);
      }
    }
    print(REPLY + JSON.stringify({ code, error }));
  }
  fs.rmSync(scratch, { recursive: true, force: true });
})();
