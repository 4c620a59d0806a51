//! `compare = (MODEL, harmonic_balance)`: other branches drawn over the main one, as paper 000
//! compares them (Sect. 5.1, Figs. 12 and 15) — another model of the program traced with the
//! same options (the smoothed twin of an exact model, or the reverse), and the harmonic
//! balance of this model — with the radius of influence of every smoothed gap on the plotted
//! DOF (Sect. 3.3, eq. 10) as a band around its clearance: orbits whose excursion ends inside
//! it feel the smoothing.

use super::report::{self, Part};
use super::{Request, Traced};
use crate::branch_plot::stability_plot;
use crate::diagnostics::AnalysisError;
use crate::options::balance::default_samples;
use crate::results::{Cell, Results, Series, Table};
use nsd_lang::ast::{Analysis, Expr, ExprKind};
use nsd_lang::options::{bare_name, value};
use nsd_lang::Program;
use nsd_model::smoothing::radius_of_influence;
use nsd_model::system::{Attach, Nonlinearity};
use nsd_model::{Model, System};
use nsd_solve::hb::{frf, Balance};
use nsd_solve::poincare::forcing_period;
use serde_json::{json, Value};

/// The name that asks for the harmonic-balance branch.
const HARMONIC_BALANCE: &str = "harmonic_balance";

/// Largest mismatch between the continued parameter and the excitation frequency for the
/// harmonic balance to be continued in it (relative to max(|Ω|, 1)).
const FREQUENCY_MATCH_TOL: f64 = 1e-9;

/// One branch asked for.
pub(super) enum Compared {
    /// Another model of the program, traced with the same options.
    Model(String),
    /// The harmonic balance of the analysed model, with the start's harmonics.
    HarmonicBalance,
}

/// A branch drawn over the main one.
pub(super) struct Overlay {
    /// The model's name, or `harmonic_balance`: the `branch` column of `compare.csv`.
    key: String,
    label: String,
    curve: Vec<(f64, f64)>,
    /// Per point; `None` when stability is not computed (the harmonic balance).
    stable: Option<Vec<bool>>,
    account: Value,
}

/// What the comparison adds to the results.
#[derive(Default)]
pub(super) struct Overlays {
    lines: Vec<Overlay>,
    /// `(gap, model, clearance, radius of influence)` of the smoothed gaps on the plotted DOF.
    bands: Vec<(String, String, f64, f64)>,
    warnings: Vec<String>,
}

/// Reads `compare`: a name or a tuple of names, each a model of the program that declares
/// the continued parameter, or `harmonic_balance` (the parameter must be the excitation
/// frequency).
pub(super) fn read(
    a: &Analysis,
    model: &Model,
    prog: &Program,
    sys: &System,
    req: &Request,
) -> Result<Vec<Compared>, AnalysisError> {
    let Some(v) = value(a.options.as_ref(), "compare") else {
        return Ok(Vec::new());
    };
    let bad = |at, reason: String, help: &str| AnalysisError::BadOption {
        name: "compare".into(),
        reason,
        at,
        help: help.into(),
    };
    let help = "e.g. `compare = (two_mass_freeplay_sigmoid, harmonic_balance)`";
    let items: Vec<&Expr> = match v {
        nsd_lang::ast::Value::Expr(e) => match &e.kind {
            ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![e],
        },
        other => {
            return Err(bad(
                other.span(),
                "expected a model name or a tuple of them".into(),
                help,
            ))
        }
    };
    items
        .into_iter()
        .map(|e| {
            let name = bare_name(e)
                .ok_or_else(|| bad(e.span, "expected a model name".into(), help))?;
            if name.name == HARMONIC_BALANCE {
                let at_model = model
                    .params
                    .iter()
                    .find(|(n, _)| *n == req.param)
                    .map_or(f64::NAN, |p| p.1);
                let omega = forcing_period(sys).map_or(f64::NAN, |t| std::f64::consts::TAU / t);
                if (omega - at_model).abs() > FREQUENCY_MATCH_TOL * at_model.abs().max(1.0) {
                    return Err(bad(
                        e.span,
                        format!(
                            "the harmonic balance is continued in the excitation frequency, and `{}` is not it",
                            req.param
                        ),
                        "compare with `harmonic_balance` when `param` is the excitation frequency",
                    ));
                }
                return Ok(Compared::HarmonicBalance);
            }
            let declared = prog
                .template(&name.name)
                .map(|(_, _, t)| nsd_lang::declared_params(t));
            match declared {
                None => Err(bad(
                    e.span,
                    format!("no model `{}` in the program", name.name),
                    "name a model of this file or of its imports, or `harmonic_balance`",
                )),
                Some(p) if !p.contains(&req.param.as_str()) => Err(bad(
                    e.span,
                    format!("`{}` has no parameter `{}`", name.name, req.param),
                    "compare models that declare the continued parameter",
                )),
                Some(_) => Ok(Compared::Model(name.name.clone())),
            }
        })
        .collect()
}

/// Traces each compared branch; a branch that cannot be traced (or stops early) is a
/// warning, never the analysis's failure.
pub(super) fn overlays(traced: &Traced, compared: &[Compared], sys: &System) -> Overlays {
    let req = traced.req;
    let plotted = &sys.dofs[req.plotted].name;
    let mut out = Overlays::default();
    out.bands.extend(bands(sys, req.plotted));
    for c in compared {
        match c {
            Compared::HarmonicBalance => {
                let h = req.harmonics;
                let range = req.settings.range;
                match harmonic_balance_curve(sys, h, range, req.plotted) {
                    Ok(curve) => out.lines.push(Overlay {
                        key: HARMONIC_BALANCE.into(),
                        label: format!("harmonic balance, H = {h}"),
                        account: json!({"harmonic_balance": h, "points": curve.len()}),
                        curve,
                        stable: None,
                    }),
                    Err(e) => out
                        .warnings
                        .push(format!("compare: the harmonic balance: {e}")),
                }
            }
            Compared::Model(name) => match other_model(traced, name, plotted) {
                Ok((line, bands, warning)) => {
                    out.lines.push(line);
                    out.bands.extend(bands);
                    out.warnings.extend(warning);
                }
                Err(e) => out.warnings.push(format!("compare: `{name}`: {e}")),
            },
        }
    }
    out
}

/// Model `name`'s main branch traced as the analysed one's (its gaps as written: smoothed
/// gaps are smooth, the others switch at events), its DOF `plotted` drawn; its smoothed
/// gaps' bands; a warning when it stopped early.
#[allow(clippy::type_complexity)]
fn other_model(
    traced: &Traced,
    name: &str,
    plotted: &str,
) -> Result<(Overlay, Vec<(String, String, f64, f64)>, Option<String>), String> {
    let sys = traced.system_at(name, traced.req.settings.range.0)?;
    let dof = sys
        .dofs
        .iter()
        .position(|d| d.name == plotted)
        .ok_or_else(|| format!("it has no DOF `{plotted}`"))?;
    let req = Request {
        plotted: dof,
        ..traced.req.clone()
    };
    let traced = Traced {
        req: &req,
        ..*traced
    };
    let (parts, stopped) = traced
        .families(name, false, false)
        .map_err(|e| e.to_string())?;
    let main: &Part = parts.first().ok_or("no branch")?;
    let (curve, stable) = report::curve(main, dof);
    let mut account = report::account(main, &req);
    account.insert("model".into(), json!(name));
    let line = Overlay {
        key: name.into(),
        label: name.into(),
        curve,
        stable: Some(stable),
        account: Value::Object(account),
    };
    let warning = stopped.map(|e| format!("compare: `{name}` stopped early: {e}"));
    Ok((line, bands(&sys, dof), warning))
}

/// The smoothed gaps between DOF `dof` and the ground: `(gap, model, clearance, R_i)`.
fn bands(sys: &System, dof: usize) -> Vec<(String, String, f64, f64)> {
    sys.nonlinear
        .iter()
        .filter_map(|e| match (&e.law, e.a.as_slice(), e.b.as_slice()) {
            (Nonlinearity::Gap(g), [a], [b]) => {
                let on_dof = matches!(
                    (a, b),
                    (Attach::Dof(i), Attach::Ground) | (Attach::Ground, Attach::Dof(i)) if *i == dof
                );
                let smooth = g.smooth.filter(|_| on_dof)?;
                Some((
                    e.name.clone(),
                    sys.model.clone(),
                    g.clearance,
                    radius_of_influence(smooth),
                ))
            }
            _ => None,
        })
        .collect()
}

/// The compared branches in the plot, in `compare.csv` and in the summary (`compare`: each
/// branch's account; `radius_of_influence`: the bands).
pub(super) fn add(results: &mut Results, overlays: &Overlays, req: &Request) {
    if overlays.lines.is_empty() && overlays.bands.is_empty() {
        return;
    }
    let (lo, hi) = req.settings.range;
    // Drawn under the main branch.
    let mut under = Vec::new();
    let mut rows = Vec::new();
    for line in &overlays.lines {
        let stable = line
            .stable
            .clone()
            .unwrap_or_else(|| vec![true; line.curve.len()]);
        let drawn = stability_plot(
            "",
            String::new(),
            String::new(),
            String::new(),
            &line.curve,
            &stable,
        );
        for mut s in drawn.series {
            if s.y.iter().all(|y| y.is_nan()) {
                continue;
            }
            s.label = match line.stable {
                Some(_) => format!("{}, {}", line.label, s.label),
                None => line.label.clone(),
            };
            under.push(s);
        }
        for (i, &(p, amplitude)) in line.curve.iter().enumerate() {
            // NaN where the compared line judges no stability (harmonic balance without Hill).
            let stable = line
                .stable
                .as_ref()
                .map_or(Cell::Num(f64::NAN), |s| s[i].into());
            rows.push(vec![
                Cell::Text(line.key.clone()),
                p.into(),
                amplitude.into(),
                stable,
            ]);
        }
    }
    for (gap, model, clearance, r) in &overlays.bands {
        // Two lines, broken between by a NaN: one legend entry.
        under.push(Series {
            label: format!("{gap} of {model}: clearance ± R_i"),
            x: vec![lo, hi, f64::NAN, lo, hi],
            y: vec![
                clearance - r,
                clearance - r,
                f64::NAN,
                clearance + r,
                clearance + r,
            ],
            points: false,
            dashed: true,
        });
    }
    let plot = &mut results.plots[0];
    under.append(&mut plot.series);
    plot.series = under;
    let plotted = results.tables[0].columns[3 + req.plotted].clone();
    results.tables.push(Table {
        file: "compare.csv".into(),
        columns: vec!["branch".into(), req.param.clone(), plotted, "stable".into()],
        rows,
    });
    let accounts: Vec<Value> = overlays.lines.iter().map(|l| l.account.clone()).collect();
    results.summary.insert("compare".into(), json!(accounts));
    let radii: Vec<Value> = overlays
        .bands
        .iter()
        .map(|(gap, model, c, r)| json!({"gap": gap, "model": model, "clearance": c, "radius": r}))
        .collect();
    results
        .summary
        .insert("radius_of_influence".into(), json!(radii));
    results.warnings.extend(overlays.warnings.iter().cloned());
}

/// DOF `dof`'s excursion along the harmonic-balance branch of `sys` with `harmonics`
/// harmonics and their default samples, over the excitation frequency `range`.
fn harmonic_balance_curve(
    sys: &System,
    harmonics: usize,
    range: (f64, f64),
    dof: usize,
) -> Result<Vec<(f64, f64)>, String> {
    let hb = Balance::new(sys, harmonics, default_samples(harmonics)).map_err(|e| e.to_string())?;
    frf::excursion_curve(&hb, range, dof).map_err(|e| e.to_string())
}
