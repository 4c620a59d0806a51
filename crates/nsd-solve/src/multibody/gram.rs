//! The Gram matrix of the joints, `W = Φ_q M⁻¹ Φ_qᵀ`, and its solve: the Schur complement of
//! the augmented system of every right-hand side and of each projection (`dynamics.rs`).
//!
//! A joint's rows touch its two bodies only, and `M` is diagonal, so `W` is assembled body by
//! body from the few rows that touch each one (`O(Σ_b r_b² · 6)` with `r_b` the rows at body
//! `b`, against the dense product's `O(rows² · 6 n_b)`), and it is factored by a profile
//! (envelope) Cholesky: row `i` of `L` starts at the first column where row `i` of `W` has a
//! nonzero, so a chain of `n` joints costs `O(n)` rather than `O(n³)`. The arithmetic within
//! the envelope is the dense algorithm's; outside it the products are exact zeros. The
//! products `J v` and `Jᵀ λ` skip the same zeros (`times`, `transpose_times`).

use super::state::twist;
use super::tolerances::GRAM_CONDITION_MAX;
use nalgebra::{DMatrix, DVector};

/// `J v` for the constraint Jacobian `J` whose rows at body `b` are `rows_at_body[b]`: each
/// body's six columns times its rows only.
pub(crate) fn times(
    jac: &DMatrix<f64>,
    rows_at_body: &[Vec<usize>],
    v: &DVector<f64>,
) -> DVector<f64> {
    let mut out = DVector::zeros(jac.nrows());
    for (b, rows) in rows_at_body.iter().enumerate() {
        for c in twist(b) {
            let col = jac.column(c);
            for &i in rows {
                out[i] += col[i] * v[c];
            }
        }
    }
    out
}

/// `Jᵀ λ` for the same `J`.
pub(crate) fn transpose_times(
    jac: &DMatrix<f64>,
    rows_at_body: &[Vec<usize>],
    lambda: &DVector<f64>,
) -> DVector<f64> {
    let mut out = DVector::zeros(jac.ncols());
    for (b, rows) in rows_at_body.iter().enumerate() {
        for c in twist(b) {
            let col = jac.column(c);
            out[c] = rows.iter().map(|&i| col[i] * lambda[i]).sum();
        }
    }
    out
}

/// A factored Gram matrix: the rows of `L` on its envelope, stored one after the other.
pub(crate) struct Gram {
    /// Row `i` of `L` over columns `first[i] ..= i` is `l[start[i] .. start[i + 1]]`.
    l: Vec<f64>,
    start: Vec<usize>,
    first: Vec<usize>,
}

impl Gram {
    /// `W = J diag(minv) Jᵀ` with `J` the constraint Jacobian, six velocity columns per
    /// body, whose rows at body `b` are `rows_at_body[b]` (ascending; zero elsewhere in its
    /// columns), factored; `None` if `W` is singular or worse conditioned than
    /// `GRAM_CONDITION_MAX` (a redundant or degenerate set of joints).
    pub(crate) fn factor(
        jac: &DMatrix<f64>,
        minv: &DVector<f64>,
        rows_at_body: &[Vec<usize>],
    ) -> Option<Gram> {
        let n = jac.nrows();
        // The envelope: row i starts at the first row that shares a body with it.
        let mut first: Vec<usize> = (0..n).collect();
        for rows in rows_at_body {
            if let Some(&lowest) = rows.first() {
                for &i in rows {
                    first[i] = first[i].min(lowest);
                }
            }
        }
        let mut start = Vec::with_capacity(n + 1);
        start.push(0);
        for i in 0..n {
            start.push(start[i] + i - first[i] + 1);
        }
        // W's lower envelope, body by body.
        let mut l = vec![0.0; start[n]];
        for (b, rows) in rows_at_body.iter().enumerate() {
            let cols = twist(b);
            for (k, &i) in rows.iter().enumerate() {
                for &j in &rows[..=k] {
                    let s: f64 = cols
                        .clone()
                        .map(|c| jac[(i, c)] * minv[c] * jac[(j, c)])
                        .sum();
                    l[start[i] + j - first[i]] += s;
                }
            }
        }
        // Cholesky in place, row by row (rows before `i` are final when row `i` is formed).
        for i in 0..n {
            let (done, rest) = l.split_at_mut(start[i]);
            let row = &mut rest[..i - first[i] + 1];
            for j in first[i]..=i {
                let from = first[i].max(first[j]);
                let dot: f64 = if j == i {
                    row[from - first[i]..j - first[i]]
                        .iter()
                        .map(|v| v * v)
                        .sum()
                } else {
                    let other = &done[start[j]..start[j + 1]];
                    row[from - first[i]..j - first[i]]
                        .iter()
                        .zip(&other[from - first[j]..j - first[j]])
                        .map(|(a, b)| a * b)
                        .sum()
                };
                let v = row[j - first[i]] - dot;
                if j == i {
                    if v <= 0.0 || !v.is_finite() {
                        return None;
                    }
                    row[j - first[i]] = v.sqrt();
                } else {
                    row[j - first[i]] = v / done[start[j + 1] - 1];
                }
            }
        }
        let gram = Gram { l, start, first };
        let pivots: Vec<f64> = (0..n).map(|i| gram.diagonal(i).powi(2)).collect();
        let (lo, hi) = pivots.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
        if n > 0 && lo * GRAM_CONDITION_MAX < hi {
            return None;
        }
        Some(gram)
    }

    /// `L[i, i]`.
    fn diagonal(&self, i: usize) -> f64 {
        self.l[self.start[i + 1] - 1]
    }

    /// Row `i` of `L` left of the diagonal, from column `first[i]`.
    fn left_of_diagonal(&self, i: usize) -> &[f64] {
        &self.l[self.start[i]..self.start[i + 1] - 1]
    }

    /// `W⁻¹ b`: forward then backward substitution on the envelope.
    pub(crate) fn solve(&self, mut b: DVector<f64>) -> DVector<f64> {
        let n = b.len();
        for i in 0..n {
            let f = self.first[i];
            let dot: f64 = self
                .left_of_diagonal(i)
                .iter()
                .zip(&b.as_slice()[f..i])
                .map(|(l, x)| l * x)
                .sum();
            b[i] = (b[i] - dot) / self.diagonal(i);
        }
        for i in (0..n).rev() {
            b[i] /= self.diagonal(i);
            let bi = b[i];
            let f = self.first[i];
            for (x, l) in b.as_mut_slice()[f..i]
                .iter_mut()
                .zip(self.left_of_diagonal(i))
            {
                *x -= l * bi;
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multibody::state::Layout;

    /// The envelope factor solves as the dense Cholesky does, on a chain-like Jacobian with
    /// rows out of chain order (a wider envelope) and on a dense one.
    #[test]
    fn solves_as_the_dense_cholesky() {
        let bodies = 4;
        let dofs = Layout { nb: bodies }.dofs();
        let mut jac = DMatrix::zeros(7, dofs);
        let mut seed = 1u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        // Joint rows between bodies (b, b + 1), the last row on bodies 0 and 3.
        let mut rows_at_body = vec![Vec::new(); bodies];
        for (i, (a, b)) in [(0, 1), (0, 1), (1, 2), (2, 3), (1, 2), (2, 3), (0, 3)]
            .into_iter()
            .enumerate()
        {
            for (ca, cb) in twist(a).zip(twist(b)) {
                jac[(i, ca)] = next();
                jac[(i, cb)] = next();
            }
            rows_at_body[a].push(i);
            rows_at_body[b].push(i);
        }
        let every_row = vec![(0..7).collect::<Vec<usize>>(); bodies];
        let minv = DVector::from_fn(dofs, |i, _| 1.0 + i as f64 * 0.1);
        let rhs = DVector::from_fn(7, |i, _| (i as f64).sin());
        let dense = DMatrix::from_fn(7, dofs, |_, _| next());
        for (jac, rows_at_body) in [(jac, rows_at_body), (dense, every_row)] {
            let mut scaled = jac.clone();
            for (mut col, m) in scaled.column_iter_mut().zip(minv.iter()) {
                col *= *m;
            }
            let dense = (&scaled * jac.transpose())
                .cholesky()
                .expect("SPD")
                .solve(&rhs);
            let gram = Gram::factor(&jac, &minv, &rows_at_body)
                .expect("SPD")
                .solve(rhs.clone());
            let err = (&gram - &dense).amax() / dense.amax();
            assert!(err < 1e-12, "{err:e}");
            let v = DVector::from_fn(dofs, |i, _| (i as f64).cos());
            let product = times(&jac, &rows_at_body, &v) - &jac * &v;
            let transposed = transpose_times(&jac, &rows_at_body, &rhs) - jac.transpose() * &rhs;
            assert!(product.amax() < 1e-14 && transposed.amax() < 1e-14);
        }
    }
}
