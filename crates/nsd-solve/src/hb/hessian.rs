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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_layout_is_the_full_hessian_on_the_kept_coefficients() {
        // DOF `a` carries no nonlinear element: on the layout of the others (what the
        // condensed balance calls) the product is the full one's restriction.
        let src = "model t {
          mass a = 1
          mass p = 1 { dofs = (x, y) }
          mass m = 1
          spring ground -- a { k = 1 }
          spring a -- p.x { k = 1 }
          spring ground -- p.y { k = 1 }
          spring p.x -- m { k = 1, k3 = 0.5 }
          friction c: p -- ground { law = contact2d, kt = 10, kn = 6, mu = 0.3, N0 = 1, angle = 0.3, directions = (x, y) }
          gap g: m -- ground { clearance = 0.05, sides = both, law = linear(10) }
          force a = cos(1.3 * t)
        }";
        let prog = nsd_lang::Program::from_source("<t>", src, None).expect("parses");
        let sys = nsd_model::assemble(&nsd_lang::resolve(&prog, "t", &[]).expect("resolves"));
        let hb = Balance::new(&sys, 3, 64).expect("balance");
        let (n, width) = (hb.dofs(), hb.aft.width());
        let keep = hb.nonlinear_dofs();
        assert_eq!(keep.len(), n - 1, "{keep:?}");
        let wave =
            |seed: f64| DVector::from_fn(hb.dim(), |i, _| 0.3 * (seed * i as f64 + 1.0).sin());
        let (q, lambda) = (wave(0.7), wave(1.9));
        let full = hb.hessian_adjoint(&q, 1.3, &lambda);
        assert!(full.amax() > 0.0);
        let nc = keep.len();
        let index = |k: usize| (k / nc) * n + keep[k % nc];
        let kept = |v: &DVector<f64>| DVector::from_fn(nc * width, |k, _| v[index(k)]);
        let at = Layout::kept(n, &keep);
        let small = hb.hessian_adjoint_in(&at, &kept(&q), 1.3, &kept(&lambda));
        let restricted =
            DMatrix::from_fn(nc * width, nc * width, |r, c| full[(index(r), index(c))]);
        assert!((&small - &restricted).amax() <= 1e-14 * full.amax());
        // Nothing of the full product lies outside the kept coefficients.
        assert!((restricted.norm() - full.norm()).abs() <= 1e-12 * full.norm());
    }
}
