//! One step of the paper's half-implicit time stepping (paper 002, Sect. 2.1.4, eqs. 21–25)
//! and the position projection that follows it.
//!
//! From `(q_{n−1}, v_{n−1})` and a step `h`, the velocities `v_n` minimise Gauss's function
//! (eqs. 17–19) `½ (v − v_f)ᵀ M (v − v_f)` about the unconstrained velocity
//! `v_f = v_{n−1} + h M⁻¹(Q_A − S)(q_{n−1}, v_{n−1})` (eqs. 10 and 22d), subject to
//! - the joints linearised as eq. 23: `Φ(q_{n−1}) + h Φ_q(q_{n−1}) v_n = 0`;
//! - the gaps linearised as eq. 24 (with the code's sign, `g ≥ 0` open):
//!   `g(q_{n−1}) + h D(q_{n−1}) v_n ≥ 0`.
//!
//! The norm constraint of the Euler parameters (eq. 14), linearised as eq. 23, holds by
//! construction: the velocities are `ω'` and `ṗ = ½ Lᵀ(p_{n−1}) ω'_n` (eqs. 9 and 22c) has
//! `p_{n−1}ᵀ ṗ_n = 0`. The programme is convex and solved exactly (`gauss.rs`). Then
//! `q_n = q_{n−1} + h q̇_n` (eq. 22b).
//!
//! Contacts are inelastic, as in the paper (end of Sect. 2.1.4): a closing contact stops
//! (`g_n = 0` to first order). A joint whose law is `impact(e)` adds Newton's restitution at
//! velocity level: a contact hit in the step (its impulse positive) while closing at
//! `D v_{n−1} < 0` gets the bound `D v_n ≥ −e D v_{n−1}` (kept at least eq. 24's), and the
//! programme is solved again. Compliant laws act as rigid inelastic contacts here.
//!
//! The linearisation leaves a drift of second order in `h` (the joints' and gaps'
//! curvature times the squared displacement of the step): `drift` measures it at `q_n`,
//! and `project` removes it by Newton on the same programme with `x = δq`, `x_f = 0`: the
//! least mass-weighted change of positions that meets the joints and opens every
//! penetrated gap (`g ≥ 0`; a penetrated gap ends at `g = 0`, to `PROJECTION_TOL`), the
//! paper's constraint violation "≤ 1e-10 upon contact" by construction.
//!
//! The velocities are projected too, onto the joints' `Φ_q(q_n) v = 0` (the least change
//! in the metric of `M`, `Mechanism::project_velocities`). The step's `v_n` meets the
//! joints linearised at `q_{n−1}` (eq. 23), so at `q_n` it leaves `Φ_q(q_n) v_n` of order
//! `h` (the change of `Φ_q` over the step times `v_n`): a velocity off the constraint
//! manifold, which `energy.csv`'s `|Φ_q q̇|` showed and the next step's eq. 23 would carry
//! on. The projection leaves it at round-off and, being `M`-orthogonal, only removes the
//! kinetic energy of that violating part (second order in `h` per step). The gaps keep
//! their velocities: a closed contact's rate is the next step's complementarity to settle.

use super::dynamics::{Degenerate, Mechanism};
use super::gauss::{Programme, Solution};
use super::kinematics::rates;
use super::state::{angular, linear, ORIENTATION};
use super::tolerances::PROJECTION_TOL;
use nalgebra::{DVector, Vector3};
use nsd_model::flat::ContactLaw;

/// A trial step: the new state (positions not yet projected) and what the step found.
pub(crate) struct Step {
    pub(crate) y: Vec<f64>,
    /// The joint multipliers and contact impulses of the step (N s, N m s): the mean forces
    /// over the step times `h`.
    pub(crate) lambda: DVector<f64>,
    pub(crate) z: DVector<f64>,
    /// Each contact's friction impulse on side 1 (global, N s; `friction.rs`).
    pub(crate) friction: Vec<Vector3<f64>>,
    /// The constraint violation at `q_n` before the projection (`violation`).
    pub(crate) drift: f64,
    /// The residual of the discrete equations of motion (eq. 8 with eq. 22d):
    /// `|M (v_n − v_f) − Jᵀλ − Dᵀz − Tᵀβ|∞ / h` (N, N m): round-off of the solve.
    pub(crate) residual: f64,
}

impl Mechanism {
    /// The restitution coefficient of each contact: `e` of an `impact(e)` law, 0 (inelastic)
    /// otherwise.
    pub(super) fn restitution(&self) -> Vec<f64> {
        self.contacts
            .iter()
            .map(|c| match c.law {
                ContactLaw::Impact { e } => e,
                _ => 0.0,
            })
            .collect()
    }

    /// One step of length `h` from `(t, y)` (module doc), its programme solved from the
    /// contacts `closed` of the previous step.
    pub(super) fn half_implicit_step(
        &self,
        t: f64,
        y: &[f64],
        h: f64,
        closed: &[bool],
    ) -> Result<Step, Degenerate> {
        let layout = self.layout();
        let lin = self.linearise(y);
        let minv = self.mass_inverse();
        let v0 = DVector::from_column_slice(&y[layout.velocities()]);
        let v_free = &v0 + (self.applied(y) * h).component_mul(&minv);
        let b = -&lin.phi / h;
        let lower = -&lin.gaps / h;
        let programme = Programme {
            t,
            lin: &lin,
            x_free: &v_free,
            b: &b,
            lower: &lower,
        };
        let mut sol = self.with_friction(&programme, y, closed)?;
        let before = &lin.d * &v0;
        // Newton's restitution: the bounds of the contacts that closed moving in.
        let mut raised = lower.clone();
        let mut bounced = false;
        for (k, e) in self.restitution().into_iter().enumerate() {
            if e > 0.0 && sol.z[k] > 0.0 && before[k] < 0.0 {
                raised[k] = raised[k].max(-e * before[k]);
                bounced = true;
            }
        }
        if bounced {
            let hit: Vec<bool> = sol.z.iter().map(|z| *z > 0.0).collect();
            let programme = Programme {
                lower: &raised,
                ..programme
            };
            sol = self.with_friction(&programme, y, &hit)?;
        }
        let Solution {
            x: v,
            lambda,
            z,
            friction,
        } = sol;
        let mut pushed = self.transpose_times(&lin.jac, &lambda) + lin.d.transpose() * &z;
        let mut tangential = vec![Vector3::zeros(); z.len()];
        if let Some(f) = friction {
            pushed += f.generalised;
            tangential = f.impulse;
        }
        let residual = ((&v - &v_free).component_div(&minv) - pushed).amax() / h;
        let (mut next, v) = (y.to_vec(), v.as_slice());
        for i in 0..layout.nb {
            let (q, _) = self.parts(y, i);
            let w = Vector3::from_column_slice(&v[angular(i)]);
            let pdot = rates(&q[ORIENTATION], &w);
            for (r, rdot) in next[layout.position(i)].iter_mut().zip(&v[linear(i)]) {
                *r += h * rdot;
            }
            for (p, rate) in next[layout.orientation(i)].iter_mut().zip(pdot) {
                *p += h * rate;
            }
        }
        next[layout.velocities()].copy_from_slice(v);
        Ok(Step {
            drift: self.violation_of(&next),
            y: next,
            lambda,
            z,
            friction: tangential,
            residual,
        })
    }

    /// The constraint violation of the positions in `y`: the largest of `|Φ|` (m or
    /// dimensionless, as `PROJECTION_TOL`), the penetration `max(−g, 0)` (m) and `||p| − 1|`.
    pub(super) fn violation_of(&self, y: &[f64]) -> f64 {
        let layout = self.layout();
        (0..layout.nb)
            .map(|i| {
                let p = &y[layout.orientation(i)];
                (p.iter().map(|x| x * x).sum::<f64>().sqrt() - 1.0).abs()
            })
            .fold(self.linearise(y).infeasibility(), f64::max)
    }

    /// The positions of `y` projected onto the joints, `|p| = 1` and the open gaps `g ≥ 0`
    /// (module doc), then the velocities onto the joints' `Φ_q v = 0` (module doc). Each
    /// Newton iteration's programme is solved from the contacts held by the last one, the
    /// first from `closed` (the step's).
    pub(super) fn project_feasible(
        &self,
        t: f64,
        y: &mut [f64],
        closed: &[bool],
    ) -> Result<(), Degenerate> {
        self.normalise(y);
        let free = DVector::zeros(self.layout().dofs());
        let mut held = closed.to_vec();
        self.newton_project(t, y, |y| {
            let lin = self.linearise(y);
            let residual = lin.infeasibility();
            if residual <= PROJECTION_TOL {
                return Ok((residual, None));
            }
            let (b, lower) = (-&lin.phi, -&lin.gaps);
            let programme = Programme {
                t,
                lin: &lin,
                x_free: &free,
                b: &b,
                lower: &lower,
            };
            let sol = self.least_constraint(&programme, &held)?;
            held = sol.z.iter().map(|z| *z > 0.0).collect();
            Ok((residual, Some(sol.x)))
        })?;
        self.project_velocities(t, y, &[])?;
        Ok(())
    }
}
