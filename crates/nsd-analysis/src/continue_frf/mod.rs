//! The `continue frf` analysis: the frequency response by harmonic balance and
//! pseudo-arclength continuation over the excitation frequency, with Hill stability.
//!
//! Options: `param = Omega in a..b` (the model parameter that is the excitation frequency),
//! `harmonics` (5), `samples` (time samples per period, default the smallest power of two
//! ≥ 8H + 8), `excitation` (a factor on the harmonic loads, 1), `step`, `min_step`,
//! `max_step`, `max_points`, `dof` (the monitored DOF, `"name"`; default the excited one,
//! with the largest harmonic load), `condense` (onto the nonlinear elements' DOFs, `true`),
//! `stability` (Hill's method per point, `true`), `gaps`
//! (`exact` contact intervals or `aft`, for piecewise-linear gaps), `reduce = modes(m)`
//! (Craig–Bampton with the monitored DOF kept; the table on the physical DOFs). Writes
//! `data.csv` and `frf.svg`.
//!
//! `run` reads the options and sets up the balance; `branch` continues it, `points` reads
//! the branch point by point (table, stability, bifurcations), `curve` draws the watched
//! DOF's amplitude and refines its peak.

mod curve;
mod points;

use crate::branch_plot::stability_plot;
use crate::diagnostics::{unresolved_stability, AnalysisError, Partial};
use crate::options::balance::{balance, frequency_range, harmonics_and_samples};
use crate::options::OptionReader;
use crate::results::{Results, Table};
use nsd_lang::ast::Analysis;
use nsd_lang::Span;
use nsd_model::{Model, System};
use nsd_solve::cont::{ContError, Settings};
use nsd_solve::hb::frf::{self, default_settings};
use nsd_solve::hb::Hill;
use points::Reading;
use serde_json::{json, Map, Value};

/// Hill's method is reported as slow when it takes longer than this (s) …
const SLOW_STABILITY_S: f64 = 1.0;

/// … and this many times longer than the branch itself.
const SLOW_STABILITY_RATIO: f64 = 10.0;

/// The options of `continue frf`.
pub(super) const OPTIONS: [&str; 13] = [
    "param",
    "harmonics",
    "samples",
    "excitation",
    "step",
    "min_step",
    "max_step",
    "max_points",
    "dof",
    "condense",
    "stability",
    "gaps",
    "reduce",
];

/// The options read before the balance exists.
struct Frf {
    /// The model parameter that is the excitation frequency, and its span in the source.
    param: String,
    param_span: Span,
    harmonics: usize,
    samples: usize,
    settings: Settings,
    /// The factor on the harmonic loads (`excitation`).
    level: f64,
    stability: bool,
    monitored: Option<usize>,
}

pub(crate) fn run(a: &Analysis, model: &Model, sys: &System) -> Result<Results, Partial> {
    let opts = OptionReader::new(a, model, &OPTIONS)?;
    let frf = read_options(&opts, a, model, sys)?;
    let keep: Vec<usize> = frf.monitored.into_iter().collect();
    let reduced = super::reduce::read(&opts, sys, &keep, &model.name)?;
    let mut hb = balance(
        &opts,
        (frf.harmonics, frf.samples),
        (&frf.param, frf.param_span),
        a,
        model,
        reduced.as_ref().map_or(sys, |r| &r.system),
    )?;
    hb.level = frf.level;
    let start = std::time::Instant::now();
    let failure = |e: &dyn std::fmt::Display| branch_failure(e, &model.name, a.span);
    // Condensed onto the contact DOFs unless asked otherwise (or nothing to gain).
    let condense = opts.flag("condense", true)?;
    let continued = frf::continued(&hb, condense, &frf.settings);
    let curve = continued
        .curve
        .map_err(|e| singular_start(&e, sys, &model.name, a.span).unwrap_or_else(|| failure(&e)))?;
    let branch = curve.points;
    let wall_s = start.elapsed().as_secs_f64();
    // Per point: the reported DOFs' harmonic amplitudes (the requested one, else all), their
    // peak over the reconstructed period and the phase of the first harmonic; stability by
    // Hill's method. Peak, folds and plot follow the requested DOF, else the excited one
    // (the largest harmonic load; the first DOF only when no harmonic load acts).
    let names: Vec<String> = sys.dofs.iter().map(|d| d.name.clone()).collect();
    let reported: Vec<usize> = frf
        .monitored
        .map_or_else(|| (0..sys.n()).collect(), |i| vec![i]);
    let excited = hb
        .excited_dof()
        .map(|i| reduced.as_ref().map_or(i, |r| r.kept[i]));
    let watched = frf.monitored.or(excited).unwrap_or(0);
    let post = std::time::Instant::now();
    let hill = frf.stability.then(|| Hill::new(&hb));
    // Hill's problem condensed onto the nonlinear DOFs (proportional damping), else full.
    let hill_method = match &hill {
        Some(h) if h.is_condensed() => "condensed",
        Some(_) => "full",
        None => "none",
    };
    let solved = reduced.as_ref().map_or(sys, |r| &r.system);
    let reading = Reading {
        hb: &hb,
        sys: solved,
        basis: reduced.as_ref().map(|r| &r.basis),
        reported: &reported,
        watched,
        harmonics: frf.harmonics,
        hill,
        range: frf.settings.range,
        tol: frf.settings.tol,
    };
    let read = reading.tabulate(&branch);
    // Stability (Hill's method per point, bifurcations located) and the columns.
    let stability_s = post.elapsed().as_secs_f64();
    let plot = stability_plot(
        "frf.svg",
        format!("{}: max|{}| over the period", model.name, names[watched]),
        format!("{} [rad/s]", frf.param),
        format!("max|{}|", names[watched]),
        &read.watched_curve,
        &read.stable,
    );
    let mut summary = summary(&branch, &read, &names[watched]);
    summary.insert("wall_s".into(), json!(wall_s));
    summary.insert("stability_s".into(), json!(stability_s));
    summary.insert("stability_method".into(), json!(hill_method));
    summary.insert("unknowns".into(), json!(continued.unknowns));
    let mut warnings: Vec<String> = sys.warnings.iter().map(|w| w.message.clone()).collect();
    if frf.stability {
        warnings.extend(slow_stability((stability_s, wall_s), hill_method, hb.dim()));
    }
    let mut settings = settings(&frf, &names[watched], continued.condensed);
    if let Some(r) = &reduced {
        settings.insert("reduce".into(), super::reduce::summary(r, sys));
    }
    if let Some(e) = &curve.stopped {
        summary.insert("stopped".into(), json!(failure(e).to_string()));
        warnings.push(format!(
            "{}; the results cover the branch up to there",
            failure(e)
        ));
    }
    let points = read.rows.len();
    let mut results = Results {
        name: String::new(),
        kind: "continue frf".into(),
        model: model.name.clone(),
        tables: vec![Table {
            file: "data.csv".into(),
            columns: reading.columns(&frf.param, &names, &reported),
            rows: read.rows,
        }],
        plots: vec![plot],
        summary,
        settings,
        params: model.params.clone(),
        warnings,
        wall_s,
    };
    let unresolved = unresolved_stability(&mut results, &read.unresolved, points, a.span);
    let error = match (&curve.stopped, unresolved) {
        (Some(e), _) => failure(e),
        (None, Some(e)) => e,
        (None, None) => return Ok(results),
    };
    Err(Partial {
        error,
        results: Some(Box::new(results)),
    })
}

/// A warning where Hill's method took over `SLOW_STABILITY_S` and `SLOW_STABILITY_RATIO`
/// times the branch (`times`: the stability's and the branch's, s).
fn slow_stability(times: (f64, f64), method: &str, unknowns: usize) -> Option<String> {
    let (stability_s, wall_s) = times;
    (stability_s > SLOW_STABILITY_S && stability_s > SLOW_STABILITY_RATIO * wall_s).then(|| {
        format!(
            "Hill's method ({method}, on {unknowns} unknowns) took {stability_s:.1} s, {:.0}× the branch ({wall_s:.2} s); `stability = false` skips it",
            stability_s / wall_s.max(f64::MIN_POSITIVE)
        )
    })
}

/// The options up to `excitation`, in the order their errors are reported.
fn read_options(
    opts: &OptionReader,
    a: &Analysis,
    model: &Model,
    sys: &System,
) -> Result<Frf, AnalysisError> {
    let stability = opts.flag("stability", true)?;
    let monitored = opts.dof("dof", sys)?;
    let (param, lo, hi, param_span) = frequency_range(
        opts,
        a,
        model,
        "give the frequency range, e.g. `param = Omega in 0.5..2`",
    )?;
    let (harmonics, samples) = harmonics_and_samples(opts)?;
    let number =
        |key: &str, default: f64| opts.positive(key, nsd_lang::units::Dim::NONE, default, "0.01");
    let default = default_settings((lo, hi));
    // A given `step` above the default `max_step` raises it (the preflight refuses a given
    // `max_step` below `step`): no option is changed silently.
    let step = number("step", default.step)?;
    let settings = Settings {
        step,
        min_step: number("min_step", default.min_step)?,
        max_step: number("max_step", default.max_step.max(step))?,
        max_points: opts.count("max_points", 2)?.unwrap_or(default.max_points),
        ..default
    };
    opts.step_above_minimum(settings.step, settings.min_step)?;
    let level = number("excitation", 1.0)?;
    Ok(Frf {
        param,
        param_span,
        harmonics,
        samples,
        settings,
        level,
        stability,
        monitored,
    })
}

/// The summary's account of the branch: points, the monitored DOF, folds, bifurcations, the
/// refined peak and the Newton iterations.
fn summary(
    branch: &[nsd_solve::cont::Point],
    read: &points::Tabulated,
    watched: &str,
) -> Map<String, Value> {
    let mut summary = Map::new();
    summary.insert("points".into(), json!(branch.len()));
    summary.insert("dof".into(), json!(watched));
    summary.insert("folds".into(), json!(read.folds));
    summary.insert("bifurcations".into(), json!(read.bifurcations));
    summary.insert("transitions".into(), json!(read.transitions));
    let peak = curve::refined_peak(&read.watched_curve);
    summary.insert("peak".into(), json!({"Omega": peak.0, "amplitude": peak.1}));
    summary.insert(
        "newton_iterations".into(),
        json!(branch.iter().map(|p| p.iterations).sum::<usize>()),
    );
    summary
}

/// The continuation's settings for `meta.json`.
fn settings(frf: &Frf, watched: &str, condensed: bool) -> Map<String, Value> {
    let (lo, hi) = frf.settings.range;
    let mut s = Map::new();
    s.insert(
        "param".into(),
        json!({"name": frf.param, "from": lo, "to": hi}),
    );
    s.insert("harmonics".into(), json!(frf.harmonics));
    s.insert("samples".into(), json!(frf.samples));
    s.insert("excitation".into(), json!(frf.level));
    s.insert("dof".into(), json!(watched));
    s.insert("condensed".into(), json!(condensed));
    s.insert("stability".into(), json!(frf.stability));
    s.insert(
        "step".into(),
        json!([
            frf.settings.step,
            frf.settings.min_step,
            frf.settings.max_step
        ]),
    );
    s.insert(
        "method".into(),
        json!("harmonic balance (AFT), pseudo-arclength continuation, Hill stability"),
    );
    s
}

/// A branch that fails or stops early: the error, and the options that help.
fn branch_failure(e: &dyn std::fmt::Display, model: &str, at: Span) -> AnalysisError {
    AnalysisError::Numerical {
        message: format!("continue frf of `{model}`: {e}"),
        at,
        help: "lower `step` or `min_step`, or add harmonics/samples where the response is strongly nonlinear; the points before are written".into(),
    }
}

/// A start that fails on a model with a rigid-body mode: the reason and the fix (`None` for
/// any other failure).
fn singular_start(e: &ContError, sys: &System, model: &str, at: Span) -> Option<AnalysisError> {
    if !matches!(e, ContError::Start(_)) || !has_rigid_mode(sys) {
        return None;
    }
    Some(AnalysisError::Numerical {
        message: format!(
            "continue frf of `{model}`: {e}: the static (0th-harmonic) block K is singular, as some DOF has no stiffness to a support (a rigid-body mode), so the mean position is not determined"
        ),
        at,
        help: "add a spring to ground (a soft one fixes the mean position without changing the response), or fix the floating DOF; `nsd check` lists the rigid-body modes".into(),
    })
}

/// Whether `sys` has a rigid-body mode with its contacts open (a DOF without stiffness to a
/// support, or a floating subsystem): the harmonic balance's 0th harmonic is then singular.
fn has_rigid_mode(sys: &System) -> bool {
    use nsd_solve::modes::{modes, Contacts};
    sys.warnings
        .iter()
        .any(|w| w.code == "nsd::model::floating")
        || modes(sys, Contacts::Open, None).is_ok_and(|m| m.rigid_body_modes() > 0)
}
