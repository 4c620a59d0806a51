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
use std::cell::RefCell;
use std::rc::Rc;

/// `H` and `U` (order 0) or `H'` and `U'` (order 1) at one frequency.
type Linear = Rc<(DMatrix<f64>, DVector<f64>)>;

/// The receptance-form balance (module docs); `cont::Problem` in the kept coefficients
/// (harmonic-major: coefficient `p` of kept DOF `j` is `Q_c[p·n_c + j]`).
pub struct Compliance<'a> {
    hb: &'a Balance,
    rec: Receptance,
    /// The modal loads of the excitation, one column per coefficient.
    load: DMatrix<f64>,
    /// The last frequency's `(H, U)` and `(H', U')`, as they were asked for.
    cache: [RefCell<Option<(f64, Linear)>>; 2],
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
            cache: Default::default(),
        })
    }

    /// `dᵒH/dωᵒ` and `dᵒU/dωᵒ` at ω (`order` 0 or 1), kept for the last frequency.
    fn linear(&self, omega: f64, order: usize) -> Linear {
        let cache = &self.cache[order];
        if let Some((w, l)) = cache.borrow().as_ref() {
            if *w == omega {
                return l.clone();
            }
        }
        let l = Rc::new((
            self.rec.matrix(omega, order),
            self.rec.response(&self.load, omega, order),
        ));
        *cache.borrow_mut() = Some((omega, l.clone()));
        l
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
        self.linear(omega, 0).1.clone()
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
        let l = self.linear(p, 0);
        x + &l.0 * self.nonlinear(x, p, false).0 - &l.1
    }

    fn jacobian(&self, x: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let n = self.dim();
        let identity = DMatrix::identity(n, n);
        match self.nonlinear(x, p, true).1 {
            Some(j) => identity + &self.linear(p, 0).0 * j,
            None => identity,
        }
    }

    fn param_derivative(&self, x: &DVector<f64>, p: f64) -> DVector<f64> {
        let l = self.linear(p, 1);
        &l.0 * self.nonlinear(x, p, false).0 - &l.1
    }
}
