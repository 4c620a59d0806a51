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
//!
//! A rigid contact (`impact(e)`, `impacts.rs`) has two events: while open, its gap turning
//! negative while closing (`g < 0` and `ġ < 0`: a contact that has just rebounded from a
//! gap a rounding below zero is not hit again); while held, its normal force `λ_n` turning
//! negative (lift-off), checked at the step's end and bisected like a gap.

use super::contact::Modes;
use super::dynamics::Mechanism;
use super::run::Run;
use super::tolerances::{EVENT_HALVINGS, GAP_CHECKS_PER_STEP};
use crate::ode::dense::DenseStep;
use crate::ode::driver::Event;
use crate::ode::roots::bisect;

/// Whether the gap `g` contradicts the mode (closed with `g > 0`, open with `g < 0`).
fn disagrees(closed: bool, g: f64) -> bool {
    if closed {
        g > 0.0
    } else {
        g < 0.0
    }
}

/// One contact's state against its mode at one time.
#[derive(Clone, Copy)]
struct Status {
    /// It contradicts its mode: a compliant contact's gap (`disagrees`), an open rigid
    /// contact closing into its surface (`g < 0`, `ġ < 0`), a held one whose normal force
    /// would pull.
    wrong: bool,
    /// An open rigid contact below its surface (`g < 0`), closing or not.
    below: bool,
}

/// Every contact's `Status` at `(t, y)` (a degenerate solve counts as no lift-off: the
/// step's own evaluations report it).
fn status(mech: &Mechanism, modes: &Modes, t: f64, y: &[f64]) -> Vec<Status> {
    let loads = mech.loads(y, None);
    let mut out: Vec<Status> = loads
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let (closed, rigid) = (modes.closed[k], mech.contacts()[k].rigid());
            let below = rigid && !closed && l.gap < 0.0;
            let wrong = match rigid {
                true => below && l.rate < 0.0,
                false => disagrees(closed, l.gap),
            };
            Status { wrong, below }
        })
        .collect();
    let held = mech.held(modes);
    if !held.is_empty() {
        if let Ok(forces) = mech.holding_forces(t, y, modes) {
            for k in held {
                out[k].wrong = forces[k] < 0.0;
            }
        }
    }
    out
}

/// Whether the accepted step of length `h` from `y0` to `(t1, y1)` may hold a contact
/// switch.
pub(crate) fn suspect(
    mech: &Mechanism,
    modes: &Modes,
    y0: &[f64],
    (t1, y1): (f64, &[f64]),
    h: f64,
) -> bool {
    if mech.contacts().is_empty() {
        return false;
    }
    let (start, end) = (mech.loads(y0, None), mech.loads(y1, None));
    let crossed = start.iter().zip(&end).enumerate().any(|(k, (a, b))| {
        let closed = modes.closed[k];
        let held = closed && mech.contacts()[k].rigid();
        (!held && disagrees(closed, b.gap))
            || (!closed && a.rate < 0.0 && b.rate > 0.0 && a.gap.min(b.gap) < -a.rate * h)
    });
    crossed || (!mech.held(modes).is_empty() && status(mech, modes, t1, y1).iter().any(|s| s.wrong))
}

/// The earliest time in the dense step at which a contact's state contradicts its mode
/// (`Status::wrong`; the far end of the crossing's final bracket, where the contact has the
/// new mode's sign). An open rigid contact found below its surface but no longer closing
/// (an incursion past its lowest point) is located where its gap crossed zero, if the
/// previous check point was above it.
pub(crate) fn first_switch(mech: &Mechanism, modes: &Modes, dense: &DenseStep) -> Option<f64> {
    let n = GAP_CHECKS_PER_STEP + 1;
    let at = |j: usize| dense.t0 + dense.h * j as f64 / n as f64;
    let status_at = |t: f64| status(mech, modes, t, &dense.eval(t));
    for j in 1..=n {
        let now = status_at(at(j));
        let mut before: Option<Vec<Status>> = None;
        let mut found: Option<f64> = None;
        for (k, s) in now.iter().enumerate() {
            let te = if s.wrong {
                bisect(at(j - 1), at(j), EVENT_HALVINGS, |m| !status_at(m)[k].wrong).1
            } else if s.below && !before.get_or_insert_with(|| status_at(at(j - 1)))[k].below {
                bisect(at(j - 1), at(j), EVENT_HALVINGS, |m| !status_at(m)[k].below).1
            } else {
                continue;
            };
            found = Some(found.map_or(te, |f| f.min(te)));
        }
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Switches every compliant contact whose gap at `(t, y)` contradicts its mode (entries
/// record the penetration rate for the hysteresis damping), each logged in `run.events`
/// with its contact point; returns how many switched. Rigid contacts switch in
/// `impacts.rs`.
pub(crate) fn switch_modes(
    mech: &Mechanism,
    modes: &mut Modes,
    (t, y): (f64, &[f64]),
    run: &mut Run,
) -> usize {
    let mut switched = 0;
    for (k, load) in mech.loads(y, None).iter().enumerate() {
        if !mech.contacts()[k].rigid() && disagrees(modes.closed[k], load.gap) {
            modes.closed[k] = !modes.closed[k];
            let name = &mech.contacts()[k].name;
            let event = if modes.closed[k] {
                modes.entry_speed[k] = (-load.rate).max(0.0);
                Event::entry(t, name, load.rate)
            } else {
                modes.entry_speed[k] = 0.0;
                Event::exit(t, name, load.rate)
            };
            run.log(event, &load.at.point);
            switched += 1;
        }
    }
    switched
}
