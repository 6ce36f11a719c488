//! What one shape did over the log: counts, time, examined and returned
//! documents, plans, errors. Fixed size per shape (a few capped lists and
//! the latency sketch), so memory follows the number of shapes, not lines.

use super::entry::Op;
use super::shape::Observed;
use super::sketch::Sketch;

/// Distinct plans and error codes kept per shape; the rest are counted together.
const MAX_PLANS: usize = 8;
const MAX_ERROR_CODES: usize = 16;

#[derive(Debug, Clone, Default)]
pub struct ShapeStats {
    /// Executions (a folded getMore is not one: it continues one).
    pub count: u64,
    /// getMores folded into this shape's cursors.
    pub getmores: u64,
    /// Milliseconds, executions and their getMores together.
    pub total_ms: u64,
    pub latency: Sketch,
    /// Sums over the entries that report them, and how many did.
    pub keys_examined: u64,
    pub docs_examined: u64,
    pub returned: u64,
    pub measured: u64,
    pub plans: Vec<(String, u64)>,
    pub other_plans: u64,
    pub in_memory_sorts: u64,
    pub errors: Vec<(i64, u64)>,
    pub other_errors: u64,
    pub largest_in: u64,
    pub unanchored_regex: u64,
    pub case_insensitive_regex: u64,
    /// Executions that may write many documents (`Observed::multi`).
    pub multi: u64,
    /// The largest `limit` and geo radius (metres) the executions show
    /// (`Observed::limit`, `Observed::radius_m`).
    pub limit: Option<u64>,
    pub radius_m: Option<f64>,
    /// The largest radius was a flat search's, taken as degrees.
    pub radius_flat: Option<super::shape::FlatRadius>,
    /// The largest area of a `$geoWithin` by a shape, km² (`Observed::area_km2`).
    pub area_km2: Option<f64>,
    pub example: Option<String>,
}

impl ShapeStats {
    pub fn add(&mut self, entry: &Op, seen: Observed) {
        let m = &entry.metrics;
        if entry.folded_getmore {
            self.getmores += 1;
        } else {
            self.count += 1;
            if let Some(ms) = m.duration_ms {
                self.latency.add(ms);
            }
        }
        self.total_ms = self.total_ms.saturating_add(m.duration_ms.unwrap_or(0));
        if m.keys_examined.is_some() || m.docs_examined.is_some() || m.returned.is_some() {
            self.measured += 1;
            self.keys_examined = self
                .keys_examined
                .saturating_add(m.keys_examined.unwrap_or(0));
            self.docs_examined = self
                .docs_examined
                .saturating_add(m.docs_examined.unwrap_or(0));
            self.returned = self.returned.saturating_add(m.returned.unwrap_or(0));
        }
        // A getMore continues its cursor's plan: counting it again would
        // count one plan twice.
        if let Some(plan) = entry.plan.as_ref().filter(|_| !entry.folded_getmore) {
            if let Some((_, n)) = self.plans.iter_mut().find(|(p, _)| p == plan) {
                *n += 1;
            } else if self.plans.len() < MAX_PLANS {
                self.plans.push((plan.clone(), 1));
            } else {
                self.other_plans += 1;
            }
        }
        if m.in_memory_sort && !entry.folded_getmore {
            self.in_memory_sorts += 1;
        }
        if let Some(code) = m.error_code.filter(|c| *c != 0) {
            if let Some((_, n)) = self.errors.iter_mut().find(|(c, _)| *c == code) {
                *n += 1;
            } else if self.errors.len() < MAX_ERROR_CODES {
                self.errors.push((code, 1));
            } else {
                self.other_errors += 1;
            }
        }
        self.largest_in = self.largest_in.max(seen.largest_in);
        self.unanchored_regex += u64::from(seen.unanchored_regex);
        self.case_insensitive_regex += u64::from(seen.case_insensitive_regex);
        self.multi += u64::from(seen.multi);
        self.limit = self.limit.max(seen.limit);
        if let Some(r) = seen
            .radius_m
            .filter(|r| self.radius_m.is_none_or(|s| *r > s))
        {
            self.radius_m = Some(r);
            self.radius_flat = seen.radius_flat;
        }
        if let Some(a) = seen
            .area_km2
            .filter(|a| self.area_km2.is_none_or(|s| *a > s))
        {
            self.area_km2 = Some(a);
        }
        if self.example.is_none() {
            self.example.clone_from(&entry.example);
        }
    }
}
