//! Second derivatives of the harmonic balance's nonlinear forces as products
//! `∂(J_nl(Q)ᵀ λ)/∂Q = Σ_i λ_i ∂²F_nl,i/∂Q∂Q` (paper 003, Sect. 4.2, eqs. 44–63), for the
//! ridge method of the backbone (eqs. 17–23), which needs the derivative of `Jᵀλ` and never
//! the 4-index array itself. `D(ω)` is linear in `Q` and adds nothing.
//!
//! Per element the local contracted matrix on the element's own coefficients (`u` of a
//! scalar element, 2H + 1 of them; `(X, Y)` of a friction contact, 4H) is formed with the
//! element's multipliers (`λ` gathered through the same DOF weights as `u`) and scattered
//! through those weights exactly as the Jacobian is (`elements.rs`):
//!
//! - polynomial springs and smoothed gaps (AFT): `Σ_j f''(u_j) μ_j φ_a(θ_j) φ_b(θ_j)`, the
//!   samples `μ` of the weighted multipliers (`Aft::contracted_hessian`);
//! - free-play gaps, exact (`gap::contracted_hessian`): the contact intervals' ends move
//!   with `∂θ*/∂U = −φ(θ*)/u'(θ*)`; by AFT the piecewise-linear law has `f'' = 0` between
//!   its kinks;
//! - friction contacts and Jenkins elements (`friction_hessian.rs`): transition times by the
//!   implicit function theorem and the stick constants' second derivatives.

use super::elements::{project, scatter_friction, scatter_sampled, Element, Law, Layout};
use super::{gap, Balance, GapMethod};
use nalgebra::{DMatrix, DVector};

impl Balance {
    /// `∂(J_nl(Q)ᵀ λ)/∂Q = Σ_i λ_i ∂²F_nl,i/∂Q ∂Q` in the coefficient layout `at` (`q`,
    /// `lambda` in it too), the nonlinear forces only (D(ω) is linear in Q). Dense dim × dim.
    pub(crate) fn hessian_adjoint_in(
        &self,
        at: &Layout,
        q: &DVector<f64>,
        _omega: f64,
        lambda: &DVector<f64>,
    ) -> DMatrix<f64> {
        // ω is in the signature for forces that depend on velocity; none here does.
        let dim = at.stride * self.aft.width();
        let mut out = DMatrix::zeros(dim, dim);
        let h2 = 2 * self.aft.harmonics;
        for element in &self.elements {
            match element {
                Element::Sampled { a, b, law } => {
                    let (u, l) = (
                        self.relative(q, at, *a, *b),
                        self.relative(lambda, at, *a, *b),
                    );
                    let local = match (*law, self.gaps) {
                        (Law::Gap { k, g, sides }, GapMethod::Exact) => {
                            gap::contracted_hessian(&u, k, g, sides, &l)
                        }
                        _ => {
                            let curvature: Vec<f64> = self
                                .aft
                                .to_time(&u, None)
                                .iter()
                                .map(|&v| law.derivatives(v)[2])
                                .collect();
                            self.aft.contracted_hessian(&curvature, &l)
                        }
                    };
                    scatter_sampled(at, (*a, *b), &local, &mut out);
                }
                Element::Friction {
                    tangent,
                    normal,
                    contact,
                } => {
                    let local = contact.hessian_adjoint(
                        &project(q, at, tangent, h2),
                        &project(q, at, normal, h2),
                        &project(lambda, at, tangent, h2),
                        &project(lambda, at, normal, h2),
                    );
                    for (r, rows) in [(0, tangent), (h2, normal)] {
                        for (c, cols) in [(0, tangent), (h2, normal)] {
                            let block = local.view((r, c), (h2, h2)).into_owned();
                            scatter_friction(at, (rows, cols), &block, &mut out);
                        }
                    }
                }
            }
        }
        out
    }

    /// The same in the full layout.
    pub fn hessian_adjoint(
        &self,
        q: &DVector<f64>,
        omega: f64,
        lambda: &DVector<f64>,
    ) -> DMatrix<f64> {
        self.hessian_adjoint_in(&Layout::full(self.n), q, omega, lambda)
    }
}
