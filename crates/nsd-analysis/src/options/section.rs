//! The `section` option of `simulate` and `sweep bifurcation`: a Poincaré section, read from
//! `section = stroboscopic`, `stroboscopic(phase)` or `crossing("coordinate", level,
//! rising | falling)`, and the section points as `section.csv`.
//!
//! The coordinate of a crossing names a DOF (`"m1"`, `"m1.x"`) or its velocity (`"v(m1)"`);
//! the stroboscopic phase φ (rad) places the samples at `t = t0 + (φ/2π + k) T`, `T = 2π/Ω`
//! of the model's forcing.

use super::dof_by_path;
use crate::diagnostics::AnalysisError;
use crate::results::{Cell, Table};
use nsd_lang::ast::{Analysis, Expr, ExprKind};
use nsd_lang::eval::{self, Num, Scope};
use nsd_lang::options::{bare_name, value};
use nsd_model::{Model, System};
use nsd_solve::ode::driver::{Section, SectionPoint};
use nsd_solve::ode::roots::Direction;
use nsd_solve::poincare::{forcing_period, NoPeriod};
use std::f64::consts::TAU;

const EXAMPLE: &str =
    "write `section = stroboscopic`, `stroboscopic(phase)` or `crossing(\"v(m1)\", 0, falling)`";

/// The `section` option of `a` for a run starting at `t0`, `None` when absent.
pub(crate) fn read(
    a: &Analysis,
    model: &Model,
    sys: &System,
    t0: f64,
) -> Result<Option<Section>, AnalysisError> {
    let Some(v) = value(a.options.as_ref(), "section") else {
        return Ok(None);
    };
    let bad = |at, reason: &str, help: &str| AnalysisError::BadOption {
        name: "section".into(),
        reason: reason.into(),
        at,
        help: help.into(),
    };
    let nsd_lang::ast::Value::Expr(e) = v else {
        return Err(bad(v.span(), "expected a section", EXAMPLE));
    };
    let scope = param_scope(model);
    let number = |e: &Expr| {
        eval::eval(e, &scope)
            .map(|n| n.v)
            .map_err(AnalysisError::Resolve)
    };
    let (name, args): (&str, Vec<&Expr>) = match &e.kind {
        ExprKind::Call { name, args } => (&name.name, args.iter().map(|a| &a.value).collect()),
        _ => match bare_name(e) {
            Some(n) => (&n.name, vec![]),
            None => return Err(bad(e.span, "expected a section", EXAMPLE)),
        },
    };
    match (name, args.as_slice()) {
        ("stroboscopic", [] | [_]) => {
            let period = match stroboscopic(sys) {
                Ok(Section::Stroboscopic { period, .. }) => period,
                Ok(_) => unreachable!("stroboscopic() builds a stroboscopic section"),
                Err(why) => {
                    return Err(bad(
                        e.span,
                        &format!("`{}` {why}; there is no period to strobe", model.name),
                        &format!("{}; or sample with `crossing(…)`", why.help()),
                    ))
                }
            };
            let phase = match args.first() {
                Some(p) => finite(p, number(p)?, "phase")?,
                None => 0.0,
            };
            // The same samples from t0 on for φ and φ mod 2π; the reduced phase keeps the
            // first sample within a period of the start.
            Ok(Some(Section::Stroboscopic {
                origin: t0 + phase.rem_euclid(TAU) / TAU * period,
                period,
            }))
        }
        ("crossing", [coordinate, level, direction]) => {
            let w = vec![coordinate_of(coordinate, sys).ok_or_else(|| {
                let names = sys.dofs.iter().map(|d| d.name.as_str());
                bad(
                    coordinate.span,
                    "expected a DOF or its velocity in quotes",
                    &nsd_lang::diagnostics::suggest(
                        &nsd_lang::options::snippet(coordinate),
                        names,
                        "write `\"m1\"` or `\"v(m1)\"`; the DOFs are",
                    ),
                )
            })?];
            let direction = match bare_name(direction).map(|n| n.name.as_str()) {
                Some("rising") => Direction::Rising,
                Some("falling") => Direction::Falling,
                _ => {
                    return Err(bad(
                        direction.span,
                        "expected `rising` or `falling`",
                        "the direction in which the coordinate crosses the level",
                    ))
                }
            };
            Ok(Some(Section::Crossing {
                w,
                level: finite(level, number(level)?, "level")?,
                direction,
            }))
        }
        _ => Err(bad(e.span, "expected a section", EXAMPLE)),
    }
}

/// `v`, the value of a section argument, when finite: a section at an infinite or NaN phase
/// or level would never be met.
fn finite(e: &Expr, v: f64, what: &str) -> Result<f64, AnalysisError> {
    if v.is_finite() {
        return Ok(v);
    }
    Err(AnalysisError::BadOption {
        name: "section".into(),
        reason: format!("the {what} is {v}: a section there is never met"),
        at: e.span,
        help: "give a finite number".into(),
    })
}

/// The stroboscopic section at phase 0 from `t = 0`, or why the forcing has no period.
pub(crate) fn stroboscopic(sys: &System) -> Result<Section, NoPeriod> {
    forcing_period(sys).map(|period| Section::Stroboscopic {
        origin: 0.0,
        period,
    })
}

/// The forcing period of the model a `basins` map or `sweep bifurcation` diagram (`kind`)
/// studies: both sort motions by their period in forcing periods, whatever the section.
pub(crate) fn forcing_period_for(
    kind: &str,
    a: &Analysis,
    model: &Model,
    sys: &System,
) -> Result<f64, AnalysisError> {
    forcing_period(sys).map_err(|why| AnalysisError::Unsupported {
        message: format!(
            "{kind} sorts motions by their period in forcing periods, and `{}` {why}",
            model.name
        ),
        at: a.span,
        help: why.help().into(),
    })
}

/// The `section` option of `basins` or `sweep bifurcation` (read from `t = 0`), else the
/// stroboscopic section at phase 0 of the forcing period `period`.
pub(crate) fn read_or_stroboscopic(
    a: &Analysis,
    model: &Model,
    sys: &System,
    period: f64,
) -> Result<Section, AnalysisError> {
    Ok(read(a, model, sys, 0.0)?.unwrap_or(Section::Stroboscopic {
        origin: 0.0,
        period,
    }))
}

/// `section` for `meta.json`, read from `t0 = 0` as `basins` and `sweep bifurcation` read
/// it, in the option's terms: `{"kind": "stroboscopic", "phase"}` (φ in rad, which a sweep
/// keeps at every value's forcing period) or `{"kind": "crossing", "coordinate": "v(m1)",
/// "level", "direction"}` (the coordinate named, not a state index).
pub(crate) fn describe(section: &Section, sys: &System) -> serde_json::Value {
    match section {
        Section::Stroboscopic { origin, period } => serde_json::json!({
            "kind": "stroboscopic",
            "phase": origin / period * TAU,
        }),
        Section::Crossing {
            w,
            level,
            direction,
        } => {
            // A state index names a DOF below n and its velocity from n on.
            let name = |i: usize| match (sys.dofs.get(i), i.checked_sub(sys.n())) {
                (Some(d), _) => d.name.clone(),
                (None, Some(j)) => sys
                    .dofs
                    .get(j)
                    .map_or_else(|| format!("state {i}"), |d| format!("v({})", d.name)),
                (None, None) => format!("state {i}"),
            };
            // `read` builds one term of weight 1: the coordinate as the user named it.
            let coordinate: Vec<String> = w.iter().map(|(i, _)| name(*i)).collect();
            serde_json::json!({
                "kind": "crossing",
                "coordinate": coordinate.join(" + "),
                "level": level,
                "direction": match direction {
                    Direction::Rising => "rising",
                    Direction::Falling => "falling",
                },
            })
        }
    }
}

/// The model's parameters as the scope in which option values are evaluated.
pub(crate) fn param_scope(model: &Model) -> Scope {
    let mut scope = Scope::default();
    for (n, v) in &model.params {
        scope.params.insert(n.clone(), Num::free(*v));
    }
    scope
}

/// `"m1"`, `"m1.x"` (the DOF, weight 1 on its displacement) or `"v(m1)"` (its velocity).
fn coordinate_of(e: &Expr, sys: &System) -> Option<(usize, f64)> {
    let ExprKind::Str(path) = &e.kind else {
        return None;
    };
    match path.strip_prefix("v(").and_then(|p| p.strip_suffix(')')) {
        Some(inner) => dof_by_path(sys, inner.trim()).map(|i| (sys.n() + i, 1.0)),
        None => dof_by_path(sys, path.trim()).map(|i| (i, 1.0)),
    }
}

/// `section.csv`: the time and the full state of every section point.
pub(crate) fn table(points: &[SectionPoint], names: &[String]) -> Table {
    let mut columns = vec!["t [s]".to_string()];
    columns.extend(names.iter().cloned());
    columns.extend(names.iter().map(|d| format!("v({d})")));
    Table {
        file: "section.csv".into(),
        columns,
        rows: points
            .iter()
            .map(|p| {
                std::iter::once(Cell::Num(p.t))
                    .chain(p.y.iter().map(|v| Cell::Num(*v)))
                    .collect()
            })
            .collect(),
    }
}
