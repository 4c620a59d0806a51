//! The tables, the diagram and the summary of `sweep bifurcation`.

use super::options::Options;
use super::{Outcome, Passes};
use crate::options::section;
use crate::results::{Cell, Plot, Results, Series, Table};
use nsd_model::{Model, System};
use nsd_solve::poincare::Periodicity;
use serde_json::{json, Map, Value};

/// The period column: the number of forcing periods, `aperiodic`, or `failed`.
fn period_text(o: &Outcome) -> String {
    match (o.failed.is_some(), o.periodicity) {
        (true, _) => "failed".into(),
        (false, Periodicity::Periodic { period, .. }) => period.to_string(),
        (false, Periodicity::Aperiodic) => "aperiodic".into(),
    }
}

/// Every (start, pass) with its outcomes, starts outermost.
fn chains<'a>(
    opts: &'a Options,
    outcomes: &'a [Passes],
) -> impl Iterator<Item = (&'a str, &'static str, &'a [Outcome])> {
    opts.starts
        .iter()
        .zip(outcomes)
        .flat_map(move |((name, _), passes)| {
            opts.passes
                .iter()
                .zip(passes)
                .map(move |((dir, _), p)| (name.as_str(), *dir, p.as_slice()))
        })
}

pub(super) fn results(
    opts: &Options,
    outcomes: &[Passes],
    model: &Model,
    sys: &System,
    wall_s: f64,
) -> Results {
    let names: Vec<String> = sys.dofs.iter().map(|d| d.name.clone()).collect();
    let mut points = Table {
        file: "data.csv".into(),
        columns: ["pass", &opts.param, "start", "t [s]"]
            .iter()
            .map(|s| s.to_string())
            .chain(names.iter().cloned())
            .chain(names.iter().map(|d| format!("v({d})")))
            .chain(["period".into(), "amplitude".into()])
            .collect(),
        rows: vec![],
    };
    let mut values = Table {
        file: "values.csv".into(),
        columns: [
            "pass",
            &opts.param,
            "start",
            "period",
            "section points",
            "amplitude",
            "transient periods",
            "failure",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows: vec![],
    };
    let mut changes = Vec::new();
    let mut warnings: Vec<String> = sys.warnings.iter().map(|w| w.message.clone()).collect();
    let (mut aperiodic, mut failed) = (0, 0);
    for (start, pass, chain) in chains(opts, outcomes) {
        for o in chain {
            let period = period_text(o);
            let head = [
                Cell::Text(pass.into()),
                Cell::Num(o.value),
                Cell::Text(start.into()),
            ];
            for p in &o.points {
                let mut row = head.to_vec();
                row.push(Cell::Num(p.t));
                row.extend(p.y.iter().map(|v| Cell::Num(*v)));
                row.push(Cell::Text(period.clone()));
                row.push(Cell::Num(o.amplitude));
                points.rows.push(row);
            }
            let mut row = head.to_vec();
            let cycle = match o.periodicity {
                Periodicity::Periodic { points, .. } => points.into(),
                Periodicity::Aperiodic => Cell::Text(String::new()),
            };
            row.extend([
                Cell::Text(period.clone()),
                cycle,
                Cell::Num(o.amplitude),
                o.transient.into(),
                Cell::Text(o.failed.clone().unwrap_or_default()),
            ]);
            values.rows.push(row);
            aperiodic += usize::from(o.failed.is_none() && o.periodicity == Periodicity::Aperiodic);
            if let Some(e) = &o.failed {
                failed += 1;
                warnings.push(format!(
                    "start `{start}` at {} = {}: {e}",
                    opts.param, o.value
                ));
            }
        }
        for w in chain.windows(2) {
            let (from, to) = (period_text(&w[0]), period_text(&w[1]));
            if from != to {
                changes.push(json!({ "start": start, "pass": pass, opts.param.as_str(): w[1].value, "from": from, "to": to }));
            }
        }
    }
    let mut summary = Map::new();
    summary.insert("period_changes".into(), Value::Array(changes));
    summary.insert("values".into(), json!(values.rows.len()));
    summary.insert("aperiodic".into(), json!(aperiodic));
    summary.insert("failed".into(), json!(failed));
    summary.insert("section_points".into(), json!(points.rows.len()));
    Results {
        name: String::new(),
        kind: "sweep bifurcation".into(),
        model: model.name.clone(),
        tables: vec![points, values],
        plots: vec![diagram(opts, outcomes, &model.name, &names)],
        summary,
        settings: settings(opts, sys),
        params: model.params.clone(),
        warnings,
        wall_s,
    }
}

/// The plotted DOF at every kept section point against the parameter, one colour per start
/// (paper 000, Fig. 7).
fn diagram(opts: &Options, outcomes: &[Passes], model: &str, names: &[String]) -> Plot {
    let series = opts
        .starts
        .iter()
        .zip(outcomes)
        .map(|((name, _), passes)| {
            let (x, y) = passes
                .iter()
                .flatten()
                .flat_map(|o| o.points.iter().map(move |p| (o.value, p.y[opts.plot])))
                .unzip();
            Series {
                label: name.clone(),
                x,
                y,
                points: true,
                dashed: false,
            }
        })
        .collect();
    Plot {
        file: "bifurcation.svg".into(),
        title: format!("{model}: Poincaré section over {}", opts.param),
        x_label: opts.param.clone(),
        y_label: names.get(opts.plot).cloned().unwrap_or_default(),
        series,
        cells: None,
    }
}

fn settings(opts: &Options, sys: &System) -> Map<String, Value> {
    let mut s = Map::new();
    s.insert("param".into(), json!(opts.param));
    s.insert(
        "passes".into(),
        json!(opts.passes.iter().map(|p| p.0).collect::<Vec<_>>()),
    );
    s.insert(
        "starts".into(),
        json!(opts.starts.iter().map(|s| &s.0).collect::<Vec<_>>()),
    );
    s.insert("section".into(), section::describe(&opts.section, sys));
    s.insert("transient_periods".into(), json!(opts.transient));
    s.insert("settle".into(), json!(opts.settle));
    s.insert("keep".into(), json!(opts.keep));
    s.insert("max_period".into(), json!(opts.max_period));
    s.insert("tol".into(), json!(opts.tol));
    s.insert("rtol".into(), json!(opts.rtol));
    s.insert("atol".into(), json!(opts.atol));
    s.insert(
        "events".into(),
        json!(if opts.smooth_only { "smooth" } else { "exact" }),
    );
    s.insert("method".into(), json!(opts.engine.name()));
    s
}
