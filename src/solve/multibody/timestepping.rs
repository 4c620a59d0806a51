//! The `timestepping` backend's loop (paper 002, Sect. 2.1.4 and its Algorithm 1): steps of
//! the half-implicit scheme (`timestep.rs`), each followed by the position projection, with
//! the step size `h ∈ [h_min, h_max]` chosen per step.
//!
//! # The step size
//! The paper makes `h` an unknown of each step's NLP (eq. 25), bounded by `h_min` and
//! `h_max`, and solves it by SQP (penalty update eq. 43). Its Fig. 2 says what decides `h`:
//! the step is as long as the discretised constraints (eqs. 23–24) stay feasible, and where
//! the longest step "violates the linearized equality constraints" the solver falls back
//! towards `h_min`. The rule here makes that explicit: try `h_max`; accept the step if its
//! `drift` (the constraint violation of `q_n` before the projection: joints, penetrations,
//! `|p| − 1`) is at most the tolerance `drift`; otherwise halve it, never below `h_min`,
//! which is always accepted. The last step is cut to end at `t1`.
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
use super::integrate::{Failed, Run, RunError, Samples};
use super::timestep::Step;
use super::tolerances::{STEP_END_SLACK, STEP_UNDERFLOW};
use crate::solve::ode::driver::Output;
use nalgebra::DVector;

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

/// One accepted step: where it ended, its size, its drift before and violation after the
/// projection, its equations-of-motion residual, its closed contacts and trial steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepRecord {
    pub t: f64,
    pub h: f64,
    pub drift: f64,
    pub violation: f64,
    pub residual: f64,
    pub closed: usize,
    pub trials: usize,
}

/// The mean forces of a step: each contact's normal force `z/h` (N) and the joint
/// multipliers `λ/h` (as `Mechanism::reactions_of` takes them).
#[derive(Debug, Clone, PartialEq)]
pub struct StepForces {
    pub contact: Vec<f64>,
    pub lambda: DVector<f64>,
}

/// The step from `(t, y)` by the rule of the module doc: the step, its size and the trials.
/// The first trial is `h_max`, or the rest of the run when that is shorter (a remainder
/// within `STEP_END_SLACK` of `h_max` is taken whole).
fn choose(
    mech: &Mechanism,
    t: f64,
    y: &[f64],
    s: &Stepping,
) -> Result<(Step, f64, usize), Degenerate> {
    let remaining = s.t1 - t;
    // A last step that would leave less than the slack is stretched to end on t1.
    let mut h = if s.h_max >= remaining * (1.0 - STEP_END_SLACK) {
        remaining
    } else {
        s.h_max
    };
    let mut trials = 0;
    loop {
        trials += 1;
        // A step whose programme fails (its linearised contacts infeasible) is retried
        // shorter, like one that drifts too far; at h_min both are final.
        match mech.half_implicit_step(t, y, h) {
            Ok(step) if step.drift <= s.drift || h <= s.h_min => return Ok((step, h, trials)),
            Err(e) if h <= s.h_min => return Err(e),
            _ => h = (0.5 * h).max(s.h_min),
        }
    }
}

/// Integrates the mechanism from its consistent initial state `y0` over `s.t0..s.t1`.
/// Samples are step ends: `steps` records every one, `every(dt)` and `at(…)` the first step
/// end at or after each requested time (its own time in `run.t`). `progress` is told the
/// time after each step.
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
    if due(t, &mut samples) {
        run.record(t, y.clone(), &modes);
        run.forces.push(StepForces {
            contact: vec![0.0; k],
            lambda: DVector::zeros(mech.rows),
        });
    }
    let end = STEP_UNDERFLOW * (s.t1 - s.t0);
    let mut evals = 0;
    while s.t1 - t > end {
        let (step, h, trials) = match choose(mech, t, &y, s) {
            Ok(chosen) => chosen,
            Err(e) => return Err(failed(e.into(), run, t, y, &modes, evals)),
        };
        evals += trials;
        run.rejected += trials - 1;
        let mut next = step.y;
        let t_next = if s.t1 - (t + h) <= STEP_END_SLACK * h {
            s.t1
        } else {
            t + h
        };
        if let Err(e) = mech.project_feasible(t_next, &mut next) {
            return Err(failed(e.into(), run, t, y, &modes, evals));
        }
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
        let closed: Vec<bool> = step.z.iter().map(|z| *z > 0.0).collect();
        run.switches += closed
            .iter()
            .zip(&modes.closed)
            .filter(|(a, b)| a != b)
            .count();
        modes.closed = closed;
        run.log.push(StepRecord {
            t,
            h,
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
                contact: (step.z / h).iter().copied().collect(),
                lambda: step.lambda / h,
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
