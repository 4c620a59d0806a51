//! The flow of one smooth segment and its sensitivity: `y' = f_m(t, y)` together with the
//! variational equations `Φ' = J_m(t, y) Φ`, `Φ(t₀) = I`, integrated by DOP853 over the
//! segment in its fixed modes `m` (the hybrid system's state is restored to them first).
//!
//! The products `J_m δ` are central differences of the mode's vector field along each column
//! of `Φ`. Within one mode the piecewise-linear laws (linear gaps in contact or open, rigid
//! stops, sticking or sliding Coulomb contacts, whose constraint forces are affine in the
//! state) make `f_m` affine, so the difference is exact up to round-off and `Φ` is the
//! segment's exact sensitivity to the integration tolerance; for smooth nonlinear laws
//! (smoothed gaps, polynomial springs) the difference is second-order accurate
//! (`JVP_STEP`).

use super::tolerances::{JVP_STEP, MAX_SEGMENT_STEPS, STATE_FLOOR};
use crate::solve::ode::dop853::{initial_step, Dop853};
use crate::solve::ode::step::{Attempt, OneStep, Rhs, StepResult, Trial};
use crate::solve::ode::tolerances::MIN_STEP;
use crate::solve::ode::{Hybrid, Tolerances};
use nalgebra::DMatrix;

/// The augmented right-hand side `[f_m(t, y); J_m Φ]` (Φ column-major after `y`).
struct Augmented<'a, 's> {
    h: &'a mut Hybrid<'s>,
    n2: usize,
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

/// The state at `t1` and the sensitivity `∂y(t1)/∂y(t0)` of the segment from `(t0, y0)` in
/// the hybrid system's current modes, at the tolerances `tol` (on the state and on `Φ`
/// alike).
pub fn segment(
    h: &mut Hybrid,
    (t0, t1): (f64, f64),
    y0: &[f64],
    tol: &Tolerances,
) -> Result<(Vec<f64>, DMatrix<f64>), String> {
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
    let mut step = initial_step(&mut rhs, t0, &z, &f0, &tol).min(t1 - t0);
    let mut dop = Dop853::new(dim);
    let mut out = Attempt::new(dim);
    let (mut t, mut rejected, mut accepted) = (t0, false, 0);
    while t < t1 {
        let trial = Trial {
            t,
            y: &z,
            f0: &f0,
            h: step,
            tol: &tol,
        };
        let StepResult::Computed { err } = dop.attempt(&mut rhs, &trial, &mut out) else {
            return Err(format!("a singular step at t = {t}"));
        };
        if !err.is_finite() {
            return Err(format!("a non-finite sensitivity at t = {t}"));
        }
        let next = dop.next_step(step, err, rejected);
        if err <= 1.0 {
            t += step;
            std::mem::swap(&mut z, &mut out.y1);
            std::mem::swap(&mut f0, &mut out.f1);
            accepted += 1;
            if accepted > MAX_SEGMENT_STEPS {
                return Err(format!(
                    "more than {MAX_SEGMENT_STEPS} steps in one segment"
                ));
            }
        }
        rejected = err > 1.0;
        // The last step lands on t1 (a remainder below the step floor is dropped).
        let rest = t1 - t;
        step = if rest <= MIN_STEP * t1.abs().max(1.0) {
            break;
        } else {
            next.min(rest).min(tol.max_step)
        };
    }
    let phi = DMatrix::from_column_slice(n2, n2, &z[n2..]);
    z.truncate(n2);
    Ok((z, phi))
}
