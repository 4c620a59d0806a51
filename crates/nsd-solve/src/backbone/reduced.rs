//! The ridge system (`ridge.rs`, paper 003 eqs. 21–23) condensed onto the DOFs the nonlinear
//! elements act on and the monitored one, in receptance form (`hb::Receptance`): with `H`
//! the kept block of `D(ω)⁻¹` and `U = U_c + α U_h` the linear part's response to the
//! constant and harmonic loads, the forced balance is
//!
//! `R̃(Q, ω, α) = Q + H(ω) F_nl(Q) − U(ω, α) = 0`
//!
//! on the kept coefficients — the same solutions as `R = 0` (exact condensation), so the
//! same ridge: `Am` depends on the monitored DOF only, which is kept. The Lagrange system
//! in `[Q/α, ω, λ]` is, with `J̃ = I + H J_nl` and `μ = Hᵀλ`,
//!
//! `R̃/α = 0`, `(∂(R̃/α)/∂ω)ᵀλ = 0`, `∂Am/∂Q + J̃ᵀλ = 0`,
//!
//! whose Jacobian needs `H'`, `H''` (modal sums, no factorisation) and the nonlinear forces'
//! Hessian contracted with `μ` (eqs. 44–63) on the kept coefficients. Every matrix is of the
//! kept size (a beam with one pad: 3 DOFs instead of 40), so a Newton step costs the
//! elements' transforms and modal sums instead of a dense LU of the full `2n(2H+1) + 1`.
//! The multipliers differ from the full form's (`λ̃ = H⁻ᵀλ`); they are not reported.

use super::amplitude::{amplitude_at, gradient, hessian, slots_in};
use super::blocks::{self, Blocks};
use super::form::{multipliers, Form};
use super::memo::{Eval, Memo};
use super::start::{peak_of, Peak};
use super::{BackboneError, Forced, Settings};
use crate::cont::Problem;
use crate::hb::Receptance;
use nalgebra::{DMatrix, DVector};
use std::rc::Rc;

/// The condensed form is taken where it keeps at most this fraction of the DOFs
/// (dimensionless): on smaller reductions the full system's dense LU is not what a step
/// costs (the friction elements' exact cycles are), and the full form's continuation —
/// its arclength over every coefficient — is the reference the backbone's steps and
/// restarts were tuned on (the blade–damper–blade model keeps 6 of its 8 DOFs).
pub const MAX_KEPT_FRACTION: f64 = 0.5;

/// The condensed ridge system (module docs); `cont::Problem` in `[Q/α; ω; λ]` with `p` the
/// level parameter, equations `[R̃/α; (∂(R̃/α)/∂ω)ᵀλ; ∂Am/∂Q + J̃ᵀλ]`.
pub(super) struct Reduced<'a> {
    pub(super) f: &'a Forced<'a>,
    pub(super) rec: Receptance,
    /// The monitored DOF's coefficients of harmonics 1…H in the kept layout.
    pub(super) watched: Vec<usize>,
    /// The modal loads of the constant and of the harmonic (level 1) loads.
    pub(super) fixed: DMatrix<f64>,
    pub(super) load: DMatrix<f64>,
    /// The last point's nonlinear forces and their Jacobian.
    memo: Memo,
}

impl<'a> Reduced<'a> {
    /// `None` where the modes do not diagonalise the damping (`hb::Receptance::new`) or the
    /// kept DOFs are more than `MAX_KEPT_FRACTION` of them.
    pub(super) fn new(f: &'a Forced<'a>) -> Option<Reduced<'a>> {
        let hb = f.hb;
        let mut keep = hb.nonlinear_dofs();
        if let Err(at) = keep.binary_search(&f.monitored) {
            keep.insert(at, f.monitored);
        }
        let watched = keep.binary_search(&f.monitored).ok()?;
        if keep.len() as f64 > MAX_KEPT_FRACTION * hb.dofs() as f64 {
            return None;
        }
        let stride = keep.len();
        let rec = Receptance::new(hb, keep)?;
        Some(Reduced {
            watched: slots_in(stride, hb.aft.harmonics, watched),
            fixed: rec.modal(&f.fixed),
            load: rec.modal(&f.load),
            rec,
            f,
            memo: Memo::default(),
        })
    }

    /// `F_nl` and its Jacobian on the kept coefficients.
    pub(super) fn nonlinear(&self, q: &DVector<f64>, omega: f64) -> (DVector<f64>, DMatrix<f64>) {
        let n = self.rec.dim();
        let (f, j) = self.rec.nonlinear(self.f.hb, q, omega, true);
        (f, j.unwrap_or_else(|| DMatrix::zeros(n, n)))
    }

    /// `dᵒ(H F_nl − U_c − α U_h)/dωᵒ` (`order` 0, 1, 2) for the forces `fnl` at level `a`:
    /// `R̃ − Q` for order 0, then its ω-derivatives.
    fn forced(&self, fnl: &DVector<f64>, omega: f64, order: usize, a: f64) -> DVector<f64> {
        let rec = &self.rec;
        &*rec.matrix(omega, order) * fnl
            - rec.response(&self.fixed, omega, order)
            - rec.response(&self.load, omega, order) * a
    }

    /// The same divided by the level: `R̃/α − Q/α` and its ω-derivatives.
    pub(super) fn linear(
        &self,
        fnl: &DVector<f64>,
        omega: f64,
        order: usize,
        a: f64,
    ) -> DVector<f64> {
        self.forced(fnl, omega, order, a) / a
    }

    /// `F_nl` and `J_nl` at `(z, p)` (`Memo`).
    fn at(&self, z: &DVector<f64>, p: f64) -> Rc<Eval> {
        let n = self.rec.dim();
        self.memo.at(z, p, || {
            self.nonlinear(&(z.rows(0, n) * self.f.level(p)), z[n])
        })
    }

    /// `∂(J_nlᵀμ)/∂Q` at the point of `e` (`z`, `p`), `μ = Hᵀλ`, once per point.
    fn second(&self, e: &Eval, z: &DVector<f64>, p: f64) -> Rc<DMatrix<f64>> {
        e.second(|| {
            let (a, (qt, omega, lambda)) = (self.f.level(p), self.parts(z));
            let mu = self.rec.matrix(omega, 0).tr_mul(&lambda);
            self.rec.hessian_adjoint(self.f.hb, &(&qt * a), omega, &mu)
        })
    }

    /// The Jacobian's blocks (`blocks.rs`): `J̃ = I + H J_nl`, `r = ∂(R̃/α)/∂ω`, the cross
    /// term `J_nlᵀ H'ᵀ λ` (∂/∂Q̃ of `(∂(R̃/α)/∂ω)ᵀλ` and ∂/∂ω of `J̃ᵀλ`), `κ = (∂²(R̃/α)/∂ω²)ᵀλ`
    /// and `S = α (∂²Am + H_μ)`.
    fn blocks(&self, z: &DVector<f64>, p: f64) -> Blocks {
        let (n, a, (qt, omega, lambda)) = (self.rec.dim(), self.f.level(p), self.parts(z));
        let q = &qt * a;
        let e = self.at(z, p);
        let (fnl, jnl) = (&e.value, &e.jacobian);
        let (h, h_rate) = (&*self.rec.matrix(omega, 0), &*self.rec.matrix(omega, 1));
        Blocks {
            j: DMatrix::identity(n, n) + h * jnl,
            rate: self.linear(fnl, omega, 1, a),
            cross: jnl.tr_mul(&h_rate.tr_mul(&lambda)),
            curvature: self.linear(fnl, omega, 2, a).dot(&lambda),
            second: (hessian(&q, &self.watched) + &*self.second(&e, z, p)) * a,
        }
    }

    /// `[Q/α; ω; λ]` of the unknowns.
    fn parts(&self, z: &DVector<f64>) -> (DVector<f64>, f64, DVector<f64>) {
        let n = self.rec.dim();
        (
            z.rows(0, n).into_owned(),
            z[n],
            z.rows(n + 1, n).into_owned(),
        )
    }
}

impl Problem for Reduced<'_> {
    fn dim(&self) -> usize {
        2 * self.rec.dim() + 1
    }

    fn residual(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a, (qt, omega, lambda)) = (self.rec.dim(), self.f.level(p), self.parts(z));
        let q = &qt * a;
        let e = self.at(z, p);
        let (fnl, jnl) = (&e.value, &e.jacobian);
        let h = &*self.rec.matrix(omega, 0);
        let mut r = DVector::zeros(self.dim());
        r.rows_mut(0, n)
            .copy_from(&(&qt + self.linear(fnl, omega, 0, a)));
        r[n] = self.linear(fnl, omega, 1, a).dot(&lambda);
        let adj = gradient(&q, &self.watched) + &lambda + jnl.tr_mul(&h.tr_mul(&lambda));
        r.rows_mut(n + 1, n).copy_from(&adj);
        r
    }

    fn jacobian(&self, z: &DVector<f64>, p: f64) -> DMatrix<f64> {
        self.blocks(z, p).dense()
    }

    fn solve_bordered(
        &self,
        z: &DVector<f64>,
        p: f64,
        row: (&DVector<f64>, f64),
        rhs: &DVector<f64>,
    ) -> Option<DVector<f64>> {
        blocks::bordered(self, self.blocks(z, p), z, p, row, rhs)
    }

    /// With `Q = α(p) Q̃`, `g = (dα/dp)/α`: `∂(R̃/α)/∂p = g(H J_nl Q̃ − (H F_nl − U_c)/α)`,
    /// its ω-derivative likewise with `H'`, `U_c'`, and `∂(∂Am/∂Q + J̃ᵀλ)/∂p = g α H_μ Q̃`
    /// (`Am` is homogeneous of degree 0, as in `ridge.rs`).
    fn param_derivative(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a, (qt, omega, lambda)) = (self.rec.dim(), self.f.level(p), self.parts(z));
        let g = self.f.rate(p);
        let e = self.at(z, p);
        let (fnl, jnl) = (&e.value, &e.jacobian);
        let rec = &self.rec;
        let moved = jnl * &qt;
        let along = |order: usize| {
            let h = &*rec.matrix(omega, order);
            (h * &moved - (h * fnl - rec.response(&self.fixed, omega, order)) / a) * g
        };
        let mut d = DVector::zeros(self.dim());
        d.rows_mut(0, n).copy_from(&along(0));
        d[n] = along(1).dot(&lambda);
        d.rows_mut(n + 1, n)
            .copy_from(&(&*self.second(&e, z, p) * &qt * (g * a)));
        d
    }
}

impl Form for Reduced<'_> {
    fn n(&self) -> usize {
        self.rec.dim()
    }

    fn peak(&self, level: f64, window: (f64, f64), s: &Settings) -> Result<Peak, BackboneError> {
        peak_of(&AtLevel { r: self, level }, level, window, s, |q| {
            amplitude_at(q, &self.watched)
        })
    }

    fn multipliers(&self, q: &DVector<f64>, omega: f64, level: f64) -> Option<DVector<f64>> {
        let (fnl, jnl) = self.nonlinear(q, omega);
        let n = self.rec.dim();
        let jt = DMatrix::identity(n, n) + &*self.rec.matrix(omega, 0) * jnl;
        let rate = self.forced(&fnl, omega, 1, level);
        multipliers(&jt.transpose(), &rate, &gradient(q, &self.watched))
    }

    fn full(&self, q: &DVector<f64>, omega: f64, level: f64) -> DVector<f64> {
        let (fnl, _) = self.rec.nonlinear(self.f.hb, q, omega, false);
        self.rec
            .expand(&(&self.fixed + &self.load * level), &fnl, omega)
    }
}

/// The condensed balance at a fixed level, continued in ω (stage 1): `R̃(Q, ω) = Q + H F_nl
/// − U`, `∂R̃/∂Q = I + H J_nl`, `∂R̃/∂ω = H' F_nl − U'`.
struct AtLevel<'r, 'a> {
    r: &'r Reduced<'a>,
    level: f64,
}

impl Problem for AtLevel<'_, '_> {
    fn dim(&self) -> usize {
        self.r.rec.dim()
    }

    fn residual(&self, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        let (fnl, _) = self.r.rec.nonlinear(self.r.f.hb, q, omega, false);
        q + self.r.forced(&fnl, omega, 0, self.level)
    }

    fn jacobian(&self, q: &DVector<f64>, omega: f64) -> DMatrix<f64> {
        let (_, jnl) = self.r.nonlinear(q, omega);
        let n = self.dim();
        DMatrix::identity(n, n) + &*self.r.rec.matrix(omega, 0) * jnl
    }

    fn param_derivative(&self, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        let (fnl, _) = self.r.rec.nonlinear(self.r.f.hb, q, omega, false);
        self.r.forced(&fnl, omega, 1, self.level)
    }
}
