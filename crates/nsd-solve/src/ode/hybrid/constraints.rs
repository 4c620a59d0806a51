//! The bilateral constraints of the current modes — stuck Coulomb contacts and stops held in
//! persistent contact — and their forces, solved together: each constraint keeps the
//! relative acceleration of its two sides on the walls' (`w_iᵀẍ = ÿ_b − ÿ_a`, paper 001
//! eq. 11 for one contact), with `ẍ = ẍ_free + Σ_j λ_j M⁻¹w_j`, so
//! `Σ_j (w_iᵀM⁻¹w_j) λ_j = ÿ_b − ÿ_a − w_iᵀẍ_free`. Coupled constraints (a contact and a stop
//! on the same mass, two contacts through a spring) thus see each other's forces; redundant
//! ones (a singular coupling matrix) take the least-squares forces.

use super::{FrictionMode, Hybrid};
use crate::ode::tolerances::REDUNDANT_CONSTRAINT;
use nalgebra::{DMatrix, DVector};
use nsd_model::system::Attach;

/// An active bilateral constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bilateral {
    /// A stuck Coulomb contact (index into `friction`).
    Stuck(usize),
    /// A rigid stop in persistent contact (index into `stops`).
    Held(usize),
}

/// One constraint's data: its direction `w` (sparse), `M⁻¹w` and the relative wall
/// acceleration it must follow.
struct Row<'a> {
    id: Bilateral,
    w: &'a [(usize, f64)],
    minv_w: &'a [f64],
    target: f64,
}

impl Hybrid<'_> {
    /// `ÿ_b − ÿ_a`: what `wᵀẍ` must equal to keep `x_a − x_b` (walls included) constant.
    pub(super) fn wall_acceleration(&self, a: Attach, b: Attach, t: f64) -> f64 {
        self.form.wall_rate(b, t, 2) - self.form.wall_rate(a, t, 2)
    }

    /// Removes the round-off relative velocities of the stuck contacts, all at once: the
    /// velocity change `−Σ_j δ_j M⁻¹w_j` with `Σ_j (w_iᵀM⁻¹w_j) δ_j = s_i` (the smallest in
    /// the kinetic-energy norm).
    pub(super) fn remove_stuck_velocity(&self, t: f64, y: &mut [f64]) {
        let rows: Vec<Row<'_>> = self
            .rows(t)
            .into_iter()
            .filter(|r| matches!(r.id, Bilateral::Stuck(_)))
            .collect();
        if rows.is_empty() {
            return;
        }
        let s = DVector::from_iterator(
            rows.len(),
            rows.iter().map(|r| match r.id {
                Bilateral::Stuck(c) => self.slip_velocity(c, t, y),
                Bilateral::Held(_) => 0.0,
            }),
        );
        let delta = self.solve_coupled(&rows, s);
        for (r, d) in rows.iter().zip(delta.iter()) {
            for (v, m) in y[self.form.n..].iter_mut().zip(r.minv_w) {
                *v -= d * m;
            }
        }
    }

    /// `G x = rhs` with `G = [w_iᵀM⁻¹w_j]` of the rows (least squares when singular).
    fn solve_coupled(&self, rows: &[Row<'_>], rhs: DVector<f64>) -> DVector<f64> {
        let dot = |w: &[(usize, f64)], z: &[f64]| w.iter().map(|&(i, wi)| wi * z[i]).sum::<f64>();
        let g = DMatrix::from_fn(rows.len(), rows.len(), |i, j| {
            dot(rows[i].w, rows[j].minv_w)
        });
        if rows.len() == 1 {
            return rhs / g[(0, 0)];
        }
        g.clone()
            .lu()
            .solve(&rhs)
            .or_else(|| g.svd(true, true).solve(&rhs, REDUNDANT_CONSTRAINT).ok())
            .unwrap_or_else(|| DVector::zeros(rows.len()))
    }

    fn rows(&self, t: f64) -> Vec<Row<'_>> {
        let (form, state) = (&self.form, &self.state);
        let stuck = form
            .friction
            .iter()
            .zip(&state.friction)
            .enumerate()
            .filter(|(_, (_, &mode))| mode == FrictionMode::Stick)
            .map(|(c, (f, _))| Row {
                id: Bilateral::Stuck(c),
                w: &f.w,
                minv_w: &f.minv_w,
                target: self.wall_acceleration(f.a, f.b, t),
            });
        let held = form
            .stops
            .iter()
            .zip(&state.stops)
            .enumerate()
            .filter(|(_, (_, held))| held.is_some())
            .map(|(s, (stop, _))| Row {
                id: Bilateral::Held(s),
                w: &stop.w,
                minv_w: &stop.minv_w,
                target: self.wall_acceleration(stop.a, stop.b, t),
            });
        stuck.chain(held).collect()
    }

    /// Adds the constraint forces' accelerations to `acc` (the free accelerations) and
    /// returns the forces `λ` along each `w`.
    pub(super) fn constrain(&self, t: f64, acc: &mut [f64]) -> Vec<(Bilateral, f64)> {
        // The common case, nothing stuck or held, costs two scans and no allocation.
        if !self.state.any_constrained() {
            return Vec::new();
        }
        let rows = self.rows(t);
        if rows.is_empty() {
            return Vec::new();
        }
        let dot = |w: &[(usize, f64)], z: &[f64]| w.iter().map(|&(i, wi)| wi * z[i]).sum::<f64>();
        let rhs = DVector::from_iterator(rows.len(), rows.iter().map(|r| r.target - dot(r.w, acc)));
        let lambda = self.solve_coupled(&rows, rhs);
        for (r, l) in rows.iter().zip(lambda.iter()) {
            for (a, m) in acc.iter_mut().zip(r.minv_w) {
                *a += l * m;
            }
        }
        rows.iter()
            .map(|r| r.id)
            .zip(lambda.iter().copied())
            .collect()
    }

    /// The forces `λ` of every active constraint at `(t, y)` in the current modes (none, and
    /// no right-hand-side evaluation, when nothing is stuck or held).
    pub(super) fn constraint_forces(&mut self, t: f64, y: &[f64]) -> Vec<(Bilateral, f64)> {
        if !self.state.any_constrained() {
            return Vec::new();
        }
        let mut dy = vec![0.0; 2 * self.form.n];
        self.free_rhs(t, y, &mut dy);
        self.constrain(t, &mut dy[self.form.n..])
    }

    /// The force of one constraint at `(t, y)` in the current modes (0 if not active).
    pub(super) fn constraint_force(&mut self, which: Bilateral, t: f64, y: &[f64]) -> f64 {
        self.constraint_forces(t, y)
            .into_iter()
            .find(|(id, _)| *id == which)
            .map_or(0.0, |(_, l)| l)
    }
}
