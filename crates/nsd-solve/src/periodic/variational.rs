//! The flow of one smooth segment and its sensitivity: `y' = f_m(t, y)` together with the
//! variational equations `Φ' = J_m(t, y) Φ`, `Φ(t₀) = I`, integrated by DOP853 over the
//! segment in its fixed modes `m` (the hybrid system's state is restored to them first).
//!
//! The products `J_m Φ` come from the hybrid system's exact linearisation in its current
//! modes where it has one (`Rhs::tangent`: `J = [[0, I], [−M⁻¹K̃, −M⁻¹C̃]]`, with every
//! smooth law's tangent — the sigmoid gap's slope of paper 000 eq. 8, polynomial springs,
//! compliant contacts), with `M` factored once per segment. Where a constraint force acts (a
//! stuck Coulomb contact, a held stop) or the tangent is not symmetric, they are central
//! differences of the mode's vector field along each column of `Φ`: within one mode the
//! piecewise-linear laws make `f_m` affine, so the difference is exact up to round-off
//! (`JVP_STEP`).

use super::error::ShootingError;
use super::tolerances::{JVP_STEP, MAX_SEGMENT_STEPS, STATE_FLOOR, VARIATIONAL_TOL_FACTOR};
use crate::ode::dop853::{initial_step, Dop853};
use crate::ode::step::{Attempt, OneStep, Rhs, StepResult, Trial};
use crate::ode::step_control::{StepControl, Verdict};
use crate::ode::tolerances::{MIN_STEP, UNUSABLE_STEP_CUT};
use crate::ode::{Hybrid, Tolerances};
use nalgebra::{Cholesky, DMatrix, Dyn};

/// The augmented right-hand side `[f_m(t, y); J_m Φ]` (Φ column-major after `y`).
struct Augmented<'a, 's> {
    h: &'a mut Hybrid<'s>,
    n2: usize,
    /// `M`'s Cholesky factor, from the first tangent (`M` is constant).
    mass: Option<Cholesky<f64, Dyn>>,
    /// `K̃ Φₓ + C̃ Φᵥ`, `n × 2n`.
    force: DMatrix<f64>,
    plus: Vec<f64>,
    minus: Vec<f64>,
    f_plus: Vec<f64>,
    f_minus: Vec<f64>,
}

impl Rhs for Augmented<'_, '_> {
    fn eval(&mut self, t: f64, z: &[f64], dz: &mut [f64]) {
        let n2 = self.n2;
        let (y, phi) = z.split_at(n2);
        let (dy, dphi) = dz.split_at_mut(n2);
        self.h.rhs(t, y, dy);
        if self.linearised(t, y, phi, dphi) {
            return;
        }
        let scale = y.iter().fold(STATE_FLOOR, |m, v| m.max(v.abs()));
        for (col, dcol) in phi.chunks(n2).zip(dphi.chunks_mut(n2)) {
            let size = col.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
            if size == 0.0 {
                dcol.fill(0.0);
                continue;
            }
            let eps = JVP_STEP * scale / size;
            for i in 0..n2 {
                self.plus[i] = y[i] + eps * col[i];
                self.minus[i] = y[i] - eps * col[i];
            }
            self.h.rhs(t, &self.plus, &mut self.f_plus);
            self.h.rhs(t, &self.minus, &mut self.f_minus);
            for ((d, up), down) in dcol.iter_mut().zip(&self.f_plus).zip(&self.f_minus) {
                *d = (up - down) / (2.0 * eps);
            }
        }
    }
}

impl Augmented<'_, '_> {
    /// `dΦ = J Φ` from the exact linearisation at `(t, y)`; `false` (nothing written) where
    /// the system has none there.
    fn linearised(&mut self, t: f64, y: &[f64], phi: &[f64], dphi: &mut [f64]) -> bool {
        let n = self.n2 / 2;
        let Some(form) = self.h.tangent(t, y) else {
            return false;
        };
        if self.mass.is_none() {
            let mut m = DMatrix::zeros(n, n);
            for (v, (i, j)) in form.m.iter() {
                m[(i, j)] = *v;
            }
            self.mass = m.cholesky();
        }
        let Some(mass) = &self.mass else {
            return false;
        };
        self.force.fill(0.0);
        let (indptr, indices) = (form.m.indptr(), form.m.indices());
        for (col, phi_col) in phi.chunks(self.n2).enumerate() {
            let (px, pv) = phi_col.split_at(n);
            for i in 0..n {
                let row = indptr.outer_inds_sz(i);
                self.force[(i, col)] = row
                    .map(|s| form.k[s] * px[indices[s]] + form.c[s] * pv[indices[s]])
                    .sum();
            }
        }
        mass.solve_mut(&mut self.force);
        for (col, (phi_col, d_col)) in phi
            .chunks(self.n2)
            .zip(dphi.chunks_mut(self.n2))
            .enumerate()
        {
            d_col[..n].copy_from_slice(&phi_col[n..]);
            for i in 0..n {
                d_col[n + i] = -self.force[(i, col)];
            }
        }
        true
    }
}

/// The tolerances `VARIATIONAL_TOL_FACTOR` times looser than `tol`: the monodromy's, whose
/// orbit is already known.
pub(crate) fn loosened(tol: &Tolerances) -> Tolerances {
    Tolerances {
        rtol: tol.rtol * VARIATIONAL_TOL_FACTOR,
        atol: tol.atol * VARIATIONAL_TOL_FACTOR,
        ..*tol
    }
}

/// The state at `t1` and the sensitivity `∂y(t1)/∂y(t0)` of the segment from `(t0, y0)` in
/// the hybrid system's current modes, at the tolerances `tol` (on the state and on `Φ`
/// alike).
pub(crate) fn segment(
    h: &mut Hybrid,
    (t0, t1): (f64, f64),
    y0: &[f64],
    tol: &Tolerances,
) -> Result<(Vec<f64>, DMatrix<f64>), ShootingError> {
    let n2 = y0.len();
    if t1 <= t0 {
        return Ok((y0.to_vec(), DMatrix::identity(n2, n2)));
    }
    let dim = n2 + n2 * n2;
    let mut z = vec![0.0; dim];
    z[..n2].copy_from_slice(y0);
    for j in 0..n2 {
        z[n2 + j * n2 + j] = 1.0;
    }
    let mut rhs = Augmented {
        h,
        n2,
        mass: None,
        force: DMatrix::zeros(n2 / 2, n2),
        plus: vec![0.0; n2],
        minus: vec![0.0; n2],
        f_plus: vec![0.0; n2],
        f_minus: vec![0.0; n2],
    };
    let tol = Tolerances {
        max_step: tol.max_step.min(t1 - t0),
        ..*tol
    };
    let mut f0 = vec![0.0; dim];
    rhs.eval(t0, &z, &mut f0);
    // An unusable trial stops the shot below, before the control would shorten the step.
    let first = initial_step(&mut rhs, t0, &z, &f0, &tol);
    let mut control = StepControl::new(first, UNUSABLE_STEP_CUT);
    let mut dop = Dop853::new(dim);
    let mut out = Attempt::new(dim);
    let (mut t, mut accepted) = (t0, 0);
    // The last step lands on t1 (a remainder below the step floor is dropped).
    while t1 - t > MIN_STEP * t1.abs().max(1.0) {
        let step = control.size(t, t1, tol.max_step);
        let trial = Trial {
            t,
            y: &z,
            f0: &f0,
            h: step,
            tol: &tol,
        };
        let result = dop.attempt(&mut rhs, &trial, &mut out);
        match result {
            StepResult::Singular => return Err(ShootingError::SingularStep { t }),
            StepResult::Computed { err } if !err.is_finite() => {
                return Err(ShootingError::NonFiniteSensitivity { t })
            }
            StepResult::Computed { .. } => {}
        }
        if let Verdict::Accepted { err } = control.judge(&dop, step, result) {
            control.advanced(&dop, step, err);
            t += step;
            std::mem::swap(&mut z, &mut out.y1);
            std::mem::swap(&mut f0, &mut out.f1);
            accepted += 1;
            if accepted > MAX_SEGMENT_STEPS {
                return Err(ShootingError::SegmentSteps { t });
            }
        }
    }
    let phi = DMatrix::from_column_slice(n2, n2, &z[n2..]);
    z.truncate(n2);
    Ok((z, phi))
}
