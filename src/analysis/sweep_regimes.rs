//! The `sweep regimes` analysis: continuous / stick–slip / no-motion maps of a model with one
//! rigid Coulomb contact over two of its parameters (paper 001), analytic, numerical or both.
//!
//! Options: `x = p in a..b by h`, `y = q in a..b by h` (required), `method = analytic |
//! numeric | both`, `cycles` (100), `S = unit | exact` (Den Hartog's S in the continuous
//! limit), `engine = auto | integrator` (closed-form segments where they apply, or always the
//! event-driven integrator), `rtol`, `atol` (integrator only). Writes `data.csv`,
//! `boundaries.csv` and `regimes.svg`.

use super::diagnostics::AnalysisError;
use super::options::OptionReader;
use super::results::{Cell, CellMap, Plot, Results, Series, Table};
use crate::lang::ast::Analysis;
use crate::lang::{resolve, Override, Program};
use crate::model::{assemble, Model, System};
use crate::solve::ode::dop853::Tolerances;
use crate::solve::regimes::classify::{classify, Classification, Engine, Regime};
use crate::solve::regimes::contact::{setup, Setup};
use crate::solve::regimes::no_motion::{holding_force, peaks_and_antiresonances};
use crate::solve::regimes::stick_slip::{continuous_limit, StopFactor};
use rayon::prelude::*;
use serde_json::{json, Map};

const REGIMES: [Regime; 4] = [
    Regime::Continuous,
    Regime::StickSlip,
    Regime::NoMotion,
    Regime::Unsettled,
];

/// The analytic boundaries at one point, as slip forces.
#[derive(Debug, Clone, Copy)]
struct Limits {
    continuous: f64,
    no_motion: f64,
    slip_force: f64,
}

impl Limits {
    fn regime(&self) -> Option<Regime> {
        if self.no_motion.is_nan() {
            None
        } else if self.slip_force >= self.no_motion {
            Some(Regime::NoMotion)
        } else if self.continuous.is_nan() {
            None
        } else if self.slip_force < self.continuous {
            Some(Regime::Continuous)
        } else {
            Some(Regime::StickSlip)
        }
    }
}

/// Resolves and assembles the model at one grid point.
struct Grid<'a> {
    prog: &'a Program,
    model: &'a str,
    overrides: &'a [Override],
    x_name: String,
    y_name: String,
}

impl Grid<'_> {
    fn at(&self, x: f64, y: f64) -> Result<(System, Setup), String> {
        let mut ov = self.overrides.to_vec();
        ov.retain(|o| o.name != self.x_name && o.name != self.y_name);
        ov.push(Override {
            name: self.x_name.clone(),
            value: x,
        });
        ov.push(Override {
            name: self.y_name.clone(),
            value: y,
        });
        let model = resolve(self.prog, self.model, &ov).map_err(|f| f.render_plain())?;
        let sys = assemble(&model);
        let s = setup(&sys).map_err(|e| e.to_string())?;
        Ok((sys, s))
    }
}

fn limits(sys: &System, s: &Setup, factor: StopFactor) -> Limits {
    Limits {
        continuous: continuous_limit(sys, s, factor),
        no_motion: holding_force(sys, s).abs(),
        slip_force: s.slip_force,
    }
}

/// The analytic map of one column (fixed x): when y changes only the slip force, and
/// linearly, the boundaries are computed once and inverted for y; otherwise every cell is
/// evaluated. Returns the cells' limits and the boundary values of y (continuous / stick–slip,
/// motion / no-motion; NaN where there is none).
fn column(grid: &Grid, x: f64, ys: &[f64], factor: StopFactor) -> (Vec<Option<Limits>>, [f64; 2]) {
    let (y0, y1, ym) = (ys[0], ys[ys.len() - 1], ys[ys.len() / 2]);
    if let (Ok((sys0, a)), Ok((sys1, b)), Ok((sysm, c))) =
        (grid.at(x, y0), grid.at(x, y1), grid.at(x, ym))
    {
        // y acts on the slip force alone: the same structure and load at both ends and mid.
        let same = |sys: &System, p: &Setup| {
            sys.m == sys0.m
                && sys.k == sys0.k
                && sys.c == sys0.c
                && p.load == a.load
                && p.omega == a.omega
                && p.wall_amplitude == a.wall_amplitude
                && p.c == a.c
        };
        let slope = (b.slip_force - a.slip_force) / (y1 - y0);
        let linear = (a.slip_force + slope * (ym - y0) - c.slip_force).abs()
            <= 1e-12 * c.slip_force.abs().max(1e-300);
        if slope.is_finite() && slope != 0.0 && linear && same(&sys1, &b) && same(&sysm, &c) {
            let l = limits(&sys0, &a, factor);
            let cells = ys
                .iter()
                .map(|y| {
                    Some(Limits {
                        slip_force: a.slip_force + slope * (y - y0),
                        ..l
                    })
                })
                .collect();
            let y_of = |f: f64| {
                if f.is_finite() {
                    y0 + (f - a.slip_force) / slope
                } else {
                    f64::NAN
                }
            };
            return (cells, [y_of(l.continuous), y_of(l.no_motion)]);
        }
    }
    let cells: Vec<Option<Limits>> = ys
        .iter()
        .map(|&y| grid.at(x, y).ok().map(|(sys, s)| limits(&sys, &s, factor)))
        .collect();
    // Boundaries where the margin changes sign between grid points (linear interpolation).
    let crossing = |margin: &dyn Fn(&Limits) -> f64| {
        ys.windows(2)
            .zip(cells.windows(2))
            .find_map(|(y, c)| {
                let (a, b) = (margin(c[0].as_ref()?), margin(c[1].as_ref()?));
                (a.is_finite() && b.is_finite() && a.signum() != b.signum())
                    .then(|| y[0] + (y[1] - y[0]) * a / (a - b))
            })
            .unwrap_or(f64::NAN)
    };
    let b = [
        crossing(&|l: &Limits| l.slip_force - l.continuous),
        crossing(&|l: &Limits| l.slip_force - l.no_motion),
    ];
    (cells, b)
}

pub fn run(
    prog: &Program,
    a: &Analysis,
    overrides: &[Override],
    model: &Model,
    sys: &System,
) -> Result<Results, AnalysisError> {
    let opts = OptionReader::new(
        a,
        model,
        &["x", "y", "method", "cycles", "S", "engine", "rtol", "atol"],
    )?;
    let missing = |key: &str| {
        opts.bad_value(
            key,
            a.span,
            "missing",
            &format!(
                "give the swept parameter, e.g. `{key} = {} in 0..1 by 0.01`",
                if key == "x" { "r1" } else { "beta" }
            ),
        )
    };
    let (x_name, xs, _) = opts
        .sweep("x", &model.params)?
        .ok_or_else(|| missing("x"))?;
    let (y_name, ys, y_span) = opts
        .sweep("y", &model.params)?
        .ok_or_else(|| missing("y"))?;
    if x_name == y_name {
        return Err(opts.bad_value(
            "y",
            y_span,
            "sweeps the same parameter as `x`",
            "sweep two different parameters",
        ));
    }
    let method = opts
        .choice("method", &["both", "analytic", "numeric"])?
        .unwrap_or("both");
    let cycles = opts.count("cycles", 2)?.unwrap_or(100);
    let factor = match opts.choice("S", &["unit", "exact"])? {
        Some("exact") => StopFactor::Exact,
        _ => StopFactor::Unit,
    };
    let tol = Tolerances {
        rtol: opts.positive("rtol", crate::lang::units::Dim::NONE, 1e-9, "1e-9")?,
        atol: opts.positive("atol", crate::lang::units::Dim::NONE, 1e-9, "1e-9")?,
        max_step: f64::INFINITY,
    };
    let engine = match opts.choice("engine", &["auto", "integrator"])? {
        Some("integrator") => Engine::Integrator(tol),
        _ => Engine::Auto(tol),
    };
    // The model must be a regime problem at its own parameter values.
    let base_setup = setup(sys).map_err(|e| AnalysisError::Unsupported {
        message: format!("sweep regimes of `{}`: {e}", model.name),
        at: a.span,
        help: "regime maps need one rigid Coulomb contact (`friction … { force = F }`) and one harmonic excitation".into(),
    })?;
    let grid = Grid {
        prog,
        model: &model.name,
        overrides,
        x_name: x_name.clone(),
        y_name: y_name.clone(),
    };
    let (nx, ny) = (xs.len(), ys.len());
    let start = std::time::Instant::now();
    let bar = indicatif::ProgressBar::new((nx * ny) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} sweep regimes {msg} [{bar:30}] {pos}/{len} cells ({elapsed})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(model.name.clone());

    // Analytic: per column, in parallel; cells stored row-major in y (cell k = j·nx + i).
    let analytic_on = method != "numeric";
    let columns: Vec<(Vec<Option<Limits>>, [f64; 2])> = if analytic_on {
        xs.par_iter()
            .map(|&x| column(&grid, x, &ys, factor))
            .collect()
    } else {
        vec![]
    };
    let analytic_t = start.elapsed().as_secs_f64();
    let analytic =
        |i: usize, j: usize| columns.get(i).and_then(|c| c.0[j]).and_then(|l| l.regime());

    // Numeric: every cell, in parallel; each cell is independent, so the thread count does
    // not change any result.
    type CellOutcome = Result<(Classification, bool), String>;
    let numeric: Vec<Option<CellOutcome>> = if method == "analytic" {
        vec![None; nx * ny]
    } else {
        (0..nx * ny)
            .into_par_iter()
            .map(|k| {
                let (i, j) = (k % nx, k / nx);
                let out = grid.at(xs[i], ys[j]).and_then(|(sys, s)| {
                    classify(&sys, &s, cycles, engine).map_err(|e| e.to_string())
                });
                bar.inc(1);
                Some(out)
            })
            .collect()
    };
    bar.finish_and_clear();
    let wall_s = start.elapsed().as_secs_f64();

    // Tables.
    let mut rows = Vec::with_capacity(nx * ny);
    let mut failures = Vec::new();
    let (mut compared, mut agreeing, mut transient, mut closed_form) =
        (0usize, 0usize, 0usize, 0usize);
    let mut unsettled = 0usize;
    for j in 0..ny {
        for i in 0..nx {
            let an = analytic(i, j);
            let text = |r: Option<Regime>| Cell::Text(r.map_or("", Regime::name).into());
            let mut row = vec![Cell::Num(xs[i]), Cell::Num(ys[j])];
            match &numeric[j * nx + i] {
                Some(Ok((c, closed))) => {
                    row.extend([
                        text(Some(c.regime)),
                        Cell::Num(c.stops_per_cycle),
                        Cell::Num(f64::from(u8::from(c.transient))),
                    ]);
                    transient += usize::from(c.transient);
                    unsettled += usize::from(c.regime == Regime::Unsettled);
                    closed_form += usize::from(*closed);
                    // Agreement away from the curves: the analytic class of every neighbour
                    // within one grid step is the same.
                    let settled = an.is_some()
                        && (i.saturating_sub(1)..=(i + 1).min(nx - 1)).all(|ii| {
                            (j.saturating_sub(1)..=(j + 1).min(ny - 1))
                                .all(|jj| analytic(ii, jj) == an)
                        });
                    if settled && c.regime != Regime::Unsettled {
                        compared += 1;
                        agreeing += usize::from(an == Some(c.regime));
                    }
                }
                Some(Err(e)) => {
                    failures.push(format!("{x_name} = {}, {y_name} = {}: {e}", xs[i], ys[j]));
                    row.extend([
                        Cell::Text("failed".into()),
                        Cell::Text(String::new()),
                        Cell::Text(String::new()),
                    ]);
                }
                None => row.extend([
                    text(None),
                    Cell::Text(String::new()),
                    Cell::Text(String::new()),
                ]),
            }
            row.push(text(an));
            rows.push(row);
        }
    }
    let data = Table {
        file: "data.csv".into(),
        columns: [
            x_name.as_str(),
            y_name.as_str(),
            "regime",
            "stops_per_cycle",
            "transient",
            "analytic_regime",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    };
    let boundary_rows: Vec<Vec<Cell>> = columns
        .iter()
        .zip(&xs)
        .map(|((_, b), x)| {
            let num = |v: f64| {
                if v.is_finite() {
                    Cell::Num(v)
                } else {
                    Cell::Text(String::new())
                }
            };
            vec![Cell::Num(*x), num(b[0]), num(b[1])]
        })
        .collect();
    let mut tables = vec![data];
    if analytic_on {
        tables.push(Table {
            file: "boundaries.csv".into(),
            columns: vec![
                x_name.clone(),
                "continuous_stick_slip".into(),
                "motion_no_motion".into(),
            ],
            rows: boundary_rows,
        });
    }

    // Peaks and antiresonances of the no-motion boundary along x (at the first y).
    let (peaks, antiresonances) = if analytic_on {
        peaks_and_antiresonances(&xs, |x| {
            grid.at(x, ys[0])
                .map_or(f64::NAN, |(sys, s)| holding_force(&sys, &s))
        })
    } else {
        (vec![], vec![])
    };

    // The map: numeric classes where computed, else analytic; analytic curves on top.
    let colours = [
        [120, 170, 225],
        [245, 170, 90],
        [170, 170, 170],
        [250, 240, 120],
    ];
    let class = (0..nx * ny)
        .map(|k| {
            let r = match &numeric[k] {
                Some(Ok((c, _))) => Some(c.regime),
                _ => analytic(k % nx, k / nx),
            };
            r.and_then(|r| REGIMES.iter().position(|q| *q == r))
        })
        .collect();
    let (ylo, yhi) = (ys[0], ys[ny - 1]);
    let curve = |b: usize, label: &str| Series {
        label: label.into(),
        x: columns
            .iter()
            .zip(&xs)
            .filter(|(c, _)| c.1[b] >= ylo && c.1[b] <= yhi)
            .map(|(_, x)| *x)
            .collect(),
        y: columns
            .iter()
            .map(|c| c.1[b])
            .filter(|y| *y >= ylo && *y <= yhi)
            .collect(),
        points: true,
        dashed: false,
    };
    let plot = Plot {
        file: "regimes.svg".into(),
        title: format!(
            "{}: motion regimes ({})",
            model.name,
            if method == "analytic" {
                "analytic"
            } else {
                "numeric cells"
            }
        ),
        x_label: x_name.clone(),
        y_label: y_name.clone(),
        series: if analytic_on {
            vec![
                curve(0, "continuous / stick-slip"),
                curve(1, "motion / no motion"),
            ]
        } else {
            vec![]
        },
        cells: Some(CellMap {
            x: xs.clone(),
            y: ys.clone(),
            class,
            legend: REGIMES
                .iter()
                .zip(colours)
                .map(|(r, c)| (r.name().to_string(), c))
                .collect(),
        }),
    };

    let mut summary = Map::new();
    summary.insert("cells".into(), json!(nx * ny));
    summary.insert(
        "agreement".into(),
        if compared > 0 {
            json!(agreeing as f64 / compared as f64)
        } else {
            json!(null)
        },
    );
    summary.insert("compared_cells".into(), json!(compared));
    summary.insert("transient_cells".into(), json!(transient));
    summary.insert("unsettled_cells".into(), json!(unsettled));
    summary.insert("failed_cells".into(), json!(failures.len()));
    summary.insert("peaks".into(), json!(peaks));
    summary.insert("antiresonances".into(), json!(antiresonances));
    summary.insert("wall".into(), json!(base_setup.wall.name()));
    let mut settings = Map::new();
    settings.insert(
        "x".into(),
        json!({"param": x_name, "from": xs[0], "to": xs[nx - 1], "points": nx}),
    );
    settings.insert(
        "y".into(),
        json!({"param": y_name, "from": ys[0], "to": ys[ny - 1], "points": ny}),
    );
    settings.insert("method".into(), json!(method));
    settings.insert("cycles".into(), json!(cycles));
    settings.insert(
        "S".into(),
        json!(if factor == StopFactor::Exact {
            "exact"
        } else {
            "unit"
        }),
    );
    settings.insert(
        "engine".into(),
        json!(if matches!(engine, Engine::Integrator(_)) {
            "integrator"
        } else {
            "auto"
        }),
    );
    settings.insert("rtol".into(), json!(tol.rtol));
    settings.insert("atol".into(), json!(tol.atol));
    settings.insert("closed_form_cells".into(), json!(closed_form));
    settings.insert("analytic_wall_s".into(), json!(analytic_t));
    settings.insert("threads".into(), json!(rayon::current_num_threads()));
    let mut warnings: Vec<String> = sys.warnings.iter().map(|w| w.message.clone()).collect();
    if base_setup.damped && analytic_on {
        warnings.push("the analytic boundaries ignore the model's viscous damping (paper 001 treats undamped systems)".into());
    }
    if let Some(first) = failures.first() {
        warnings.push(format!(
            "{} cells failed; the first: {first}",
            failures.len()
        ));
    }
    Ok(Results {
        name: String::new(),
        kind: "sweep regimes".into(),
        model: model.name.clone(),
        tables,
        plots: vec![plot],
        summary,
        settings,
        params: model.params.clone(),
        warnings,
        wall_s,
    })
}
