//! Trigonometric polynomials of the friction element (`friction.rs`): `Σ_k c_k cos kτ +
//! s_k sin kτ` (k = 1…H) and its derivatives, tabulated on the transition search grid
//! `τ_j = j·2π/cells`, so that the search evaluates trigonometric functions only where it
//! refines a root (they were 70 % of the element's time at H = 7). The grid's `sin kτ_j`,
//! `cos kτ_j` depend on the grid alone: they are computed once per grid and thread
//! (`multiples`), and a polynomial's table is then sums of products (building it from one
//! `sin_cos` per grid point was a sixth of a backbone's time).

use super::tolerances::FRICTION_CELLS_PER_HARMONIC;
use std::cell::RefCell;
use std::f64::consts::TAU;
use std::rc::Rc;

/// A trigonometric polynomial and its derivatives (module docs), tabulated when built by
/// `tabulated`.
pub(super) struct Trig {
    q: Vec<f64>,
    /// All coefficients zero (the normal motion of a Jenkins element).
    zero: bool,
    step: f64,
    /// `1 / step`, to find a grid index without a division or a rounding call.
    per_step: f64,
    /// `[value, rate, second derivative]` at `τ_j`, `j` modulo one period (the slip → stick
    /// search needs the second: its function is a rate).
    table: Vec<[f64; 3]>,
}

/// A grid's `(sin kτ_j, cos kτ_j)` (`multiples`).
type Multiples = Rc<[(f64, f64)]>;

thread_local! {
    /// `multiples` of the grids used so far, by `(cells, H)`.
    static GRIDS: RefCell<Vec<((usize, usize), Multiples)>> = const { RefCell::new(Vec::new()) };
}

/// `(sin kτ_j, cos kτ_j)` for `j < cells` (row by row) and `k = 1…h`, by the angle-addition
/// recurrence from one `sin_cos` per grid point, as `Trig::at` computes them.
fn multiples(cells: usize, h: usize) -> Multiples {
    GRIDS.with_borrow_mut(|grids| {
        if let Some((_, m)) = grids.iter().find(|(key, _)| *key == (cells, h)) {
            return m.clone();
        }
        let step = TAU / cells as f64;
        let m: Multiples = (0..cells)
            .flat_map(|j| {
                let (s1, c1) = (j as f64 * step).sin_cos();
                let (mut s, mut c) = (s1, c1);
                (0..h).map(move |_| {
                    let out = (s, c);
                    (s, c) = (s * c1 + c * s1, c * c1 - s * s1);
                    out
                })
            })
            .collect();
        grids.push(((cells, h), m.clone()));
        m
    })
}

impl Trig {
    /// Without a table: every value by `sin_cos` and the recurrence.
    pub(super) fn new(q: &[f64]) -> Trig {
        Trig {
            q: q.to_vec(),
            zero: q.iter().all(|c| *c == 0.0),
            step: 0.0,
            per_step: 0.0,
            table: Vec::new(),
        }
    }

    /// With the table on `cells` points per period (`step = 2π / cells`); a zero polynomial
    /// (the normal motion of a Jenkins element) needs none.
    pub(super) fn tabulated(q: &[f64], cells: usize) -> Trig {
        if q.iter().all(|c| *c == 0.0) {
            return Trig::new(q);
        }
        let h = q.len() / 2;
        let table = multiples(cells, h)
            .chunks(h)
            .map(|row| {
                let mut out = [0.0; 3];
                for (i, (cs, &(s, c))) in q.chunks(2).zip(row).enumerate() {
                    let k = (i + 1) as f64;
                    out[0] += cs[0] * c + cs[1] * s;
                    out[1] += k * (-cs[0] * s + cs[1] * c);
                    out[2] -= k * k * (cs[0] * c + cs[1] * s);
                }
                out
            })
            .collect();
        let step = TAU / cells as f64;
        Trig {
            q: q.to_vec(),
            zero: false,
            step,
            per_step: 1.0 / step,
            table,
        }
    }

    /// The tangential and normal motions `x`, `y`, tabulated on the transition search grid.
    pub(super) fn pair(x: &[f64], y: &[f64]) -> (Trig, Trig) {
        let cells = FRICTION_CELLS_PER_HARMONIC * (x.len() / 2).max(1);
        (Trig::tabulated(x, cells), Trig::tabulated(y, cells))
    }

    /// The coefficients `[c₁, s₁, …, c_H, s_H]`.
    pub(super) fn coefficients(&self) -> &[f64] {
        &self.q
    }

    /// The value (`order` 0) or the first, second or third derivative at τ (`sin kτ`, `cos kτ` by the
    /// angle-addition recurrence from one `sin_cos`), from the table on a grid point.
    #[inline]
    pub(super) fn at(&self, tau: f64, order: usize) -> f64 {
        if order < 3 && !self.table.is_empty() {
            // The nearest grid index (τ ≥ 0; a negative τ saturates to 0 and misses), a hit
            // only where τ is that grid point bit for bit, as the search computes it.
            let j = (tau * self.per_step + 0.5) as usize;
            if j as f64 * self.step == tau {
                let mut at = j;
                while at >= self.table.len() {
                    at -= self.table.len();
                }
                return self.table[at][order];
            }
        }
        if self.zero {
            return 0.0;
        }
        let (s1, c1) = tau.sin_cos();
        let (mut s, mut c) = (s1, c1);
        let mut sum = 0.0;
        for (i, cs) in self.q.chunks(2).enumerate() {
            let k = (i + 1) as f64;
            sum += match order {
                0 => cs[0] * c + cs[1] * s,
                1 => k * (-cs[0] * s + cs[1] * c),
                2 => -k * k * (cs[0] * c + cs[1] * s),
                _ => k * k * k * (cs[0] * s - cs[1] * c),
            };
            (s, c) = (s * c1 + c * s1, c * c1 - s * s1);
        }
        sum
    }
}
