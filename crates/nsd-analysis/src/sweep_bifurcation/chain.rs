//! One start's chain through the parameter values: at each value the motion is integrated
//! over the transient and the kept window from the state the previous value ended in (paper
//! 000, Sect. 4: a continuation in the parameter, so each start follows its attractor), the
//! section points of the window are kept and their period detected.

use super::options::Options;
use nsd_model::System;
use nsd_solve::ode::driver::{Section, SectionPoint};
use nsd_solve::ode::Hybrid;
use nsd_solve::poincare::{forcing_period, period_of, run_span, Periodicity};

/// Forcing periods integrated after the transient per kept point of a crossing section, at
/// most (a motion crossing the section less often than this ends the window short).
const CROSSING_WINDOW_PER_POINT: usize = 2;

/// Forcing periods per block of a transient that may end early (`settle`): its stroboscopic
/// points show periods up to half of it.
const SETTLE_BLOCK: usize = 20;

/// What one start found at one parameter value.
#[derive(Debug, Clone)]
pub(super) struct Outcome {
    pub(crate) value: f64,
    /// The kept section points (times from the end of the transient).
    pub(crate) points: Vec<SectionPoint>,
    pub(crate) periodicity: Periodicity,
    /// The largest |x| of the plotted DOF over the kept window.
    pub(crate) amplitude: f64,
    /// Forcing periods of transient integrated (fewer than `transient` when it settled).
    pub(crate) transient: usize,
    /// Why the value could not be computed, if it failed.
    pub(crate) failed: Option<String>,
}

/// Runs one start's chain over `values`; `systems[k]` is the model at `values[k]`.
pub(super) fn chain(
    opts: &Options,
    systems: &[Result<System, String>],
    values: &[f64],
    start: &[f64],
    mut done: impl FnMut(),
) -> (Vec<Outcome>, Vec<f64>) {
    let mut y = start.to_vec();
    let mut out = Vec::with_capacity(values.len());
    for (value, sys) in values.iter().zip(systems) {
        let outcome = match sys.as_ref() {
            Ok(sys) => at_value(opts, sys, &y),
            Err(e) => Err(e.clone()),
        };
        out.push(match outcome {
            Ok((o, end)) => {
                y = end;
                Outcome { value: *value, ..o }
            }
            Err(e) => {
                // The chain starts afresh from its start state.
                y = start.to_vec();
                Outcome {
                    value: *value,
                    points: vec![],
                    periodicity: Periodicity::Aperiodic,
                    amplitude: f64::NAN,
                    transient: 0,
                    failed: Some(e),
                }
            }
        });
        done();
    }
    (out, y)
}

/// The transient and the kept window at one value from the state `y0` (at forcing phase 0);
/// the outcome and the state at the window's end (a whole number of forcing periods, so the
/// next value starts at phase 0 too). The transient runs without section or samples (with
/// `settle`, in blocks that stop once the motion repeats); the
/// window runs `keep` periods, then (a crossing section met less than once per period) more
/// windows for the missing points, up to `CROSSING_WINDOW_PER_POINT · keep` periods.
fn at_value(opts: &Options, sys: &System, y0: &[f64]) -> Result<(Outcome, Vec<f64>), String> {
    let forcing = forcing_period(sys).map_err(|e| format!("the model {e} at this value"))?;
    let mut hybrid = Hybrid::new(sys, opts.smooth_only).map_err(|e| e.to_string())?;
    let section = match &opts.section {
        // The same forcing phase at every value.
        Section::Stroboscopic { origin, period } => Section::Stroboscopic {
            origin: origin / period * forcing,
            period: forcing,
        },
        crossing => crossing.clone(),
    };
    // The amplitude: the peak over the kept window, on the dense output.
    let mut run = |y0: Vec<f64>, periods: usize, section: Option<&Section>, peak: bool| {
        hybrid.record.peak_of = peak.then_some(opts.plot);
        let span = (0.0, periods as f64 * forcing);
        run_span(
            &mut hybrid,
            (opts.rtol, opts.atol),
            span,
            y0,
            section,
            vec![],
            opts.engine,
        )
        .map_err(|e| e.to_string())
    };
    let (mut y, transient) = match opts.settle {
        None => (
            run(y0.to_vec(), opts.transient, None, false)?.final_state,
            opts.transient,
        ),
        Some(settle) => {
            // Blocks of the transient, each ending early once its stroboscopic points repeat
            // to `settle` (a period up to half a block).
            let strobe = Section::Stroboscopic {
                origin: 0.0,
                period: forcing,
            };
            let (mut y, mut done) = (y0.to_vec(), 0);
            while done < opts.transient {
                let periods = SETTLE_BLOCK.min(opts.transient - done);
                let traj = run(y, periods, Some(&strobe), false)?;
                y = traj.final_state;
                done += periods;
                let settled = period_of(&traj.section, forcing, SETTLE_BLOCK / 2, settle);
                if periods == SETTLE_BLOCK && settled != Periodicity::Aperiodic {
                    break;
                }
            }
            (y, done)
        }
    };
    let (mut points, mut amplitude, mut elapsed) = (Vec::new(), 0.0_f64, 0.0);
    let mut periods = opts.keep;
    while points.len() < opts.keep && periods > 0 {
        let traj = run(y, periods, Some(&section), true)?;
        amplitude = amplitude.max(traj.peak);
        let missing = opts.keep - points.len();
        points.extend(
            traj.section
                .into_iter()
                .take(missing)
                .map(|p| SectionPoint {
                    t: p.t + elapsed,
                    ..p
                }),
        );
        y = traj.final_state;
        elapsed += periods as f64 * forcing;
        let used = (elapsed / forcing).round() as usize;
        periods = (opts.keep - points.len()).min(CROSSING_WINDOW_PER_POINT * opts.keep - used);
    }
    let periodicity = period_of(&points, forcing, opts.max_period, opts.tol);
    let outcome = Outcome {
        value: f64::NAN,
        points,
        periodicity,
        amplitude,
        transient,
        failed: None,
    };
    Ok((outcome, y))
}
