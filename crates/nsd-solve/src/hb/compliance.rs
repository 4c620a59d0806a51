//! The forced balance in receptance form on the DOFs the nonlinear elements act on
//! (`receptance.rs`): `R(Q_c, ω) = Q_c + H(ω) F_nl(Q_c) − U(ω) = 0`, `H = [D⁻¹]_cc`,
//! `U = [D⁻¹F]_c`, with `∂R/∂Q_c = I + H J_nl` and `∂R/∂ω = H' F_nl − U'` (modal sums, no
//! factorisation). `continue frf` takes it wherever the modes diagonalise the damping.
//!
//! Why not the condensed stiffness `S Q_c + F_nl − G` (`condense.rs`): `S = H⁻¹` couples
//! neighbouring contact nodes through the stiff structure between them, so its entries grow
//! like the cube of the node density (a 200-element beam with 40 pads: nodes 5 mm apart)
//! while the contact forces do not. The residual is then a difference of terms many orders
//! larger than itself, and its round-off floor (measured at the converged points, relative
//! to the residual at rest: 1e-14 with 5 pads, 1e-9 with 10, 1e-7 with 20, 1e-5 with 40)
//! rose above every convergence test: the 40-pad branch stalled after two points. Here
//! every term is a displacement of the size of the response, and the floor stays at
//! round-off of `Q_c` (1e-12 or below on the same beams).

use super::receptance::Receptance;
use super::Balance;
use crate::cont::Problem;
use nalgebra::{DMatrix, DVector};

/// The receptance-form balance (module docs); `cont::Problem` in the kept coefficients
/// (harmonic-major: coefficient `p` of kept DOF `j` is `Q_c[p·n_c + j]`).
pub struct Compliance<'a> {
    hb: &'a Balance,
    rec: Receptance,
    /// The modal loads of the excitation, one column per coefficient.
    load: DMatrix<f64>,
}

impl<'a> Compliance<'a> {
    /// On the DOFs the nonlinear elements act on; `None` when that would keep every DOF (or
    /// none), or the modes do not diagonalise the damping (`Receptance::new`).
    pub fn new(hb: &'a Balance) -> Option<Compliance<'a>> {
        let keep = hb.nonlinear_dofs();
        if keep.is_empty() || keep.len() >= hb.dofs() {
            return None;
        }
        let rec = Receptance::new(hb, keep)?;
        Some(Compliance {
            load: rec.modal(&hb.excitation()),
            hb,
            rec,
        })
    }

    fn nonlinear(
        &self,
        qc: &DVector<f64>,
        omega: f64,
        jacobian: bool,
    ) -> (DVector<f64>, Option<DMatrix<f64>>) {
        self.rec.nonlinear(self.hb, qc, omega, jacobian)
    }

    /// The response of the linear part alone at the kept coefficients, `U(ω)`.
    pub(crate) fn free_guess(&self, omega: f64) -> DVector<f64> {
        self.rec.response(&self.load, omega, 0)
    }

    /// The kept coefficients of a full vector.
    pub fn restrict(&self, q: &DVector<f64>) -> DVector<f64> {
        self.rec.restrict(q)
    }

    /// Every DOF's coefficients for the kept ones `qc` at ω, `D⁻¹(F − F_nl(Q_c))`, with the
    /// kept ones as given (they differ from the expansion's by the residual only).
    pub fn expand(&self, qc: &DVector<f64>, omega: f64) -> DVector<f64> {
        let fnl = self.nonlinear(qc, omega, false).0;
        let mut q = self.rec.expand(&self.load, &fnl, omega);
        self.rec.place(&mut q, qc);
        q
    }
}

impl Problem for Compliance<'_> {
    fn dim(&self) -> usize {
        self.rec.dim()
    }

    fn residual(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        let fnl = self.nonlinear(x, p, false).0;
        x + &*self.rec.matrix(p, 0) * fnl - self.rec.response(&self.load, p, 0)
    }

    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let n = self.dim();
        let identity = DMatrix::identity(n, n);
        match self.nonlinear(x, p, true).1 {
            Some(j) => identity + &*self.rec.matrix(p, 0) * j,
            None => identity,
        }
    }

    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        let fnl = self.nonlinear(x, p, false).0;
        &*self.rec.matrix(p, 1) * fnl - self.rec.response(&self.load, p, 1)
    }
}
