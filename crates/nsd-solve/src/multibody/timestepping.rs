//! The `timestepping` backend's loop (paper 002, Sect. 2.1.4 and its Algorithm 1): steps of
//! the half-implicit scheme (`timestep.rs`), each followed by the position projection, with
//! the step size `h ∈ [h_min, h_max]` chosen per step.
//!
//! # The step size
//! The paper makes `h` an unknown of each step's NLP (eq. 25), bounded by `h_min` and
//! `h_max`, and solves it by SQP (penalty update eq. 43). Its Fig. 2 says what decides `h`:
//! the step is as long as the discretised constraints (eqs. 23–24) stay feasible, and where
//! the longest step "violates the linearized equality constraints" the solver falls back
//! towards `h_min`. The rule here makes that explicit: a step is accepted if its `drift`
//! (the constraint violation of `q_n` before the projection: joints, penetrations,
//! `|p| − 1`) is at most the tolerance `drift`, and the step at `h_min` always is. Since
//! the drift is second order in `h` (below), each trial predicts the longest passing step
//! from the last: `h · H_SAFETY √(drift_tol / drift)`, after a rejection (at most fivefold
//! shorter) as after an accepted step (at most twice longer, never above `h_max`). The
//! step is so the largest of the range whose drift passes, to within `H_SAFETY`, found in
//! one trial where the motion changes slowly from step to step (the halving of `h_max` it
//! replaces took two or three trials per step on the chain of `bench/chain20_clearance.nsd`,
//! and only powers of two below `h_max`). A trial whose programme fails (its linearised
//! contacts infeasible) or whose projection does not converge is halved, down to `h_min`,
//! where either failure is final. The last step is cut to end at `t1`.
//!
//! Why it behaves as the paper's: the drift is the linearisation error of eqs. 23–24, about
//! `½ h² κ u²` for a constraint of curvature `κ` whose points move at `u` relative to each
//! other: a point at arm `s` from the centre of a body turning at `ω` leaves its joint or
//! gap by `½ h² ω² |s|`, a contact point sliding at `u` along a gap of curvature `κ` by
//! `½ h² κ u²`. It is largest where the contact points move fast relative to each other
//! (on the clearance pendulum the hub turning fast round the pin at the bottom of the
//! swing), so `h` drops there, as the paper observes of Fig. 29 ("step size changes when
//! the contact points acquire high relative sliding speeds"); it vanishes in free
//! translation and in a settled sliding contact, where `h` stays at `h_max` (Fig. 22).
//! The scheme is first order, its numerical dissipation per unit time grows with `h`, so
//! the energy lost over a run orders as Fig. 30's: lower ranges lose less, and with `h_max`
//! fixed a smaller `h_min` lowers the steps taken where the test fails.

use super::contact::Modes;
use super::dynamics::{Degenerate, Mechanism};
use super::run::{Failed, Run, RunError, Samples, StepForces, StepRecord};
use super::timestep::Step;
use super::tolerances::{STEP_END_SLACK, STEP_UNDERFLOW};
use crate::ode::driver::{Event, Output};
use nalgebra::{DVector, Vector3};

/// The step size's safety factor (dimensionless): the next trial aims at `H_SAFETY²` of the
/// drift tolerance, so that a step whose drift grows a little faster than `h²` still passes.
const H_SAFETY: f64 = 0.9;

/// Bounds of the factor on `h` from one trial to the next (dimensionless): at most doubled
/// after a step (a contact closing in the next one can raise the drift abruptly), at most
/// cut fivefold after a rejection (a drift far above `h²`'s prediction, a contact newly
/// closed, is not extrapolated further; the next trial corrects it).
const H_FACTOR_MIN: f64 = 0.2;
const H_FACTOR_MAX: f64 = 2.0;

/// The factor on `h` after a trial whose programme or projection failed (dimensionless):
/// no drift measures how far it was from passing, so it is halved as the paper's rule does.
const HALVED: f64 = 0.5;

/// The run's span, step-size range and output request.
#[derive(Debug, Clone)]
pub struct Stepping {
    pub t0: f64,
    pub t1: f64,
    /// The step-size range (s) and the largest drift a step may leave to the projection (m).
    pub h_min: f64,
    pub h_max: f64,
    pub drift: f64,
    pub output: Output,
}

/// An accepted step: its end, its size, its trials, the trial step and the state after
/// the projection.
struct Accepted {
    t: f64,
    h: f64,
    trials: usize,
    step: Step,
    y: Vec<f64>,
}

/// The step from `(t, y)` by the rule of the module doc, its first trial `h` (cut to the
/// rest of the run, a remainder within `STEP_END_SLACK` of it taken whole). A trial is
/// retried shorter when its programme fails (its linearised contacts infeasible), when it
/// drifts too far, or when its projection does not converge; at `h_min` the drift passes
/// and the failures are final.
fn advance(
    mech: &Mechanism,
    (t, y): (f64, &[f64]),
    closed: &[bool],
    mut h: f64,
    s: &Stepping,
) -> Result<Accepted, Degenerate> {
    let remaining = s.t1 - t;
    if h >= remaining * (1.0 - STEP_END_SLACK) {
        h = remaining;
    }
    let mut trials = 0;
    loop {
        trials += 1;
        let floor = h <= s.h_min;
        let step = match mech.half_implicit_step(t, y, h, closed) {
            Ok(step) => step,
            Err(e) if floor => return Err(e),
            Err(_) => {
                h = shorter(h, HALVED, s);
                continue;
            }
        };
        if step.drift > s.drift && !floor {
            h = shorter(h, drift_factor(step.drift, s.drift), s);
            continue;
        }
        let t_end = if s.t1 - (t + h) <= STEP_END_SLACK * h {
            s.t1
        } else {
            t + h
        };
        let mut next = step.y.clone();
        let held: Vec<bool> = step.z.iter().map(|z| *z > 0.0).collect();
        match mech.project_feasible(t_end, &mut next, &held) {
            Ok(()) => {
                return Ok(Accepted {
                    t: t_end,
                    h,
                    trials,
                    step,
                    y: next,
                })
            }
            Err(e) if floor => return Err(e),
            Err(_) => h = shorter(h, HALVED, s),
        }
    }
}

/// `h` times `factor`, never below `h_min`.
fn shorter(h: f64, factor: f64, s: &Stepping) -> f64 {
    (h * factor).max(s.h_min)
}

/// The factor on `h` that brings a step's drift `drift` to `H_SAFETY²` of the tolerance
/// `tol`, the drift being second order in `h` (module doc), within `[H_FACTOR_MIN,
/// H_FACTOR_MAX]`; `H_FACTOR_MAX` for a step without drift.
fn drift_factor(drift: f64, tol: f64) -> f64 {
    (H_SAFETY * (tol / drift).sqrt()).clamp(H_FACTOR_MIN, H_FACTOR_MAX)
}

/// Integrates the mechanism from its consistent initial state `y0` over `s.t0..s.t1`.
/// Samples are step ends: `steps` records every one, `every(dt)` and `at(…)` the first step
/// end at or after each requested time (its own time in `run.t`). Every step end updates
/// `run.extremes` (the gaps after the projection, the step's mean normal forces) and logs
/// each contact that starts or stops carrying an impulse as an `entry` or `exit` there.
/// `progress` is told the time after each step.
pub fn timestep(
    mech: &Mechanism,
    y0: Vec<f64>,
    s: &Stepping,
    progress: &mut dyn FnMut(f64),
) -> Result<Run, Box<Failed>> {
    let k = mech.contacts().len();
    let mut modes = Modes {
        closed: vec![false; k],
        entry_speed: vec![0.0; k],
    };
    let mut run = Run {
        initial: y0.clone(),
        ..Run::default()
    };
    let mut samples = Samples {
        output: &s.output,
        t0: s.t0,
        next: 0,
    };
    let due = |t: f64, samples: &mut Samples| {
        let mut any = s.output == Output::Steps;
        while samples.next_until(t, s.t1).is_some() {
            any = true;
        }
        any
    };
    let (mut t, mut y) = (s.t0, y0);
    run.extremes.observe(&mech.loads(&y, None));
    if due(t, &mut samples) {
        run.record(t, y.clone(), &modes);
        run.forces.push(StepForces {
            contact: vec![0.0; k],
            friction: vec![Vector3::zeros(); k],
            lambda: DVector::zeros(mech.rows),
        });
    }
    let end = STEP_UNDERFLOW * (s.t1 - s.t0);
    let mut evals = 0;
    let mut h = s.h_max;
    while s.t1 - t > end {
        let Accepted {
            t: t_next,
            h: taken,
            trials,
            step,
            y: next,
        } = match advance(mech, (t, &y), &modes.closed, h, s) {
            Ok(accepted) => accepted,
            Err(e) => return Err(failed(e.into(), run, t, y, &modes, evals)),
        };
        evals += trials;
        run.rejected += trials - 1;
        h = (taken * drift_factor(step.drift, s.drift)).clamp(s.h_min, s.h_max);
        if next.iter().any(|v| !v.is_finite()) {
            return Err(failed(
                RunError::NonFinite { t: t_next },
                run,
                t,
                y,
                &modes,
                evals,
            ));
        }
        (t, y) = (t_next, next);
        let mut loads = mech.loads(&y, None);
        for ((k, load), z) in loads.iter_mut().enumerate().zip(step.z.iter()) {
            load.normal = z / taken;
            if (*z > 0.0) != modes.closed[k] {
                modes.closed[k] = *z > 0.0;
                let name = &mech.contacts()[k].name;
                let event = match modes.closed[k] {
                    true => Event::entry(t, name, load.rate),
                    false => Event::exit(t, name, load.rate),
                };
                run.log(event, &load.at.point);
                run.switches += 1;
            }
        }
        run.extremes.observe(&loads);
        run.log.push(StepRecord {
            t,
            h: taken,
            drift: step.drift,
            violation: mech.violation_of(&y),
            residual: step.residual,
            closed: modes.closed.iter().filter(|c| **c).count(),
            trials,
        });
        run.steps += 1;
        if due(t, &mut samples) {
            run.record(t, y.clone(), &modes);
            run.forces.push(StepForces {
                contact: (step.z / taken).iter().copied().collect(),
                friction: step.friction.iter().map(|f| f / taken).collect(),
                lambda: step.lambda / taken,
            });
        }
        progress(t);
    }
    Ok(run.close(t, y, &modes, evals))
}

/// A failed run: the error and the samples up to `t`.
fn failed(
    error: RunError,
    run: Run,
    t: f64,
    y: Vec<f64>,
    modes: &Modes,
    evals: usize,
) -> Box<Failed> {
    Box::new(Failed {
        error,
        partial: run.close(t, y, modes, evals),
    })
}
