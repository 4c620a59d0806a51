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
pub(crate) mod section;
mod timestepping;

use super::diagnostics::{AnalysisError, Partial};
use super::options::{bytes_text, OptionReader, MAX_OUTPUT_ROWS, MAX_REQUEST_BYTES};
use super::results::{Cell, Plot, Results, Series, Table};
use super::tolerances::integrator_tolerances;
use crate::lang::ast::Analysis;
use crate::lang::units::Dim;
use crate::model::{Model, System};
use crate::solve::ode::dop853::Tolerances;
use crate::solve::ode::driver::{
    integrate_with_section, Config, Failed, Method, Output, Section, Trajectory,
};
use crate::solve::ode::hybrid::Hybrid;
use crate::solve::reduce::Reduced;
use serde_json::{json, Map, Value};

/// Resolution of the progress bar: the span `t0..t1` is shown in this many steps.
const PROGRESS_STEPS: u64 = 1000;

/// Relative change of the initial state by its projection onto the reduced space above which
/// the run says so (dimensionless, relative to the largest initial entry).
const INITIAL_STATE_TOL: f64 = 1e-9;

/// How many DOFs the time-history plot draws (the CSV has them all).
const PLOTTED_DOFS: usize = 4;

/// The options of `simulate`.
pub(crate) const OPTIONS: [&str; 12] = [
    "t", "x0", "v0", "rtol", "atol", "max_step", "method", "events", "output", "section", "reduce",
    "record",
];

pub fn run(a: &Analysis, model: &Model, sys: &System) -> Result<Results, Partial> {
    // Rigid bodies and joints have their own backend (`solve::multibody`) and options.
    if let Some(mb) = &sys.multibody {
        return multibody::run(a, model, mb, sys.n());
    }
    let (mut cfg, smooth_only, reduced) = read_options(a, model, sys)?;
    let record = OptionReader::unchecked(a, model).dofs("record", sys)?;
    let mut section = section::read(a, model, sys, cfg.t0)?;
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
    hybrid.forces_at_samples = true;
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
        Ok(traj) => Ok(reported(&traj)),
        Err(failed) => Err(failed_run(
            reported(&failed.partial),
            format!("simulate of `{}`: {}", model.name, failed.error),
            a.span,
            "loosen rtol/atol, lower max_step, or check the model's stiffness and masses; the partial results are written",
        )),
    }
}

/// A run that failed part-way: its results up to the failure, marked as such, with the
/// error (exit code 2 keeps them).
pub(super) fn failed_run(
    mut partial: Results,
    message: String,
    at: crate::span::Span,
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
    let output = read_output(&opts, (t0, t1), &tol, sys.n())?;
    let y0 = super::options::initial_state(&opts, model, sys)?;
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
/// refused with its estimate (`steps`: at least `(t1 − t0) / max_step` rows).
pub(super) fn read_output(
    opts: &OptionReader,
    (t0, t1): (f64, f64),
    tol: &Tolerances,
    n: usize,
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
    if output == Output::Steps {
        if let Some(at) = opts.span_of("max_step") {
            let rows = (t1 - t0) / tol.max_step;
            if let Some(e) = refuse(
                "max_step",
                at,
                rows,
                "every step is an output row: use a larger `max_step`, a shorter `t`, or `output = every(dt)`",
            ) {
                return Err(e);
            }
        }
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

/// Tables, plots and summary of a (possibly partial) trajectory.
fn report(
    traj: &Trajectory,
    hybrid: &Hybrid,
    reduced: Option<&Reduced>,
    model: &Model,
    sys: &System,
    settings: Map<String, Value>,
    recorded: &Recorded,
) -> Results {
    // Tables, plots and final state on the physical DOFs; the energy on the solved ones.
    let expanded = reduced.map(|r| physical(traj, r));
    let shown = expanded.as_ref().unwrap_or(traj);
    let mut warnings: Vec<String> = sys.warnings.iter().map(|w| w.message.clone()).collect();
    for t_star in &traj.zeno {
        warnings.push(format!(
            "impacts accumulated (Zeno) at t* ≈ {t_star}; continued in persistent contact"
        ));
    }
    let names: Vec<String> = sys.dofs.iter().map(|d| d.name.clone()).collect();
    let force_names = hybrid.contact_force_names();
    let mut tables = vec![states_table(shown, &names, recorded)];
    if !force_names.is_empty() {
        tables.push(forces_table(traj, &force_names));
    }
    tables.push(events_table(&traj.events));
    if !traj.section.is_empty() {
        tables.push(section::table(&shown.section, &names));
    }
    let mut summary = summary(shown, &names);
    if let Some(drift) = energy_drift(traj, hybrid) {
        summary.insert("energy_drift".into(), json!(drift));
    }
    summary.extend(largest_forces(traj, &force_names));
    Results {
        name: String::new(),
        kind: "simulate".into(),
        model: model.name.clone(),
        tables,
        plots: plots(shown, &model.name, &names, recorded),
        summary,
        settings,
        params: model.params.clone(),
        warnings,
        wall_s: 0.0,
    }
}

/// The DOFs that `data.csv` and the plots show (`record`, else every DOF) and where each
/// one's displacement and velocity sit in a sample.
struct Recorded {
    dofs: Vec<usize>,
    x: Vec<usize>,
    v: Vec<usize>,
}

impl Recorded {
    /// The DOFs of `record`: a model that is not reduced and has no energy check (it is
    /// damped, forced or dissipative) keeps only their states in each sample
    /// (`Hybrid::sampled_components`: a 1000-DOF run's every-step samples are otherwise
    /// hundreds of MB); the others keep the whole state, which the expansion of the
    /// reduced model and the energy check read.
    fn new(record: Option<Vec<usize>>, n: usize, hybrid: &mut Hybrid, unreduced: bool) -> Self {
        let Some(dofs) = record else {
            return Recorded {
                dofs: (0..n).collect(),
                x: (0..n).collect(),
                v: (n..2 * n).collect(),
            };
        };
        let (x, v): (Vec<usize>, Vec<usize>) = dofs.iter().map(|&i| (i, n + i)).unzip();
        if unreduced && !hybrid.is_conservative() {
            hybrid.sampled_components = Some(x.iter().chain(&v).copied().collect());
            let r = dofs.len();
            return Recorded {
                dofs,
                x: (0..r).collect(),
                v: (r..2 * r).collect(),
            };
        }
        Recorded { dofs, x, v }
    }
}

/// `data.csv`: time, the displacements of the `recorded` DOFs, their velocities.
fn states_table(traj: &Trajectory, names: &[String], recorded: &Recorded) -> Table {
    let mut columns = vec!["t [s]".to_string()];
    columns.extend(recorded.dofs.iter().map(|&i| names[i].clone()));
    columns.extend(recorded.dofs.iter().map(|&i| format!("v({})", names[i])));
    let rows = traj
        .t
        .iter()
        .zip(&traj.y)
        .map(|(t, y)| {
            let x = recorded.x.iter().map(|&j| y[j]);
            let v = recorded.v.iter().map(|&j| y[j]);
            std::iter::once(*t)
                .chain(x)
                .chain(v)
                .map(Cell::Num)
                .collect()
        })
        .collect();
    Table {
        file: "data.csv".into(),
        columns,
        rows,
    }
}

/// `forces.csv`: time and every contact element's force at the samples of `data.csv`
/// (`Hybrid::contact_forces`: `NAME.F` gaps, `NAME.N` rigid stops, `NAME.T` friction).
fn forces_table(traj: &Trajectory, force_names: &[String]) -> Table {
    let mut columns = vec!["t [s]".to_string()];
    columns.extend(force_names.iter().map(|c| format!("{c} [N]")));
    let rows = traj
        .t
        .iter()
        .zip(&traj.forces)
        .map(|(t, f)| {
            std::iter::once(Cell::Num(*t))
                .chain(f.iter().map(|v| Cell::Num(*v)))
                .collect()
        })
        .collect();
    Table {
        file: "forces.csv".into(),
        columns,
        rows,
    }
}

/// `max_contact_force` (the largest |force| of each contact element over the samples, by
/// column name) and, when impacts occurred, `max_impulse` (the largest impulse per rigid
/// stop over its impacts).
fn largest_forces(traj: &Trajectory, force_names: &[String]) -> Map<String, Value> {
    let mut out = Map::new();
    if !force_names.is_empty() {
        let largest: Map<String, Value> = force_names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let max = traj.forces.iter().map(|f| f[i].abs()).fold(0.0, f64::max);
                (name.clone(), json!(max))
            })
            .collect();
        out.insert("max_contact_force".into(), json!(largest));
    }
    let mut impulses = Map::new();
    for e in &traj.events {
        if let Some(p) = e.impulse {
            let best = impulses
                .get(&e.element)
                .and_then(Value::as_f64)
                .map_or(p.abs(), |b| b.max(p.abs()));
            impulses.insert(e.element.clone(), json!(best));
        }
    }
    if !impulses.is_empty() {
        out.insert("max_impulse".into(), json!(impulses));
    }
    out
}

/// `events.csv`: one row per located mode change or impact, with the impulse of impacts
/// (empty for the other events).
pub(super) fn events_table(events: &[crate::solve::ode::driver::Event]) -> Table {
    Table {
        file: "events.csv".into(),
        columns: [
            "t [s]",
            "element",
            "kind",
            "from",
            "to",
            "velocity",
            "velocity_after",
            "impulse [N s]",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows: events
            .iter()
            .map(|e| {
                vec![
                    Cell::Num(e.t),
                    Cell::Text(e.element.clone()),
                    Cell::Text(e.kind.into()),
                    Cell::Text(e.from.into()),
                    Cell::Text(e.to.into()),
                    Cell::Num(e.velocity),
                    e.velocity_after
                        .map_or(Cell::Text(String::new()), Cell::Num),
                    e.impulse.map_or(Cell::Text(String::new()), Cell::Num),
                ]
            })
            .collect(),
    }
}

/// The time history of the first recorded DOFs and the phase portrait of the first.
fn plots(traj: &Trajectory, model: &str, names: &[String], recorded: &Recorded) -> Vec<Plot> {
    let history = Plot {
        file: "time_history.svg".into(),
        title: format!("{model}: displacements"),
        x_label: "t [s]".into(),
        y_label: "x".into(),
        series: recorded
            .dofs
            .iter()
            .zip(&recorded.x)
            .take(PLOTTED_DOFS)
            .map(|(&i, &j)| Series {
                label: names[i].clone(),
                x: traj.t.clone(),
                y: traj.y.iter().map(|y| y[j]).collect(),
                points: false,
                dashed: false,
            })
            .collect(),
        cells: None,
    };
    let mut plots = vec![history];
    if let (Some(&first), Some(&x), Some(&v)) = (
        recorded.dofs.first(),
        recorded.x.first(),
        recorded.v.first(),
    ) {
        plots.push(Plot {
            file: "phase.svg".into(),
            title: format!("{model}: phase portrait of {}", names[first]),
            x_label: names[first].clone(),
            y_label: format!("v({})", names[first]),
            series: vec![Series {
                label: String::new(),
                x: traj.y.iter().map(|y| y[x]).collect(),
                y: traj.y.iter().map(|y| y[v]).collect(),
                points: false,
                dashed: false,
            }],
            cells: None,
        });
    }
    plots
}

/// The run's counters and its final state.
fn summary(traj: &Trajectory, names: &[String]) -> Map<String, Value> {
    let n = names.len();
    let mut final_state = Map::new();
    for (i, d) in names.iter().enumerate() {
        final_state.insert(d.clone(), json!(traj.final_state[i]));
        final_state.insert(format!("v({d})"), json!(traj.final_state[n + i]));
    }
    let mut summary = Map::new();
    summary.insert("events".into(), json!(traj.events.len()));
    if !traj.section.is_empty() {
        summary.insert("section_points".into(), json!(traj.section.len()));
    }
    summary.insert("impacts".into(), json!(traj.impacts));
    summary.insert("zeno".into(), json!(traj.zeno));
    summary.insert("steps".into(), json!(traj.steps));
    summary.insert("rejected".into(), json!(traj.rejected));
    summary.insert("rhs_evals".into(), json!(traj.rhs_evals));
    summary.insert("stiff_steps".into(), json!(traj.stiff_steps));
    summary.insert("stiff_switches".into(), json!(traj.stiff_switches));
    summary.insert("final".into(), json!(final_state));
    summary
}

/// The samples, final state and section points of a run on the reduced model, on the
/// physical DOFs (`x = T q`).
fn physical(traj: &Trajectory, r: &Reduced) -> Trajectory {
    let mut out = traj.clone();
    for y in out.y.iter_mut().chain([&mut out.final_state]) {
        *y = r.expand_state(y);
    }
    for p in &mut out.section {
        p.y = r.expand_state(&p.y);
    }
    out
}

/// `max |E − E₀| / |E₀|` with `E₀` the energy of the initial state at `t0` (not of the first
/// output sample, which `output = at(…)` may place anywhere) and the maximum over the output
/// samples and the final state; `None` for a model that dissipates or feeds energy (damping,
/// loads, base motion, dissipative contact laws, impacts with `e < 1`, friction), whose
/// energy is not expected to stay constant.
fn energy_drift(traj: &Trajectory, hybrid: &Hybrid) -> Option<f64> {
    if !hybrid.is_conservative() {
        return None;
    }
    let e0 = hybrid.energy(&traj.initial_state)?;
    let drift = traj
        .y
        .iter()
        .chain(std::iter::once(&traj.final_state))
        .filter_map(|y| hybrid.energy(y))
        .map(|e| (e - e0).abs())
        .fold(0.0, f64::max);
    Some(drift / e0.abs().max(f64::MIN_POSITIVE))
}
