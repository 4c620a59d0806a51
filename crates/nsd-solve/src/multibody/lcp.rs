//! The linear complementarity problem `w = A z + b`, `w ≥ 0`, `z ≥ 0`, `zᵀw = 0`, by Lemke's
//! complementary pivoting with the lexicographic ratio test.
//!
//! The `timestepping` backend meets it as the dual of each step's quadratic programme
//! (`gauss.rs`): `z` the contact impulses, `A` the Delassus matrix `D P Dᵀ`, positive
//! semidefinite and singular whenever the contacts outnumber the freedoms they bound (the four
//! bottom vertices of a prismatic slider bound three). Lemke's method processes every LCP
//! whose matrix is copositive-plus, which a positive semidefinite one is: it ends with a
//! solution whenever the problem is feasible, and on a secondary ray only when it is not
//! ([1], Thm. 4.4.13). The lexicographic rule ([1], Sect. 4.9) makes every pivot strictly
//! decrease a lexicographic objective, so the pivots never cycle on the degenerate bases
//! that redundant contacts produce, and the method ends after finitely many. The result
//! is exact up to the round-off of the pivots (no iteration tolerance), so the step's
//! complementarity holds to round-off as the paper's NLP does.
//!
//! # References
//! [1] R. W. Cottle, J.-S. Pang and R. E. Stone, *The Linear Complementarity Problem*,
//! Academic Press 1992, Sect. 4.4 (Lemke's method) and 4.9 (degeneracy).

use super::tolerances::{LCP_ARTIFICIAL_ZERO, LCP_MAX_PIVOTS_PER_ROW, LCP_PIVOT_TOL};
use nalgebra::{DMatrix, DVector};
use std::cmp::Ordering;

/// The dense tableau `[I | −A | −1 | b]` of `w − A z − z₀ 1 = b`, kept in canonical form for
/// the current basis (`basis[i]` the variable of row `i`: `0..n` the `w`, `n..2n` the `z`,
/// `2n` the artificial `z₀`).
struct Tableau {
    n: usize,
    t: DMatrix<f64>,
    basis: Vec<usize>,
}

impl Tableau {
    fn rhs(&self) -> usize {
        2 * self.n + 1
    }

    /// Gauss–Jordan pivot on row `r`, column `c`: variable `c` becomes row `r`'s basic one.
    fn pivot(&mut self, r: usize, c: usize) {
        let p = self.t[(r, c)];
        for j in 0..self.t.ncols() {
            self.t[(r, j)] /= p;
        }
        for i in (0..self.n).filter(|&i| i != r) {
            let f = self.t[(i, c)];
            if f != 0.0 {
                for j in 0..self.t.ncols() {
                    let v = self.t[(r, j)];
                    self.t[(i, j)] -= f * v;
                }
            }
        }
        self.basis[r] = c;
    }

    /// The `z` of the current basis (round-off below zero clipped).
    fn solution(&self) -> DVector<f64> {
        let n = self.n;
        let mut z = DVector::zeros(n);
        for (i, &k) in self.basis.iter().enumerate() {
            if (n..2 * n).contains(&k) {
                z[k - n] = self.t[(i, 2 * n + 1)].max(0.0);
            }
        }
        z
    }

    /// Row `i`'s lexicographic key for entering column `c`: `(b_i, B⁻¹ row i) / t_ic`; the
    /// columns of the initial identity hold `B⁻¹`.
    fn key(&self, i: usize, c: usize) -> impl Iterator<Item = f64> + '_ {
        let d = self.t[(i, c)];
        std::iter::once(self.t[(i, self.rhs())] / d)
            .chain((0..self.n).map(move |j| self.t[(i, j)] / d))
    }

    /// The leaving row for entering column `c` by the lexicographic minimum ratio test, the
    /// artificial variable's row preferred on a tie in the ratio (it ends the method);
    /// `None` when no entry of the column is positive (a secondary ray).
    fn leaving(&self, c: usize, tol: f64) -> Option<usize> {
        let rows: Vec<usize> = (0..self.n).filter(|&i| self.t[(i, c)] > tol).collect();
        let first = rows
            .iter()
            .map(|&i| self.t[(i, self.rhs())] / self.t[(i, c)])
            .fold(f64::INFINITY, f64::min);
        let z0 = 2 * self.n;
        if let Some(&r) = rows
            .iter()
            .find(|&&i| self.basis[i] == z0 && self.t[(i, self.rhs())] / self.t[(i, c)] <= first)
        {
            return Some(r);
        }
        rows.into_iter().min_by(|&a, &b| {
            self.key(a, c)
                .zip(self.key(b, c))
                .map(|(x, y)| x.partial_cmp(&y).unwrap_or(Ordering::Equal))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        })
    }
}

/// The complement of variable `k` (`w_i ↔ z_i`).
fn complement(k: usize, n: usize) -> usize {
    if k < n {
        k + n
    } else {
        k - n
    }
}

/// A solution `z` of the LCP `(A, b)`, `None` if Lemke's method ends on a ray (the problem is
/// infeasible) or exceeds `LCP_MAX_PIVOTS_PER_ROW` pivots per row. A ray met where the
/// artificial `z₀` is zero to round-off (`LCP_ARTIFICIAL_ZERO`) ends the method with the
/// basis's solution: the ratio test's tie between `z₀` and another row was broken against
/// `z₀` by round-off, as on the degenerate bases of a frictional problem (`friction.rs`).
pub(crate) fn solve(a: &DMatrix<f64>, b: &DVector<f64>) -> Option<DVector<f64>> {
    let n = b.len();
    let Some(start) = (0..n)
        .filter(|&i| b[i] < 0.0)
        .min_by(|&i, &j| b[i].total_cmp(&b[j]))
    else {
        return Some(DVector::zeros(n));
    };
    let mut t = DMatrix::zeros(n, 2 * n + 2);
    for i in 0..n {
        t[(i, i)] = 1.0;
        for j in 0..n {
            t[(i, n + j)] = -a[(i, j)];
        }
        t[(i, 2 * n)] = -1.0;
        t[(i, 2 * n + 1)] = b[i];
    }
    let tol = LCP_PIVOT_TOL * a.amax().max(1.0);
    let zero = LCP_ARTIFICIAL_ZERO * b.amax();
    let mut tab = Tableau {
        n,
        t,
        basis: (0..n).collect(),
    };
    // z₀ enters at the most negative b_i, making every basic variable non-negative.
    let mut entering = complement(tab.basis[start], n);
    tab.pivot(start, 2 * n);
    for _ in 0..LCP_MAX_PIVOTS_PER_ROW * n {
        let Some(r) = tab.leaving(entering, tol) else {
            let z0 = tab.basis.iter().position(|&k| k == 2 * n)?;
            return (tab.t[(z0, 2 * n + 1)] <= zero).then(|| tab.solution());
        };
        let leaving = tab.basis[r];
        tab.pivot(r, entering);
        if leaving == 2 * n {
            return Some(tab.solution());
        }
        entering = complement(leaving, n);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The residual of a claimed solution: `max(−z, −w, |z w|)` with `w = A z + b`.
    fn residual(a: &DMatrix<f64>, b: &DVector<f64>, z: &DVector<f64>) -> f64 {
        let w = a * z + b;
        z.iter()
            .zip(w.iter())
            .map(|(z, w)| (-z).max(-w).max((z * w).abs()))
            .fold(0.0, f64::max)
    }

    /// A positive definite problem with a known mixed answer, and a singular positive
    /// semidefinite one (four contacts bounding three freedoms, `A = D Dᵀ`) whose `w` is
    /// unique: both solved to round-off.
    #[test]
    fn solves_definite_and_redundant_problems() {
        let a = DMatrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0]);
        let b = DVector::from_row_slice(&[-1.0, 1.0, -2.0]);
        let z = solve(&a, &b).expect("solvable");
        assert!(residual(&a, &b, &z) < 1e-14, "{z}");
        let d = DMatrix::from_row_slice(
            4,
            3,
            &[
                1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, -1.0, -1.0,
            ],
        );
        let a = &d * d.transpose();
        let b = DVector::from_row_slice(&[-1.0, -1.0, -1.0, -1.0]);
        let z = solve(&a, &b).expect("solvable");
        assert!(residual(&a, &b, &z) < 1e-13, "{z}");
        // Already feasible: nothing acts.
        let b = DVector::from_row_slice(&[1.0, 0.0, 2.0, 3.0]);
        assert_eq!(solve(&a, &b), Some(DVector::zeros(4)));
    }

    /// An infeasible problem (`w = −z − 1` cannot be non-negative) ends on a ray.
    #[test]
    fn infeasible_problem_is_none() {
        let a = DMatrix::from_row_slice(1, 1, &[-1.0]);
        assert_eq!(solve(&a, &DVector::from_row_slice(&[-1.0])), None);
    }
}
