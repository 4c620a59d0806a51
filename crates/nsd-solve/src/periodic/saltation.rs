//! The saltation matrix of a switch: how a perturbation of the state just before an event
//! maps to one just after it, the event time moving with the perturbation. For an event
//! `g(t, y) = 0` with the jump map `y⁺ = R(t, y⁻)` between the vector fields `f⁻` and
//! `f⁺` of the modes before and after,
//!
//! `S = R_y + (f⁺ − R_y f⁻ − R_t) ∇gᵀ / (∇g·f⁻ + g_t)`
//!
//! (Leine and Nijmeijer, Sect. 7.2; di Bernardo et al., Sect. 2.5). Contact entries and
//! exits, the end of sliding and the start of slipping have `R = I`; a rigid stop's impact
//! has Newton's law as `R`, linear in the velocities. The event functions of the modes are
//! linear in the state (`EventFn`), so `∇g` and `g_t` are exact; a stuck contact's stick
//! force and a held stop's holding force are affine in the state, as is every jump map, so
//! their central differences are exact up to round-off.
//!
//! # References
//! Leine and Nijmeijer, *Dynamics and Bifurcations of Non-Smooth Mechanical Systems*,
//! Springer 2004, Sect. 7.2 (saltation matrix). di Bernardo, Budd, Champneys and Kowalczyk,
//! *Piecewise-smooth Dynamical Systems*, Springer 2008, Sect. 2.5.

use super::error::ShootingError;
use super::tolerances::{GRAZING_RATE, STATE_FLOOR, SWITCH_STEP};
use crate::ode::driver::{Cause, Switch};
use crate::ode::hybrid::{Action, EventFn, ModeState};
use crate::ode::Hybrid;
use nalgebra::{DMatrix, DVector};

/// The saltation matrix at `after` (a recorded switch) from the modes `before`, with `y⁻`
/// the state reached at the switch in the modes before. Fails at a grazing crossing.
pub(crate) fn saltation(
    h: &mut Hybrid,
    before: &ModeState,
    after: &Switch,
    y_minus: &[f64],
) -> Result<DMatrix<f64>, ShootingError> {
    let (t, n2) = (after.t, y_minus.len());
    h.state.clone_from(before);
    let f_minus = vector_field(h, t, y_minus);
    let (grad, g_t) = match &after.cause {
        Cause::Start => return Ok(DMatrix::identity(n2, n2)),
        Cause::Event(ev) => event_gradient(h, ev, t, n2),
        Cause::StickBreak { contact } => {
            differenced(|t, y| h.stick_force(*contact, t, y), t, y_minus)
        }
        Cause::LiftOff { stop } => differenced(|t, y| h.holding_force(*stop, t, y), t, y_minus),
    };
    let (r_y, r_t) = match &after.cause {
        Cause::Event(ev) if matches!(ev.action, Action::Impact { .. }) => {
            impact_jacobians(h, ev, t, y_minus)
        }
        _ => (DMatrix::identity(n2, n2), DVector::zeros(n2)),
    };
    let rate = grad.dot(&f_minus) + g_t;
    if rate.abs() <= GRAZING_RATE * grad.norm() * f_minus.norm() {
        return Err(ShootingError::Grazing { t });
    }
    h.state.clone_from(&after.modes);
    let jump = vector_field(h, t, &after.y) - &r_y * &f_minus - r_t;
    Ok(r_y + jump * grad.transpose() / rate)
}

/// The vector field of the hybrid system's current modes at `(t, y)`.
pub(super) fn vector_field(h: &mut Hybrid, t: f64, y: &[f64]) -> DVector<f64> {
    let mut f = vec![0.0; y.len()];
    h.rhs(t, y, &mut f);
    DVector::from_vec(f)
}

/// `∇g` and `g_t` of an event function `Σ wᵢyᵢ + c + coef · wall⁽ᵏ⁾(t)`.
pub(super) fn event_gradient(h: &Hybrid, ev: &EventFn, t: f64, n2: usize) -> (DVector<f64>, f64) {
    let mut grad = DVector::zeros(n2);
    for &(i, w) in &ev.w {
        grad[i] += w;
    }
    let g_t = ev.wall.map_or(0.0, |(d, coef, order)| {
        coef * h.form.wall_motion(d, t, order + 1)
    });
    (grad, g_t)
}

/// The perturbation of the state component `i` (or of time, `i = None`) used for central
/// differences at `(t, y)`.
fn perturbation(t: f64, y: &[f64]) -> (f64, f64) {
    let scale = y.iter().fold(STATE_FLOOR, |m, v| m.max(v.abs()));
    (SWITCH_STEP * scale, SWITCH_STEP * t.abs().max(1.0))
}

/// `∇g` and `g_t` of a scalar function of the state by central differences.
pub(super) fn differenced(
    mut g: impl FnMut(f64, &[f64]) -> f64,
    t: f64,
    y: &[f64],
) -> (DVector<f64>, f64) {
    let (dy, dt) = perturbation(t, y);
    let mut z = y.to_vec();
    let grad = DVector::from_fn(y.len(), |i, _| {
        z[i] = y[i] + dy;
        let up = g(t, &z);
        z[i] = y[i] - dy;
        let down = g(t, &z);
        z[i] = y[i];
        (up - down) / (2.0 * dy)
    });
    let g_t = (g(t + dt, y) - g(t - dt, y)) / (2.0 * dt);
    (grad, g_t)
}

/// `R_y` and `R_t` of a single stop's impact (Newton's law, `Hybrid::impacts`).
pub(super) fn impact_jacobians(
    h: &Hybrid,
    ev: &EventFn,
    t: f64,
    y: &[f64],
) -> (DMatrix<f64>, DVector<f64>) {
    let (dy, dt) = perturbation(t, y);
    let jump = |t: f64, z: &[f64]| {
        let mut z = z.to_vec();
        h.impacts(std::slice::from_ref(ev), &[0], t, &mut z);
        DVector::from_vec(z)
    };
    let mut z = y.to_vec();
    let mut r_y = DMatrix::zeros(y.len(), y.len());
    for i in 0..y.len() {
        z[i] = y[i] + dy;
        let up = jump(t, &z);
        z[i] = y[i] - dy;
        let down = jump(t, &z);
        z[i] = y[i];
        r_y.set_column(i, &((up - down) / (2.0 * dy)));
    }
    let r_t = (jump(t + dt, y) - jump(t - dt, y)) / (2.0 * dt);
    (r_y, r_t)
}
