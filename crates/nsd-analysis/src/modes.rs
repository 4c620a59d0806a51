//! The `modes` analysis: natural frequencies and mass-normalised mode shapes with the
//! contacts open or stuck.
//!
//! Options: `count` (number of modes; all of a small model by default, 10 of a large one),
//! `contacts = open | stuck`. Writes `data.csv` (one row per mode), `shapes.csv` (one row
//! per DOF, one column per mode) and `modes.svg`.

use super::diagnostics::AnalysisError;
use super::options::OptionReader;
use super::results::{Cell, Plot, Results, Series, Table};
use nsd_lang::ast::Analysis;
use nsd_model::{Model, System};
use nsd_solve::modes::{modes, Contacts};
use serde_json::{json, Map};
use std::f64::consts::PI;

/// The options of `modes`.
pub(crate) const OPTIONS: [&str; 2] = ["count", "contacts"];

pub(crate) fn run(a: &Analysis, model: &Model, sys: &System) -> Result<Results, AnalysisError> {
    let opts = OptionReader::new(a, model, &OPTIONS)?;
    let count = opts.count("count", 1)?;
    let contacts = match opts.choice("contacts", &["open", "stuck"])? {
        Some("stuck") => Contacts::Stuck,
        _ => Contacts::Open,
    };
    let start = std::time::Instant::now();
    let m = modes(sys, contacts, count).map_err(|e| AnalysisError::Numerical {
        message: format!("modes of `{}`: {e}", model.name),
        at: a.span,
        help: "every DOF needs mass; check imported matrices and beam sections".into(),
    })?;
    let wall_s = start.elapsed().as_secs_f64();

    let rows = m
        .omega
        .iter()
        .enumerate()
        .map(|(i, w)| vec![(i + 1).into(), Cell::Num(*w), Cell::Num(w / (2.0 * PI))])
        .collect();
    let data = Table {
        file: "data.csv".into(),
        columns: vec!["mode".into(), "omega [rad/s]".into(), "f [Hz]".into()],
        rows,
    };
    let mut columns = vec!["dof".to_string()];
    columns.extend((1..=m.omega.len()).map(|i| format!("mode {i}")));
    let shape_rows = sys
        .dofs
        .iter()
        .enumerate()
        .map(|(d, dof)| {
            let mut row = vec![Cell::Text(dof.name.clone())];
            row.extend(m.shapes.row(d).iter().map(|v| Cell::Num(*v)));
            row
        })
        .collect();
    let shapes = Table {
        file: "shapes.csv".into(),
        columns,
        rows: shape_rows,
    };
    let plotted = m.omega.len().min(4);
    let series = (0..plotted)
        .map(|i| Series {
            label: format!("mode {} ({:.4} rad/s)", i + 1, m.omega[i]),
            x: (1..=sys.n()).map(|d| d as f64).collect(),
            y: m.shapes.column(i).iter().copied().collect(),
            points: false,
            dashed: false,
        })
        .collect();
    let plot = Plot {
        file: "modes.svg".into(),
        title: format!("{}: mode shapes", model.name),
        x_label: "DOF".into(),
        y_label: "φ (mass-normalised)".into(),
        series,
        cells: None,
    };

    let mut summary = Map::new();
    summary.insert("natural_frequencies".into(), json!(m.omega));
    summary.insert("dofs".into(), json!(sys.n()));
    let mut settings = Map::new();
    settings.insert(
        "contacts".into(),
        json!(if contacts == Contacts::Open {
            "open"
        } else {
            "stuck"
        }),
    );
    settings.insert("count".into(), json!(m.omega.len()));
    settings.insert(
        "solver".into(),
        json!(if m.dense {
            "dense"
        } else {
            "shift-invert Lanczos"
        }),
    );
    Ok(Results {
        name: String::new(),
        kind: opts.kind().into(),
        model: model.name.clone(),
        tables: vec![data, shapes],
        plots: vec![plot],
        summary,
        settings,
        params: model.params.clone(),
        warnings: sys.warnings.iter().map(|w| w.message.clone()).collect(),
        wall_s,
    })
}
