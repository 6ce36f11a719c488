//! One logged operation, as both readers hand it to the collector: where it
//! ran, the command in its modern form (`{find: "c", filter: …}`, `{update:
//! "c", updates: [{q, u}]}`), and what mongod measured.

use super::node::Node;
use super::shape::{self, Observed, Shape};

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Milliseconds since the epoch (UTC), when the line has a time.
    pub time: Option<i64>,
    /// The namespace the line names (`shop.orders`, `shop.$cmd`).
    pub ns: String,
    /// The command, normalized to the form a modern driver sends.
    pub command: Node,
    /// A getMore whose originating command is known: `command` is that
    /// originating command, and the statistics fold into its shape.
    pub folded_getmore: bool,
    pub metrics: Metrics,
    /// `planSummary` as mongod wrote it (`IXSCAN { a: 1 }`, `COLLSCAN`).
    pub plan: Option<String>,
    /// The connection (`conn22`): a write's WRITE and COMMAND entries share it.
    pub connection: Option<String>,
    /// A structured log's WRITE entry (one statement of a write command).
    pub write_statement: bool,
    /// The filter as the log wrote it, kept only under `--show-values`.
    pub example: Option<String>,
}

/// What mongod measured; absent figures stay `None`, never zero.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Metrics {
    pub duration_ms: Option<u64>,
    pub keys_examined: Option<u64>,
    pub docs_examined: Option<u64>,
    pub returned: Option<u64>,
    /// `hasSortStage` (3.2+) or `scanAndOrder` (older): the sort ran in memory.
    pub in_memory_sort: bool,
    /// `errCode` (4.4+ JSON, 4.2 text) or `code` (older text).
    pub error_code: Option<i64>,
}

impl Entry {
    /// The database and collection of the namespace; a command on `db.$cmd`
    /// names its collection in its first field (`{update: "orders"}`), a
    /// getMore in `collection`.
    pub fn namespace(&self) -> (&str, &str) {
        let (db, coll) = self.ns.split_once('.').unwrap_or((self.ns.as_str(), ""));
        let named = self
            .command
            .get("collection")
            .filter(|_| self.command.first_key() == Some("getMore"))
            .or_else(|| self.command.fields().first().map(|(_, v)| v))
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty());
        let coll = match named {
            Some(name) if coll.is_empty() || coll.starts_with("$cmd") || coll != name => name,
            _ => coll,
        };
        (db, coll)
    }
}

/// An entry as the collector counts it: the command reduced to what the
/// counting needs, its shape and name, worked out on the reading threads so
/// that the collector's work, in line order on one thread, stays small.
#[derive(Debug)]
pub struct Op {
    pub time: Option<i64>,
    /// `db.coll`, from `Entry::namespace` (a database name has no dot).
    pub ns: String,
    /// The command's shape, `None` for commands that read or write no
    /// collection.
    pub shape: Option<(Shape, Observed)>,
    /// The command's name, kept only when it has no shape (`hello`).
    pub other_name: Option<String>,
    /// An `update`, `delete` or `insert` command: its statements may have
    /// their own entries.
    pub write_command: bool,
    pub folded_getmore: bool,
    pub metrics: Metrics,
    pub plan: Option<String>,
    pub connection: Option<String>,
    pub write_statement: bool,
    pub example: Option<String>,
}

impl Op {
    pub fn new(entry: Entry) -> Op {
        let (db, coll) = entry.namespace();
        // Most often the line's namespace is already `db.coll`.
        let ns = if entry.ns.len() == db.len() + 1 + coll.len() && entry.ns.ends_with(coll) {
            None
        } else {
            Some(format!("{db}.{coll}"))
        };
        let shape = shape::of(&entry.command, entry.folded_getmore);
        let name = entry.command.first_key().unwrap_or("");
        Op {
            time: entry.time,
            ns: ns.unwrap_or(entry.ns),
            other_name: shape.is_none().then(|| name.to_string()),
            write_command: matches!(name, "update" | "delete" | "insert"),
            shape,
            folded_getmore: entry.folded_getmore,
            metrics: entry.metrics,
            plan: entry.plan,
            connection: entry.connection,
            write_statement: entry.write_statement,
            example: entry.example,
        }
    }

    /// The database and the collection.
    pub fn namespace(&self) -> (&str, &str) {
        self.ns.split_once('.').unwrap_or((self.ns.as_str(), ""))
    }
}
