//! The `events` backend's loop for a mechanism: DOP853 steps (`solve::ode::dop853`, sized by
//! the shared `ode::step_control`) on the
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
use super::extremes::any_closed;
use super::run::{Failed, Run, RunError, Samples, Settings};
use super::tolerances::{EVENTS_AT_ONE_INSTANT, STEP_UNDERFLOW};
use crate::ode::dense::DenseStep;
use crate::ode::dop853::{initial_step, Dop853, CONTROLLER};
use crate::ode::driver::{Output, ZenoWatch};
use crate::ode::step::{Attempt, OneStep, Rhs, Trial};
use crate::ode::step_control::{StepControl, Verdict};
use crate::ode::tolerances::ZENO_INTERVAL;

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
    // A degenerate or non-finite stage shrinks the step as far as DOP853's controller allows.
    let first = initial_step(&mut eq, t, &y, &f0, &s.tol);
    let mut control = StepControl::new(first, CONTROLLER.shrink);
    let (mut dop, mut att, mut dense) = (Dop853::new(n), Attempt::new(n), DenseStep::new(n));
    let mut watch = Watch::new(mech);
    let scale = s.t1 - s.t0;
    while t < s.t1 {
        let h = control.size(t, s.t1, s.tol.max_step);
        let last = h == s.t1 - t;
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
        // A degenerate stage that persists is reported at the underflow (`eq.error` holds
        // the latest).
        let result = dop.attempt(&mut eq, &trial, &mut att);
        let Verdict::Accepted { err } = control.judge(&dop, h, result) else {
            run.rejected += 1;
            continue;
        };
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
        control.advanced(&dop, h, err);
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
