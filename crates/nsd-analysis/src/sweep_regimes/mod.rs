//! The `sweep regimes` analysis: continuous / stick–slip / no-motion maps of a model with one
//! rigid Coulomb contact over two of its parameters (paper 001), analytic, numerical or both.
//!
//! Options: `x = p in a..b by h`, `y = q in a..b by h` (required), `method = analytic |
//! numeric | both`, `cycles` (100), `S = unit | exact` (Den Hartog's S in the continuous
//! limit), `engine = auto | integrator` (closed-form segments where they apply, or always the
//! event-driven integrator), `rtol`, `atol` (integrator only). Writes `data.csv`,
//! `boundaries.csv` and `regimes.svg`.
//!
//! `sweep` reads the options, `grid` resolves the model at one cell, `analytic` computes the
//! boundaries per column, `tables` and `map` turn the cells into the CSV files and the map;
//! `run` here strings them together and adds the summary and settings.

mod analytic;
mod grid;
mod map;
mod sweep;
mod tables;

pub(super) use sweep::OPTIONS;

use crate::diagnostics::AnalysisError;
use crate::family::Family;
use crate::results::Results;
use analytic::{column, Column};
use grid::Grid;
use nsd_lang::ast::Analysis;
use nsd_lang::{Override, Program};
use nsd_model::{Model, System};
use nsd_solve::regimes::classify::{classify, Classification, Engine, Regime};
use nsd_solve::regimes::contact::{setup, Setup};
use nsd_solve::regimes::no_motion::{holding_force, peaks_and_antiresonances};
use nsd_solve::regimes::stick_slip::StopFactor;
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use sweep::Sweep;
use tables::Tally;

/// The regimes in the order of the map's legend.
const REGIMES: [Regime; 4] = [
    Regime::Continuous,
    Regime::StickSlip,
    Regime::NoMotion,
    Regime::Unsettled,
];

/// A numeric cell: its classification and whether closed-form segments gave it, or why it
/// failed.
type CellOutcome = Result<(Classification, bool), String>;

pub(crate) fn run(
    prog: &Program,
    a: &Analysis,
    overrides: &[Override],
    model: &Model,
    sys: &System,
) -> Result<Results, AnalysisError> {
    let sweep = Sweep::read(a, model)?;
    // The model must be a regime problem at its own parameter values.
    let base_setup = setup(sys).map_err(|e| AnalysisError::Unsupported {
        message: format!("sweep regimes of `{}`: {e}", model.name),
        at: a.span,
        help: "regime maps need one rigid Coulomb contact (`friction … { force = F }`) and one harmonic excitation".into(),
    })?;
    let grid = Grid {
        family: Family {
            prog,
            model: &model.name,
            overrides,
        },
        x_name: sweep.x_name.clone(),
        y_name: sweep.y_name.clone(),
    };
    let (nx, ny) = sweep.shape();
    let start = std::time::Instant::now();
    let bar = super::progress::bar(nx * ny, "sweep regimes", "cells", &model.name);

    // Analytic: per column, in parallel; cells stored row-major in y (cell k = j·nx + i).
    let columns: Vec<Column> = if sweep.analytic_on() {
        sweep
            .xs
            .par_iter()
            .map(|&x| column(&grid, x, &sweep.ys, sweep.factor))
            .collect()
    } else {
        vec![]
    };
    let analytic_t = start.elapsed().as_secs_f64();
    let numeric = numeric_cells(&grid, &sweep, &bar);
    bar.finish_and_clear();
    let wall_s = start.elapsed().as_secs_f64();

    let (data, tally) = tables::data(&sweep, &columns, &numeric);
    let mut tables = vec![data];
    if sweep.analytic_on() {
        tables.push(tables::boundaries(&sweep, &columns));
    }
    // Peaks and antiresonances of the no-motion boundary along x (at the first y).
    let (peaks, antiresonances) = if sweep.analytic_on() {
        peaks_and_antiresonances(&sweep.xs, |x| {
            grid.at(x, sweep.ys[0])
                .map_or(f64::NAN, |(sys, s)| holding_force(&sys, &s))
        })
    } else {
        (vec![], vec![])
    };
    let plot = map::plot(&model.name, &sweep, &columns, &numeric);

    let mut summary = Map::new();
    summary.insert("cells".into(), json!(nx * ny));
    summary.insert(
        "agreement".into(),
        if tally.compared > 0 {
            json!(tally.agreeing as f64 / tally.compared as f64)
        } else {
            json!(null)
        },
    );
    summary.insert("compared_cells".into(), json!(tally.compared));
    summary.insert("transient_cells".into(), json!(tally.transient));
    summary.insert("unsettled_cells".into(), json!(tally.unsettled));
    summary.insert("failed_cells".into(), json!(tally.failures.len()));
    summary.insert("peaks".into(), json!(peaks));
    summary.insert("antiresonances".into(), json!(antiresonances));
    summary.insert("wall".into(), json!(base_setup.wall.name()));
    Ok(Results {
        name: String::new(),
        kind: "sweep regimes".into(),
        model: model.name.clone(),
        tables,
        plots: vec![plot],
        summary,
        settings: settings(&sweep, &tally, analytic_t),
        params: model.params.clone(),
        warnings: warnings(sys, &sweep, &base_setup, &tally),
        wall_s,
    })
}

/// Numeric: every cell, in parallel (`None` everywhere for `method = analytic`); each cell is
/// independent, so the thread count does not change any result.
fn numeric_cells(
    grid: &Grid,
    sweep: &Sweep,
    bar: &indicatif::ProgressBar,
) -> Vec<Option<CellOutcome>> {
    let (nx, ny) = sweep.shape();
    if !sweep.numeric_on() {
        return vec![None; nx * ny];
    }
    (0..nx * ny)
        .into_par_iter()
        .map(|k| {
            let (i, j) = (k % nx, k / nx);
            let out = grid.at(sweep.xs[i], sweep.ys[j]).and_then(|(sys, s)| {
                classify(&sys, &s, sweep.cycles, sweep.engine).map_err(|e| e.to_string())
            });
            bar.inc(1);
            Some(out)
        })
        .collect()
}

/// The sweep's settings and counters for `meta.json`.
fn settings(sweep: &Sweep, tally: &Tally, analytic_t: f64) -> Map<String, Value> {
    let (nx, ny) = sweep.shape();
    let (xs, ys) = (&sweep.xs, &sweep.ys);
    let mut settings = Map::new();
    settings.insert(
        "x".into(),
        json!({"param": sweep.x_name, "from": xs[0], "to": xs[nx - 1], "points": nx}),
    );
    settings.insert(
        "y".into(),
        json!({"param": sweep.y_name, "from": ys[0], "to": ys[ny - 1], "points": ny}),
    );
    settings.insert("method".into(), json!(sweep.method));
    settings.insert("cycles".into(), json!(sweep.cycles));
    settings.insert(
        "S".into(),
        json!(if sweep.factor == StopFactor::Exact {
            "exact"
        } else {
            "unit"
        }),
    );
    settings.insert(
        "engine".into(),
        json!(if matches!(sweep.engine, Engine::Integrator(_)) {
            "integrator"
        } else {
            "auto"
        }),
    );
    settings.insert("rtol".into(), json!(sweep.tol.rtol));
    settings.insert("atol".into(), json!(sweep.tol.atol));
    settings.insert("closed_form_cells".into(), json!(tally.closed_form));
    settings.insert("analytic_wall_s".into(), json!(analytic_t));
    settings.insert("threads".into(), json!(rayon::current_num_threads()));
    settings
}

/// The model's warnings, the analytic boundaries' neglect of damping, and the failed cells.
fn warnings(sys: &System, sweep: &Sweep, base_setup: &Setup, tally: &Tally) -> Vec<String> {
    let mut warnings: Vec<String> = sys.warnings.iter().map(|w| w.message.clone()).collect();
    if base_setup.damped && sweep.analytic_on() {
        warnings.push("the analytic boundaries ignore the model's viscous damping (paper 001 treats undamped systems)".into());
    }
    if let Some(first) = tally.failures.first() {
        warnings.push(format!(
            "{} cells failed; the first: {first}",
            tally.failures.len()
        ));
    }
    warnings
}
