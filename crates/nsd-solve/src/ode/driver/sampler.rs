//! Output sampling from the dense output, per `Output`: every step and event, a uniform grid,
//! or given times. Each sample is taken in the modes current at its time, so with
//! `Recording::forces_at_samples` its contact forces are evaluated there (and only there).

use super::super::dense::DenseStep;
use super::super::hybrid::Hybrid;
use super::super::tolerances::{GRID_END_SLACK, MIN_STEP};
use super::{Config, Output, Trajectory};

/// Appends the sample `(t, y)` and, when asked for, the contact forces there.
fn push(traj: &mut Trajectory, h: &mut Hybrid, t: f64, y: Vec<f64>) {
    if h.record.forces_at_samples {
        traj.forces.push(h.contact_forces(t, &y));
    }
    traj.t.push(t);
    traj.y.push(match &h.record.sampled_components {
        Some(kept) => kept.iter().map(|&i| y[i]).collect(),
        None => y,
    });
}

/// The output times still to be sampled.
pub(super) struct Sampler {
    output: Output,
    /// The next grid index (`Every`) or time (`At`) to sample.
    next: usize,
    t0: f64,
    t1: f64,
}

impl Sampler {
    pub(super) fn new(cfg: &Config) -> Sampler {
        Sampler {
            output: cfg.output.clone(),
            next: 0,
            t0: cfg.t0,
            t1: cfg.t1,
        }
    }

    /// The initial state at `t` (for `At`, every asked time up to `t`).
    pub(super) fn record_initial(
        &mut self,
        traj: &mut Trajectory,
        h: &mut Hybrid,
        t: f64,
        y: &[f64],
    ) {
        match &self.output {
            Output::At(ts) => {
                while self.next < ts.len() && ts[self.next] <= t {
                    push(traj, h, ts[self.next], y.to_vec());
                    self.next += 1;
                }
            }
            _ => {
                push(traj, h, t, y.to_vec());
                self.next = 1;
            }
        }
    }

    /// After a mode switch at `(t, y)`: a sample taken at the same instant (within the step
    /// floor `MIN_STEP`, below which the integration resolves no time) shows the contact
    /// forces from that instant on — the new modes, the state after the switch — so a body
    /// placed on a stop shows its holding force from the first sample.
    pub(super) fn refresh_forces(traj: &mut Trajectory, h: &mut Hybrid, t: f64, y: &[f64]) {
        let same_instant = traj
            .t
            .last()
            .is_some_and(|&ts| (ts - t).abs() <= MIN_STEP * t.abs().max(1.0));
        if h.record.forces_at_samples && same_instant {
            if let Some(last) = traj.forces.last_mut() {
                *last = h.contact_forces(t, y);
            }
        }
    }

    /// The post-impact state at `t` (for `Steps` output, so the velocity jump is visible).
    pub(super) fn record_point(
        &mut self,
        traj: &mut Trajectory,
        h: &mut Hybrid,
        t: f64,
        y: &[f64],
    ) {
        if self.output == Output::Steps {
            push(traj, h, t, y.to_vec());
        }
    }

    /// The samples still due at the end time `t` (the run reached it without a step, the
    /// remaining interval being below the step floor): `y` is the state there.
    pub(super) fn record_end(&mut self, traj: &mut Trajectory, h: &mut Hybrid, t: f64, y: &[f64]) {
        match &self.output {
            Output::Steps => {
                push(traj, h, t, y.to_vec());
            }
            Output::Every(dt) => loop {
                let tk = self.t0 + self.next as f64 * dt;
                if tk > self.t1 + GRID_END_SLACK * dt {
                    break;
                }
                push(traj, h, tk, y.to_vec());
                self.next += 1;
            },
            Output::At(ts) => {
                while self.next < ts.len() && ts[self.next] <= t {
                    push(traj, h, ts[self.next], y.to_vec());
                    self.next += 1;
                }
            }
        }
    }

    /// Whether `record_until(…, until)` would take a sample (the step's state is read only
    /// then).
    pub(super) fn due(&self, until: f64) -> bool {
        match &self.output {
            Output::Steps => true,
            Output::Every(dt) => {
                let tk = self.t0 + self.next as f64 * dt;
                tk <= until && tk <= self.t1 + GRID_END_SLACK * dt
            }
            Output::At(ts) => ts.get(self.next).is_some_and(|&tk| tk <= until),
        }
    }

    /// Samples in `(step start, until]` of the step `d`; for `Steps`, the point `until`
    /// itself (a step's end or an event).
    pub(super) fn record_until(
        &mut self,
        traj: &mut Trajectory,
        h: &mut Hybrid,
        d: &DenseStep,
        until: f64,
    ) {
        match &self.output {
            Output::Steps => {
                push(traj, h, until, d.eval(until));
            }
            Output::Every(dt) => loop {
                let tk = self.t0 + self.next as f64 * dt;
                if tk > until || tk > self.t1 + GRID_END_SLACK * dt {
                    break;
                }
                push(traj, h, tk, d.eval(tk));
                self.next += 1;
            },
            Output::At(ts) => {
                while self.next < ts.len() && ts[self.next] <= until {
                    push(traj, h, ts[self.next], d.eval(ts[self.next]));
                    self.next += 1;
                }
            }
        }
    }
}
