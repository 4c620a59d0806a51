//! The `nsmodes` analysis: nonsmooth modes of an impact oscillator (paper 004) — the
//! families of periodic orbits with `impacts` impacts per period over a range of periods,
//! each point checked for admissibility (NC2's sign, NC3 proved on every flight).
//!
//! Options: `impacts` (k ≥ 1), `period = T0..T1` (0 < T0 < T1), `points` (periods on the
//! grid, 400, at most `MAX_POINTS`), `show = at(T, …)` (orbits written over one period,
//! T > 0). Writes `data.csv` (one row per point), `frequency_energy.svg`, and with `show`
//! `orbits.csv` and `orbits.svg`.

use super::diagnostics::AnalysisError;
use super::options::OptionReader;
use super::results::{Cell, Plot, Results, Series, Table};
use nalgebra::DVector;
use nsd_lang::ast::Analysis;
use nsd_lang::options::Bound;
use nsd_model::flat::{ContactLaw, Sides};
use nsd_model::system::{Attach, Nonlinearity};
use nsd_model::{Model, System};
use nsd_solve::nsmodes::{bridges, one_impact_edge, phi_roots, Bridge, Orbit, Oscillator, Tracker};
use serde_json::{json, Map};
use std::f64::consts::TAU;

/// Impacts per period at most (`impacts`).
const MAX_IMPACTS: usize = 16;

/// Periods on the grid by default (`points`).
const DEFAULT_POINTS: usize = 400;

/// Most periods on the grid (`points`): 250 times the 400 of the default, finer than any
/// plot or table needs. Measured on the n = 5 serial chain (`models/seed4`), one impact:
/// 1e5 points take 1.8 s, 207 MB and a 33 MB `data.csv`; 1e6 took 17 s, 1.4 GB and 330 MB,
/// and the cost grows with the DOFs (3 ms a point on a 100-mass chain): `points = 1e9` asked
/// for hours of work and, at that rate, 1.4 TB of memory.
const MAX_POINTS: usize = 100_000;

/// Samples per period of a shown orbit.
const ORBIT_SAMPLES: usize = 400;

/// Harmonic lines `ωⱼ/q` drawn at most on the frequency–energy plot.
const MAX_HARMONIC_LINES: usize = 12;

/// The options of `nsmodes`.
pub(crate) const OPTIONS: [&str; 4] = ["impacts", "period", "points", "show"];

pub(crate) fn run(a: &Analysis, model: &Model, sys: &System) -> Result<Results, AnalysisError> {
    let opts = OptionReader::new(a, model, &OPTIONS)?;
    let impacts = opts.count("impacts", 1)?.unwrap_or(1);
    if impacts > MAX_IMPACTS {
        let at = opts.span_of("impacts").unwrap_or(a.span);
        return Err(opts.bad_value(
            "impacts",
            at,
            &format!("more than {MAX_IMPACTS} impacts per period"),
            "the search for k ≥ 3 draws random impact times; beyond 16 it finds little",
        ));
    }
    // A period is a duration: T ≤ 0 has no orbit (T = 0 gave a row with ω = inf, T < 0
    // rows of negative periods).
    let (lo, hi) = opts
        .positive_interval(
            "period",
            "periods",
            "a period is a duration > 0, e.g. `period = 2.4..2.9`",
        )?
        .ok_or_else(|| {
            opts.bad_value(
                "period",
                a.span,
                "missing",
                "give the range of periods, e.g. `period = 2.4..2.9`",
            )
        })?;
    let points = opts
        .count_at_most(
            "points",
            (2, MAX_POINTS),
            &format!("more than {MAX_POINTS} periods on the grid"),
            &format!("use `points` ≤ {MAX_POINTS}, or a narrower `period` range for finer detail"),
        )?
        .unwrap_or(DEFAULT_POINTS);
    let shown = shown_periods(&opts)?;
    let (osc, mut warnings) = oscillator(a, model, sys)?;
    let start = std::time::Instant::now();
    let grid: Vec<f64> = (0..points)
        .map(|i| lo + (hi - lo) * i as f64 / (points - 1) as f64)
        .collect();
    let family = family(&osc, impacts, &grid);
    let mut summary = Map::new();
    if impacts == 1 {
        let edges: Vec<f64> = family
            .windows(2)
            .filter(|w| w[0].admissible != w[1].admissible)
            .map(|w| one_impact_edge(&osc, w[0].orbit.period(), w[1].orbit.period()))
            .collect();
        summary.insert("admissibility_edges".into(), json!(edges));
        summary.insert("phi_roots".into(), json!(phi_roots(&osc, lo, hi)));
    }
    let bridged = if impacts == 2 {
        bridges(&osc, lo, hi)
    } else {
        vec![]
    };
    let wall_s = start.elapsed().as_secs_f64();
    if family.is_empty() {
        warnings.push(format!(
            "no potential solution with {impacts} impact(s) per period in {lo}..{hi}"
        ));
    }
    summary.insert("linear_frequencies".into(), json!(osc.omega));
    summary.insert("points".into(), json!(family.len()));
    summary.insert(
        "admissible".into(),
        json!(family.iter().filter(|p| p.admissible).count()),
    );
    let names: Vec<String> = sys.dofs.iter().map(|d| d.name.clone()).collect();
    let mut tables = vec![table(&family, impacts, &names)];
    if impacts == 2 {
        let (table, listed) = bridge_table(&bridged);
        summary.insert("bridges".into(), json!(listed));
        tables.push(table);
    }
    let mut plots = vec![frequency_energy(&family, &osc, (lo, hi), &model.name)];
    if !shown.is_empty() {
        let (orbits, plot) = orbits(&osc, impacts, &shown, &names, &model.name);
        tables.push(orbits);
        plots.push(plot);
    }
    let mut settings = Map::new();
    settings.insert("impacts".into(), json!(impacts));
    settings.insert("period".into(), json!([lo, hi]));
    settings.insert("points".into(), json!(points));
    settings.insert(
        "method".into(),
        json!("closed form (paper 004 Theorems 3.1–3.4); NC3 proved by bounding the gap on every flight"),
    );
    Ok(Results {
        name: String::new(),
        kind: opts.kind().into(),
        model: model.name.clone(),
        tables,
        plots,
        summary,
        settings,
        params: model.params.clone(),
        warnings,
        wall_s,
    })
}

/// The periods of `show = at(T, …)`, each > 0 (`Bound::Positive`, on its value).
fn shown_periods(opts: &OptionReader) -> Result<Vec<f64>, AnalysisError> {
    let Some((name, args, at)) = opts.call("show")? else {
        return Ok(vec![]);
    };
    if name != "at" || args.is_empty() {
        return Err(opts.bad_value(
            "show",
            at,
            "expected `at(T, …)`",
            "name the periods whose orbits to write, e.g. `show = at(2.5, 2.7)`",
        ));
    }
    args.into_iter()
        .map(|(t, at)| {
            opts.bounded(
                "show",
                Bound::Positive,
                t,
                "a shown period",
                at,
                "a period is a duration > 0, e.g. `show = at(2.5)`",
            )
        })
        .collect()
}

/// One point of a family.
struct Point<'a> {
    orbit: Orbit<'a>,
    /// The branch the point is on (two impacts: several per period).
    branch: usize,
    admissible: bool,
    reason: String,
    /// The orbit's energy (used by the table and the plot).
    energy: f64,
}

/// The family's points over the grid, their branches from `Tracker`.
fn family<'a>(osc: &'a Oscillator, impacts: usize, grid: &[f64]) -> Vec<Point<'a>> {
    let mut tracker = Tracker::new(osc, impacts);
    grid.iter()
        .flat_map(|&t| tracker.at(t))
        .map(|(branch, orbit)| {
            let verdict = orbit.admissibility();
            Point {
                branch,
                admissible: verdict.admissible(),
                reason: verdict.reason(),
                energy: orbit.energy(),
                orbit,
            }
        })
        .collect()
}

/// The model as `(M, K)` with its one impact gap, or why it is not an impact oscillator.
fn oscillator(
    a: &Analysis,
    model: &Model,
    sys: &System,
) -> Result<(Oscillator, Vec<String>), AnalysisError> {
    let unsupported = |message: String, help: &str| AnalysisError::Unsupported {
        message: format!("nsmodes of `{}`: {message}", model.name),
        at: a.span,
        help: help.into(),
    };
    let help = "nonsmooth modes need a linear conservative model with exactly one rigid stop `law = impact(e = 1)` on one side (paper 004)";
    let [element] = sys.nonlinear.as_slice() else {
        return Err(unsupported(
            format!("{} nonlinear elements", sys.nonlinear.len()),
            help,
        ));
    };
    let Nonlinearity::Gap(gap) = &element.law else {
        return Err(unsupported(
            format!("`{}` is not a gap", element.name),
            help,
        ));
    };
    let ContactLaw::Impact { e } = gap.law else {
        return Err(unsupported(
            format!("`{}` is not a rigid stop", element.name),
            help,
        ));
    };
    if e != 1.0 {
        return Err(unsupported(
            format!("`{}` has e = {e}: an impact that loses energy has no periodic orbits without forcing", element.name),
            help,
        ));
    }
    let n = sys.n();
    let mut w = DVector::zeros(n);
    for (side, sign) in [(&element.a[0], 1.0), (&element.b[0], -1.0)] {
        match side {
            Attach::Dof(i) => w[*i] += sign,
            Attach::Ground => {}
            Attach::Base(_) => {
                return Err(unsupported("the stop is on the moving base".into(), help));
            }
        }
    }
    // Contact when u = x_a − x_b ≥ g: g(u) = g − wᵀu; on the negative side, g + wᵀu.
    match gap.sides {
        Sides::Positive => {}
        Sides::Negative => w = -w,
        Sides::Both => {
            return Err(unsupported(
                format!("`{}` has two sides: two constraints", element.name),
                help,
            ))
        }
    }
    let dense = nsd_solve::modes::dense_of;
    let osc = Oscillator::new(dense(&sys.m), dense(&sys.k), w, gap.clearance)
        .map_err(|e| unsupported(e.to_string(), help))?;
    let mut warnings: Vec<String> = sys.warnings.iter().map(|w| w.message.clone()).collect();
    if sys.c.nnz() > 0 || !sys.forces.is_empty() || !sys.base.is_empty() {
        warnings.push(
            "damping, forces and base motion are left out: nonsmooth modes are the free conservative system's (paper 004 Sect. 2.1)".into(),
        );
    }
    Ok((osc, warnings))
}

/// `data.csv`: one row per point.
fn table(family: &[Point], impacts: usize, names: &[String]) -> Table {
    let mut columns: Vec<String> = ["T [s]", "omega [rad/s]", "energy [J]", "branch"]
        .map(String::from)
        .to_vec();
    columns.extend((1..=impacts).map(|j| format!("lambda{j}")));
    columns.extend((1..=impacts).map(|j| format!("sigma{j} [s]")));
    columns.extend([
        "admissible".into(),
        "reason".into(),
        "symmetry axes [s]".into(),
    ]);
    columns.extend(names.iter().map(|d| format!("{d}(0+)")));
    columns.extend(names.iter().map(|d| format!("v({d})(0+)")));
    let rows = family
        .iter()
        .map(|p| {
            let o = &p.orbit;
            let mut row: Vec<Cell> = vec![
                o.period().into(),
                (TAU / o.period()).into(),
                p.energy.into(),
                (p.branch + 1).into(),
            ];
            row.extend(o.lambda().into_iter().map(Cell::Num));
            row.extend(o.flights().into_iter().map(Cell::Num));
            row.push(p.admissible.into());
            row.push(Cell::Text(p.reason.clone()));
            let axes: Vec<String> = o.symmetry_axes().iter().map(|c| format!("{c}")).collect();
            row.push(Cell::Text(axes.join(" ")));
            let (u, v) = o.state_in_flight(0, 0.0);
            row.extend(u.iter().chain(v.iter()).map(|x| Cell::Num(*x)));
            row
        })
        .collect();
    Table {
        file: "data.csv".into(),
        columns,
        rows,
    }
}

/// Frequency against the energy's logarithm (it spans decades: λ → ∞ at the roots of
/// `φ_T(T)`), admissible stretches solid and the others dashed, per branch;
/// the harmonic lines `ωⱼ/q` inside the range as dotted horizontals.
fn frequency_energy(family: &[Point], osc: &Oscillator, (lo, hi): (f64, f64), model: &str) -> Plot {
    let mut series: Vec<Series> = Vec::new();
    let branches = family.iter().map(|p| p.branch).max().map_or(0, |b| b + 1);
    for b in 0..branches {
        let mut current: Option<Series> = None;
        for p in family.iter().filter(|p| p.branch == b) {
            let label = if p.admissible {
                "admissible"
            } else {
                "not admissible"
            };
            let (x, y) = (p.energy.log10(), TAU / p.orbit.period());
            match &mut current {
                Some(s) if s.dashed != p.admissible => {
                    s.x.push(x);
                    s.y.push(y);
                }
                _ => {
                    if let Some(done) = current.take() {
                        series.push(done);
                    }
                    current = Some(Series {
                        label: format!("branch {} {label}", b + 1),
                        x: vec![x],
                        y: vec![y],
                        points: false,
                        dashed: !p.admissible,
                    });
                }
            }
        }
        series.extend(current);
    }
    let energies = family
        .iter()
        .map(|p| p.energy.log10())
        .filter(|e| e.is_finite());
    let (e0, e1) = energies.fold((f64::MAX, f64::MIN), |(a, b), e| (a.min(e), b.max(e)));
    let (w_lo, w_hi) = (TAU / hi, TAU / lo);
    let lines = osc
        .omega
        .iter()
        .enumerate()
        .flat_map(|(j, w)| {
            (1..)
                .map(move |q| (j, q, w / q as f64))
                .take_while(move |l| l.2 >= w_lo)
        })
        .filter(|l| l.2 <= w_hi)
        .take(MAX_HARMONIC_LINES);
    if e0 <= e1 {
        series.extend(lines.map(|(j, q, w)| Series {
            label: format!("ω{}/{q}", j + 1),
            x: vec![e0, e1],
            y: vec![w, w],
            points: false,
            dashed: true,
        }));
    }
    Plot {
        file: "frequency_energy.svg".into(),
        title: format!("{model}: nonsmooth modes"),
        x_label: "log₁₀ energy [J]".into(),
        y_label: "ω = 2π/T [rad/s]".into(),
        series,
        cells: None,
    }
}

/// `orbits.csv` (every DOF over one period of each shown orbit) and the contact DOFs'
/// displacement over the period.
fn orbits(
    osc: &Oscillator,
    impacts: usize,
    shown: &[f64],
    names: &[String],
    model: &str,
) -> (Table, Plot) {
    let mut columns = vec!["T [s]".to_string(), "branch".into(), "t [s]".into()];
    columns.extend(names.iter().cloned());
    let contact = osc.w.iamax();
    let (mut rows, mut series) = (Vec::new(), Vec::new());
    for &t in shown {
        for (b, orbit) in Tracker::new(osc, impacts).at(t) {
            let mut s = Series {
                label: format!("T = {t} ({})", names[contact]),
                x: vec![],
                y: vec![],
                points: false,
                dashed: !orbit.admissibility().admissible(),
            };
            for i in 0..=ORBIT_SAMPLES {
                let time = t * i as f64 / ORBIT_SAMPLES as f64;
                let (u, _) = orbit.state(time.min(t * (1.0 - f64::EPSILON)));
                let mut row = vec![Cell::Num(t), (b + 1).into(), Cell::Num(time)];
                row.extend(u.iter().map(|x| Cell::Num(*x)));
                rows.push(row);
                s.x.push(time);
                s.y.push(u[contact]);
            }
            series.push(s);
        }
    }
    let table = Table {
        file: "orbits.csv".into(),
        columns,
        rows,
    };
    let plot = Plot {
        file: "orbits.svg".into(),
        title: format!("{model}: orbits over one period"),
        x_label: "t [s]".into(),
        y_label: format!("{} [m]", names[contact]),
        series,
        cells: None,
    };
    (table, plot)
}

/// `bridges.csv` (every listed member of each bridge: its period, λ₁, λ₂, admissibility) and
/// the summary's list (`T`, `lambda_sum`, the admissible members' `λ₁` range or null).
fn bridge_table(bridges: &[Bridge]) -> (Table, Vec<serde_json::Value>) {
    let mut rows = Vec::new();
    let mut listed = Vec::new();
    for b in bridges {
        let mut admissible: Vec<f64> = Vec::new();
        for o in &b.members {
            let verdict = o.admissibility();
            let lambda = o.lambda();
            if verdict.admissible() {
                admissible.push(lambda[0]);
            }
            rows.push(vec![
                Cell::Num(b.period),
                Cell::Num(lambda[0]),
                Cell::Num(lambda[1]),
                verdict.admissible().into(),
                Cell::Text(verdict.reason()),
            ]);
        }
        let range = (!admissible.is_empty()).then(|| {
            let lo = admissible.iter().copied().fold(f64::MAX, f64::min);
            let hi = admissible.iter().copied().fold(f64::MIN, f64::max);
            [lo, hi]
        });
        listed
            .push(json!({"T": b.period, "lambda_sum": b.lambda_sum, "admissible_lambda1": range}));
    }
    let table = Table {
        file: "bridges.csv".into(),
        columns: ["T [s]", "lambda1", "lambda2", "admissible", "reason"]
            .map(String::from)
            .to_vec(),
        rows,
    };
    (table, listed)
}
