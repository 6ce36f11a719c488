//! How densely a field's GeoJSON Points lie: each valid point counted in
//! a cell of a longitude/latitude grid, so a scan can state the model's
//! `density:` (instances per km², typical and in the densest place) from
//! the data rather than ask for it.
//!
//! The cells start at `BASE_DEGREES` on a side (about 5.6 km north to
//! south): the scale of the reads `density` prices (a `near(3 km)` circle
//! is 28 km², a cell at 45° latitude about 22 km²). Memory is bounded: past
//! `MAX_CELLS` occupied cells the grid doubles its cell side and re-bins
//! (four cells become one), as often as it must. Re-binning is exact and
//! the cell count only grows with the points, so however the documents
//! are split and merged, the grid ends at the same level with the same
//! counts (the smallest level whose occupied cells fit).

use std::collections::BTreeMap;

/// The side of a cell at level 0, in degrees.
pub const BASE_DEGREES: f64 = 0.05;

/// The most occupied cells kept; above, the grid coarsens.
const MAX_CELLS: usize = 1 << 16;

/// The Earth's mean radius, km.
const EARTH_RADIUS_KM: f64 = 6_371.008_8;

/// Points counted per cell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PointGrid {
    /// Cells have `BASE_DEGREES << level` degrees on a side.
    level: u8,
    /// (column from longitude -180, row from latitude -90) to points.
    cells: BTreeMap<(u32, u32), u64>,
    points: u64,
}

/// A grid's densities, per km², over the points it counted (the
/// documents read, not scaled to a sampled collection's whole).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub points: u64,
    /// Occupied cells.
    pub cells: u64,
    /// A cell's side, degrees.
    pub cell_degrees: f64,
    /// The density of the cell the median point lies in (half the
    /// points are in cells at most this dense): where points usually are.
    pub typical_per_km2: f64,
    /// The densest cell's.
    pub max_per_km2: f64,
    /// The points in the median point's cell and in the densest cell (a
    /// sample's estimate of a cell scales the points beside the one seen).
    pub typical_cell_points: u64,
    pub densest_cell_points: u64,
    /// The densest cell's centre, `[longitude, latitude]`.
    pub densest_at: [f64; 2],
    /// The weight of the densest case in a search's expected cost
    /// (`density.densest_share`), for searches centred where the points
    /// are: the share `s` for which `(1 − s) × typical + s × max` is the
    /// density around the average point (`mean_density`). A search
    /// without a limit finds the density times its area, so this mixture
    /// finds on average what searches around the stored points find.
    /// 0 when the points are no denser on average than typical.
    pub densest_share: f64,
}

/// The share `s` for which `(1 − s) × typical + s × max = mean`, within
/// 0 and 1 (0 when `max` is not above `typical`).
pub fn share_at_max(typical: f64, mean: f64, max: f64) -> f64 {
    if max > typical {
        ((mean - typical) / (max - typical)).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

impl PointGrid {
    fn side(&self) -> f64 {
        BASE_DEGREES * f64::from(1u32 << self.level)
    }

    /// Counts one valid point (longitude in [-180, 180], latitude in
    /// [-90, 90]; the last row and column take the 180 and 90 edges).
    pub fn add(&mut self, lng: f64, lat: f64) {
        let side = self.side();
        let col = ((lng.clamp(-180.0, 180.0) + 180.0) / side).floor();
        let row = ((lat.clamp(-90.0, 90.0) + 90.0) / side).floor();
        let last_col = (360.0 / side).ceil() - 1.0;
        let last_row = (180.0 / side).ceil() - 1.0;
        // In range by the clamps: the casts cannot truncate.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let key = (col.min(last_col) as u32, row.min(last_row) as u32);
        *self.cells.entry(key).or_insert(0) += 1;
        self.points += 1;
        self.fit();
    }

    /// Coarsens to `level` (at least the current one).
    fn rebin(&mut self, level: u8) {
        if level <= self.level {
            return;
        }
        let shift = level - self.level;
        let old = std::mem::take(&mut self.cells);
        for ((c, r), n) in old {
            *self.cells.entry((c >> shift, r >> shift)).or_insert(0) += n;
        }
        self.level = level;
    }

    /// Coarsens until the occupied cells fit in `MAX_CELLS`.
    fn fit(&mut self) {
        while self.cells.len() > MAX_CELLS {
            self.rebin(self.level + 1);
        }
    }

    pub fn merge(&mut self, other: &PointGrid) {
        let mut other = other.clone();
        let level = self.level.max(other.level);
        self.rebin(level);
        other.rebin(level);
        for (k, n) in other.cells {
            *self.cells.entry(k).or_insert(0) += n;
        }
        self.points += other.points;
        self.fit();
    }

    /// The area of cell (`col`, `row`), km²: a band of latitude between
    /// two meridians, `R² Δλ (sin φ₂ − sin φ₁)`.
    fn area_km2(&self, row: u32) -> f64 {
        let side = self.side();
        let south = (f64::from(row) * side - 90.0).to_radians();
        let north = (f64::from(row + 1) * side - 90.0).min(90.0).to_radians();
        EARTH_RADIUS_KM * EARTH_RADIUS_KM * side.to_radians() * (north.sin() - south.sin())
    }

    /// The densities, `None` without points.
    pub fn measured(&self) -> Option<Measured> {
        if self.points == 0 {
            return None;
        }
        let side = self.side();
        let mut cells: Vec<(f64, (u32, u32), u64)> = self
            .cells
            .iter()
            .map(|(&(c, r), &n)| (n as f64 / self.area_km2(r), (c, r), n))
            .collect();
        // Ascending by density; the key breaks ties so the order is one.
        cells.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let half = self.points.div_ceil(2);
        let mut seen = 0;
        let mut typical = (0.0, 0);
        for &(d, _, n) in &cells {
            seen += n;
            if seen >= half {
                typical = (d, n);
                break;
            }
        }
        let &(max, (c, r), densest) = cells.last()?;
        // The density around the average point: each cell's, weighted by
        // the points it holds.
        let mean = cells.iter().map(|&(d, _, n)| d * n as f64).sum::<f64>() / self.points as f64;
        Some(Measured {
            points: self.points,
            cells: cells.len() as u64,
            cell_degrees: side,
            typical_per_km2: typical.0,
            max_per_km2: max,
            typical_cell_points: typical.1,
            densest_cell_points: densest,
            densest_at: [
                (f64::from(c) + 0.5) * side - 180.0,
                ((f64::from(r) + 0.5) * side - 90.0).min(90.0),
            ],
            densest_share: share_at_max(typical.0, mean, max),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` points spread over one cell near (`lng`, `lat`).
    fn cluster(g: &mut PointGrid, lng: f64, lat: f64, n: u32) {
        for i in 0..n {
            let step = f64::from(i) * BASE_DEGREES / f64::from(n + 1);
            g.add(lng + step * 0.5, lat + step * 0.5);
        }
    }

    /// Twelve points in a cell, one in each of four others: the median
    /// point lies in the busy cell, so typical and max are both its
    /// density; with the sparse cells the majority, typical is theirs.
    #[test]
    fn typical_is_the_median_points_cell_and_max_the_densest() {
        let mut g = PointGrid::default();
        cluster(&mut g, 2.301, 48.801, 12);
        for k in 0..4 {
            g.add(10.0 + f64::from(k), 48.81);
        }
        let m = g.measured().unwrap();
        assert_eq!((m.points, m.cells), (16, 5));
        // A 0.05° cell at 48.8°: 5.56 km by 3.66 km, 20.4 km².
        let cell = g.area_km2(((48.801 + 90.0) / BASE_DEGREES).floor() as u32);
        assert!((cell - 20.4).abs() < 0.1, "{cell}");
        assert!((m.max_per_km2 - 12.0 / cell).abs() < 1e-9);
        assert_eq!(m.typical_per_km2, m.max_per_km2);
        for k in 0..20 {
            g.add(-60.0 + f64::from(k), 48.81);
        }
        let m = g.measured().unwrap();
        assert!((m.typical_per_km2 - 1.0 / cell).abs() < 1e-9, "{m:?}");
        assert!((m.max_per_km2 - 12.0 / cell).abs() < 1e-9);
        assert!((m.densest_at[1] - 48.825).abs() < 1e-9, "{m:?}");
    }

    /// The densest share makes typical and max average to the density
    /// around the average point: 12 points in a cell and 24 alone in
    /// cells of one area `a`, so typical 1/a, max 12/a, and around the
    /// average point (12 × 12 + 24 × 1) / 36 = 14/3 a cell: the share
    /// is (14/3 − 1) / (12 − 1) = 1/3. With the median point in the busy
    /// cell, typical is max and no share is left for it.
    #[test]
    fn the_densest_share_averages_to_the_density_around_the_average_point() {
        let mut g = PointGrid::default();
        cluster(&mut g, 2.301, 48.801, 12);
        for k in 0..4 {
            g.add(10.0 + f64::from(k), 48.81);
        }
        assert_eq!(g.measured().unwrap().densest_share, 0.0);
        for k in 0..20 {
            g.add(-60.0 + f64::from(k), 48.81);
        }
        let m = g.measured().unwrap();
        assert!((m.densest_share - 1.0 / 3.0).abs() < 1e-9, "{m:?}");
        assert_eq!(share_at_max(1.0, 0.5, 12.0), 0.0);
        assert_eq!(share_at_max(1.0, 20.0, 12.0), 1.0);
    }

    /// Split anywhere and merged, the grid is the one of the whole, even
    /// past the cell cap where the parts coarsen at different times.
    #[test]
    fn merging_parts_gives_the_whole_grid() {
        let pts: Vec<(f64, f64)> = (0..(MAX_CELLS as u32 + 500))
            .map(|i| {
                let x = f64::from(i % 400) * 0.07 - 170.0;
                let y = f64::from(i / 400) * 0.06 - 80.0;
                (x, y)
            })
            .collect();
        let mut whole = PointGrid::default();
        for &(x, y) in &pts {
            whole.add(x, y);
        }
        assert!(whole.level > 0, "past the cap the grid coarsens");
        for cut in [1, 30_000, pts.len() - 1] {
            let (mut a, mut b) = (PointGrid::default(), PointGrid::default());
            for &(x, y) in &pts[..cut] {
                a.add(x, y);
            }
            for &(x, y) in &pts[cut..] {
                b.add(x, y);
            }
            a.merge(&b);
            assert_eq!(a, whole, "cut at {cut}");
        }
    }

    /// The poles and the antimeridian fall in the last row and column,
    /// with a cell of non-zero area.
    #[test]
    fn edges_fall_in_the_last_cells() {
        let mut g = PointGrid::default();
        g.add(180.0, 90.0);
        g.add(-180.0, -90.0);
        let m = g.measured().unwrap();
        assert_eq!(m.cells, 2);
        assert!(m.max_per_km2.is_finite() && m.max_per_km2 > 0.0);
    }
}
