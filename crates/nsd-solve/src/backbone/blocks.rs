//! The Jacobian of a ridge form (`ridge.rs`, `reduced.rs`; paper 003, eqs. 23, 64–65) by
//! blocks, and the continuation's bordered systems with it solved by block elimination.
//!
//! In the unknowns `[Q/α (n); ω; λ (n)]` both forms' Jacobians are
//!
//! `K = [[J, r, 0], [cᵀ, κ, rᵀ], [S, c, Jᵀ]]`
//!
//! (`J` the balance's Jacobian, `r` its ω-derivative applied to `Q/α`, `c` the cross term,
//! `κ` the curvature, `S` the Hessians contracted with `λ`), and the corrector and the
//! tangent bordered by the level derivative and one row. Without the ω and the border rows
//! and columns `K` is block-triangular in `J` and `Jᵀ`, so the bordered system of size
//! `2n + 2` costs one LU of `J` (of size n: an eighth of the dense factorisation's work)
//! and a 2 × 2 Schur complement — the bordering method, refined once against the blocks
//! and checked: where `J` is near singular (a fold of the response) and the bordering
//! loses accuracy that the dense LU of `K` would not, the caller falls back on that.
//!
//! # References
//!
//! W. Govaerts, *Numerical Methods for Bifurcations of Dynamical Equilibria*, SIAM 2000,
//! Sect. 3.6 (bordered systems, block elimination and its one-step refinement).

use super::tolerances::BORDERED_BACKWARD_ERROR;
use crate::cont::{dense_bordered, Problem};
use nalgebra::{DMatrix, DVector, DVectorView, Dyn, Matrix2, Vector2, LU};

/// A ridge form's Jacobian by blocks (module docs).
pub(super) struct Blocks {
    /// `J` (n × n).
    pub(crate) j: DMatrix<f64>,
    /// `r`: the first block's ω column and the ω equation's λ row.
    pub(crate) rate: DVector<f64>,
    /// `c`: the ω equation's `Q/α` row and the last block's ω column.
    pub(crate) cross: DVector<f64>,
    /// `κ`: the ω equation's ω entry.
    pub(crate) curvature: f64,
    /// `S`: the last block's `Q/α` columns.
    pub(crate) second: DMatrix<f64>,
}

impl Blocks {
    fn n(&self) -> usize {
        self.j.nrows()
    }

    /// `K` assembled (the dense Jacobian).
    pub(crate) fn dense(&self) -> DMatrix<f64> {
        let n = self.n();
        let mut out = DMatrix::zeros(2 * n + 1, 2 * n + 1);
        out.view_mut((0, 0), (n, n)).copy_from(&self.j);
        out.view_mut((0, n), (n, 1)).copy_from(&self.rate);
        out.view_mut((n, 0), (1, n))
            .copy_from(&self.cross.transpose());
        out[(n, n)] = self.curvature;
        out.view_mut((n, n + 1), (1, n))
            .copy_from(&self.rate.transpose());
        out.view_mut((n + 1, 0), (n, n)).copy_from(&self.second);
        out.view_mut((n + 1, n), (n, 1)).copy_from(&self.cross);
        out.view_mut((n + 1, n + 1), (n, n))
            .copy_from(&self.j.transpose());
        out
    }

    /// The solution of `[[K, k_p], [bᵀ, β]] d = rhs` (`k_p` the level derivative, `(b, β)`
    /// = `row`) by block elimination, refined once; `None` where `J` or the Schur complement
    /// is singular or the refined solution's backward error exceeds
    /// `BORDERED_BACKWARD_ERROR` (the dense LU then decides).
    fn solve_bordered(
        &self,
        k_p: &DVector<f64>,
        row: (&DVector<f64>, f64),
        rhs: &DVector<f64>,
    ) -> Option<DVector<f64>> {
        let system = Bordered::new(self, k_p, row)?;
        let mut d = system.apply(rhs)?;
        let correction = system.apply(&(rhs - system.product(&d)))?;
        d += correction;
        let residual = (rhs - system.product(&d)).norm();
        let scale = system.norm() * d.norm() + rhs.norm();
        (d.iter().all(|v| v.is_finite()) && residual <= BORDERED_BACKWARD_ERROR * scale)
            .then_some(d)
    }
}

/// `J`'s LU with its unit lower factor, for solves with `J` and `Jᵀ`.
struct Factored {
    lu: LU<f64, Dyn, Dyn>,
    lower: DMatrix<f64>,
}

impl Factored {
    /// `None` where `J` has a zero pivot.
    fn new(j: &DMatrix<f64>) -> Option<Factored> {
        let lu = j.clone().lu();
        if !lu.is_invertible() {
            return None;
        }
        Some(Factored { lower: lu.l(), lu })
    }

    /// `J⁻¹ b` (columns of `b` at once).
    fn solve(&self, b: &mut DMatrix<f64>) -> bool {
        self.lu.solve_mut(b)
    }

    /// `J⁻ᵀ b`: `P J = L U`, so `Jᵀ = Uᵀ Lᵀ P` — solved with `Uᵀ`, then `Lᵀ`, then `P⁻¹`.
    fn solve_transposed(&self, b: &mut DMatrix<f64>) -> bool {
        let ok = self.lu.lu_internal().tr_solve_upper_triangular_mut(b)
            && self.lower.tr_solve_lower_triangular_mut(b);
        self.lu.p().inv_permute_rows(b);
        ok
    }
}

/// The bordered system `[[K, k_p], [bᵀ, β]]` factored for block elimination: with `A =
/// [[J, 0], [S, Jᵀ]]` on `(u, v) = (Q/α, λ)` and the two scalar unknowns `e = (ω, p)`,
/// `A (u, v) = f − B e` and `C (u, v) + D e = g`, so `(D − C A⁻¹B) e = g − C A⁻¹f`.
struct Bordered<'a> {
    k: &'a Blocks,
    k_p: &'a DVector<f64>,
    row: (&'a DVector<f64>, f64),
    factored: Factored,
    /// `A⁻¹B`: the columns of `ω` and `p` through `A` (`2n × 2`).
    through: DMatrix<f64>,
    /// The inverse of the Schur complement `D − C A⁻¹B`.
    schur: Matrix2<f64>,
}

impl<'a> Bordered<'a> {
    fn new(k: &'a Blocks, k_p: &'a DVector<f64>, row: (&'a DVector<f64>, f64)) -> Option<Self> {
        let n = k.n();
        let factored = Factored::new(&k.j)?;
        let mut b = DMatrix::zeros(2 * n, 2);
        b.view_mut((0, 0), (n, 1)).copy_from(&k.rate);
        b.view_mut((n, 0), (n, 1)).copy_from(&k.cross);
        b.view_mut((0, 1), (n, 1)).copy_from(&k_p.rows(0, n));
        b.view_mut((n, 1), (n, 1)).copy_from(&k_p.rows(n + 1, n));
        let mut system = Bordered {
            k,
            k_p,
            row,
            factored,
            through: DMatrix::zeros(0, 0),
            schur: Matrix2::zeros(),
        };
        system.through = system.through_a(b)?;
        let (w, p) = (system.through.column(0), system.through.column(1));
        let d = Matrix2::new(k.curvature, k_p[n], row.0[n], row.1);
        let c = Matrix2::new(
            system.dot_c(0, &w),
            system.dot_c(0, &p),
            system.dot_c(1, &w),
            system.dot_c(1, &p),
        );
        system.schur = (d - c).try_inverse()?;
        Some(system)
    }

    /// `A⁻¹ f` for the columns of `f` (`u = J⁻¹f_u`, `v = J⁻ᵀ(f_v − S u)`).
    fn through_a(&self, mut f: DMatrix<f64>) -> Option<DMatrix<f64>> {
        let n = self.k.n();
        let mut u = f.rows(0, n).into_owned();
        if !self.factored.solve(&mut u) {
            return None;
        }
        let mut v = f.rows(n, n) - &self.k.second * &u;
        if !self.factored.solve_transposed(&mut v) {
            return None;
        }
        f.rows_mut(0, n).copy_from(&u);
        f.rows_mut(n, n).copy_from(&v);
        Some(f)
    }

    /// Row `i` of `C` (0: the ω equation's `(c, r)`, 1: the border's `(b_u, b_v)`) times a
    /// `(u, v)` column.
    fn dot_c(&self, i: usize, uv: &DVectorView<f64>) -> f64 {
        let n = self.k.n();
        let (u, v) = (uv.rows(0, n), uv.rows(n, n));
        match i {
            0 => self.k.cross.dot(&u) + self.k.rate.dot(&v),
            _ => self.row.0.rows(0, n).dot(&u) + self.row.0.rows(n + 1, n).dot(&v),
        }
    }

    /// The solution for `rhs` in the order `[u; ω; v; p]` (module docs).
    fn apply(&self, rhs: &DVector<f64>) -> Option<DVector<f64>> {
        let n = self.k.n();
        let mut f = DMatrix::zeros(2 * n, 1);
        f.view_mut((0, 0), (n, 1)).copy_from(&rhs.rows(0, n));
        f.view_mut((n, 0), (n, 1)).copy_from(&rhs.rows(n + 1, n));
        let y = self.through_a(f)?;
        let y = y.column(0);
        let g = Vector2::new(
            rhs[n] - self.dot_c(0, &y),
            rhs[2 * n + 1] - self.dot_c(1, &y),
        );
        let e = self.schur * g;
        let uv = y - &self.through * e;
        let mut d = DVector::zeros(2 * n + 2);
        d.rows_mut(0, n).copy_from(&uv.rows(0, n));
        d[n] = e[0];
        d.rows_mut(n + 1, n).copy_from(&uv.rows(n, n));
        d[2 * n + 1] = e[1];
        Some(d)
    }

    /// The bordered matrix times `d` (`[u; ω; v; p]`), from the blocks.
    fn product(&self, d: &DVector<f64>) -> DVector<f64> {
        let (n, k) = (self.k.n(), self.k);
        let (u, w, v, p) = (d.rows(0, n), d[n], d.rows(n + 1, n), d[2 * n + 1]);
        let mut out = DVector::zeros(2 * n + 2);
        out.rows_mut(0, n)
            .copy_from(&(&k.j * u + &k.rate * w + self.k_p.rows(0, n) * p));
        out[n] = k.cross.dot(&u) + k.curvature * w + k.rate.dot(&v) + self.k_p[n] * p;
        out.rows_mut(n + 1, n).copy_from(
            &(&k.second * u + &k.cross * w + k.j.tr_mul(&v) + self.k_p.rows(n + 1, n) * p),
        );
        out[2 * n + 1] = self.row.0.dot(&d.rows(0, 2 * n + 1)) + self.row.1 * p;
        out
    }

    /// The bordered matrix's Frobenius norm.
    fn norm(&self) -> f64 {
        let k = self.k;
        (2.0 * k.j.norm_squared()
            + k.second.norm_squared()
            + 2.0 * (k.rate.norm_squared() + k.cross.norm_squared())
            + k.curvature * k.curvature
            + self.k_p.norm_squared()
            + self.row.0.norm_squared()
            + self.row.1 * self.row.1)
            .sqrt()
    }
}

/// A ridge form's bordered system (`cont::Problem::solve_bordered`) by its `blocks`, the
/// dense LU of the whole where block elimination declines.
pub(crate) fn bordered<P: Problem + ?Sized>(
    problem: &P,
    blocks: Blocks,
    z: &DVector<f64>,
    p: f64,
    row: (&DVector<f64>, f64),
    rhs: &DVector<f64>,
) -> Option<DVector<f64>> {
    let k_p = problem.param_derivative(z, p);
    blocks
        .solve_bordered(&k_p, row, rhs)
        .or_else(|| dense_bordered(problem, z, p, row, rhs))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block elimination against the dense LU of the same bordered matrix, on drawn
    /// blocks: equal to 1e-10 relative.
    #[test]
    fn block_elimination_matches_the_dense_solve() {
        let mut s = 11u64;
        let mut draw = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for n in [1, 3, 8] {
            let k = Blocks {
                j: DMatrix::from_fn(n, n, |r, c| draw() + if r == c { 3.0 } else { 0.0 }),
                rate: DVector::from_fn(n, |_, _| draw()),
                cross: DVector::from_fn(n, |_, _| draw()),
                curvature: draw(),
                second: DMatrix::from_fn(n, n, |_, _| draw()),
            };
            let k_p = DVector::from_fn(2 * n + 1, |_, _| draw());
            let (b, beta) = (DVector::from_fn(2 * n + 1, |_, _| draw()), draw());
            let rhs = DVector::from_fn(2 * n + 2, |_, _| draw());
            let mut dense = DMatrix::zeros(2 * n + 2, 2 * n + 2);
            dense
                .view_mut((0, 0), (2 * n + 1, 2 * n + 1))
                .copy_from(&k.dense());
            dense
                .view_mut((0, 2 * n + 1), (2 * n + 1, 1))
                .copy_from(&k_p);
            dense
                .view_mut((2 * n + 1, 0), (1, 2 * n + 1))
                .copy_from(&b.transpose());
            dense[(2 * n + 1, 2 * n + 1)] = beta;
            let expected = dense.lu().solve(&rhs).expect("regular");
            let d = k.solve_bordered(&k_p, (&b, beta), &rhs).expect("solved");
            assert!(
                (&d - &expected).norm() < 1e-10 * expected.norm(),
                "n = {n}: {d} vs {expected}"
            );
        }
    }
}
