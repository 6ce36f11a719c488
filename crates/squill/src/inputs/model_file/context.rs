//! The validation context: turns source locations into positions and collects
//! every problem instead of stopping at the first.

use super::error::{Position, Problem};
use super::raw::S;
use serde_saphyr::Location;

pub(super) struct Ctx<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub problems: Vec<Problem>,
    /// Names of relationships (and their field names) that were declared but
    /// could not be resolved: their own problem is reported once, and uses of
    /// them are not reported again.
    pub unresolved: Vec<String>,
    /// Each age filter (`since(90 days)`) with the entity it tests: its
    /// share needs that entity's insert rate, known once every operation is read.
    /// Age filters (`since`, `before`): the entity, the date field, the
    /// filter, and where it is written.
    pub aged: Vec<(
        crate::model::EntityId,
        String,
        crate::model::Age,
        Option<Position>,
    )>,
    /// The model's entities by name, built on the first look-up of a model
    /// with that many entities: each operation names its entity, and a
    /// walk of the entities per operation made reading a model of 10,000
    /// quadratic (issue 45).
    entities: (usize, rustc_hash::FxHashMap<String, crate::model::EntityId>),
}

impl<'a> Ctx<'a> {
    pub(super) fn new(file: &'a str, text: &'a str) -> Self {
        Ctx {
            file,
            text,
            problems: Vec::new(),
            unresolved: Vec::new(),
            aged: Vec::new(),
            entities: (0, rustc_hash::FxHashMap::default()),
        }
    }

    /// `model.entity_by_name(name)`, from an index of the names.
    pub(super) fn entity_named(
        &mut self,
        model: &crate::model::Model,
        name: &str,
    ) -> Option<crate::model::EntityId> {
        if self.entities.0 != model.entities.len() || self.entities.1.is_empty() {
            let mut map = rustc_hash::FxHashMap::default();
            for e in model.entity_ids() {
                // The first of a name, as `entity_by_name` finds it.
                map.entry(model.entity(e).name.clone()).or_insert(e);
            }
            self.entities = (model.entities.len(), map);
        }
        // A hit is checked against the model, and a miss asks the model:
        // the index cannot give a wrong answer if the names changed.
        match self.entities.1.get(name) {
            Some(e)
                if model
                    .entities
                    .get(e.index())
                    .is_some_and(|x| x.name == name) =>
            {
                Some(*e)
            }
            _ => model.entity_by_name(name),
        }
    }

    pub(super) fn position(&self, loc: Location) -> Option<Position> {
        position(self.text, loc)
    }

    pub(super) fn pos<T>(&self, s: &S<T>) -> Option<Position> {
        self.position(s.referenced)
    }

    /// Records a problem at `at`.
    pub(super) fn error(
        &mut self,
        at: Option<Position>,
        message: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) {
        self.problems.push(Problem {
            file: self.file.to_string(),
            position: at.or(Some(Position::at_offset(self.text, 0, 0))),
            message: message.into(),
            label: label.into(),
            help,
        });
    }

    /// Whether `name` refers to a relationship whose declaration already failed.
    pub(super) fn is_unresolved(&self, name: &str) -> bool {
        self.unresolved.iter().any(|n| n == name)
    }

    /// `value` as a finite number ≥ 0, or a recorded problem.
    pub(super) fn non_negative(&mut self, value: &S<f64>, what: &str) -> Option<f64> {
        let v = value.value;
        if !v.is_finite() {
            self.error(
                self.pos(value),
                format!("{what} must be a finite number, found `{}`", shown(v)),
                "not a finite number",
                None,
            );
            return None;
        }
        if v < 0.0 {
            self.error(
                self.pos(value),
                format!("{what} must not be negative, found {}", shown(v)),
                "negative",
                Some(format!("write a number ≥ 0 for {what}")),
            );
            return None;
        }
        Some(v)
    }

    /// `value` as a rate per second: finite, ≥ 0 and at most `MAX_RATE` (a
    /// rate of 1e308 would print 300-digit figures and overflow the totals).
    pub(super) fn rate(&mut self, value: &S<f64>, what: &str) -> Option<f64> {
        let v = self.non_negative(value, what)?;
        let per_second = format!("{what} per second");
        self.within(value, v, &per_second, MAX_RATE, "no deployment runs more")
    }

    /// `value` as a number from 0 to `max`, or a recorded problem with `why`.
    pub(super) fn at_most(
        &mut self,
        value: &S<f64>,
        what: &str,
        max: f64,
        why: &str,
    ) -> Option<f64> {
        let v = self.non_negative(value, what)?;
        self.within(value, v, what, max, why)
    }

    /// `v` (read from `value`) when at most `max`, else a recorded problem.
    fn within(&mut self, value: &S<f64>, v: f64, what: &str, max: f64, why: &str) -> Option<f64> {
        if v > max {
            self.error(
                self.pos(value),
                format!(
                    "{what} is too large: {} (at most {}: {why})",
                    shown(v),
                    crate::words::num(max)
                ),
                "too large",
                None,
            );
            return None;
        }
        Some(v)
    }

    /// `value` as a whole number ≥ `min` and at most `MAX_WHOLE`, or a
    /// recorded problem.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // checked below
    pub(super) fn whole(&mut self, value: &S<f64>, what: &str, min: u64) -> Option<u64> {
        let v = self.non_negative(value, what)?;
        if v > MAX_WHOLE as f64 {
            self.error(
                self.pos(value),
                format!("{what} is too large: {} (at most 9e15)", shown(v)),
                "too large",
                None,
            );
            return None;
        }
        if v.fract() != 0.0 {
            self.error(
                self.pos(value),
                format!("{what} must be a whole number, found {v}"),
                "not a whole number",
                None,
            );
            return None;
        }
        let n = v as u64;
        if n < min {
            self.error(
                self.pos(value),
                format!("{what} must be at least {min}, found {n}"),
                "too small",
                None,
            );
            return None;
        }
        Some(n)
    }
}

/// Position of a saphyr location in `text`; `None` when the location is unknown.
pub(super) fn position(text: &str, loc: Location) -> Option<Position> {
    let line = usize::try_from(loc.line()).ok()?;
    let column = usize::try_from(loc.column()).ok()?;
    if line == 0 {
        return None;
    }
    let span = loc.span();
    match (span.byte_offset(), span.byte_len()) {
        (Some(off), len) => {
            let off = usize::try_from(off).ok()?;
            let len = len.and_then(|l| usize::try_from(l).ok()).unwrap_or(0);
            // Line and column come from the parser: only clamp the byte range
            // (no scan of the text, which would make big files quadratic).
            let mut start = off.min(text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = start.saturating_add(len).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            Some(Position {
                line,
                column,
                offset: start,
                len: end - start,
            })
        }
        (None, _) => Some(Position::at_line_column(text, line, column, 0)),
    }
}

/// The largest rate a model may give, per second.
pub(super) const MAX_RATE: f64 = 1e9;

/// MongoDB's BSON document limit: no field, and no array's element count, can
/// be larger.
pub(super) const MAX_DOCUMENT_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

/// A number as the user may have written it: `1e308`, not 309 digits.
fn shown(v: f64) -> String {
    if v.is_finite() && v != 0.0 && !(1e-6..1e15).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The largest whole number (a count, a `limit`) a model takes: below
/// 2^53, so it is exact as the float YAML reads it as. `scan
/// --emit-model` caps a log's limit at it.
pub const MAX_WHOLE: u64 = 9_000_000_000_000_000;
