//! The `sweep bifurcation` analysis: a bifurcation diagram over one parameter from Poincaré
//! sections (paper 000, Sect. 4, Fig. 7). For each start, the parameter values are passed in
//! order and each value starts from the state the previous one ended in; per value, the
//! transient is discarded, `keep` section points are kept and their period detected
//! (`solve::poincare`), and the largest amplitude of the plotted DOF is measured.
//!
//! Options in `options.rs`. Writes `data.csv` (one row per kept section point: pass,
//! parameter, start, time, the state, the detected period, the amplitude), `values.csv` (one
//! row per pass, start and value), `bifurcation.svg/png` (the plotted DOF at the section
//! points, one colour per start). The summary lists, per start and pass, the values where the
//! detected period changes.
//!
//! The starts run in parallel (rayon), each chain in order, and are collected in order: the
//! results do not depend on the thread count.

pub(crate) mod chain;
pub(crate) mod options;
mod report;

use super::diagnostics::AnalysisError;
use super::results::Results;
use crate::family::Family;
use chain::{chain, Outcome};
use nsd_lang::ast::Analysis;
use nsd_lang::{Override, Program};
use nsd_model::{Model, System};
use options::Options;
use rayon::prelude::*;

/// One start's outcomes per pass.
type Passes = Vec<Vec<Outcome>>;

pub(crate) fn run(
    prog: &Program,
    a: &Analysis,
    overrides: &[Override],
    model: &Model,
    sys: &System,
) -> Result<Results, AnalysisError> {
    let opts = Options::read(a, model, sys)?;
    // Refused once here rather than at every value.
    if let Err(e) = nsd_solve::ode::Hybrid::new(sys, opts.smooth_only) {
        return Err(AnalysisError::Unsupported {
            message: format!("sweep bifurcation of `{}`: {e}", model.name),
            at: a.span,
            help: "the diagram integrates the model as `simulate` does; see `simulate` for the elements it supports".into(),
        });
    }
    let start = std::time::Instant::now();
    // The model at every value of every pass, resolved once and shared by the starts.
    let family = Family {
        prog,
        model: &model.name,
        overrides,
    };
    let systems: Vec<Vec<Result<System, String>>> = opts
        .passes
        .iter()
        .map(|(_, values)| {
            values
                .par_iter()
                .map(|v| family.at(&[(&opts.param, *v)]))
                .collect()
        })
        .collect();
    let total = opts.starts.len() * opts.passes.iter().map(|p| p.1.len()).sum::<usize>();
    let bar = super::progress::bar(total, "sweep bifurcation", "values", &model.name);
    let outcomes: Vec<Passes> = opts
        .starts
        .par_iter()
        .map(|(_, y0)| {
            let mut y = y0.clone();
            let mut passes = Vec::new();
            for ((_, values), systems) in opts.passes.iter().zip(&systems) {
                let (pass, end) = chain(&opts, systems, values, &y, || bar.inc(1));
                passes.push(pass);
                y = end;
            }
            passes
        })
        .collect();
    bar.finish_and_clear();
    Ok(report::results(
        &opts,
        &outcomes,
        model,
        sys,
        start.elapsed().as_secs_f64(),
    ))
}
