//! The options `basins` and `sweep bifurcation` share, both reading motions on a Poincaré
//! section (the section itself is `section.rs`): the integrator (`method`), the period
//! search's `keep` and `max_period`, and the state coordinates their starts, grids and fixed
//! values name.

use super::section;
use super::{dof_by_path, OptionReader};
use crate::diagnostics::AnalysisError;
use nsd_lang::ast::{NodeRef, Options as Options_, Value};
use nsd_lang::eval;
use nsd_model::{Model, System};
use nsd_solve::poincare::Engine;

/// `method = auto | dop853`: the integrator of the runs (`solve::poincare::Engine`).
pub(crate) fn engine(opts: &OptionReader) -> Result<Engine, AnalysisError> {
    Ok(match opts.choice("method", &["auto", "dop853"])? {
        Some("dop853") => Engine::Dop853,
        _ => Engine::Auto,
    })
}

/// Most section points kept per parameter value or cell (`keep`): the work of a diagram or a
/// map grows with it, and 1e5 points resolve any period a bifurcation diagram can show.
pub(crate) const MAX_KEEP: usize = 100_000;

/// `keep` and `max_period` of a period search (`solve::poincare::period_of`), which sees a
/// period only once it has repeated: `keep ≥ 2 max_period`. A `max_period` given alone
/// raises the default `keep` to `2 max_period`; a `keep` given alone lowers the default
/// `max_period` to `keep/2`; both given and in conflict is refused on `max_period`.
pub(crate) fn keep_and_max_period(
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

/// A state `[x…, v…]` from a block `{ m1 = 0.2, v.m1 = 0.1 }` (zero where not given):
/// a start here, the fixed coordinates of `basins`.
pub(crate) fn state_block(
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
pub(crate) fn state_index(
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
            &nsd_lang::diagnostics::suggest(&path, names, "the DOFs are"),
        ));
    };
    Ok(offset + dof)
}
