//! The options of `sweep bifurcation`: `param = p in a..b by h` (required; `b < a` runs
//! downward), `direction = up | down | both` (`both`: the range as written, then back),
//! `settle` (end the transient early once its stroboscopic points repeat to this relative
//! tolerance, checked every 20 periods; absent: the whole transient),
//! `starts = { NAME = { m1 = 0.2, v.m1 = 0, … }, … }` (the initial states, displacements by
//! DOF and velocities by `v.` DOF; default one start at rest), `section` (default
//! `stroboscopic`), `transient` (forcing periods discarded, 300), `keep` (section points
//! kept, 100), `max_period` (16), `tol` (the period's point tolerance relative to the largest
//! coordinate, 1e-4), `plot` (the DOF drawn, default the first), `rtol`, `atol`, `events`,
//! `method = auto | dop853` (`auto`: Taylor series where every mode of the model is
//! polynomial in the state, `solve::ode::taylor`; else, or with `dop853`, the event-driven
//! DOP853 loop).

use super::super::diagnostics::AnalysisError;
use super::super::options::OptionReader;
use super::super::tolerances::integrator_tolerances;
use crate::options::poincare::{engine, keep_and_max_period, state_block};
use crate::options::section;
use nsd_lang::ast::{Analysis, Value};
use nsd_lang::units::Dim;
use nsd_model::{Model, System};
use nsd_solve::ode::driver::Section;
use nsd_solve::poincare::Engine;

/// Default forcing periods discarded before the section points are kept (paper 000, Sect. 4).
const DEFAULT_TRANSIENT: usize = 300;
/// Default section points kept per parameter value (paper 000, Sect. 4: 100).
const DEFAULT_KEEP: usize = 100;
/// Default longest period looked for, in forcing periods.
const DEFAULT_MAX_PERIOD: usize = 16;
/// Default tolerance of the period detection, relative to the largest section coordinate: far
/// above the integrator's error after the transient, far below the diagram's resolution.
const DEFAULT_PERIOD_TOL: f64 = 1e-4;

/// The sweep as read from the statement.
pub(super) struct Options {
    /// The swept parameter.
    pub(crate) param: String,
    /// The parameter values of each pass, in order (one pass, or up and back).
    pub(crate) passes: Vec<(&'static str, Vec<f64>)>,
    /// Each start's name and state `[x…, v…]`.
    pub(crate) starts: Vec<(String, Vec<f64>)>,
    pub(crate) section: Section,
    pub(crate) transient: usize,
    /// End the transient early once its stroboscopic points repeat to this relative
    /// tolerance (`settle`), else run all of it.
    pub(crate) settle: Option<f64>,
    pub(crate) keep: usize,
    pub(crate) max_period: usize,
    pub(crate) tol: f64,
    /// The DOF drawn and measured for the amplitude.
    pub(crate) plot: usize,
    pub(crate) rtol: f64,
    pub(crate) atol: f64,
    pub(crate) smooth_only: bool,
    pub(crate) engine: Engine,
}

/// The options of `sweep bifurcation`.
pub(crate) const OPTIONS: [&str; 14] = [
    "param",
    "direction",
    "starts",
    "section",
    "transient",
    "settle",
    "keep",
    "max_period",
    "tol",
    "plot",
    "rtol",
    "atol",
    "events",
    "method",
];

impl Options {
    pub(crate) fn read(
        a: &Analysis,
        model: &Model,
        sys: &System,
    ) -> Result<Options, AnalysisError> {
        let opts = OptionReader::new(a, model, &OPTIONS)?;
        let missing = || {
            opts.bad_value(
                "param",
                a.span,
                "missing",
                "give the swept parameter, e.g. `param = Omega in 0.8..1.6 by 0.002`",
            )
        };
        let (param, grid, _) = opts.sweep("param", &model.params)?.ok_or_else(missing)?;
        let (_, from, to, _) = opts
            .parameter_interval("param", &model.params)?
            .ok_or_else(missing)?;
        let (up, down): (Vec<f64>, Vec<f64>) = (grid.clone(), grid.into_iter().rev().collect());
        // As written first: `b < a` runs down.
        let (first, second) = if to < from {
            (("down", down), ("up", up))
        } else {
            (("up", up), ("down", down))
        };
        let passes = match opts.choice("direction", &["up", "down", "both"])? {
            Some("both") => vec![first, second],
            Some(d) if d != first.0 => vec![second],
            _ => vec![first],
        };
        let forcing = section::forcing_period_for("a bifurcation diagram", a, model, sys)?;
        let section = section::read_or_stroboscopic(a, model, sys, forcing)?;
        let (rtol, atol) = integrator_tolerances(&opts)?;
        let (keep, max_period) = keep_and_max_period(&opts, DEFAULT_KEEP, DEFAULT_MAX_PERIOD)?;
        Ok(Options {
            param,
            passes,
            starts: starts(a, model, sys, &opts)?,
            section,
            transient: opts.count("transient", 0)?.unwrap_or(DEFAULT_TRANSIENT),
            settle: match opts.number("settle", Dim::NONE)? {
                Some(v) if v > 0.0 => Some(v),
                None => None,
                Some(_) => {
                    return Err(opts.bad_value(
                        "settle",
                        opts.span_of("settle").unwrap_or(a.span),
                        "must be positive",
                        "e.g. `settle = 1e-8`",
                    ))
                }
            },
            keep,
            max_period,
            tol: opts.positive("tol", Dim::NONE, DEFAULT_PERIOD_TOL, "1e-4")?,
            plot: opts.dof("plot", sys)?.unwrap_or(0),
            rtol,
            atol,
            smooth_only: opts.choice("events", &["exact", "smooth"])? == Some("smooth"),
            engine: engine(&opts)?,
        })
    }
}

/// `starts = { NAME = { dof = x, v.dof = v, … }, … }`; one start at rest when absent.
fn starts(
    a: &Analysis,
    model: &Model,
    sys: &System,
    opts: &OptionReader,
) -> Result<Vec<(String, Vec<f64>)>, AnalysisError> {
    let n = sys.n();
    let Some(v) = nsd_lang::options::value(a.options.as_ref(), "starts") else {
        return Ok(vec![("rest".into(), vec![0.0; 2 * n])]);
    };
    let example = "write `starts = { a = { m1 = 0.2 }, b = { m1 = -0.2, v.m1 = 0.1 } }`";
    let Value::Block(block) = v else {
        return Err(opts.bad_value("starts", v.span(), "expected a block of starts", example));
    };
    let mut out = Vec::new();
    for start in &block.entries {
        let Value::Block(inner) = &start.value else {
            return Err(opts.bad_value(
                "starts",
                start.value.span(),
                "expected a block `{ m1 = 0.2, … }`",
                example,
            ));
        };
        let y = state_block(opts, "starts", inner, model, sys, example)?;
        out.push((
            start
                .key
                .segments
                .iter()
                .map(|s| s.name.name.as_str())
                .collect::<Vec<_>>()
                .join("."),
            y,
        ));
    }
    if out.is_empty() {
        return Err(opts.bad_value("starts", v.span(), "no start given", example));
    }
    Ok(out)
}
