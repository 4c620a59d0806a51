//! The `continue periodic` analysis: periodic orbits of a forced nonsmooth system continued
//! over a model parameter by shooting on the exact hybrid flow (paper 000, Sect. 5.1;
//! `solve::periodic`), with Floquet multipliers from the monodromy at every point.
//!
//! Options: `param = NAME in a..b` (any model parameter; the forcing period is read from the
//! system at each value), `periods` (the orbit's period in forcing periods, 1), `transient`
//! (forcing periods integrated from the start before Newton, 200; 0 with a harmonic-balance
//! start), `x0`, `v0` (the start, rest by default), `start = harmonic_balance` (the first
//! orbit from the harmonic balance at the range's start, `harmonics` of them, 25: the orbit
//! a `continue frf` of the model follows, stable or not), `events = exact | smooth` (the smoothed gaps of the model), `rtol`,
//! `atol` (1e-10), `shooting = single | multiple` (multiple: one segment per mode with the
//! switch times as unknowns, `solve::periodic::multiple`), `step`, `min_step`, `max_step`,
//! `max_points`, `dof` (the plotted DOF,
//! default the excited one), `compare` (other branches drawn under it). Writes `data.csv`
//! (parameter, period, each DOF's largest excursion, stability, the multipliers, the switches
//! per orbit and their signature, the special points) and `periodic.svg`.
//!
//! `report.rs` reads the branch point by point and locates the bifurcations and grazings;
//! `compare.rs` traces and draws the compared branches.

mod compare;
mod report;

use report::Part;
use serde_json::json;

use super::diagnostics::{AnalysisError, Partial};
use super::options::OptionReader;
use crate::family::Family;
use nalgebra::DVector;
use nsd_lang::ast::Analysis;
use nsd_lang::units::Dim;
use nsd_lang::{Override, Program};
use nsd_model::{Model, System};
use nsd_solve::cont::{follow, Branch, ContError, Scale, Settings};
use nsd_solve::hb::Balance;
use nsd_solve::ode::Tolerances;
use nsd_solve::periodic::doubling::doubled_start;
use nsd_solve::periodic::multiple;
use nsd_solve::periodic::shooting::Shooting;
use nsd_solve::periodic::{shoot, ShootingError};
use nsd_solve::poincare::forcing_period;

/// The options of `continue periodic`.
pub(super) const OPTIONS: [&str; 17] = [
    "param",
    "shooting",
    "compare",
    "start",
    "harmonics",
    "periods",
    "transient",
    "x0",
    "v0",
    "events",
    "rtol",
    "atol",
    "step",
    "min_step",
    "max_step",
    "max_points",
    "dof",
];

/// Default integration tolerances (relative and absolute): the shooting residual and the
/// multipliers are as accurate as the flow.
const DEFAULT_TOL: f64 = 1e-10;

/// Default transient before the first Newton iteration, in forcing periods.
const DEFAULT_TRANSIENT: usize = 200;

/// Default harmonics of a harmonic-balance start: truncation errors near 1e-4 for the
/// free-play orbits of paper 000, well inside Newton's basin.
const DEFAULT_START_HARMONICS: usize = 25;

/// Newton tolerance of the harmonic-balance start, relative to the load.
const START_HB_TOL: f64 = 1e-10;

/// Default first, smallest and largest steps as fractions of the parameter range. The
/// smallest is coarse enough that a branch stalls quickly at a grazing of a rigid stop,
/// where the orbit's impact velocity vanishes and Newton's basin with it.
const STEP_DIVISOR: f64 = 100.0;
const MIN_STEP_FRACTION: f64 = 1e-6;
const MAX_STEP_DIVISOR: f64 = 20.0;

/// Longest orbit shot, in forcing periods: each Newton step integrates it with its
/// `(2n)²` sensitivities (an orbit of 1000 periods of a one-DOF model already takes ~0.1 s
/// per step).
const MAX_PERIODS: usize = 1000;

/// Longest transient integrated before the first Newton step, in forcing periods (~1 min
/// on one DOF at 70 µs a period).
const MAX_TRANSIENT_PERIODS: usize = 1_000_000;

/// Default cap on the points of the branch.
const DEFAULT_MAX_POINTS: usize = 2000;

/// Where a branch stalls (at a grazing of a rigid stop, or a corner of the residual), it is
/// restarted this far past the last point (fractions of the parameter range), from the
/// last orbit: the next orbit is segmented anew. At most `MAX_RESTARTS` times.
const RESTART_OFFSETS: [f64; 3] = [1e-4, 1e-3, 1e-2];

/// The restart offsets of multiple shooting, whose parts end at a grazing to within the
/// smallest step (`MIN_STEP_FRACTION`): the next part starts just past it, so that a
/// bifurcation close beyond the grazing (the free-play branch's Neimark–Sacker point,
/// 1.4e-5 past its second grazing) falls inside a part, where it is located.
const MULTIPLE_RESTART_OFFSETS: [f64; 5] = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2];
const MAX_RESTARTS: usize = 10;

/// Newton tolerance of the continuation on the residual relative to the orbit's size
/// (dimensionless): a hundred times the integration tolerance.
const CORRECTOR_TOL_FACTOR: f64 = 100.0;

/// What `continue periodic` was asked.
#[derive(Clone)]
struct Request {
    param: String,
    settings: Settings,
    periods: usize,
    transient: usize,
    y0: Vec<f64>,
    /// Harmonics of a harmonic-balance start (`start = harmonic_balance`).
    hb_start: Option<usize>,
    /// Harmonics of the harmonic balance (the start's, and the compared branch's).
    harmonics: usize,
    smooth_only: bool,
    /// Multiple shooting on each orbit's segment signature (`shooting = multiple`) rather
    /// than single shooting.
    multiple: bool,
    tol: Tolerances,
    plotted: usize,
}

fn read(a: &Analysis, model: &Model, sys: &System) -> Result<Request, AnalysisError> {
    let opts = OptionReader::new(a, model, &OPTIONS)?;
    let (param, from, to, _) = opts
        .parameter_interval("param", &model.params)?
        .ok_or_else(|| {
            opts.bad_value(
                "param",
                a.span,
                "missing",
                "give the continued parameter and its range, e.g. `param = Omega in 1.1..1.4`",
            )
        })?;
    let rtol = super::tolerances::relative_tolerance(&opts, DEFAULT_TOL, "1e-10")?;
    let atol = opts.positive("atol", Dim::NONE, DEFAULT_TOL, "1e-10")?;
    let number = |key: &str, default: f64| opts.positive(key, Dim::NONE, default, "0.01");
    let width = (to - from).abs();
    // A given `step` above the default `max_step` raises it, as in `continue frf`.
    let step = number("step", width / STEP_DIVISOR)?;
    let settings = Settings {
        range: (from, to),
        step,
        min_step: number("min_step", width * MIN_STEP_FRACTION)?,
        max_step: number("max_step", (width / MAX_STEP_DIVISOR).max(step))?,
        max_points: opts.count("max_points", 2)?.unwrap_or(DEFAULT_MAX_POINTS),
        tol: CORRECTOR_TOL_FACTOR * rtol.max(atol),
        scale: Scale::UNIT,
    };
    opts.step_above_minimum(settings.step, settings.min_step)?;
    let harmonics = opts
        .count("harmonics", 1)?
        .unwrap_or(DEFAULT_START_HARMONICS);
    let hb_start = (opts.choice("start", &["rest", "harmonic_balance"])?
        == Some("harmonic_balance"))
    .then_some(harmonics);
    let transient = if hb_start.is_some() {
        0
    } else {
        DEFAULT_TRANSIENT
    };
    let periods = opts
        .count_at_most(
            "periods",
            (1, MAX_PERIODS),
            &format!("an orbit of more than {MAX_PERIODS} forcing periods"),
            "shooting integrates the orbit with its sensitivities at every Newton step; find long orbits with `sweep bifurcation` and continue their period",
        )?
        .unwrap_or(1);
    let most = MAX_TRANSIENT_PERIODS / periods;
    let transient = opts
        .count_at_most(
            "transient",
            (0, most),
            &format!("{most} orbits ({MAX_TRANSIENT_PERIODS} forcing periods) is the longest transient"),
            "a lightly damped model settles in a few thousand periods; start nearer the orbit (`start = harmonic_balance`, `x0`, `v0`) instead",
        )?
        .unwrap_or(transient);
    Ok(Request {
        param,
        settings,
        periods,
        transient,
        hb_start,
        harmonics,
        y0: super::initial_state::initial_state(&opts, model, sys)?,
        smooth_only: opts.choice("events", &["exact", "smooth"])? == Some("smooth"),
        multiple: opts.choice("shooting", &["single", "multiple"])? == Some("multiple"),
        tol: Tolerances {
            rtol,
            atol,
            max_step: f64::INFINITY,
        },
        plotted: opts.dof("dof", sys)?.or(sys.excited_dof()).unwrap_or(0),
    })
}

pub(crate) fn run(
    prog: &Program,
    a: &Analysis,
    overrides: &[Override],
    model: &Model,
    sys: &System,
) -> Result<super::results::Results, Partial> {
    let req = read(a, model, sys)?;
    let compared = compare::read(a, model, prog, sys, &req)?;
    let started = std::time::Instant::now();
    let traced = Traced {
        prog,
        a,
        overrides,
        req: &req,
    };
    let (parts, stopped) = traced.families(&model.name, req.smooth_only, true)?;
    let overlays = compare::overlays(&traced, &compared, sys);
    let wall_s = started.elapsed().as_secs_f64();
    let mut results = report::results(&parts, &req, model, sys, wall_s);
    compare::add(&mut results, &overlays, &req);
    match stopped {
        None => Ok(results),
        Some(error) => {
            // The branch ended inside its range: said in the summary and the warnings too.
            let why = error.to_string();
            results.summary.insert("stopped".into(), json!(why));
            results
                .warnings
                .push(format!("{why}; the results cover the branch up to there"));
            Err(Partial {
                error,
                results: Some(Box::new(results)),
            })
        }
    }
}

/// What a branch of any model of the program is traced with: the analysis's options.
#[derive(Clone, Copy)]
struct Traced<'a> {
    prog: &'a Program,
    a: &'a Analysis,
    overrides: &'a [Override],
    req: &'a Request,
}

impl Traced<'_> {
    /// The system of model `name` at parameter value `p`.
    fn system_at(&self, name: &str, p: f64) -> Result<System, String> {
        let family = Family {
            prog: self.prog,
            model: name,
            overrides: self.overrides,
        };
        family.at(&[(&self.req.param, p)])
    }

    /// The main branch of model `name` (its parts after each restart read as one) and, with
    /// `doubling`, the doubled branches born on it; the error that stopped the main branch
    /// early, if one did (the parts hold the points before it).
    fn families(
        &self,
        name: &str,
        smooth_only: bool,
        doubling: bool,
    ) -> Result<(Vec<Part>, Option<AnalysisError>), AnalysisError> {
        let (req, a) = (self.req, self.a);
        let unsupported = |e: String| {
            AnalysisError::Unsupported {
            message: format!("continue periodic of `{name}`: {e}"),
            at: a.span,
            help: "shooting integrates the model as `simulate` does (gaps, rigid stops, Coulomb contacts, polynomial springs); Jenkins elements and 2-D friction contacts follow".into(),
        }
        };
        let system_at = |p: f64| self.system_at(name, p);
        let p0 = req.settings.range.0;
        let start_sys = system_at(p0).map_err(unsupported)?;
        let period = forcing_period(&start_sys).map_err(|e| AnalysisError::BadOption {
            name: "param".into(),
            reason: format!("`{name}` {e}"),
            at: a.span,
            help: "periodic orbits of a forced system: give it a load `Q * cos(Omega * t)`".into(),
        })?;
        nsd_solve::periodic::hybrid(&start_sys, smooth_only)
            .map_err(|e| unsupported(e.to_string()))?;
        // The start: the harmonic-balance orbit or the given state, then the transient, which
        // ends on a forcing phase 0.
        let y0 = match req.hb_start {
            Some(h) => hb_state(&start_sys, h).map_err(unsupported)?,
            None => req.y0.clone(),
        };
        let span = (req.transient * req.periods) as f64 * period;
        let warm = shoot(&start_sys, smooth_only, (0.0, span), &y0, &req.tol).map_err(|e| {
            AnalysisError::Numerical {
                message: format!("continue periodic of `{name}`: the transient from the start: {e}"),
                at: a.span,
                help: "loosen `rtol`/`atol`, or start elsewhere (`x0`, `v0`, `start = harmonic_balance`)".into(),
            }
        })?;
        let x0 = nalgebra::DVector::from_column_slice(warm.end());
        let shooting = Shooting::new(&system_at, x0.len(), req.periods, smooth_only, req.tol);
        let mut settings = req.settings;
        settings.scale = Scale {
            x: x0.amax().max(f64::MIN_POSITIVE),
            p: p0.abs().max(1.0),
            r: x0.amax().max(f64::MIN_POSITIVE),
        };
        let numerical = |message: String| {
            AnalysisError::Numerical {
            message: format!("continue periodic of `{name}`: {message}"),
            at: a.span,
            help: "start closer to an orbit (`transient`, `x0`, `v0`), lower `step`, or tighten `rtol`/`atol`; the points before are written".into(),
        }
        };
        let part = |x: &DVector<f64>, p: f64, s: &Settings| {
            if req.multiple {
                multiple::part(&shooting, x, p, s)
            } else {
                follow(&shooting, x.clone(), p, s)
                    .map_err(|error| ShootingError::continuation(error, &shooting.failure))
            }
        };
        let first = part(&x0, p0, &settings).map_err(|e| numerical(e.to_string()))?;
        let offsets: &[f64] = if req.multiple {
            &MULTIPLE_RESTART_OFFSETS
        } else {
            &RESTART_OFFSETS
        };
        let branches = restarted(&part, first, &settings, offsets);
        let main = report::read_parts(&shooting, &branches, req);
        let mut parts = if doubling {
            doubled(&shooting, &main, &settings, req)
        } else {
            Vec::new()
        };
        parts.insert(0, main);
        let stopped = branches
            .last()
            .and_then(|b| b.stopped.as_ref())
            .map(|error| {
                numerical(ShootingError::continuation(error.clone(), &shooting.failure).to_string())
            });
        Ok((parts, stopped))
    }
}

/// The state at phase 0 of the harmonic-balance orbit of `sys` with `harmonics` harmonics,
/// from the first of the linearised and harmonic-ramp guesses that converges.
fn hb_state(sys: &System, harmonics: usize) -> Result<Vec<f64>, String> {
    let samples = crate::options::balance::default_samples(harmonics);
    let hb = Balance::new(sys, harmonics, samples).map_err(|e| e.to_string())?;
    let w = hb.fundamental;
    let q = hb
        .solve(hb.linear_guess(w), w, START_HB_TOL)
        .or_else(|_| hb.solve(hb.ramped_guess(w), w, START_HB_TOL))
        .map_err(|e| format!("the harmonic-balance start: {e}"))?
        .0;
    Ok(hb.state_at(&q, w, 0.0))
}

/// The branches of doubled orbits born at the main branch's period doublings (one level
/// deep: a doubling on a doubled branch is located and reported, not followed), each from
/// `doubling::doubled_start` to the end of the range it heads for.
fn doubled(shooting: &Shooting, main: &Part, settings: &Settings, req: &Request) -> Vec<Part> {
    let (lo, hi) = (
        settings.range.0.min(settings.range.1),
        settings.range.0.max(settings.range.1),
    );
    let twice = shooting.with_periods(2 * shooting.periods);
    let tol = settings.tol * settings.scale.r;
    main.special
        .iter()
        .filter(|sp| sp.1 == "period_doubling")
        .filter_map(|(_, _, o)| {
            let mut e = shooting.evaluate(&o.x, o.p).ok()?;
            let m = shooting.monodromy_of(&mut e).ok()?;
            let (x, p) = doubled_start(&twice, (&o.x, o.p), &m, tol)?;
            let towards = if p > o.p { hi } else { lo };
            let s = Settings {
                range: (p, towards),
                ..*settings
            };
            let branch = follow(&twice, x, p, &s).ok()?;
            Some(report::read_parts(&twice, &[branch], req))
        })
        .collect()
}

/// Follows one part of a branch from a state at phase 0 and a parameter value.
type FollowFrom<'a> = dyn Fn(&DVector<f64>, f64, &Settings) -> Result<Branch, ShootingError> + 'a;

/// The branch continued past its stalls: while the last part ended early, a new part starts
/// `offsets` of the range past its last point, in the direction it was heading, from
/// its last orbit (`part` follows one from a state at phase 0); the parts in order.
fn restarted(
    part: &FollowFrom,
    first: Branch,
    settings: &Settings,
    offsets: &[f64],
) -> Vec<Branch> {
    let (lo, hi) = (
        settings.range.0.min(settings.range.1),
        settings.range.0.max(settings.range.1),
    );
    let width = hi - lo;
    let mut parts = vec![first];
    while let Some(last) = parts.last().filter(|_| parts.len() <= MAX_RESTARTS) {
        // Only a stall is restarted past; a branch out of points ends there.
        let (Some(ContError::StepUnderflow { .. }), [.., before, end]) =
            (&last.stopped, last.points.as_slice())
        else {
            break;
        };
        let heading = (end.p - before.p).signum();
        let next = offsets.iter().find_map(|offset| {
            let p = end.p + heading * offset * width;
            if !(lo..=hi).contains(&p) {
                return None;
            }
            let towards = if heading > 0.0 { hi } else { lo };
            let s = Settings {
                range: (p, towards),
                ..*settings
            };
            part(&end.x, p, &s).ok()
        });
        match next {
            Some(part) => parts.push(part),
            None => break,
        }
    }
    parts
}
