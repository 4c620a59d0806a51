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
use super::super::options::{dof_by_path, OptionReader};
use super::super::simulate::section;
use super::super::tolerances::integrator_tolerances;
use crate::lang::ast::{Analysis, NodeRef, Options as Options_, Value};
use crate::lang::eval;
use crate::lang::units::Dim;
use crate::model::{Model, System};
use crate::solve::ode::driver::Section;
use crate::solve::poincare::Engine;

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
    pub param: String,
    /// The parameter values of each pass, in order (one pass, or up and back).
    pub passes: Vec<(&'static str, Vec<f64>)>,
    /// Each start's name and state `[x…, v…]`.
    pub starts: Vec<(String, Vec<f64>)>,
    pub section: Section,
    pub transient: usize,
    /// End the transient early once its stroboscopic points repeat to this relative
    /// tolerance (`settle`), else run all of it.
    pub settle: Option<f64>,
    pub keep: usize,
    pub max_period: usize,
    pub tol: f64,
    /// The DOF drawn and measured for the amplitude.
    pub plot: usize,
    pub rtol: f64,
    pub atol: f64,
    pub smooth_only: bool,
    pub engine: Engine,
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

/// `method = auto | dop853`: the integrator of the runs (`solve::poincare::Engine`).
pub(in crate::analysis) fn engine(opts: &OptionReader) -> Result<Engine, AnalysisError> {
    Ok(match opts.choice("method", &["auto", "dop853"])? {
        Some("dop853") => Engine::Dop853,
        _ => Engine::Auto,
    })
}

impl Options {
    pub fn read(a: &Analysis, model: &Model, sys: &System) -> Result<Options, AnalysisError> {
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

/// Most section points kept per parameter value or cell (`keep`): the work of a diagram or a
/// map grows with it, and 1e5 points resolve any period a bifurcation diagram can show.
pub(in crate::analysis) const MAX_KEEP: usize = 100_000;

/// `keep` and `max_period` of a period search (`solve::poincare::period_of`), which sees a
/// period only once it has repeated: `keep ≥ 2 max_period`. A `max_period` given alone
/// raises the default `keep` to `2 max_period`; a `keep` given alone lowers the default
/// `max_period` to `keep/2`; both given and in conflict is refused on `max_period`.
pub(in crate::analysis) fn keep_and_max_period(
    opts: &OptionReader,
    default_keep: usize,
    default_max_period: usize,
) -> Result<(usize, usize), AnalysisError> {
    let help = format!("at most {MAX_KEEP} section points per value or cell");
    let keep = opts.count_at_most("keep", (2, MAX_KEEP), "too many section points", &help)?;
    let max_period = opts.count_at_most(
        "max_period",
        (1, MAX_KEEP / 2),
        "too long a period to look for",
        &format!("{help}, so periods up to {}", MAX_KEEP / 2),
    )?;
    match (keep, max_period) {
        (Some(keep), Some(p)) if p > keep / 2 => Err(opts.bad_value(
            "max_period",
            opts.span_of("max_period").unwrap_or(opts.statement_span()),
            &format!(
                "a period of {p} shows only once it repeats, in {} section points; `keep` is {keep}",
                2 * p
            ),
            &format!("raise `keep` to {} or lower `max_period` to {}", 2 * p, keep / 2),
        )),
        (Some(keep), Some(p)) => Ok((keep, p)),
        (Some(keep), None) => Ok((keep, default_max_period.min(keep / 2).max(1))),
        (None, Some(p)) => Ok((default_keep.max(2 * p), p)),
        (None, None) => Ok((default_keep, default_max_period)),
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
    let Some(v) = crate::lang::options::value(a.options.as_ref(), "starts") else {
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

/// A state `[x…, v…]` from a block `{ m1 = 0.2, v.m1 = 0.1 }` (zero where not given):
/// a start here, the fixed coordinates of `basins`.
pub(in crate::analysis) fn state_block(
    opts: &OptionReader,
    option: &str,
    block: &Options_,
    model: &Model,
    sys: &System,
    example: &str,
) -> Result<Vec<f64>, AnalysisError> {
    let scope = section::param_scope(model);
    let mut y = vec![0.0; 2 * sys.n()];
    for e in &block.entries {
        let k = state_index(opts, option, &e.key, model, sys)?;
        let Value::Expr(x) = &e.value else {
            return Err(opts.bad_value(option, e.value.span(), "expected a number", example));
        };
        y[k] = eval::eval(x, &scope).map_err(AnalysisError::Resolve)?.v;
    }
    Ok(y)
}

/// The index into the state `[x…, v…]` of an option key naming a DOF (`m1`, `m1.x`,
/// `c.x[3].x`) or its velocity (`v.m1`): shared by `starts` here and `grid`/`fixed` of `basins`.
pub(in crate::analysis) fn state_index(
    opts: &OptionReader,
    option: &str,
    key: &NodeRef,
    model: &Model,
    sys: &System,
) -> Result<usize, AnalysisError> {
    let (offset, segments) = match key.segments.split_first() {
        Some((first, rest))
            if first.name.name == "v" && first.index.is_none() && !rest.is_empty() =>
        {
            (sys.n(), rest)
        }
        _ => (0, &key.segments[..]),
    };
    let path = opts.path_of(segments)?;
    let Some(dof) = dof_by_path(sys, &path) else {
        let names = sys.dofs.iter().map(|d| d.name.as_str());
        return Err(opts.bad_value(
            option,
            key.span,
            &format!("`{path}` is not a DOF of `{}`", model.name),
            &crate::lang::diagnostics::suggest(&path, names, "the DOFs are"),
        ));
    };
    Ok(offset + dof)
}
