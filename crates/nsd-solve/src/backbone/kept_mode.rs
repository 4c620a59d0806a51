//! The damped-nonlinear-mode system (`dnnm.rs`) condensed onto the nonlinear and monitored
//! DOFs in receptance form, as the ridge's (`reduced.rs`): the artificial term `−ξMq̇` is
//! mass-proportional, so the modes diagonalise it too and it shifts each modal damping to
//! `c_r − ξ`. With `H̃ = [D̃(ω, ξ)⁻¹]_cc` and `Ũ = [D̃⁻¹F_c]_c` the mode in `[ψ_c; ω; ξ]`
//! solves
//!
//! `ψ_c + H̃ F_nl(aψ_c)/a − Ũ/a = 0`, `ψ₁ᵀMψ₁ − 1 = 0`, `ψ_s1,m = 0`,
//!
//! the mass norm of every DOF's fundamental taken from the modal coordinates of
//! `D̃⁻¹(F_c − E_c F_nl)/a` (`Receptance::fundamental_norm`; `F_c` is constant). The same
//! solutions as the full system (exact condensation, every mode kept), at the kept size: on
//! the 400-DOF beam with 40 pads at H = 3, 282 unknowns instead of 2,802, whose dense LU
//! was the whole cost of a step.

use super::form::{Form, ModeForm};
use super::reduced::Reduced;
use super::{BackboneError, Settings};
use crate::cont::Problem;
use crate::hb::Derivative;
use nalgebra::{DMatrix, DVector};

/// The condensed mode system (module docs); `cont::Problem` in `[ψ_c; ω; ξ]` with `p` the
/// modal amplitude's parameter.
pub(super) struct KeptMode<'r, 'a> {
    r: &'r Reduced<'a>,
}

impl<'r, 'a> KeptMode<'r, 'a> {
    pub(super) fn new(r: &'r Reduced<'a>) -> KeptMode<'r, 'a> {
        KeptMode { r }
    }

    /// `[ψ_c; ω; ξ]` of the unknowns.
    fn parts(&self, z: &DVector<f64>) -> (DVector<f64>, f64, f64) {
        let n = self.n();
        (z.rows(0, n).into_owned(), z[n], z[n + 1])
    }

    /// The monitored DOF's first sine in the kept layout.
    fn phase_slot(&self) -> usize {
        self.r.watched[1]
    }

    /// `F_nl(aψ_c)/a` and, if asked, `J_nl(aψ_c)`.
    fn forces(
        &self,
        psi: &DVector<f64>,
        omega: f64,
        a: f64,
        jacobian: bool,
    ) -> (DVector<f64>, Option<DMatrix<f64>>) {
        let (f, j) = self
            .r
            .rec
            .nonlinear(self.r.f.hb, &(psi * a), omega, jacobian);
        (f / a, j)
    }

    /// `dH̃ F_nl/a − dŨ/a` for the derivative `d` at `(ω, ξ)`.
    fn linear(
        &self,
        fo: &DVector<f64>,
        (omega, xi): (f64, f64),
        a: f64,
        d: Derivative,
    ) -> DVector<f64> {
        let rec = &self.r.rec;
        &*rec.matrix_at(omega, xi, d) * fo - rec.response_at(&self.r.fixed, omega, xi, d) / a
    }
}

impl ModeForm for KeptMode<'_, '_> {
    /// The kept size of ψ.
    fn n(&self) -> usize {
        self.r.rec.dim()
    }

    /// The kept ψ of every DOF's `psi`.
    fn restrict(&self, psi: &DVector<f64>) -> DVector<f64> {
        self.r.rec.restrict(psi)
    }

    /// Every DOF's coefficients `Q = aψ` of the mode `z` at modal amplitude `a`:
    /// `D̃⁻¹(F_c − E_c F_nl)` with the kept ones as solved.
    fn full(&self, z: &DVector<f64>, a: f64) -> DVector<f64> {
        let (psi, omega, xi) = self.parts(z);
        let qc = &psi * a;
        let (fnl, _) = self.r.rec.nonlinear(self.r.f.hb, &qc, omega, false);
        let mut q = self.r.rec.expand_at(&self.r.fixed, &fnl, omega, xi);
        self.r.rec.place(&mut q, &qc);
        q
    }

    /// The frequency of the response's peak at `level` in `window` (the condensed stage 1).
    fn peak_frequency(
        &self,
        level: f64,
        window: (f64, f64),
        s: &Settings,
    ) -> Result<f64, BackboneError> {
        let (points, at) = self.r.peak(level, window, s)?;
        Ok(points[at].1)
    }
}

impl Problem for KeptMode<'_, '_> {
    fn dim(&self) -> usize {
        self.n() + 2
    }

    fn residual(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a) = (self.n(), self.r.f.level(p));
        let (psi, omega, xi) = self.parts(z);
        let (fo, _) = self.forces(&psi, omega, a, false);
        let mut r = DVector::zeros(n + 2);
        r.rows_mut(0, n)
            .copy_from(&(&psi + self.linear(&fo, (omega, xi), a, Derivative::Omega(0))));
        r[n] = self.r.rec.fundamental_norm(&fo, omega, xi).0 - 1.0;
        r[n + 1] = psi[self.phase_slot()];
        r
    }

    fn jacobian(&self, z: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let (n, a) = (self.n(), self.r.f.level(p));
        let (psi, omega, xi) = self.parts(z);
        let (fo, jnl) = self.forces(&psi, omega, a, true);
        let jnl = jnl.unwrap_or_else(|| DMatrix::zeros(n, n));
        let mut out = DMatrix::zeros(n + 2, n + 2);
        let h = &*self.r.rec.matrix_at(omega, xi, Derivative::Omega(0));
        out.view_mut((0, 0), (n, n))
            .copy_from(&(DMatrix::identity(n, n) + h * &jnl));
        out.view_mut((0, n), (n, 1)).copy_from(&self.linear(
            &fo,
            (omega, xi),
            a,
            Derivative::Omega(1),
        ));
        out.view_mut((0, n + 1), (n, 1)).copy_from(&self.linear(
            &fo,
            (omega, xi),
            a,
            Derivative::Xi,
        ));
        let (_, grad, rate, xi_rate) = self.r.rec.fundamental_norm(&fo, omega, xi);
        out.view_mut((n, 0), (1, n))
            .copy_from(&jnl.tr_mul(&grad).transpose());
        out[(n, n)] = rate;
        out[(n, n + 1)] = xi_rate;
        out[(n + 1, self.phase_slot())] = 1.0;
        out
    }

    /// With `g = (da/dp)/a`: `∂(F_nl(aψ)/a)/∂p = g (J_nl ψ − F_nl/a)` and `∂(Ũ/a)/∂p =
    /// −g Ũ/a`.
    fn param_derivative(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a, g) = (self.n(), self.r.f.level(p), self.r.f.rate(p));
        let (psi, omega, xi) = self.parts(z);
        let (fo, jnl) = self.forces(&psi, omega, a, true);
        let jnl = jnl.unwrap_or_else(|| DMatrix::zeros(n, n));
        let moved = (&jnl * &psi - &fo) * g;
        let rec = &self.r.rec;
        let static_part = rec.response_at(&self.r.fixed, omega, xi, Derivative::Omega(0)) / a;
        let mut d = DVector::zeros(n + 2);
        d.rows_mut(0, n).copy_from(
            &(&*rec.matrix_at(omega, xi, Derivative::Omega(0)) * &moved + static_part * g),
        );
        d[n] = rec.fundamental_norm(&fo, omega, xi).1.dot(&moved);
        d
    }
}
