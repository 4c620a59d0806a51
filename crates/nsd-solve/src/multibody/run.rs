//! A multibody run's request, samples, counters and outcome, shared by both backends: the
//! `events` loop (`integrate.rs`, with `events.rs` and `impacts.rs`) and `timestepping.rs`.

use super::contact::Modes;
use super::dynamics::Degenerate;
use super::extremes::Extremes;
use super::tolerances::{EVENTS_AT_ONE_INSTANT, GRID_END_SLACK};
use crate::ode::dop853::Tolerances;
use crate::ode::driver::{Event, Output};
use nalgebra::{DVector, Vector3};

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

/// The output times still to be sampled after `t`.
pub(super) struct Samples<'o> {
    pub(super) output: &'o Output,
    pub(super) t0: f64,
    pub(super) next: usize,
}

impl Samples<'_> {
    /// The next requested time (clipped to `t1`), if any is left.
    pub(super) fn peek(&self, t1: f64) -> Option<f64> {
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

impl Run {
    /// The run with its counters and the state reached last.
    pub(super) fn close(mut self, t: f64, y: Vec<f64>, modes: &Modes, evals: usize) -> Run {
        self.rhs_evals = evals;
        self.last = (t, y);
        self.last_modes = modes.clone();
        self
    }
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

/// The mean forces of a step: each contact's normal force `z/h` (N) and friction force on
/// side 1 (global, N), and the joint multipliers `λ/h` (as `Mechanism::reactions_of` takes
/// them).
#[derive(Debug, Clone, PartialEq)]
pub struct StepForces {
    pub contact: Vec<f64>,
    pub friction: Vec<Vector3<f64>>,
    pub lambda: DVector<f64>,
}
