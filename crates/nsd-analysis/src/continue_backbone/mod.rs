//! The `continue backbone` analysis (paper 003): the resonance backbone of a forced model
//! over the excitation level, by the ridge of the forced-response surface (default), damped
//! nonlinear modes or phase resonance (`solve::backbone`), drawn over a family of frequency
//! responses.
//!
//! Options: `method = ridge | dnnm | phase_resonance`; `param = Omega in a..b` (the
//! excitation frequency and the window holding the peak at the first level; the dNNM starts
//! from the stuck-system mode nearest its centre); `level = a..b` (factors on the model's
//! harmonic loads, as `continue frf`'s `excitation`); `amplitude = a..b` (dNNM only: modal
//! amplitudes instead of levels, e.g. for an undamped mode); `spacing = log | linear`
//! (log); `harmonics` (5), `samples`, `dof` (monitored, default the excited one), `step`,
//! `min_step`, `max_step` (fractions of the continued range), `max_points`, `restarts`
//! (past singular points, 10), `stability` (Hill, true), `gaps`, `frf_levels = (…)`
//! (frequency responses at these levels over the backbone's frequencies ± 3 %, `frf_K.csv`,
//! drawn under the backbone). Writes `data.csv` and `backbone.svg`; `report.rs` builds them.

mod report;

use crate::diagnostics::{unresolved_stability, AnalysisError, Partial};
use crate::options::balance::{balance, frequency_range, harmonics_and_samples};
use crate::options::OptionReader;
use crate::results::Results;
use nsd_lang::ast::Analysis;
use nsd_lang::units::Dim;
use nsd_model::{Model, System};
use nsd_solve::backbone::{self, BackboneError, Curve, Forced, Settings, Spacing};

/// The options of `continue backbone`.
pub(super) const OPTIONS: [&str; 16] = [
    "method",
    "param",
    "level",
    "amplitude",
    "spacing",
    "harmonics",
    "samples",
    "dof",
    "step",
    "min_step",
    "max_step",
    "max_points",
    "restarts",
    "stability",
    "gaps",
    "frf_levels",
];

/// Default steps as fractions of the continued range: first, smallest, largest. The
/// smallest is not tiny: the ridge has singular points where an interface changes state
/// (paper Fig. 10), which the continuation should reach, stop at and restart past quickly
/// rather than crawl into.
const DEFAULT_STEPS: (f64, f64, f64) = (0.01, 1e-5, 0.05);

/// Default cap on the points of one continuation (`max_points`).
const DEFAULT_MAX_POINTS: usize = 2000;

/// Default number of restarts past singular points (`restarts`).
const DEFAULT_RESTARTS: usize = 10;

/// How far the response family extends past the backbone's frequencies, relative.
const FRF_MARGIN: f64 = 0.03;

/// Newton tolerance on the equilibrated residual (dimensionless).
const NEWTON_TOL: f64 = 1e-10;

/// The method asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Ridge,
    Dnnm,
    PhaseResonance,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Ridge => "ridge",
            Method::Dnnm => "dnnm",
            Method::PhaseResonance => "phase_resonance",
        }
    }
}

pub(crate) fn run(a: &Analysis, model: &Model, sys: &System) -> Result<Results, Partial> {
    let opts = OptionReader::new(a, model, &OPTIONS)?;
    let method = match opts.choice("method", &["ridge", "dnnm", "phase_resonance"])? {
        Some("dnnm") => Method::Dnnm,
        Some("phase_resonance") => Method::PhaseResonance,
        _ => Method::Ridge,
    };
    let (param, lo, hi, param_span) = frequency_range(
        &opts,
        a,
        model,
        "give the excitation frequency and a window holding the first peak, e.g. `param = Omega in 1250..1400`",
    )?;
    let (harmonics, samples) = harmonics_and_samples(&opts)?;
    let stability = opts.flag("stability", true)?;
    let monitored = opts.dof("dof", sys)?;
    let s = settings(&opts, a, method, (lo, hi))?;
    let frf_levels = opts.numbers("frf_levels", Dim::NONE)?.unwrap_or_default();
    let hb = balance(
        &opts,
        (harmonics, samples),
        (&param, param_span),
        a,
        model,
        sys,
    )?;
    let fail = |e: BackboneError| -> AnalysisError {
        AnalysisError::Numerical {
            message: format!("continue backbone of `{}`: {e}", model.name),
            at: a.span,
            help: "check that `param`'s window holds the resonance at the first level; lower `step` or `max_step` where the backbone bends sharply".into(),
        }
    };
    let excited = hb
        .excited_dof()
        .ok_or_else(|| fail(BackboneError::NoLoad))?;
    let watched = monitored.unwrap_or(excited);
    let forced = Forced::new(&hb, watched, s.spacing).map_err(fail)?;
    let start = std::time::Instant::now();
    let traced: Result<Curve, BackboneError> = match method {
        Method::Ridge => backbone::ridge(&forced, &s),
        Method::Dnnm => backbone::dnnm(&forced, &s),
        Method::PhaseResonance => backbone::phase_resonance(&forced, &s),
    };
    let curve = traced.map_err(fail)?;
    let wall_s = start.elapsed().as_secs_f64();
    let span = frf_window(&curve, (lo, hi));
    let frfs = frf_levels
        .iter()
        .map(|&level| backbone::frequency_response(&forced, level, span, &s).map(|r| (level, r)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fail)?;
    let report = report::Report {
        model,
        sys,
        forced: &forced,
        param: &param,
        method: method.name(),
        stability,
    };
    let (mut results, unresolved, judged) = report.results(&curve, &frfs, &s, wall_s);
    let unresolved = unresolved_stability(&mut results, &unresolved, judged, a.span);
    let error = match (&curve.stopped, unresolved) {
        (Some(why), _) => fail(BackboneError::Newton(format!(
            "the continuation stopped short of the last level: {why}"
        ))),
        (None, Some(e)) => e,
        (None, None) => return Ok(results),
    };
    Err(Partial {
        error,
        results: Some(Box::new(results)),
    })
}

/// The frequencies the response family covers: the backbone's, widened by `FRF_MARGIN` on
/// each side (the window `param` gives when the backbone is empty).
fn frf_window(curve: &Curve, window: (f64, f64)) -> (f64, f64) {
    let omegas = curve
        .points
        .iter()
        .filter(|p| p.stage == 3)
        .map(|p| p.omega);
    let (lo, hi) = omegas.fold((f64::MAX, f64::MIN), |(a, b), w| (a.min(w), b.max(w)));
    if lo > hi {
        return window;
    }
    (lo * (1.0 - FRF_MARGIN), hi * (1.0 + FRF_MARGIN))
}

/// The continuation settings from the options.
fn settings(
    opts: &OptionReader,
    a: &Analysis,
    method: Method,
    window: (f64, f64),
) -> Result<Settings, AnalysisError> {
    let amplitudes = opts.interval_in("amplitude", Dim::LENGTH)?;
    if amplitudes.is_some() && method != Method::Dnnm {
        return Err(opts.bad_value(
            "amplitude",
            opts.span_of("amplitude").unwrap_or(a.span),
            "only the damped nonlinear modes are continued in the modal amplitude",
            "use `level = a..b`, or `method = dnnm`",
        ));
    }
    let levels = match (opts.interval_in("level", Dim::NONE)?, amplitudes) {
        (Some(l), _) => l,
        (None, Some(_)) => (f64::MIN_POSITIVE, f64::MAX),
        (None, None) => {
            return Err(opts.bad_value(
                "level",
                a.span,
                "missing",
                "give the excitation levels (factors on the model's harmonic loads), e.g. `level = 0.01..100`",
            ))
        }
    };
    let spacing = match opts.choice("spacing", &["log", "linear"])? {
        Some("linear") => Spacing::Linear,
        _ => Spacing::Log,
    };
    if spacing == Spacing::Log && levels.0 <= 0.0 {
        return Err(opts.bad_value(
            "level",
            opts.span_of("level").unwrap_or(a.span),
            "log spacing needs positive levels",
            "start the range above 0, or set `spacing = linear`",
        ));
    }
    let fraction = |key: &str, default: f64| opts.positive(key, Dim::NONE, default, "0.01");
    let (step, min_step) = (
        fraction("step", DEFAULT_STEPS.0)?,
        fraction("min_step", DEFAULT_STEPS.1)?,
    );
    opts.step_above_minimum(step, min_step)?;
    Ok(Settings {
        levels,
        window,
        spacing,
        amplitudes,
        step,
        min_step,
        max_step: fraction("max_step", DEFAULT_STEPS.2)?,
        max_points: opts.count("max_points", 2)?.unwrap_or(DEFAULT_MAX_POINTS),
        tol: NEWTON_TOL,
        restarts: opts.count("restarts", 0)?.unwrap_or(DEFAULT_RESTARTS),
    })
}
