//! Gauss's principle of least constraint as one convex quadratic programme (paper 002,
//! eqs. 17–20, in the discrete form of eqs. 23–25):
//!
//! ```text
//! minimise ½ (x − x_f)ᵀ M (x − x_f)   subject to   J x = b   (joints, eq. 23)
//!                                                   D x ≥ l   (contacts, eq. 24)
//! ```
//!
//! with `J = Φ_q` the joints' rows and `D` the gaps' Jacobians (eq. 13: the gap rate is
//! `D v`), both in the velocity coordinates `(ṙ, ω')` of `dynamics.rs`. The `timestepping`
//! backend solves it for the velocities of a step (`x = v_n`, `x_f` the unconstrained
//! velocity) and for the displacement of its position projection (`x = δq`, `x_f = 0`).
//!
//! `M` is positive definite, so the solution `x` is unique, and its dual is solved exactly:
//! with `x = x_f + M⁻¹(Jᵀλ + Dᵀz)` the joint multipliers `λ` are eliminated by the Schur
//! complement `W = J M⁻¹ Jᵀ` (`gram.rs`, factored once per programme), which leaves
//! `x = x₀ + P Dᵀ z`, `x₀ = x_f + M⁻¹Jᵀ W⁻¹(b − J x_f)` (the programme without contacts)
//! and `P = M⁻¹ − M⁻¹Jᵀ W⁻¹ J M⁻¹`. The contact impulses `z` then solve the LCP
//! `w = A z + (D x₀ − l) ≥ 0`, `z ≥ 0`, `zᵀw = 0` with the Delassus matrix `A = D P Dᵀ`
//! (`lcp.rs`), the complementarity of eqs. 16a–16b. That route is the fallback: each
//! programme is first solved by active sets from a guess of its closed contacts
//! (`active_set.rs`, `O(n)` on a chain where Lemke's dense tableau is cubic in the contacts).

use super::dynamics::{scatter, Degenerate, Mechanism};
use super::gram::{times, transpose_times, Gram};
use super::joints::Side;
use super::lcp;
use nalgebra::{DMatrix, DVector, Vector3};

/// The joints and gaps linearised at one pose.
pub(crate) struct Linearised {
    /// `Φ` (joint rows) and `J = Φ_q`.
    pub(crate) phi: DVector<f64>,
    pub(crate) jac: DMatrix<f64>,
    /// The gaps `g` (m, negative: penetration) and `D`, row by row as `Mechanism::contacts`.
    pub(crate) gaps: DVector<f64>,
    pub(crate) d: DMatrix<f64>,
}

/// The friction impulses of a step's programme.
#[derive(Debug, Clone)]
pub(crate) struct Friction {
    /// Per contact, the friction impulse on side 1 (global, N s; zero at an open contact
    /// and where `mu = 0`).
    pub(crate) impulse: Vec<Vector3<f64>>,
    /// All of them as one generalised impulse `Tᵀβ` (per body: force, body-frame torque).
    pub(crate) generalised: DVector<f64>,
}

/// The solution of one programme.
pub(crate) struct Solution {
    pub(crate) x: DVector<f64>,
    /// The joint multipliers `λ` and the contact multipliers `z ≥ 0` (impulses, N s, for a
    /// velocity step).
    pub(crate) lambda: DVector<f64>,
    pub(crate) z: DVector<f64>,
    /// The friction impulses where a closed contact has `mu > 0` (`friction.rs`).
    pub(crate) friction: Option<Friction>,
}

/// The programme with the joints eliminated: `x₀` (the solution without contacts), `P Dᵀ`
/// for the contact rows it was built with, the factored `W` and `M⁻¹`.
pub(crate) struct Reduced {
    pub(crate) x0: DVector<f64>,
    pub(crate) pd: DMatrix<f64>,
    gram: Option<Gram>,
    minv: DVector<f64>,
}

/// One programme of the module doc: the pose's linearisation `lin`, the free solution
/// `x_free`, the joint targets `b` and the contact bounds `lower`; `t` only names the time in
/// the errors (a singular `W`, an infeasible contact problem).
#[derive(Clone, Copy)]
pub(super) struct Programme<'a> {
    pub(crate) t: f64,
    pub(crate) lin: &'a Linearised,
    pub(crate) x_free: &'a DVector<f64>,
    pub(crate) b: &'a DVector<f64>,
    pub(crate) lower: &'a DVector<f64>,
}

impl Linearised {
    /// The largest of `|Φ|` (m or dimensionless, as `PROJECTION_TOL`) and the penetration
    /// `max(−g, 0)` (m): how far the pose is from the programme's constraints at `x = 0`.
    pub(crate) fn infeasibility(&self) -> f64 {
        self.phi
            .iter()
            .map(|p| p.abs())
            .chain(self.gaps.iter().map(|g| (-g).max(0.0)))
            .fold(0.0, f64::max)
    }
}

impl Mechanism {
    /// The joint rows and gaps at `y`, with their Jacobians.
    pub(super) fn linearise(&self, y: &[f64]) -> Linearised {
        let (rows, jac) = self.constraints(y);
        let k = self.contacts.len();
        let mut d = DMatrix::zeros(k, self.layout().dofs());
        let mut gaps = DVector::zeros(k);
        // Each body's pose once: a joint has several contacts.
        let bodies: Vec<Side> = (0..self.nb()).map(|i| self.side(y, Some(i))).collect();
        for (r, c) in self.contacts.iter().enumerate() {
            let joint = &self.joints[c.joint];
            let sides = joint
                .sides
                .map(|s| s.map_or_else(Side::ground, |i| bodies[i]));
            let row = c.spec.gap(&joint.geometry, &sides).row;
            gaps[r] = row.phi;
            scatter(&mut d, r, &row, joint, &sides);
        }
        Linearised {
            phi: DVector::from_iterator(rows.len(), rows.iter().map(|r| r.phi)),
            jac,
            gaps,
            d,
        }
    }

    /// The programme `p`: by active sets from the contacts `guess` (`active_set.rs`), else
    /// by Lemke's method.
    pub(super) fn least_constraint(
        &self,
        p: &Programme,
        guess: &[bool],
    ) -> Result<Solution, Degenerate> {
        match self.active_set(p, guess) {
            Some(sol) => Ok(sol),
            None => self.by_lemke(p),
        }
    }

    /// The programme of `least_constraint` by the Schur complement on the joints and Lemke's
    /// method on the contacts (module doc).
    pub(super) fn by_lemke(&self, p: &Programme) -> Result<Solution, Degenerate> {
        let Programme { t, lin, lower, .. } = *p;
        let red = self.eliminate(p, &lin.d)?;
        let delassus = &lin.d * &red.pd;
        let z =
            lcp::solve(&delassus, &(&lin.d * &red.x0 - lower)).ok_or(Degenerate::Contact { t })?;
        let x = &red.x0 + &red.pd * &z;
        let lambda = self.joint_multipliers(p, &red, &lin.d, &z);
        Ok(Solution {
            x,
            lambda,
            z,
            friction: None,
        })
    }

    /// The joints eliminated from the programme (module doc) with the contact rows `rows`
    /// (`D`, or `D` stacked on the friction directions' rows): `x₀` and `P rowsᵀ`.
    pub(super) fn eliminate(
        &self,
        p: &Programme,
        rows: &DMatrix<f64>,
    ) -> Result<Reduced, Degenerate> {
        let Programme {
            t, lin, x_free, b, ..
        } = *p;
        let minv = self.mass_inverse();
        let at_body = &self.rows_at_body;
        let gram = match self.rows {
            0 => None,
            _ => Some(Gram::factor(&lin.jac, &minv, at_body).ok_or(Degenerate::Singular { t })?),
        };
        // M⁻¹Jᵀ W⁻¹ r: the mass-weighted correction that changes J x by r.
        let correct = |r: DVector<f64>| match &gram {
            None => DVector::zeros(minv.len()),
            Some(g) => transpose_times(&lin.jac, at_body, &g.solve(r)).component_mul(&minv),
        };
        let x0 = x_free + correct(b - times(&lin.jac, at_body, x_free));
        // P Dᵀ, column by column: M⁻¹ dⱼ less its correction (P f = M⁻¹f − correction(J M⁻¹f)).
        let k = rows.nrows();
        let mut pd = DMatrix::zeros(minv.len(), k);
        for j in 0..k {
            let mf = rows.row(j).transpose().component_mul(&minv);
            let c = correct(times(&lin.jac, at_body, &mf));
            pd.set_column(j, &(mf - c));
        }
        Ok(Reduced { x0, pd, gram, minv })
    }

    /// The joint multipliers `λ` of the solution whose contact rows `rows` carry the
    /// impulses `z`: from `J x = b` with `x = x_f + M⁻¹(Jᵀλ + rowsᵀz)`,
    /// `W λ = b − J (x_f + M⁻¹ rowsᵀ z)`.
    pub(super) fn joint_multipliers(
        &self,
        p: &Programme,
        red: &Reduced,
        rows: &DMatrix<f64>,
        z: &DVector<f64>,
    ) -> DVector<f64> {
        let Programme { lin, x_free, b, .. } = *p;
        match &red.gram {
            None => DVector::zeros(0),
            Some(g) => {
                let pushed = x_free + (rows.transpose() * z).component_mul(&red.minv);
                g.solve(b - times(&lin.jac, &self.rows_at_body, &pushed))
            }
        }
    }
}
