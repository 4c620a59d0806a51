//! The `continue frf` analysis: the frequency response by harmonic balance and
//! pseudo-arclength continuation over the excitation frequency, with Hill stability.
//!
//! Options: `param = Omega in a..b` (the model parameter that is the excitation frequency),
//! `harmonics` (5), `samples` (time samples per period, default the smallest power of two
//! ≥ 8H + 8), `excitation` (a factor on the harmonic loads, 1), `step`, `min_step`,
//! `max_step`, `max_points`, `dof` (the monitored DOF, `"name"`), `condense` (onto the
//! nonlinear elements' DOFs, `true`), `stability` (Hill's method per point, `true`), `gaps`
//! (`exact` contact intervals or `aft`, for piecewise-linear gaps). Writes `data.csv` and
//! `frf.svg`.

use super::diagnostics::{AnalysisError, Partial};
use super::options::OptionReader;
use super::results::{Cell, Plot, Results, Series, Table};
use crate::lang::ast::Analysis;
use crate::model::{Model, System};
use crate::solve::cont::{
    follow, linearised, locate, Branch, ContError, Point, Problem, Scale, Settings,
};
use crate::solve::hb::condense::Condensed;
use crate::solve::hb::{Balance, GapMethod, Unstable};

/// The relative tolerance on the real parts of the Floquet exponents (`hb::grows`).
const STABILITY_TOL: f64 = 1e-7;
use nalgebra::DVector;
use serde_json::{json, Map};

pub fn run(a: &Analysis, model: &Model, sys: &System) -> Result<Results, Partial> {
    let opts = OptionReader::new(
        a,
        model,
        &[
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
        ],
    )?;
    let stability = opts.choice("stability", &["true", "false"])? != Some("false");
    let monitored = opts.dof("dof", sys)?;
    let (param, lo, hi, span) = opts
        .parameter_interval("param", &model.params)?
        .ok_or_else(|| {
            opts.bad_value(
                "param",
                a.span,
                "missing",
                "give the frequency range, e.g. `param = Omega in 0.5..2`",
            )
        })?;
    let harmonics = opts.count("harmonics", 1)?.unwrap_or(5);
    let samples = opts
        .count("samples", 4)?
        .unwrap_or((8 * harmonics + 8).next_power_of_two());
    let number = |key: &str, default: f64| {
        opts.positive(key, crate::lang::units::Dim::NONE, default, "0.01")
    };
    let width = hi - lo;
    let settings = Settings {
        range: (lo, hi),
        step: number("step", width / 100.0)?,
        min_step: number("min_step", width * 1e-8)?,
        max_step: number("max_step", width / 20.0)?,
        max_points: opts.count("max_points", 2)?.unwrap_or(5000),
        tol: 1e-10,
        scale: Scale::UNIT,
    };
    let level = number("excitation", 1.0)?;
    let mut hb = Balance::new(sys, harmonics, samples).map_err(|e| AnalysisError::Unsupported {
        message: format!("continue frf of `{}`: {e}", model.name),
        at: a.span,
        help: "the harmonic balance handles linear parts, polynomial springs, piecewise-linear gaps (`law = linear(k)`, exact or smoothed), Jenkins elements and 2-D friction contacts; other laws follow".into(),
    })?;
    hb.level = level;
    if opts.choice("gaps", &["exact", "aft"])? == Some("aft") {
        hb.gaps = GapMethod::Aft;
    }
    let at_model = model
        .params
        .iter()
        .find(|(n, _)| *n == param)
        .map_or(f64::NAN, |p| p.1);
    if (hb.fundamental - at_model).abs() > 1e-9 * at_model.abs().max(1.0) {
        return Err(Partial::from(opts.bad_value(
            "param",
            span,
            &format!(
                "`{param}` = {at_model} is not the excitation frequency ({} rad/s)",
                hb.fundamental
            ),
            "continue the parameter that the excitation is written with, e.g. `F * cos(Omega * t)`",
        )));
    }
    let start = std::time::Instant::now();
    let failure = |e: &dyn std::fmt::Display| {
        AnalysisError::Numerical {
        message: format!("continue frf of `{}`: {e}", model.name),
        at: a.span,
        help: "lower `step` or `min_step`, or add harmonics/samples where the response is strongly nonlinear; the points before are written".into(),
    }
    };
    // Condensed onto the contact DOFs unless asked otherwise (or nothing to gain).
    let condensed = (opts.choice("condense", &["true", "false"])? != Some("false"))
        .then(|| Condensed::new(&hb))
        .flatten();
    // Starts: linearised at rest (open gaps, stuck contacts), the linear part alone (free
    // contacts), the harmonic ramp — each in the unknowns continued (condensed ones are
    // computed condensed: a full-size guess factorises the whole balance).
    let (curve, unknowns) = match &condensed {
        Some(c) => {
            let starts: [&dyn Fn(f64) -> DVector<f64>; 3] =
                [&|w| linearised(c, w), &|w| c.free_guess(w), &|w| {
                    c.restrict(&hb.ramped_guess(w))
                }];
            let curve = branch(c, &starts, &settings);
            let full = |x: &DVector<f64>, p: f64| c.expand(x, p);
            (curve.map(|b| expanded(b, &full)), c.dim())
        }
        None => {
            let starts: [&dyn Fn(f64) -> DVector<f64>; 3] =
                [&|w| linearised(&hb, w), &|w| hb.free_guess(w), &|w| {
                    hb.ramped_guess(w)
                }];
            (branch(&hb, &starts, &settings), hb.dim())
        }
    };
    let curve = curve.map_err(|e| failure(&e))?;
    let branch = curve.points;
    let wall_s = start.elapsed().as_secs_f64();

    // Per point: the reported DOFs' harmonic amplitudes (the requested one, else all), their
    // peak over the reconstructed period and the phase of the first harmonic; stability by
    // Hill's method. Peak, folds and plot follow the requested DOF (else the first).
    let n = sys.n();
    let names: Vec<String> = sys.dofs.iter().map(|d| d.name.clone()).collect();
    let reported: Vec<usize> = monitored.map_or_else(|| (0..n).collect(), |i| vec![i]);
    let watched = monitored.unwrap_or(0);
    let mut columns = vec![format!("{param} [rad/s]"), "converged".into()];
    for &i in &reported {
        let d = &names[i];
        columns.push(format!("max|{d}|"));
        columns.push(format!("phase({d}) [rad]"));
        columns.extend((0..=harmonics).map(|k| format!("A{k}({d})")));
    }
    columns.extend(["stable".into(), "fold".into(), "bifurcation".into()]);
    let mut bifurcations = Vec::new();
    let mut last_count: Option<Unstable> = None;
    let mut rows = Vec::with_capacity(branch.len());
    let mut stabilities = Vec::with_capacity(branch.len());
    let mut folds = Vec::new();
    let mut watched_curve: Vec<(f64, f64)> = Vec::with_capacity(branch.len());
    let coefficients = |x: &DVector<f64>, i: usize| -> Vec<f64> {
        (0..hb.aft.width()).map(|p| x[p * n + i]).collect()
    };
    let peak_of = |coef: &[f64]| hb.aft.peak(coef);
    let exponents = |x: &DVector<f64>, p: f64| {
        if stability {
            hb.floquet(x, p)
        } else {
            vec![]
        }
    };
    // A bifurcation between two neighbouring points, located on the branch (bisection on
    // the secant, `cont::locate`): the fold where the tangent's Ω component changes sign,
    // the others where the unstable exponents' counts change. Falls back on the point after.
    let rest = hb.residual(&DVector::zeros(hb.dim()), lo).norm();
    let located = |kind: &str, a: &Point, b: &Point| -> (f64, f64) {
        let scale = Scale {
            x: a.x.amax().max(b.x.amax()).max(f64::MIN_POSITIVE),
            p: hi - lo,
            r: rest.max(f64::MIN_POSITIVE),
        };
        let state = |x: &DVector<f64>, p: f64, tangent_p: f64| {
            if kind == "fold" {
                (tangent_p > 0.0, Unstable::default())
            } else {
                (false, Unstable::of(&exponents(x, p), p, STABILITY_TOL))
            }
        };
        locate(&hb, (&a.x, a.p), (&b.x, b.p), scale, settings.tol, state).map_or_else(
            || (b.p, peak_of(&coefficients(&b.x, watched))),
            |(x, p)| (p, peak_of(&coefficients(&x, watched))),
        )
    };
    let post = std::time::Instant::now();
    for (index, pt) in branch.iter().enumerate() {
        let mut row = vec![Cell::Num(pt.p), Cell::Num(1.0)];
        let count = Unstable::of(&exponents(&pt.x, pt.p), pt.p, STABILITY_TOL);
        let stable = count == Unstable::default();
        for &i in &reported {
            let coef = coefficients(&pt.x, i);
            row.push(Cell::Num(peak_of(&coef)));
            row.push(Cell::Num((-coef[2]).atan2(coef[1])));
            row.push(Cell::Num(coef[0].abs()));
            row.extend((1..=harmonics).map(|k| Cell::Num(coef[2 * k - 1].hypot(coef[2 * k]))));
        }
        let max = peak_of(&coefficients(&pt.x, watched));
        stabilities.push(stable);
        watched_curve.push((pt.p, max));
        row.push(Cell::Num(f64::from(u8::from(stable))));
        row.push(Cell::Num(f64::from(u8::from(pt.fold))));
        let kind = last_count.and_then(|before| before.change_to(count, pt.fold));
        if let (Some(kind), Some(before)) = (kind, index.checked_sub(1).map(|j| &branch[j])) {
            let (omega, amplitude) = located(kind, before, pt);
            let at = json!({"Omega": omega, "amplitude": amplitude});
            if kind == "fold" {
                folds.push(at.clone());
            }
            bifurcations.push(json!({"kind": kind, "Omega": omega, "amplitude": amplitude}));
        }
        row.push(Cell::Text(kind.unwrap_or("").into()));
        last_count = Some(count);
        rows.push(row);
    }
    // Stability (Hill's method per point, bifurcations located) and the columns.
    let stability_s = post.elapsed().as_secs_f64();
    let plot = Plot {
        file: "frf.svg".into(),
        title: format!("{}: max|{}| over the period", model.name, names[watched]),
        x_label: format!("{param} [rad/s]"),
        y_label: "amplitude".into(),
        // The branch as one line, solid where stable and dashed where unstable (each part
        // NaN elsewhere; the segments across a change of stability are drawn solid).
        series: [("stable", true), ("unstable", false)]
            .into_iter()
            .map(|(label, wanted)| {
                let y = watched_curve
                    .iter()
                    .enumerate()
                    .map(|(i, &(_, a))| {
                        let here = stabilities[i] == wanted;
                        let next_to =
                            |j: Option<usize>| j.and_then(|j| stabilities.get(j)) == Some(&true);
                        let joins = wanted && (next_to(i.checked_sub(1)) || next_to(Some(i + 1)));
                        if here || joins {
                            a
                        } else {
                            f64::NAN
                        }
                    })
                    .collect();
                Series {
                    label: label.into(),
                    x: watched_curve.iter().map(|c| c.0).collect(),
                    y,
                    points: false,
                    dashed: !wanted,
                }
            })
            .collect(),
        cells: None,
    };
    let mut summary = Map::new();
    summary.insert("points".into(), json!(branch.len()));
    summary.insert("folds".into(), json!(folds));
    summary.insert("bifurcations".into(), json!(bifurcations));
    let peak = refined_peak(&watched_curve);
    summary.insert("peak".into(), json!({"Omega": peak.0, "amplitude": peak.1}));
    summary.insert(
        "newton_iterations".into(),
        json!(branch.iter().map(|p| p.iterations).sum::<usize>()),
    );
    summary.insert("wall_s".into(), json!(wall_s));
    summary.insert("stability_s".into(), json!(stability_s));
    summary.insert("unknowns".into(), json!(unknowns));
    let mut s = Map::new();
    s.insert("param".into(), json!({"name": param, "from": lo, "to": hi}));
    s.insert("harmonics".into(), json!(harmonics));
    s.insert("samples".into(), json!(samples));
    s.insert("excitation".into(), json!(level));
    s.insert("dof".into(), json!(names[watched]));
    s.insert("condensed".into(), json!(condensed.is_some()));
    s.insert("stability".into(), json!(stability));
    s.insert(
        "step".into(),
        json!([settings.step, settings.min_step, settings.max_step]),
    );
    s.insert(
        "method".into(),
        json!("harmonic balance (AFT), pseudo-arclength continuation, Hill stability"),
    );
    let mut warnings: Vec<String> = sys.warnings.iter().map(|w| w.message.clone()).collect();
    if stability && stability_s > 1.0 && stability_s > 10.0 * wall_s {
        warnings.push(format!(
            "Hill's method on the full balance ({} unknowns) took {stability_s:.1} s, {:.0}× the branch ({wall_s:.2} s); `stability = false` skips it",
            hb.dim(),
            stability_s / wall_s.max(f64::MIN_POSITIVE)
        ));
    }
    if let Some(e) = &curve.stopped {
        summary.insert("failed".into(), json!(failure(e).to_string()));
        warnings.push(format!(
            "{}; the results cover the branch up to there",
            failure(e)
        ));
    }
    let results = Results {
        name: String::new(),
        kind: "continue frf".into(),
        model: model.name.clone(),
        tables: vec![Table {
            file: "data.csv".into(),
            columns,
            rows,
        }],
        plots: vec![plot],
        summary,
        settings: s,
        params: model.params.clone(),
        warnings,
        wall_s,
    };
    match curve.stopped {
        None => Ok(results),
        Some(e) => Err(Partial {
            error: failure(&e),
            results: Some(Box::new(results)),
        }),
    }
}

/// The branch from the first of the `starts` (responses at a frequency, in the problem's
/// unknowns) from which it starts. The unknowns are scaled by the largest response of the
/// first two (the cheap ones: linearised and linear part alone) over the range (41
/// frequencies), the residual by its size at rest.
fn branch<P: Problem>(
    pr: &P,
    starts: &[&dyn Fn(f64) -> DVector<f64>],
    settings: &Settings,
) -> Result<Branch, ContError> {
    let (lo, hi) = settings.range;
    let rest = pr.residual(&DVector::zeros(pr.dim()), lo).norm();
    let size = (0..=40)
        .flat_map(|k| {
            starts
                .iter()
                .take(2)
                .map(move |g| g(lo + (hi - lo) * k as f64 / 40.0).amax())
        })
        .fold(f64::MIN_POSITIVE, f64::max);
    let scale = Scale {
        x: size,
        p: hi - lo,
        r: rest.max(f64::MIN_POSITIVE),
    };
    let mut outcome = Err(ContError::Start(rest));
    for start in starts {
        outcome = follow(pr, start(lo), lo, &Settings { scale, ..*settings });
        if outcome.is_ok() {
            break;
        }
    }
    outcome
}

/// A condensed branch with every point's full coefficients.
fn expanded(mut b: Branch, full: &dyn Fn(&DVector<f64>, f64) -> DVector<f64>) -> Branch {
    for pt in &mut b.points {
        pt.x = full(&pt.x, pt.p);
    }
    b
}

/// The largest response: the vertex of the parabola through the largest point and its two
/// neighbours on the branch when it is a maximum there (the points are as sparse as the step
/// control allows on a smooth peak), else the largest point itself.
fn refined_peak(curve: &[(f64, f64)]) -> (f64, f64) {
    let Some(i) = (0..curve.len()).max_by(|&a, &b| curve[a].1.total_cmp(&curve[b].1)) else {
        return (f64::NAN, f64::NAN);
    };
    if i == 0 || i + 1 == curve.len() {
        return curve[i];
    }
    let [(x0, y0), (x1, y1), (x2, y2)] = [curve[i - 1], curve[i], curve[i + 1]];
    // Newton's divided differences: y = y1 + d1 (x − x1) + d2 (x − x1)(x − x0)…
    let (a, b) = ((y1 - y0) / (x1 - x0), (y2 - y1) / (x2 - x1));
    let curvature = (b - a) / (x2 - x0);
    let concave = curvature < 0.0 && x0 < x1 && x1 < x2;
    if !concave {
        return curve[i];
    }
    // Vertex of y = y1 + s (x − x1) + curvature (x − x1)², s the slope at x1.
    let slope = a + curvature * (x1 - x0);
    let x = x1 - slope / (2.0 * curvature);
    if x <= x0 || x >= x2 {
        return curve[i];
    }
    (x, y1 - slope * slope / (4.0 * curvature))
}
