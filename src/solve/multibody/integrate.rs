//! The `events` backend's loop for a mechanism: DOP853 steps (`solve::ode::dop853`) on the
//! index-1 equations of `dynamics.rs`, the coordinate projection after every accepted step,
//! and output samples from the 7th-order dense output, each projected like the steps.
//!
//! Projecting after the step restarts the next one from a slightly different state, so the
//! FSAL derivative is recomputed there (one evaluation per step); the error control is
//! DOP853's own. Ideal joints have no events, so the loop has none either.

use super::dynamics::{Degenerate, Mechanism};
use super::tolerances::{GRID_END_SLACK, STEP_UNDERFLOW};
use crate::solve::ode::dense::DenseStep;
use crate::solve::ode::dop853::{initial_step, Dop853, Tolerances};
use crate::solve::ode::driver::Output;
use crate::solve::ode::step::{Attempt, OneStep, Rhs, StepResult, Trial};

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
    /// The consistent initial state at `t0` and the state reached last.
    pub initial: Vec<f64>,
    pub last: (f64, Vec<f64>),
    pub steps: usize,
    pub rejected: usize,
    pub rhs_evals: usize,
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
    error: Option<Degenerate>,
    evals: usize,
}

impl Rhs for Equations<'_> {
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self.evals += 1;
        if let Err(e) = self.mech.rhs(t, y, dy) {
            dy.fill(f64::NAN);
            self.error.get_or_insert(e);
        }
    }
}

/// The output times still to be sampled after `t`.
struct Samples<'o> {
    output: &'o Output,
    t0: f64,
    next: usize,
}

impl Samples<'_> {
    /// The next requested time ≤ `until` (`t1` for the end of the run), if any.
    fn next_until(&mut self, until: f64, t1: f64) -> Option<f64> {
        let t = match self.output {
            Output::Steps => return None,
            Output::Every(dt) => {
                let t = self.t0 + self.next as f64 * dt;
                if t > t1 + GRID_END_SLACK * dt {
                    return None;
                }
                t.min(t1)
            }
            Output::At(ts) => *ts.get(self.next)?,
        };
        (t <= until).then(|| {
            self.next += 1;
            t
        })
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
    let record = |run: &mut Run, t: f64, y: Vec<f64>| {
        run.t.push(t);
        run.y.push(y);
    };
    if s.output == Output::Steps {
        record(&mut run, t, y.clone());
    }
    while let Some(ts) = samples.next_until(t, s.t1) {
        record(&mut run, ts, y.clone());
    }
    let mut f0 = vec![0.0; n];
    eq.eval(t, &y, &mut f0);
    let fail = |error: RunError, mut run: Run, t: f64, y: Vec<f64>, evals: usize| {
        run.rhs_evals = evals;
        run.last = (t, y);
        Err(Box::new(Failed {
            error,
            partial: run,
        }))
    };
    if let Some(e) = eq.error.take() {
        return fail(e.into(), run, t, y, eq.evals);
    }
    let mut h = initial_step(&mut eq, t, &y, &f0, &s.tol);
    let (mut dop, mut att, mut dense) = (Dop853::new(n), Attempt::new(n), DenseStep::new(n));
    let mut rejected_before = false;
    let scale = s.t1 - s.t0;
    while t < s.t1 {
        let last = t + h >= s.t1;
        if last {
            h = s.t1 - t;
        }
        if h < STEP_UNDERFLOW * t.abs().max(scale) {
            return fail(RunError::StepUnderflow { t, h }, run, t, y, eq.evals);
        }
        let trial = Trial {
            t,
            y: &y,
            f0: &f0,
            h,
            tol: &s.tol,
        };
        let StepResult::Computed { err } = dop.attempt(&mut eq, &trial, &mut att) else {
            unreachable!("DOP853 steps are never singular");
        };
        if eq.error.is_some() || !err.is_finite() || err > 1.0 {
            // A degenerate or non-finite stage: shrink as far as the controller allows; the
            // error (if it persists) is reported at the underflow.
            run.rejected += 1;
            eq.error = None;
            h = dop.next_step(h, if err.is_finite() { err } else { f64::MAX }, true);
            rejected_before = true;
            continue;
        }
        let t_new = if last { s.t1 } else { t + h };
        if let Some(first) = samples.next_until(t_new, s.t1) {
            dop.dense(&mut eq, &trial, &att, &mut dense);
            let mut ts = Some(first);
            while let Some(tau) = ts {
                let mut ys = dense.eval(tau);
                if let Err(e) = mech.project(tau, &mut ys) {
                    return fail(e.into(), run, t, y, eq.evals);
                }
                record(&mut run, tau, ys);
                ts = samples.next_until(t_new, s.t1);
            }
        }
        y.copy_from_slice(&att.y1);
        t = t_new;
        if let Err(e) = mech.project(t, &mut y) {
            return fail(e.into(), run, t, y, eq.evals);
        }
        if y.iter().any(|v| !v.is_finite()) {
            return fail(RunError::NonFinite { t }, run, t, y, eq.evals);
        }
        eq.eval(t, &y, &mut f0);
        if let Some(e) = eq.error.take() {
            return fail(e.into(), run, t, y, eq.evals);
        }
        run.steps += 1;
        if s.output == Output::Steps {
            record(&mut run, t, y.clone());
        }
        progress(t);
        h = dop.next_step(h, err, rejected_before);
        rejected_before = false;
    }
    run.rhs_evals = eq.evals;
    run.last = (t, y);
    Ok(run)
}
