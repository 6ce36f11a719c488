//! The caller's amount (`increments: {available: -quantity}`, issue 41):
//! the helpers a cookbook with one carries, and the check each function
//! makes before it writes.
//!
//! - The model gives the amount's sign; the caller gives its size. A
//!   negative or zero amount would turn a take into an addition (the guard
//!   `available >= -5` holds), so each function refuses an amount that is
//!   not above 0 before its first write.
//! - The opposite of an amount keeps the caller's numeric type. In
//!   JavaScript `0 - x` turns a `Long` or a `Decimal128` into a number (a
//!   double): `$inc` by it writes a double into a long field, which its
//!   validator refuses, and a decimal one inexactly. In Python a
//!   `Decimal128` has no `-` at all.
//!
//! The guard lines themselves are rendered by render.rs (`amount_guards`).

use super::code::{OpCode, ParamKind};

/// Whether any function takes an amount from its caller (and so needs the
/// helpers below).
pub(super) fn takes_amounts(ops: &[OpCode]) -> bool {
    ops.iter()
        .any(|o| o.params.iter().any(|p| p.kind == ParamKind::Amount))
}

/// The helpers in JavaScript (mongosh and Node.js alike: both work on the
/// value's own class, so neither needs the driver's `Long` or `Decimal128`
/// in scope).
pub(super) const JS_HELPER: &str = "\n// An amount the caller passes must be above 0: the model gives its sign, and a negative one\n\
     // would add what the write means to take. `x > 0` compares a Long's or a Decimal128's value.\n\
     function mustBePositive(fn, name, x) {\n\
     \x20 if (typeof x === \"boolean\" || !(x > 0)) throw new Error(`${fn}: ${name} must be an amount above 0, not ${x}`);\n\
     }\n\n\
     // The opposite of an amount, in its own type: `0 - x` makes a Long or a Decimal128 a\n\
     // double, which `$inc` writes into a long field as a double (its validator refuses it)\n\
     // and into a decimal one inexactly.\n\
     function negated(x) {\n\
     \x20 if (x !== null && typeof x === \"object\" && x._bsontype === \"Long\") return x.negate();\n\
     \x20 if (x !== null && typeof x === \"object\" && x._bsontype === \"Decimal128\") {\n\
     \x20   const s = x.toString();\n\
     \x20   return x.constructor.fromString(s.startsWith(\"-\") ? s.slice(1) : \"-\" + s);\n\
     \x20 }\n\
     \x20 if (typeof x === \"bigint\") return -x;\n\
     \x20 // `0 - x`, not `-x`: `-0` is a negative zero, which the driver sends as a double.\n\
     \x20 return 0 - x;\n\
     }\n";

/// The helpers in Python.
pub(super) const PY_HELPER: &str = "\n\n\
     def _must_be_positive(fn, name, x):\n\
     \x20   \"\"\"Refuses an amount the caller passes that is not above 0: the model gives its\n\
     \x20   sign, and a negative one would add what the write means to take.\"\"\"\n\
     \x20   v = x.to_decimal() if hasattr(x, \"to_decimal\") else x\n\
     \x20   if isinstance(v, bool) or not v > 0:\n\
     \x20       raise ValueError(f\"{fn}: {name} must be an amount above 0, not {x!r}\")\n\n\n\
     def _negated(x):\n\
     \x20   \"\"\"The opposite of an amount, in its own type (a Decimal128 has no `-`).\"\"\"\n\
     \x20   if hasattr(x, \"to_decimal\"):\n\
     \x20       return type(x)(-x.to_decimal())\n\
     \x20   return type(x)(-x)\n";
