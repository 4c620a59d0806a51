//! Contact entries and exits of the clearance joints as events of the `events` backend: a
//! closed contact whose gap turns positive opens, an open one whose gap turns negative
//! closes, at the crossing located on the step's 7th-order dense output, so the law switches
//! exactly at `g = 0` (to the bisection's resolution, `EVENT_HALVINGS`).
//!
//! The gaps are nonlinear in the state (rotations), so the crossing is bracketed by sampling
//! the gaps at `GAP_CHECKS_PER_STEP` interior points and the step's end, and bisected. The
//! interior points are examined only when the step is suspect: a gap disagrees with its
//! mode at the step's end, or an open gap turned from closing to opening within the step
//! and came within its closing speed times the step of zero (an incursion that enters and
//! leaves inside one step). A shallower, faster incursion can be missed; the step-size
//! control on the free flight keeps such steps short where the gaps move fast.

use super::contact::Modes;
use super::dynamics::Mechanism;
use super::tolerances::{EVENT_HALVINGS, GAP_CHECKS_PER_STEP};
use crate::solve::ode::dense::DenseStep;
use crate::solve::ode::roots::bisect;

/// Whether the gap `g` contradicts the mode (closed with `g > 0`, open with `g < 0`).
fn disagrees(closed: bool, g: f64) -> bool {
    if closed {
        g > 0.0
    } else {
        g < 0.0
    }
}

/// Whether the accepted step of length `h` from `y0` to `y1` may hold a contact switch.
pub fn suspect(mech: &Mechanism, modes: &Modes, y0: &[f64], y1: &[f64], h: f64) -> bool {
    if mech.contacts().is_empty() {
        return false;
    }
    let (start, end) = (mech.loads(y0, None), mech.loads(y1, None));
    start.iter().zip(&end).enumerate().any(|(k, (a, b))| {
        let closed = modes.closed[k];
        disagrees(closed, b.gap)
            || (!closed && a.rate < 0.0 && b.rate > 0.0 && a.gap.min(b.gap) < -a.rate * h)
    })
}

/// The earliest time in the dense step at which a gap crosses zero against its mode (the
/// far end of the crossing's final bracket, where the gap has the new mode's sign).
pub fn first_switch(mech: &Mechanism, modes: &Modes, dense: &DenseStep) -> Option<f64> {
    let n = GAP_CHECKS_PER_STEP + 1;
    let at = |j: usize| dense.t0 + dense.h * j as f64 / n as f64;
    let gap = |k: usize, t: f64| mech.loads(&dense.eval(t), None)[k].gap;
    for j in 1..=n {
        let loads = mech.loads(&dense.eval(at(j)), None);
        let found = (0..loads.len())
            .filter(|&k| disagrees(modes.closed[k], loads[k].gap))
            .map(|k| {
                let closed = modes.closed[k];
                bisect(at(j - 1), at(j), EVENT_HALVINGS, |m| {
                    !disagrees(closed, gap(k, m))
                })
                .1
            })
            .reduce(f64::min);
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Switches every contact whose gap at `y` contradicts its mode (entries record the
/// penetration rate for the hysteresis damping); returns how many switched.
pub fn switch_modes(mech: &Mechanism, modes: &mut Modes, y: &[f64]) -> usize {
    let mut switched = 0;
    for (k, load) in mech.loads(y, None).iter().enumerate() {
        if disagrees(modes.closed[k], load.gap) {
            modes.closed[k] = !modes.closed[k];
            modes.entry_speed[k] = if modes.closed[k] {
                (-load.rate).max(0.0)
            } else {
                0.0
            };
            switched += 1;
        }
    }
    switched
}
