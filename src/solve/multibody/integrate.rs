//! The `events` backend's loop for a mechanism: DOP853 steps (`solve::ode::dop853`) on the
//! index-1 equations of `dynamics.rs`, the coordinate projection after every accepted step,
//! and output samples from the 7th-order dense output, each projected like the steps.
//!
//! Projecting after the step restarts the next one from a slightly different state, so the
//! FSAL derivative is recomputed there (one evaluation per step); the error control is
//! DOP853's own. The clearance joints' contacts open and close at events (`events.rs`): an
//! accepted step in which a gap changes sign against its mode is cut at the crossing, located
//! on the dense output, and the next step starts there in the new mode. A rigid contact's
//! closure is an impact there, its rest a held row (`impacts.rs`); after any event the
//! integration restarts from the new state (DOP853 has no memory but the FSAL derivative,
//! recomputed there).

use super::contact::Modes;
use super::dynamics::{Degenerate, Mechanism};
use super::events::{first_switch, suspect};
use super::extremes::{any_closed, Extremes};
use super::timestepping::{StepForces, StepRecord};
use super::tolerances::{EVENTS_AT_ONE_INSTANT, GRID_END_SLACK, STEP_UNDERFLOW};
use crate::solve::ode::dense::DenseStep;
use crate::solve::ode::dop853::{initial_step, Dop853, Tolerances};
use crate::solve::ode::driver::{Event, Output, ZenoWatch};
use crate::solve::ode::step::{Attempt, OneStep, Rhs, StepResult, Trial};
use crate::solve::ode::tolerances::ZENO_INTERVAL;
use nalgebra::Vector3;

/// The run's span, tolerances and output request.
#[derive(Debug, Clone)]
pub struct Settings {
    pub t0: f64,
    pub t1: f64,
    pub tol: Tolerances,
    pub output: Output,
}

/// The samples of a run (projected states) and its counters.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub t: Vec<f64>,
    pub y: Vec<Vec<f64>>,
    /// The contact modes at each sample.
    pub modes: Vec<Modes>,
    /// The consistent initial state at `t0` and the state reached last.
    pub initial: Vec<f64>,
    pub last: (f64, Vec<f64>),
    pub last_modes: Modes,
    pub steps: usize,
    /// Contact entries and exits (rigid contacts: holds and lift-offs).
    pub switches: usize,
    /// The contact events, each with its contact point: compliant entries and exits
    /// (`entry`, `exit`), the rigid contacts' `impact`, `hold`, `zeno`, `lift-off` (as the
    /// DOF integrator's `events.csv`), and in `timestepping` the entries and exits at step
    /// ends; the impacts counted per contact and the estimated accumulation times of Zeno
    /// sequences.
    pub events: Vec<ContactEvent>,
    pub impacts: usize,
    pub zeno: Vec<f64>,
    pub rejected: usize,
    pub rhs_evals: usize,
    /// The largest penetration and normal force over the motion (`extremes.rs`).
    pub extremes: Extremes,
    /// The `timestepping` backend's steps (`timestepping.rs`), and at each sample the mean
    /// forces of the step that ended there (empty for the `events` backend).
    pub log: Vec<StepRecord>,
    pub forces: Vec<StepForces>,
}

/// One event of a run with where its contact point was (global, m): a row of the
/// multibody `events.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactEvent {
    pub event: Event,
    pub point: [f64; 3],
}

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Degenerate(#[from] Degenerate),
    #[error("step size underflow at t = {t} (h = {h:e})")]
    StepUnderflow { t: f64, h: f64 },
    #[error("the state is not finite at t = {t}")]
    NonFinite { t: f64 },
    #[error("the rigid contact `{contact}` is penetrated at t = {t} without a located impact")]
    Penetrated { t: f64, contact: String },
    #[error("the contacts switched {EVENTS_AT_ONE_INSTANT} times at t = {t} without the time advancing (an accumulation of events that is not a resting contact)")]
    Chatter { t: f64 },
}

/// A failed run: the error and the samples up to it.
#[derive(Debug, Clone)]
pub struct Failed {
    pub error: RunError,
    pub partial: Run,
}

/// The mechanism as a `Rhs`: a degenerate state is kept aside (and the derivative made NaN,
/// so the step is rejected) for the loop to report.
struct Equations<'m> {
    mech: &'m Mechanism,
    modes: Modes,
    error: Option<Degenerate>,
    evals: usize,
}

impl Rhs for Equations<'_> {
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self.evals += 1;
        if let Err(e) = self.mech.rhs(t, y, &self.modes, dy) {
            dy.fill(f64::NAN);
            self.error = Some(e);
        }
    }
}

/// The output times still to be sampled after `t`.
pub(super) struct Samples<'o> {
    pub(super) output: &'o Output,
    pub(super) t0: f64,
    pub(super) next: usize,
}

impl Samples<'_> {
    /// The next requested time (clipped to `t1`), if any is left.
    fn peek(&self, t1: f64) -> Option<f64> {
        match self.output {
            Output::Steps => None,
            Output::Every(dt) => {
                let t = self.t0 + self.next as f64 * dt;
                (t <= t1 + GRID_END_SLACK * dt).then_some(t.min(t1))
            }
            Output::At(ts) => ts.get(self.next).copied(),
        }
    }

    /// The next requested time ≤ `until`, if any, taken off the list.
    pub(super) fn next_until(&mut self, until: f64, t1: f64) -> Option<f64> {
        let t = self.peek(t1).filter(|t| *t <= until)?;
        self.next += 1;
        Some(t)
    }
}

impl Run {
    pub(super) fn record(&mut self, t: f64, y: Vec<f64>, modes: &Modes) {
        self.t.push(t);
        self.y.push(y);
        self.modes.push(modes.clone());
    }

    /// Logs `event` at the contact point `point`.
    pub(super) fn log(&mut self, event: Event, point: &Vector3<f64>) {
        let point = [point.x, point.y, point.z];
        self.events.push(ContactEvent { event, point });
    }
}

/// The samples requested inside the accepted step `dense` (up to `t_new`), each projected.
fn sample_step(
    eq: &Equations,
    dense: &DenseStep,
    samples: &mut Samples,
    (t_new, t1): (f64, f64),
    run: &mut Run,
) -> Result<(), Degenerate> {
    let held = eq.mech.held(&eq.modes);
    while let Some(tau) = samples.next_until(t_new, t1) {
        let mut ys = dense.eval(tau);
        eq.mech.project(tau, &mut ys, &held)?;
        run.record(tau, ys, &eq.modes);
    }
    Ok(())
}

/// An accepted step: the method, its trial and result, and the dense output's storage.
struct Accepted<'a, 't> {
    dop: &'a mut Dop853,
    trial: &'a Trial<'t>,
    att: &'a Attempt,
    dense: &'a mut DenseStep,
}

impl Accepted<'_, '_> {
    /// Ends the step at `t_end` or at its first contact switch, and takes the samples and the
    /// closed contacts' peaks (`Extremes::observe_step`) up to there: returns the end and the
    /// switch's time, if any (the dense output, filled when a switch, a sample or a closed
    /// contact needed it, then gives the state there).
    fn finish(
        &mut self,
        eq: &mut Equations,
        samples: &mut Samples,
        (t_end, t1): (f64, f64),
        run: &mut Run,
    ) -> Result<(f64, Option<f64>), Degenerate> {
        let (mut t_new, mut switch, mut have_dense) = (t_end, None, false);
        let mech = eq.mech;
        let end = (self.trial.t + self.trial.h, self.att.y1.as_slice());
        if suspect(mech, &eq.modes, self.trial.y, end, self.trial.h) {
            self.dop.dense(eq, self.trial, self.att, self.dense);
            have_dense = true;
            switch = first_switch(mech, &eq.modes, self.dense);
            t_new = switch.unwrap_or(t_end);
        }
        let sampled = samples.peek(t1).is_some_and(|ts| ts <= t_new);
        let peaks = any_closed(&eq.modes);
        if (sampled || peaks) && !have_dense {
            self.dop.dense(eq, self.trial, self.att, self.dense);
        }
        if peaks {
            run.extremes
                .observe_step(mech, &eq.modes, self.dense, t_new);
        }
        if sampled {
            sample_step(eq, self.dense, samples, (t_new, t1), run)?;
        }
        Ok((t_new, switch))
    }
}

/// Integrates the mechanism from its consistent initial state `y0` over `s.t0..s.t1`.
/// `progress` is told the time after each accepted step.
pub fn integrate(
    mech: &Mechanism,
    y0: Vec<f64>,
    s: &Settings,
    progress: &mut dyn FnMut(f64),
) -> Result<Run, Box<Failed>> {
    let n = mech.state_len();
    let mut eq = Equations {
        mech,
        modes: mech.initial_modes(&y0),
        error: None,
        evals: 0,
    };
    let mut run = Run {
        initial: y0.clone(),
        ..Run::default()
    };
    let (mut t, mut y) = (s.t0, y0);
    let mut samples = Samples {
        output: &s.output,
        t0: s.t0,
        next: 0,
    };
    if s.output == Output::Steps {
        run.record(t, y.clone(), &eq.modes);
    }
    while let Some(ts) = samples.next_until(t, s.t1) {
        run.record(ts, y.clone(), &eq.modes);
    }
    run.extremes.observe_state(mech, t, &y, &eq.modes);
    let mut f0 = vec![0.0; n];
    eq.eval(t, &y, &mut f0);
    if let Some(e) = eq.error.take() {
        return fail(e.into(), run, t, y, &eq);
    }
    let mut h = initial_step(&mut eq, t, &y, &f0, &s.tol);
    let (mut dop, mut att, mut dense) = (Dop853::new(n), Attempt::new(n), DenseStep::new(n));
    let mut rejected_before = false;
    let mut watch = Watch::new(mech);
    let scale = s.t1 - s.t0;
    while t < s.t1 {
        let last = t + h >= s.t1;
        if last {
            h = s.t1 - t;
        }
        if h < STEP_UNDERFLOW * t.abs().max(scale) {
            // A stage that kept meeting degenerate joints is the cause: report it.
            let error = eq
                .error
                .take()
                .map_or(RunError::StepUnderflow { t, h }, RunError::from);
            return fail(error, run, t, y, &eq);
        }
        let trial = Trial {
            t,
            y: &y,
            f0: &f0,
            h,
            tol: &s.tol,
        };
        // DOP853 is never `Singular`; were it, the step is shrunk like a failed one.
        let err = match dop.attempt(&mut eq, &trial, &mut att) {
            StepResult::Computed { err } if err.is_finite() => err,
            _ => f64::MAX,
        };
        if err > 1.0 {
            // A degenerate or non-finite stage (NaN derivatives) or too large an error:
            // shrink as far as the controller allows; a degenerate stage that persists is
            // reported at the underflow (`eq.error` holds the latest).
            run.rejected += 1;
            h = dop.next_step(h, err, true);
            rejected_before = true;
            continue;
        }
        // An accepted step met no degenerate stage; an earlier rejected one is history.
        eq.error = None;
        let t_end = if last { s.t1 } else { t + h };
        let mut step = Accepted {
            dop: &mut dop,
            trial: &trial,
            att: &att,
            dense: &mut dense,
        };
        let (t_new, switch) = match step.finish(&mut eq, &mut samples, (t_end, s.t1), &mut run) {
            Ok(end) => end,
            Err(e) => return fail(e.into(), run, t, y, &eq),
        };
        let ends = (switch, t_new);
        let ended = watch.advance(ends, (&dense, &att.y1), &mut y, &mut eq.modes, &mut run);
        t = t_new;
        if let Err(e) = ended {
            return fail(e, run, t, y, &eq);
        }
        if y.iter().any(|v| !v.is_finite()) {
            return fail(RunError::NonFinite { t }, run, t, y, &eq);
        }
        eq.eval(t, &y, &mut f0);
        if let Some(e) = eq.error.take() {
            return fail(e.into(), run, t, y, &eq);
        }
        run.steps += 1;
        run.extremes.observe_state(mech, t, &y, &eq.modes);
        if s.output == Output::Steps {
            run.record(t, y.clone(), &eq.modes);
        }
        progress(t);
        // `max_step` bounds every step, not only the first (`initial_step`).
        h = dop.next_step(h, err, rejected_before).min(s.tol.max_step);
        rejected_before = false;
    }
    Ok(close(run, t, y, &eq))
}

/// The contact events of the loop: the rigid contacts' Zeno watch and the count of events
/// at one instant.
struct Watch<'m> {
    mech: &'m Mechanism,
    zeno: ZenoWatch,
    /// The time of the last event and how many events in a row came within
    /// `ZENO_INTERVAL` of the time scale of the one before.
    last: f64,
    burst: usize,
}

impl<'m> Watch<'m> {
    fn new(mech: &'m Mechanism) -> Watch<'m> {
        Watch {
            mech,
            zeno: ZenoWatch::default(),
            last: f64::NEG_INFINITY,
            burst: 0,
        }
    }

    /// The state after an accepted step, in `y`: at its first contact switch `switch` after
    /// the contact events there (`events_at`), else at its end `y1` (`penetration`); then
    /// projected onto the joints and the held contacts at `t_new`.
    fn advance(
        &mut self,
        (switch, t_new): (Option<f64>, f64),
        (dense, y1): (&DenseStep, &[f64]),
        y: &mut [f64],
        modes: &mut Modes,
        run: &mut Run,
    ) -> Result<(), RunError> {
        match switch {
            Some(te) => {
                dense.eval_into(te, y);
                self.events_at(te, y, modes, run)?;
            }
            None => {
                y.copy_from_slice(y1);
                self.penetration(t_new, y, modes)?;
            }
        }
        Ok(self.mech.project(t_new, y, &self.mech.held(modes))?)
    }

    /// The contact events at the located switch `te` (`Mechanism::contact_events`); an
    /// endless run of events at one instant (`EVENTS_AT_ONE_INSTANT`) stops the run.
    fn events_at(
        &mut self,
        te: f64,
        y: &mut [f64],
        modes: &mut Modes,
        run: &mut Run,
    ) -> Result<(), RunError> {
        run.switches += self
            .mech
            .contact_events(te, y, modes, &mut self.zeno, run)?;
        if te - self.last < ZENO_INTERVAL * te.abs().max(1.0) {
            self.burst += 1;
        } else {
            self.burst = 0;
        }
        self.last = te;
        if self.burst >= EVENTS_AT_ONE_INSTANT {
            return Err(RunError::Chatter { t: te });
        }
        Ok(())
    }

    /// A step ended without a located switch: an open rigid contact penetrated beyond
    /// round-off stops the run.
    fn penetration(&self, t: f64, y: &[f64], modes: &Modes) -> Result<(), RunError> {
        match self.mech.penetrated(y, modes) {
            Some(k) => Err(RunError::Penetrated {
                t,
                contact: self.mech.contacts()[k].name.clone(),
            }),
            None => Ok(()),
        }
    }
}

impl Run {
    /// The run with its counters and the state reached last.
    pub(super) fn close(mut self, t: f64, y: Vec<f64>, modes: &Modes, evals: usize) -> Run {
        self.rhs_evals = evals;
        self.last = (t, y);
        self.last_modes = modes.clone();
        self
    }
}

/// The run with its counters and the state reached last.
fn close(run: Run, t: f64, y: Vec<f64>, eq: &Equations) -> Run {
    run.close(t, y, &eq.modes, eq.evals)
}

/// A failed run: the error and the samples up to `t`.
fn fail(
    error: RunError,
    run: Run,
    t: f64,
    y: Vec<f64>,
    eq: &Equations,
) -> Result<Run, Box<Failed>> {
    Err(Box::new(Failed {
        error,
        partial: close(run, t, y, eq),
    }))
}
