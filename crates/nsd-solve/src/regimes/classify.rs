//! The numerical regime of one parameter point (paper 001, Sect. 5): exact event-driven
//! stick–slip simulation from rest for a number of excitation cycles, then the steady state
//! read from the contact's events in the last cycles.
//!
//! The last tenth of the run (at least one cycle) is the observation window: no stop in it
//! and the contact sliding is continuous motion, stuck throughout is no motion, a stop in
//! every cycle is stick–slip with its stops per cycle, and stops in some cycles only is
//! `transient` (not forced into a class). The window before it is classified the same way;
//! when the two differ the cell is flagged as transient too.

use super::contact::Setup;
use super::exact::{Problem, Switch};
use super::tolerances::{STOPS_PER_CYCLE_TOL, WINDOW_DIVISOR};
use crate::ode::dop853::Tolerances;
use crate::ode::driver::{integrate, Config, Method, Output, SimError};
use crate::ode::hybrid::{FrictionMode, Hybrid, Unsupported};
use nsd_model::system::System;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regime {
    Continuous,
    StickSlip,
    NoMotion,
    /// Stops in some cycles of the window but not in all: the transient has not died out
    /// (typically a stuck contact slipping now and then under the undamped residual
    /// vibration of the rest of the system).
    Unsettled,
}

impl Regime {
    pub fn name(self) -> &'static str {
        match self {
            Regime::Continuous => "continuous",
            Regime::StickSlip => "stick-slip",
            Regime::NoMotion => "no-motion",
            Regime::Unsettled => "transient",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Classification {
    pub regime: Regime,
    pub stops_per_cycle: f64,
    /// The window before the last one has another regime or stop count.
    pub transient: bool,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClassifyError {
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
    #[error(transparent)]
    Integration(#[from] SimError),
    #[error("stick–slip switches accumulate at t = {0}")]
    Chatter(f64),
}

/// How the motion is computed: the closed-form segments of `exact.rs` where they apply (an
/// undamped linear system, off resonance), else the general event-driven integrator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Engine {
    Auto(Tolerances),
    Integrator(Tolerances),
}

/// Simulates `cycles` periods of the excitation from rest and classifies the last ones.
/// Returns the classification and whether the closed form computed it.
pub fn classify(
    sys: &System,
    s: &Setup,
    cycles: usize,
    engine: Engine,
) -> Result<(Classification, bool), ClassifyError> {
    let period = std::f64::consts::TAU / s.omega;
    let t1 = cycles as f64 * period;
    let closed = match engine {
        Engine::Auto(_) => Problem::new(sys, s).ok(),
        Engine::Integrator(_) => None,
    };
    let (switches, last) = match (&closed, engine) {
        (Some(p), _) => p.simulate(t1).map_err(ClassifyError::Chatter)?,
        (None, Engine::Auto(tol) | Engine::Integrator(tol)) => integrated(sys, s, t1, tol)?,
    };
    Ok((read(&switches, last, t1, period, cycles), closed.is_some()))
}

/// The contact's switches from the general integrator.
fn integrated(
    sys: &System,
    s: &Setup,
    t1: f64,
    tol: Tolerances,
) -> Result<(Vec<Switch>, &'static str), ClassifyError> {
    let mut h = Hybrid::new(sys, false)?;
    let cfg = Config {
        t0: 0.0,
        t1,
        y0: vec![0.0; h.dim()],
        tol,
        output: Output::At(vec![t1]),
        method: Method::Dop853,
    };
    let traj = integrate(&mut h, &cfg, &mut |_| {}).map_err(|f| f.error)?;
    let switches = traj
        .events
        .iter()
        .filter(|e| e.element == s.element)
        .map(|e| (e.t, e.from, e.to))
        .collect();
    let last = h
        .state
        .friction
        .first()
        .copied()
        .unwrap_or(FrictionMode::Stick);
    Ok((switches, last.name()))
}

/// Reads the regime from the switches of the last window and the one before it.
fn read(switches: &[Switch], last: &str, t1: f64, period: f64, cycles: usize) -> Classification {
    let stick = FrictionMode::Stick.name();
    // The mode at time t: the last switch's target before t, else the first one's origin.
    let mode_at = |t: f64| {
        switches
            .iter()
            .rev()
            .find(|e| e.0 <= t)
            .map(|e| e.2)
            .or_else(|| switches.first().map(|e| e.1))
            .unwrap_or(last)
    };
    let window = (cycles / WINDOW_DIVISOR).max(1) as f64 * period;
    let read = |from: f64, to: f64| {
        let stops = switches
            .iter()
            .filter(|e| e.0 > from && e.0 <= to && e.2 == stick)
            .count();
        let changes = switches.iter().any(|e| e.0 > from && e.0 <= to);
        // Stick–slip stops in every cycle of the window.
        let cycles = ((to - from) / period).round().max(1.0) as usize;
        let every_cycle = (0..cycles).all(|k| {
            let (a, b) = (from + k as f64 * period, from + (k + 1) as f64 * period);
            switches.iter().any(|e| e.0 > a && e.0 <= b && e.2 == stick)
        });
        let regime = match (stops, changes, mode_at(from) == stick) {
            (0, false, true) => Regime::NoMotion,
            (0, _, _) => Regime::Continuous,
            _ if every_cycle => Regime::StickSlip,
            _ => Regime::Unsettled,
        };
        (regime, stops as f64 * period / (to - from))
    };
    let (regime, stops_per_cycle) = read(t1 - window, t1);
    let before = read((t1 - 2.0 * window).max(0.0), t1 - window);
    Classification {
        regime,
        stops_per_cycle,
        transient: before.0 != regime || (before.1 - stops_per_cycle).abs() > STOPS_PER_CYCLE_TOL,
    }
}
