//! Periods of Poincaré section sequences: the smallest shift that maps a sequence of section
//! points onto itself, in forcing periods, or none (quasi-periodic or chaotic motion); and
//! the forcing period of a system, for stroboscopic sections; a run over whole forcing
//! periods; and the matching of two cycles of section points (the same orbit entered at any
//! phase). Shared by `sweep bifurcation` and `basins`. The basin map's cells, recognised by
//! recurrence or settled on a cycle, are in `recurrence.rs`; its attractors, polished from
//! the settled cycles, in `attractor.rs`; both read `MapSettings`.
//!
//! A period-`p` orbit of a forced system returns to every section point after `p` forcing
//! periods `T`: on the stroboscopic section the sequence repeats after `p` points; on a
//! crossing section after as many points as the orbit crosses the section in `pT`, and the
//! time between repeated points is then `pT` too. So the period is read from the shift in
//! time, whatever the section.
//!
//! # References
//! Nayfeh and Balachandran, *Applied Nonlinear Dynamics*, Wiley 1995, Sect. 5.6 (Poincaré
//! sections of periodic, quasi-periodic and chaotic motions).

mod attractor;
mod recurrence;

pub use attractor::Attractor;
pub use recurrence::{run_cells, CellRun, Fate, Known};

use crate::ode::driver::{
    integrate_with_section, Config, FlowError, Method, Output, Section, SectionPoint, Trajectory,
};
use crate::ode::hybrid::Tape;
use crate::ode::taylor::{integrate_lanes, integrate_taylor, integrate_taylor_until};
use crate::ode::tolerances::TAYLOR_ORDER;
use crate::ode::{Hybrid, Tolerances};
use nsd_model::System;

/// Largest distance of `Δt / T` from a whole number for a repeat of the section points to
/// count as a period (dimensionless): the section times of a periodic motion repeat to the
/// integration's accuracy, far below this; a quasi-periodic repeat within the point tolerance
/// lands anywhere in between.
const PERIOD_TIME_SLACK: f64 = 1e-3;

/// Smallest state scale by which the point tolerance is made relative (a motion at rest).
const STATE_SCALE_FLOOR: f64 = 1e-300;

/// What the section points show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Periodicity {
    /// Returns to every point after `period` forcing periods, `points` section points.
    Periodic { period: usize, points: usize },
    /// No period up to the maximum: quasi-periodic, chaotic, or of a longer period.
    Aperiodic,
}

/// The period of the section sequence `points` (in time order) of a system forced with
/// period `forcing` (s): the smallest shift `q ≤ len/2` with `|P_{i+q} − P_i|∞ ≤ tol · S`
/// for every `i` (`S` the largest |coordinate| over the points) whose time shift is a whole
/// number `p ≤ max_period` of forcing periods.
pub fn period_of(
    points: &[SectionPoint],
    forcing: f64,
    max_period: usize,
    tol: f64,
) -> Periodicity {
    let scale = points
        .iter()
        .flat_map(|p| p.y.iter())
        .fold(STATE_SCALE_FLOOR, |s, v| s.max(v.abs()));
    let close = |a: &SectionPoint, b: &SectionPoint| {
        a.y.iter()
            .zip(&b.y)
            .all(|(x, y)| (x - y).abs() <= tol * scale)
    };
    for q in 1..=points.len() / 2 {
        if !points.iter().zip(&points[q..]).all(|(a, b)| close(a, b)) {
            continue;
        }
        let shift = (points[q].t - points[0].t) / forcing;
        let p = shift.round();
        if (shift - p).abs() > PERIOD_TIME_SLACK || p < 1.0 {
            continue;
        }
        return if p as usize <= max_period {
            Periodicity::Periodic {
                period: p as usize,
                points: q,
            }
        } else {
            Periodicity::Aperiodic
        };
    }
    Periodicity::Aperiodic
}

/// The integrator of `run_span`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// Taylor series (`ode::taylor`) when the model is polynomial in the state and harmonic
    /// in time in every mode (`Hybrid::not_polynomial`), else the event-driven DOP853 loop.
    #[default]
    Auto,
    /// The event-driven DOP853 loop (RODAS on stiff segments) whatever the model.
    Dop853,
}

impl Engine {
    /// The option's value (`method = auto | dop853`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => {
                "auto (Taylor series where the model is polynomial in the state, else DOP853)"
            }
            Engine::Dop853 => "dop853",
        }
    }
}

/// How a basin map runs its cells' stroboscopic maps (`run_cells`) and polishes its
/// attractors (`Attractor::new`): the map's settings that the backend reads.
#[derive(Debug, Clone)]
pub struct MapSettings {
    /// The forcing period `T` (s): the stroboscopic map's step, the unit of the periods.
    pub forcing: f64,
    /// The section of an attractor's tabled points over one period from its representative.
    pub section: Section,
    /// Most forcing periods integrated from one cell (periods).
    pub transient: usize,
    /// Stroboscopic points over which a cell's period is detected (points).
    pub keep: usize,
    /// Longest period looked for (forcing periods).
    pub max_period: usize,
    /// The period detection's point tolerance, relative to the largest |coordinate|
    /// (dimensionless).
    pub tol: f64,
    /// The side of the recurrence boxes and an attractor's capture radius (∞-norm, in the
    /// state's units: m or rad for positions, m/s or rad/s for velocities).
    pub cell: f64,
    /// The DOF (index) whose largest |x| over one period is an attractor's amplitude.
    pub plot: usize,
    /// The integrator's relative tolerance (dimensionless).
    pub rtol: f64,
    /// The integrator's absolute tolerance (state units).
    pub atol: f64,
    /// Every gap by its smoothed law (`events = smooth`, as in `Hybrid::new`), else exact
    /// events.
    pub smooth_only: bool,
    /// The integrator of the runs.
    pub engine: Engine,
}

/// Integrates `h` from `(t0, y0)` over `span` seconds at the tolerances `(rtol, atol)` with
/// `engine`, recording `section` and the samples at the times `samples` (absolute): the one
/// run of `sweep bifurcation`'s transients and windows and of `basins`' forcing periods. The
/// error is the integrator's.
pub fn run_span(
    h: &mut Hybrid,
    (rtol, atol): (f64, f64),
    (t0, span): (f64, f64),
    y0: Vec<f64>,
    section: Option<&Section>,
    samples: Vec<f64>,
    engine: Engine,
) -> Result<Trajectory, FlowError> {
    if engine == Engine::Auto && h.not_polynomial().is_none() {
        let times = (t0, t0 + span);
        return integrate_taylor(h, (rtol, atol), times, y0, section, &samples)
            .map_err(FlowError::Integration);
    }
    let cfg = Config {
        t0,
        t1: t0 + span,
        y0,
        tol: Tolerances {
            rtol,
            atol,
            max_step: span,
        },
        output: Output::At(samples),
        method: Method::Auto,
    };
    integrate_with_section(h, &cfg, section, &mut |_| {})
        .map_err(|f| FlowError::Integration(f.error))
}

/// Integrates `h` from `y0` at `t = 0` (forcing phase 0) at the tolerances `(rtol, atol)`
/// with `engine` over at most `periods` forcing periods of `forcing` seconds, handing each
/// stroboscopic state `(k, y(kT))`, `k = 1, 2, …`, to `see` until it returns true: the
/// stroboscopic map of `basins`' cells. By Taylor series one run reads the states from the
/// steps' series (a step is not ended at a period's end); by the DOP853 loop one `run_span`
/// per period.
fn run_strobe(
    h: &mut Hybrid,
    tol: (f64, f64),
    (forcing, periods): (f64, usize),
    y0: Vec<f64>,
    engine: Engine,
    see: &mut dyn FnMut(usize, &[f64]) -> bool,
) -> Result<(), FlowError> {
    if engine == Engine::Auto && h.not_polynomial().is_none() {
        let (section, times) = strobe_run(forcing, periods);
        let mut stop = |p: &SectionPoint| see(period_index(p, forcing), &p.y);
        integrate_taylor_until(h, tol, times, y0, Some(&section), &[], &mut stop)
            .map_err(FlowError::Integration)?;
        return Ok(());
    }
    let mut y = y0;
    for k in 1..=periods {
        let span = ((k - 1) as f64 * forcing, forcing);
        y = run_span(h, tol, span, y, None, vec![], engine)?.final_state;
        if see(k, &y) {
            break;
        }
    }
    Ok(())
}

/// The stroboscopic section of a run from `t = 0` (forcing phase 0) over `periods` forcing
/// periods of `forcing` seconds, and the run's times.
fn strobe_run(forcing: f64, periods: usize) -> (Section, (f64, f64)) {
    let section = Section::Stroboscopic {
        origin: 0.0,
        period: forcing,
    };
    (section, (0.0, periods as f64 * forcing))
}

/// The number `k` of forcing periods at which a stroboscopic point of such a run lies.
fn period_index(p: &SectionPoint, forcing: f64) -> usize {
    (p.t / forcing).round() as usize
}

/// A motion of `run_strobes`: what it does with each stroboscopic state.
trait StrobeJob {
    /// Takes the state `y` after `k` forcing periods; true ends the motion.
    fn see(&mut self, k: usize, y: &[f64]) -> bool;
    /// The run failed (the model's elements, or the integration).
    fn fail(&mut self, error: FlowError);
}

/// Runs every job that `next` hands out (with its state at `t = 0`) as `run_strobe` does
/// on `sys` (`smooth_only` as in `Hybrid::new`), each ended job handed to `done`. By Taylor
/// series on a model small enough for a `Tape`, `LANES` jobs share each recurrence
/// (`integrate_lanes`); otherwise one `run_strobe` per job. Either way a job's states
/// depend on its start only, not on the jobs beside it.
fn run_strobes<J: StrobeJob>(
    sys: &System,
    smooth_only: bool,
    tol: (f64, f64),
    (forcing, periods): (f64, usize),
    engine: Engine,
    next: &mut dyn FnMut() -> Option<(J, Vec<f64>)>,
    done: &mut dyn FnMut(J),
) {
    let tape = match Hybrid::new(sys, smooth_only) {
        Ok(mut h) if engine == Engine::Auto => Tape::new(&mut h, TAYLOR_ORDER),
        _ => None,
    };
    let mut ended = |mut job: J, outcome: Result<(), FlowError>| {
        if let Err(e) = outcome {
            job.fail(e);
        }
        done(job);
    };
    if let Some(mut tape) = tape {
        let (section, times) = strobe_run(forcing, periods);
        let see = |job: &mut J, p: &SectionPoint| job.see(period_index(p, forcing), &p.y);
        integrate_lanes(
            sys,
            smooth_only,
            &mut tape,
            tol,
            times,
            &section,
            next,
            &see,
            &mut ended,
        );
        return;
    }
    while let Some((mut job, y0)) = next() {
        let outcome = Hybrid::new(sys, smooth_only)
            .map_err(FlowError::Unsupported)
            .and_then(|mut h| {
                let mut see = |k: usize, y: &[f64]| job.see(k, y);
                run_strobe(&mut h, tol, (forcing, periods), y0, engine, &mut see)
            });
        ended(job, outcome);
    }
}

/// Whether the cycles `a` and `b` of section states are one orbit, entered at any phase:
/// as many points, and each point of `a` within `tol` (∞-norm, in the state's units) of a
/// point of `b`. A period-`p` orbit met at another forcing phase is the same cycle shifted.
pub fn same_cycle(a: &[Vec<f64>], b: &[Vec<f64>], tol: f64) -> bool {
    a.len() == b.len() && a.iter().all(|p| b.iter().any(|q| distance(p, q) <= tol))
}

/// The ∞-norm distance of two states.
pub fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |d, (x, y)| d.max((x - y).abs()))
}

/// Largest number of slowest forcing periods searched for a common period of several drive
/// frequencies: ratios p/q with q up to this count as commensurate (e.g. 1.01 = 101/100).
const MAX_PERIOD_RATIO: u32 = 1000;

/// Relative tolerance on `q ω_i/ω_min` being a whole number for frequencies to share a
/// period: the frequencies come from the model's expressions, exact to a few ε.
const RATIO_TOL: f64 = 1e-9;

/// Why a system has no forcing period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoPeriod {
    /// Nothing harmonic drives it (or a drive is not a sum of harmonics).
    Unforced,
    /// Two of its drive frequencies (rad/s) have no common period: the forcing is
    /// quasi-periodic. `slowest` is the period of the lowest frequency (s).
    Incommensurate { low: f64, other: f64, slowest: f64 },
}

impl std::fmt::Display for NoPeriod {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            NoPeriod::Unforced => write!(f, "has no harmonic forcing"),
            NoPeriod::Incommensurate { low, other, .. } => write!(
                f,
                "is driven at incommensurate frequencies {low} and {other} rad/s (no common \
                 period within {MAX_PERIOD_RATIO} periods of the slower): its forcing is \
                 quasi-periodic"
            ),
        }
    }
}

impl NoPeriod {
    /// How a model gets a forcing period.
    pub fn help(&self) -> &'static str {
        match self {
            NoPeriod::Unforced => "give the model a harmonic load, e.g. `force m1 = Q * cos(Omega * t)`",
            NoPeriod::Incommensurate { .. } => {
                "a periodic forcing has every frequency a whole multiple of one, e.g. `cos(Omega * t) + cos(2 * Omega * t)`"
            }
        }
    }
}

/// The forcing period of `sys` (s): the smallest `T` at which every frequency of its
/// harmonic loads and base motions completes a whole number of cycles, `T = q 2π/ω_min`
/// for the smallest `q ≤ MAX_PERIOD_RATIO` with every `q ω_i/ω_min` whole.
pub fn forcing_period(sys: &System) -> Result<f64, NoPeriod> {
    let drives = sys
        .forces
        .iter()
        .map(|f| &f.f)
        .chain(sys.base.iter().map(|b| &b.y));
    let mut omegas = Vec::new();
    for f in drives {
        let (_, terms) = f.harmonics().ok_or(NoPeriod::Unforced)?;
        omegas.extend(terms.iter().map(|h| h.omega.abs()).filter(|w| *w != 0.0));
    }
    let low = omegas.iter().copied().fold(f64::INFINITY, f64::min);
    if !low.is_finite() {
        return Err(NoPeriod::Unforced);
    }
    let slowest = std::f64::consts::TAU / low;
    let whole = |x: f64| (x - x.round()).abs() <= RATIO_TOL * x;
    (1..=MAX_PERIOD_RATIO)
        .find(|q| omegas.iter().all(|w| whole(*q as f64 * w / low)))
        .map(|q| q as f64 * slowest)
        .ok_or_else(|| {
            let alone = |w: f64| (1..=MAX_PERIOD_RATIO).any(|q| whole(q as f64 * w / low));
            let highest = omegas.iter().copied().fold(low, f64::max);
            let other = omegas
                .iter()
                .copied()
                .find(|w| !alone(*w))
                .unwrap_or(highest);
            NoPeriod::Incommensurate {
                low,
                other,
                slowest,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(values: &[f64], dt: f64) -> Vec<SectionPoint> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| SectionPoint {
                t: i as f64 * dt,
                y: vec![*v, 0.5],
            })
            .collect()
    }

    #[test]
    fn periods_one_two_and_four_and_none() {
        let seq =
            |pattern: &[f64]| -> Vec<f64> { (0..40).map(|i| pattern[i % pattern.len()]).collect() };
        let p1 = period_of(&points(&seq(&[0.3]), 2.0), 2.0, 8, 1e-9);
        assert_eq!(
            p1,
            Periodicity::Periodic {
                period: 1,
                points: 1
            }
        );
        let p2 = period_of(&points(&seq(&[0.3, -0.1]), 2.0), 2.0, 8, 1e-9);
        assert_eq!(
            p2,
            Periodicity::Periodic {
                period: 2,
                points: 2
            }
        );
        let p4 = period_of(&points(&seq(&[0.3, -0.1, 0.2, -0.2]), 2.0), 2.0, 8, 1e-9);
        assert_eq!(
            p4,
            Periodicity::Periodic {
                period: 4,
                points: 4
            }
        );
        assert_eq!(
            period_of(&points(&seq(&[0.3, -0.1, 0.2, -0.2]), 2.0), 2.0, 3, 1e-9),
            Periodicity::Aperiodic
        );
        // An irrational rotation never repeats.
        let quasi: Vec<f64> = (0..40).map(|i| (i as f64 * 2f64.sqrt()).sin()).collect();
        assert_eq!(
            period_of(&points(&quasi, 2.0), 2.0, 8, 1e-6),
            Periodicity::Aperiodic
        );
    }

    #[test]
    fn a_cycle_entered_at_another_phase_is_the_same_cycle() {
        let a = vec![vec![1.0, 0.0], vec![-1.0, 0.5], vec![0.2, 0.2]];
        let shifted = vec![a[2].clone(), a[0].clone(), vec![-1.0 + 1e-7, 0.5]];
        assert!(same_cycle(&a, &shifted, 1e-6));
        assert!(!same_cycle(&a, &shifted, 1e-8));
        assert!(!same_cycle(&a, &a[..2], 1.0));
    }

    #[test]
    fn two_crossings_per_period_make_period_one() {
        // A crossing section hit twice per forcing period T = 3 at uneven times.
        let pts: Vec<SectionPoint> = (0..20)
            .map(|i| SectionPoint {
                t: (i / 2) as f64 * 3.0 + if i % 2 == 0 { 0.4 } else { 1.9 },
                y: vec![if i % 2 == 0 { 1.0 } else { -0.7 }],
            })
            .collect();
        assert_eq!(
            period_of(&pts, 3.0, 8, 1e-9),
            Periodicity::Periodic {
                period: 1,
                points: 2
            }
        );
    }
}
