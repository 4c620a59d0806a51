//! The `simulate` analysis: event-driven time integration of the model from rest (or from
//! `x0`, `v0`), with exact events for piecewise-linear gaps and smooth forces for smoothed
//! ones.
//!
//! Options: `t = t0..t1`, `x0 = { dof = value }`, `v0 = { … }`, `rtol`, `atol`, `max_step`,
//! `events = exact | smooth`, `output = steps | every(dt) | at(t1, t2, …)`, `section` (a
//! Poincaré section, `section.rs`), `reduce = modes(m)` (Craig–Bampton, `analysis::reduce`:
//! the run on the reduced model, every output on the physical DOFs).
//! Writes `data.csv` (`t`, each DOF, each `v(dof)`), `forces.csv` (the contact forces at the
//! same samples, when the model has contact elements), `events.csv` (with each impact's
//! impulse), `section.csv` (with `section`), `time_history.svg`, `phase.svg`.
//! A model with rigid bodies and joints goes to `multibody.rs` (its own options and outputs).

mod multibody;
mod report;
mod timestepping;

use super::diagnostics::{AnalysisError, Partial};
use super::options::OptionReader;
use super::results::Results;
use super::tolerances::integrator_tolerances;
use nsd_lang::ast::Analysis;
use nsd_lang::units::Dim;
use nsd_model::{Model, System};
use nsd_solve::ode::dop853::Tolerances;
use nsd_solve::ode::driver::{
    integrate_with_section, Config, Failed, Method, Output, Section, SimError, Trajectory,
};
use nsd_solve::ode::hybrid::Hybrid;
use nsd_solve::ode::tolerances::MAX_STEPS;
use nsd_solve::poincare::{forcing_period, NoPeriod};
use nsd_solve::reduce::Reduced;
use nsd_solve::{bytes_text, MAX_OUTPUT_ROWS, MAX_REQUEST_BYTES};
use report::{report, Recorded};
use serde_json::{json, Map, Value};

/// Resolution of the progress bar: the span `t0..t1` is shown in this many steps.
const PROGRESS_STEPS: u64 = 1000;

/// Relative change of the initial state by its projection onto the reduced space above which
/// the run says so (dimensionless, relative to the largest initial entry).
const INITIAL_STATE_TOL: f64 = 1e-9;

/// The options of `simulate`.
pub(crate) const OPTIONS: [&str; 12] = [
    "t", "x0", "v0", "rtol", "atol", "max_step", "method", "events", "output", "section", "reduce",
    "record",
];

pub(crate) fn run(a: &Analysis, model: &Model, sys: &System) -> Result<Results, Partial> {
    // Rigid bodies and joints have their own backend (`solve::multibody`) and options.
    if let Some(mb) = &sys.multibody {
        return multibody::run(a, model, mb, sys.n());
    }
    let (mut cfg, smooth_only, reduced) = read_options(a, model, sys)?;
    let record = OptionReader::unchecked(a, model).dofs("record", sys)?;
    let mut section = crate::options::section::read(a, model, sys, cfg.t0)?;
    let mut notes = Vec::new();
    if let Some(r) = &reduced {
        start_reduced(r, &mut cfg, &mut section, &mut notes);
    }
    let solved = reduced.as_ref().map_or(sys, |r| &r.system);
    let mut hybrid = Hybrid::new(solved, smooth_only).map_err(|e| AnalysisError::Unsupported {
        message: format!("simulate of `{}`: {e}", model.name),
        at: a.span,
        help: "this version integrates linear parts, polynomial springs, gaps (piecewise-linear exact or smoothed, Hertz, Kelvin–Voigt, Hunt–Crossley, Lankarani–Nikravesh), rigid stops between masses or to ground, rigid Coulomb contacts and Jenkins elements; 2-D friction contacts follow".into(),
    })?;
    if let Some(stop) = hybrid.penetrated(cfg.t0, &cfg.y0) {
        let opts = OptionReader::unchecked(a, model);
        let name = &hybrid.form.stops[stop].name;
        return Err(opts
            .bad_value(
                "x0",
                opts.span_of("x0").unwrap_or(a.span),
                &format!("the initial state is inside the rigid stop `{name}`"),
                &format!("a rigid stop cannot be penetrated: start on its free side or on its boundary (the clearance of `{name}`)"),
            )
            .into());
    }
    hybrid.record.forces_at_samples = true;
    let recorded = Recorded::new(record, sys.n(), &mut hybrid, reduced.is_none());
    let start = std::time::Instant::now();
    let mut settings = settings(&cfg, smooth_only);
    if let Some(r) = &reduced {
        settings.insert("reduce".into(), super::reduce::summary(r, sys));
    }
    let outcome = integrate_with_progress(&mut hybrid, &cfg, section.as_ref(), &model.name);
    let reported = |traj: &Trajectory| {
        let mut results = report(
            traj,
            &hybrid,
            reduced.as_ref(),
            model,
            sys,
            settings.clone(),
            &recorded,
        );
        results.wall_s = start.elapsed().as_secs_f64();
        results.warnings.extend(notes.iter().cloned());
        results
    };
    match outcome {
        Ok(traj) => {
            let mut results = reported(&traj);
            if section.is_some() && traj.section.is_empty() {
                results.summary.insert("section_points".into(), json!(0));
                results.warnings.push(format!(
                    "the section was not met in t = {}..{}: no section.csv",
                    cfg.t0, cfg.t1
                ));
            }
            Ok(results)
        }
        Err(failed) => Err(failed_run(
            reported(&failed.partial),
            format!("simulate of `{}`: {}", model.name, failed.error),
            a.span,
            match failed.error {
                SimError::StepBudget { .. } | SimError::OutputLimit { .. } => "shorten `t` or sample less (`output = every(dt)` or `at(…)`); the partial results are written",
                _ => "loosen rtol/atol, lower max_step, or check the model's stiffness and masses; the partial results are written",
            },
        )),
    }
}

/// A run that failed part-way: its results up to the failure, marked as such, with the
/// error (exit code 2 keeps them).
pub(super) fn failed_run(
    mut partial: Results,
    message: String,
    at: nsd_lang::span::Span,
    help: &str,
) -> Partial {
    partial.summary.insert("failed".into(), json!(message));
    partial.warnings.push(format!(
        "{message}; the results cover the run up to the failure"
    ));
    Partial {
        error: AnalysisError::Numerical {
            message,
            at,
            help: help.into(),
        },
        results: Some(Box::new(partial)),
    }
}

/// The options as the integrator's `Config`, whether every event is smoothed
/// (`events = smooth`), and the reduced model (`reduce`).
fn read_options(
    a: &Analysis,
    model: &Model,
    sys: &System,
) -> Result<(Config, bool, Option<Reduced>), Partial> {
    let opts = OptionReader::new(a, model, &OPTIONS)?;
    let (t0, t1) = opts.interval("t")?.ok_or_else(|| {
        opts.bad_value(
            "t",
            a.span,
            "missing",
            "give the time span, e.g. `t = 0..100`",
        )
    })?;
    let (rtol, atol) = integrator_tolerances(&opts)?;
    let tol = Tolerances {
        rtol,
        atol,
        max_step: opts.positive("max_step", Dim::TIME, t1 - t0, "1e-9")?,
    };
    let method = match opts.choice("method", &["auto", "dop853", "rodas"])? {
        Some("dop853") => Method::Dop853,
        Some("rodas") => Method::Rodas,
        _ => Method::Auto,
    };
    let smooth_only = opts.choice("events", &["exact", "smooth"])? == Some("smooth");
    let longest_step = match forcing_period(sys) {
        Ok(period) => period,
        Err(NoPeriod::Incommensurate { slowest, .. }) => slowest,
        Err(NoPeriod::Unforced) => f64::INFINITY,
    };
    let output = read_output(&opts, (t0, t1), &tol, sys.n(), longest_step)?;
    let y0 = super::initial_state::initial_state(&opts, model, sys)?;
    let cfg = Config {
        t0,
        t1,
        y0,
        tol,
        output,
        method,
    };
    let reduced = super::reduce::read(&opts, sys, &[], &model.name)?;
    Ok((cfg, smooth_only, reduced))
}

/// The run on the reduced model: the initial state projected (with a note when it does not
/// lie in the reduced space), a crossing section's sum rewritten on the reduced coordinates.
fn start_reduced(
    r: &Reduced,
    cfg: &mut Config,
    section: &mut Option<Section>,
    notes: &mut Vec<String>,
) {
    let y0 = r.project_state(&cfg.y0);
    let back = r.expand_state(&y0);
    let miss = back
        .iter()
        .zip(&cfg.y0)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let size = cfg.y0.iter().map(|v| v.abs()).fold(0.0, f64::max);
    if miss > INITIAL_STATE_TOL * size {
        notes.push(format!(
            "the initial state is not in the reduced space: its mass-weighted projection starts the run (largest change {miss:.3e}); the reduced space holds the kept DOFs' values with the interior at its static response to them plus the kept modes"
        ));
    }
    cfg.y0 = y0;
    if let Some(Section::Crossing { w, .. }) = section {
        *w = r.weights(w);
    }
}

/// `output = steps | every(dt) | at(t1, t2, …)`, checked against the interval `t0..t1`:
/// sample times outside it, or a `dt` longer than it, cannot take effect and are errors; a
/// request for more than `MAX_OUTPUT_ROWS` rows or `MAX_REQUEST_BYTES` of samples is
/// refused with its estimate (`steps`: at least `(t1 − t0) / min(max_step, longest_step)`
/// rows), and so is a run estimated at more than `MAX_STEPS` steps. `longest_step` is the
/// longest step the motion allows (a forcing period: no step resolves a drive longer).
pub(super) fn read_output(
    opts: &OptionReader,
    (t0, t1): (f64, f64),
    tol: &Tolerances,
    n: usize,
    longest_step: f64,
) -> Result<Output, AnalysisError> {
    let refuse = |key: &str, at, rows: f64, help: &str| {
        let bytes = rows * (2 * n + 1) as f64 * std::mem::size_of::<f64>() as f64;
        (rows > MAX_OUTPUT_ROWS || bytes > MAX_REQUEST_BYTES).then(|| {
            opts.bad_value(
                key,
                at,
                &format!(
                    "asks for about {rows:.1e} output rows ({} in memory; the limits are {MAX_OUTPUT_ROWS:.0e} rows and {})",
                    bytes_text(bytes),
                    bytes_text(MAX_REQUEST_BYTES)
                ),
                help,
            )
        })
    };
    let output = match opts.call("output")? {
        None => Output::Steps,
        Some((name, args, at)) => match (name.as_str(), args.as_slice()) {
            ("steps", []) => Output::Steps,
            ("every", [(dt, dt_at)]) if *dt > 0.0 => {
                if *dt > t1 - t0 {
                    return Err(opts.bad_value(
                        "output",
                        *dt_at,
                        &format!("dt = {dt} is longer than the run `t = {t0}..{t1}`"),
                        "only the start would be sampled; use a dt shorter than the run",
                    ));
                }
                let rows = ((t1 - t0) / dt).floor() + 1.0;
                if let Some(e) = refuse(
                    "output",
                    at,
                    rows,
                    "use a larger dt in `output = every(dt)` or a shorter `t`",
                ) {
                    return Err(e);
                }
                Output::Every(*dt)
            }
            ("at", ts) if !ts.is_empty() && ts.windows(2).all(|w| w[0].0 < w[1].0) => {
                if let Some((t, t_at)) = ts.iter().find(|(t, _)| !(t0..=t1).contains(t)) {
                    return Err(opts.bad_value(
                        "output",
                        *t_at,
                        &format!("t = {t} is outside the run `t = {t0}..{t1}`"),
                        "sample times must lie in the interval `t`; lengthen `t` or drop the time",
                    ));
                }
                Output::At(ts.iter().map(|(t, _)| *t).collect())
            }
            _ => {
                return Err(opts.bad_value(
                    "output",
                    at,
                    "expected `steps`, `every(dt)` with dt > 0, or `at(t1, t2, …)` ascending",
                    "e.g. `output = every(0.1)`",
                ))
            }
        },
    };
    // At least one step per `longest_step`: the bound on the run's steps and, with
    // `output = steps`, on its rows.
    let steps = (t1 - t0) / longest_step.min(tol.max_step);
    let max_step_binds = opts
        .span_of("max_step")
        .filter(|_| tol.max_step <= longest_step);
    let (key, at) = max_step_binds.map_or(("t", opts.span_of("t")), |at| ("max_step", Some(at)));
    let at = at.unwrap_or(opts.statement_span());
    if output == Output::Steps {
        if let Some(e) = refuse(
            key,
            at,
            steps,
            "every step is an output row: use a larger `max_step`, a shorter `t`, or `output = every(dt)`",
        ) {
            return Err(e);
        }
    }
    if steps > MAX_STEPS as f64 {
        return Err(opts.bad_value(
            key,
            at,
            &format!(
                "needs at least {steps:.1e} steps (one per {} s); the most one run may take is {MAX_STEPS:.0e}",
                longest_step.min(tol.max_step)
            ),
            "shorten `t` (a steady state is reached in a few hundred forcing periods) or raise `max_step`",
        ));
    }
    Ok(output)
}

/// The solver settings for `meta.json`.
fn settings(cfg: &Config, smooth_only: bool) -> Map<String, Value> {
    let mut settings = Map::new();
    settings.insert("t".into(), json!([cfg.t0, cfg.t1]));
    settings.insert("rtol".into(), json!(cfg.tol.rtol));
    settings.insert("atol".into(), json!(cfg.tol.atol));
    settings.insert("max_step".into(), json!(cfg.tol.max_step));
    settings.insert(
        "events".into(),
        json!(if smooth_only { "smooth" } else { "exact" }),
    );
    settings.insert(
        "method".into(),
        json!(match cfg.method {
            Method::Auto => "auto: DOP853 (7th-order dense output), RODAS on segments Hairer's stiffness test finds stiff; events by Bernstein root isolation",
            Method::Dop853 => "DOP853 with 7th-order dense output; events by Bernstein root isolation",
            Method::Rodas => "RODAS (Rosenbrock, order 4, 3rd-order dense output); events by Bernstein root isolation",
        }),
    );
    settings
}

/// Integrates with a progress bar on stderr (indicatif hides it when stderr is not a
/// terminal).
fn integrate_with_progress(
    hybrid: &mut Hybrid,
    cfg: &Config,
    section: Option<&Section>,
    model: &str,
) -> Result<Trajectory, Box<Failed>> {
    let bar = indicatif::ProgressBar::new(PROGRESS_STEPS);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} simulate {msg} [{bar:30}] {percent}% ({elapsed})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(model.to_string());
    let (t0, t1) = (cfg.t0, cfg.t1);
    let mut progress =
        |t: f64| bar.set_position((PROGRESS_STEPS as f64 * (t - t0) / (t1 - t0)) as u64);
    let outcome = integrate_with_section(hybrid, cfg, section, &mut progress);
    bar.finish_and_clear();
    outcome
}
