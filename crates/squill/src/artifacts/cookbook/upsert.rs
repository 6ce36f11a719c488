//! The cookbook's part of an upsert (`otherwise: insert`): the retry of an
//! upsert on a unique key that lost a race (E11000), and the new element's
//! own `_id` (`ObjectId()`), each a helper the module carries only when an
//! operation needs it.

use super::code::{Expr, OpCode, Update};

/// Whether an operation upserts a document of its own on its unique key
/// (`StepCode::retry_duplicate`).
pub(super) fn retries_duplicates(ops: &[OpCode]) -> bool {
    ops.iter()
        .any(|o| o.steps.iter().any(|s| s.retry_duplicate))
}

/// Whether an operation pushes an element with a new `_id`.
pub(super) fn makes_ids(ops: &[OpCode]) -> bool {
    ops.iter().any(|o| {
        o.steps.iter().any(|s| {
            s.updates.iter().any(|u| match u {
                Update::Push {
                    item: Expr::Doc(fields),
                    ..
                } => fields.iter().any(|(_, e)| *e == Expr::NewId),
                _ => false,
            })
        })
    })
}

/// Of two callers that upsert the same new key at once, both find no
/// document and both insert; the unique index refuses the second with a
/// duplicate key error (E11000). Run again, its write finds the first
/// caller's document and adds to it. Any other error is thrown.
pub(super) const JS_RETRY_HELPER: &str = "\n// An upsert on a unique key: of two callers adding the same key at once, the second gets a\n\
     // duplicate key error (E11000); run again, its write finds the first one's document.\n\
     function retryDuplicate(write) {\n\
     \x20 try {\n\
     \x20   return write();\n\
     \x20 } catch (e) {\n\
     \x20   if (e.code !== 11000) throw e;\n\
     \x20   return write();\n\
     \x20 }\n\
     }\n";

/// `JS_RETRY_HELPER` for the Node.js driver, whose writes are promises.
pub(super) const NODE_RETRY_HELPER: &str = "\n// An upsert on a unique key: of two callers adding the same key at once, the second gets a\n\
     // duplicate key error (E11000); run again, its write finds the first one's document.\n\
     async function retryDuplicate(write) {\n\
     \x20 try {\n\
     \x20   return await write();\n\
     \x20 } catch (e) {\n\
     \x20   if (e.code !== 11000) throw e;\n\
     \x20   return await write();\n\
     \x20 }\n\
     }\n";

/// `JS_RETRY_HELPER` in Python.
pub(super) const PY_RETRY_HELPER: &str = "\n\nfrom pymongo.errors import DuplicateKeyError  # noqa: E402 (only an upsert needs it)\n\n\n\
     def _retry_duplicate(write):\n\
     \x20   \"\"\"An upsert on a unique key: of two callers adding the same key at once, the second gets a\n\
     \x20   duplicate key error (E11000); run again, its write finds the first one's document.\"\"\"\n\
     \x20   try:\n\
     \x20       return write()\n\
     \x20   except DuplicateKeyError:\n\
     \x20       return write()\n";

/// The import of `ObjectId` in Python, for a new element's `_id`.
pub(super) const PY_OBJECT_ID: &str =
    "\n\nfrom bson import ObjectId  # noqa: E402 (only an element added by an upsert needs it)\n";

/// The import of `ObjectId` in Node.js (mongosh has it built in).
pub(super) const NODE_OBJECT_ID: &str = "\nconst { ObjectId } = require(\"mongodb\");\n";
