//! The linear operators of the balance, harmonic by harmonic: `D(ω)` (eq. 5, ERRATA form),
//! its ω-derivatives (eq. 65) and the negative modal damping of the damped nonlinear modes
//! (eq. 8). Each is, on harmonic k ≥ 1 in `(c_k, s_k)` order, `[[A_k, B_k], [−B_k, A_k]]`
//! with `A_k`, `B_k` combinations of K, M and C, and `A_0` on the static term — so one
//! product (`apply`, block by block, never the full matrix) and one assembly (`matrix`,
//! `block`) serve them all.

use super::Balance;
use nalgebra::{DMatrix, DVector};

/// A linear operator of the balance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// `D(ω)`: `A = K − (kω)²M`, `B = kωC`.
    Dynamic,
    /// `∂D/∂ω`: `A = −2k²ωM`, `B = kC`.
    Rate,
    /// `(∂D/∂ω)ᵀ` (M, C symmetric): `A = −2k²ωM`, `B = −kC`.
    RateTransposed,
    /// `∂²D/∂ω²`: `A = −2k²M`, `B = 0`.
    Curvature,
    /// `−∂D/∂c` for a damping `c M` (eq. 8's `ξ ω M` terms with the sign of an energy
    /// input): `A = 0`, `B = −kωM`.
    MassInput,
    /// Its ω-derivative: `A = 0`, `B = −kM`.
    MassInputRate,
    /// `M` on every harmonic (`A = M`, `B = 0`): the mass-normalisation of a mode (eq. 9).
    Mass,
    /// `C` on every harmonic (`A = C`, `B = 0`): a mode's linear damping.
    Damping,
}

/// `κ K + μ M + γ C`.
#[derive(Debug, Clone, Copy)]
struct Combo {
    k: f64,
    m: f64,
    c: f64,
}

const ZERO: Combo = Combo {
    k: 0.0,
    m: 0.0,
    c: 0.0,
};

impl Operator {
    /// `(A_k, B_k)` of harmonic `k` at ω (`k = 0`: the static block `A_0`, `B` unused).
    fn combos(self, k: usize, omega: f64) -> (Combo, Combo) {
        let kf = k as f64;
        let w = kf * omega;
        let a = |k, m| Combo { k, m, c: 0.0 };
        let b = |m, c| Combo { k: 0.0, m, c };
        match self {
            Operator::Dynamic => (a(1.0, -w * w), b(0.0, w)),
            Operator::Rate => (a(0.0, -2.0 * kf * w), b(0.0, kf)),
            Operator::RateTransposed => (a(0.0, -2.0 * kf * w), b(0.0, -kf)),
            Operator::Curvature => (a(0.0, -2.0 * kf * kf), ZERO),
            Operator::MassInput => (ZERO, b(-w, 0.0)),
            Operator::MassInputRate => (ZERO, b(-kf, 0.0)),
            Operator::Mass => (a(0.0, 1.0), ZERO),
            Operator::Damping => (b(0.0, 1.0), ZERO),
        }
    }
}

impl Balance {
    /// `κ K x + μ M x + γ C x`.
    fn combo_times(&self, f: Combo, x: nalgebra::DVectorView<f64>) -> DVector<f64> {
        let mut out = DVector::zeros(self.n);
        for (s, mat) in [(f.k, &self.k), (f.m, &self.m), (f.c, &self.c)] {
            if s != 0.0 {
                out.gemv(s, mat, &x, 1.0);
            }
        }
        out
    }

    /// `κ K + μ M + γ C`.
    fn combo_matrix(&self, f: Combo) -> DMatrix<f64> {
        f.k * &self.k + f.m * &self.m + f.c * &self.c
    }

    /// The operator times `q`, harmonic block by harmonic block: per harmonic the cost of a
    /// few products with K, M, C, and nothing of the size of the unknowns squared (1 GB for a
    /// 1000-DOF beam at H = 5).
    pub fn apply(&self, op: Operator, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        let n = self.n;
        let mut out = DVector::zeros(self.dim());
        let (a0, _) = op.combos(0, omega);
        out.rows_mut(0, n)
            .copy_from(&self.combo_times(a0, q.rows(0, n)));
        for k in 1..=self.aft.harmonics {
            let at = (2 * k - 1) * n;
            let (a, b) = op.combos(k, omega);
            let (c, s) = (q.rows(at, n), q.rows(at + n, n));
            let top = self.combo_times(a, c) + self.combo_times(b, s);
            let bottom = self.combo_times(a, s) - self.combo_times(b, c);
            out.rows_mut(at, n).copy_from(&top);
            out.rows_mut(at + n, n).copy_from(&bottom);
        }
        out
    }

    /// Harmonic `k`'s block of the operator: `A_0` (n × n) for the static term, else
    /// `[[A_k, B_k], [−B_k, A_k]]` (2n × 2n).
    pub(crate) fn block(&self, op: Operator, k: usize, omega: f64) -> DMatrix<f64> {
        let n = self.n;
        let (a, b) = op.combos(k, omega);
        let a = self.combo_matrix(a);
        if k == 0 {
            return a;
        }
        let b = self.combo_matrix(b);
        let mut out = DMatrix::zeros(2 * n, 2 * n);
        out.view_mut((0, 0), (n, n)).copy_from(&a);
        out.view_mut((n, n), (n, n)).copy_from(&a);
        out.view_mut((0, n), (n, n)).copy_from(&b);
        out.view_mut((n, 0), (n, n)).copy_from(&(-b));
        out
    }

    /// The operator assembled, block-diagonal over the harmonics (dense, of the size of the
    /// unknowns squared).
    pub fn matrix(&self, op: Operator, omega: f64) -> DMatrix<f64> {
        let n = self.n;
        let mut d = DMatrix::zeros(self.dim(), self.dim());
        for k in 0..=self.aft.harmonics {
            let b = self.block(op, k, omega);
            let at = if k == 0 { 0 } else { (2 * k - 1) * n };
            d.view_mut((at, at), (b.nrows(), b.ncols())).copy_from(&b);
        }
        d
    }
}
