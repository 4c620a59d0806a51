//! The tables, the map and the summary of `basins`: `data.csv` (one row per cell, x fastest:
//! the two coordinates, the attractor id — 0 for none —, the forcing periods integrated and
//! how the cell ended), `attractors.csv` (id, period, amplitude, cells, fraction, return
//! error, the representative state), `section.csv` (each attractor's points on `section`
//! over one period from its representative state) and `basins.svg/png` (Figs. 13, 16).

use super::options::{Axis, Options};
use super::{Exit, Label};
use crate::options::section;
use crate::results::{Cell, CellMap, Plot, Results, Table};
use nsd_model::{Model, System};
use nsd_solve::poincare::Attractor;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// What the report needs besides the blocks: the same in every shard of one map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Context {
    pub(crate) model: String,
    pub(crate) params: Vec<(String, f64)>,
    pub(crate) settings: Map<String, Value>,
    pub(crate) x: Axis,
    pub(crate) y: Axis,
    /// The DOF names.
    pub(crate) names: Vec<String>,
    /// The model's warnings.
    pub(crate) warnings: Vec<String>,
    /// The capture radius by which blocks' attractors are matched.
    pub(crate) cell: f64,
    pub(crate) blocks: usize,
}

impl Context {
    pub(crate) fn new(opts: &Options, model: &Model, sys: &System) -> Context {
        Context {
            model: model.name.clone(),
            params: model.params.clone(),
            settings: settings(opts, sys),
            x: opts.x.clone(),
            y: opts.y.clone(),
            names: sys.dofs.iter().map(|d| d.name.clone()).collect(),
            warnings: sys.warnings.iter().map(|w| w.message.clone()).collect(),
            cell: opts.map.cell,
            blocks: opts.blocks(),
        }
    }
}

/// Colours of the attractors, in id order (then repeated), and of the cells without one.
const PALETTE: [[u8; 3]; 8] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [188, 189, 34],
];
const NONE_COLOUR: [u8; 3] = [200, 200, 200];

fn exit_text(e: Exit) -> &'static str {
    match e {
        Exit::Recurrence => "recurrence",
        Exit::Settled => "settled",
        Exit::Unresolved => "unresolved",
        Exit::Failed => "failed",
    }
}

pub(super) fn results(
    ctx: &Context,
    labels: &[Label],
    attractors: &[Attractor],
    wall_s: f64,
) -> Results {
    let (names, opts) = (&ctx.names, ctx);
    let state_columns = || {
        names
            .iter()
            .cloned()
            .chain(names.iter().map(|d| format!("v({d})")))
    };
    let nx = opts.x.values.len();
    let data = Table {
        file: "data.csv".into(),
        columns: vec![
            opts.x.name.clone(),
            opts.y.name.clone(),
            "attractor".into(),
            "periods".into(),
            "exit".into(),
        ],
        rows: labels
            .iter()
            .enumerate()
            .map(|(k, l)| {
                vec![
                    Cell::Num(opts.x.values[k % nx]),
                    Cell::Num(opts.y.values[k / nx]),
                    l.id.into(),
                    l.periods.into(),
                    Cell::Text(exit_text(l.exit).into()),
                ]
            })
            .collect(),
    };
    let count = |id: u32| labels.iter().filter(|l| l.id == id).count();
    let fraction = |id: u32| count(id) as f64 / labels.len().max(1) as f64;
    let table = Table {
        file: "attractors.csv".into(),
        columns: [
            "id",
            "period",
            "amplitude",
            "cells",
            "fraction",
            "return error",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain(state_columns())
        .collect(),
        rows: attractors
            .iter()
            .map(|a| {
                let head = [
                    a.id.into(),
                    a.period.into(),
                    a.amplitude.into(),
                    count(a.id).into(),
                    fraction(a.id).into(),
                    a.return_error.into(),
                ];
                head.into_iter()
                    .chain(a.rep.iter().map(|v| Cell::Num(*v)))
                    .collect()
            })
            .collect(),
    };
    let section = Table {
        file: "section.csv".into(),
        columns: ["attractor".to_string(), "t [s]".into()]
            .into_iter()
            .chain(state_columns())
            .collect(),
        rows: attractors
            .iter()
            .flat_map(|a| {
                a.points.iter().map(move |(t, y)| {
                    [a.id.into(), Cell::Num(*t)]
                        .into_iter()
                        .chain(y.iter().map(|v| Cell::Num(*v)))
                        .collect()
                })
            })
            .collect(),
    };
    let summary = summary(labels, attractors);
    let exits = |e: Exit| labels.iter().filter(|l| l.exit == e).count();
    let mut warnings = ctx.warnings.clone();
    if exits(Exit::Failed) > 0 {
        warnings.push(format!(
            "{} cells failed to integrate (attractor 0 in data.csv)",
            exits(Exit::Failed)
        ));
    }
    Results {
        name: String::new(),
        kind: "basins".into(),
        model: ctx.model.clone(),
        tables: vec![data, table, section],
        plots: vec![plot(ctx, labels, attractors)],
        summary,
        settings: ctx.settings.clone(),
        params: ctx.params.clone(),
        warnings,
        wall_s,
    }
}

/// Cells, attractors and each one's fraction, cells without one, recurrence exits and the
/// mean periods integrated per cell.
fn summary(labels: &[Label], attractors: &[Attractor]) -> Map<String, Value> {
    let fraction =
        |id: u32| labels.iter().filter(|l| l.id == id).count() as f64 / labels.len().max(1) as f64;
    let periods: usize = labels.iter().map(|l| l.periods).sum();
    let exits = |e: Exit| labels.iter().filter(|l| l.exit == e).count();
    let mut summary = Map::new();
    summary.insert("cells".into(), json!(labels.len()));
    summary.insert("attractors".into(), json!(attractors.len()));
    summary.insert(
        "fractions".into(),
        Value::Array(
            attractors
                .iter()
                .map(|a| json!({ "id": a.id, "period": a.period, "amplitude": a.amplitude, "fraction": fraction(a.id) }))
                .collect(),
        ),
    );
    summary.insert("unresolved".into(), json!(exits(Exit::Unresolved)));
    summary.insert("failed".into(), json!(exits(Exit::Failed)));
    summary.insert("recurrence_exits".into(), json!(exits(Exit::Recurrence)));
    summary.insert(
        "mean_periods".into(),
        json!(periods as f64 / labels.len().max(1) as f64),
    );
    summary
}

/// The map: one colour per attractor, grey where none was found (paper 000, Figs. 13, 16).
fn plot(opts: &Context, labels: &[Label], attractors: &[Attractor]) -> Plot {
    let mut legend: Vec<(String, [u8; 3])> = attractors
        .iter()
        .map(|a| {
            (
                format!(
                    "{}: period {}, amplitude {:.3}",
                    a.id, a.period, a.amplitude
                ),
                PALETTE[(a.id as usize - 1) % PALETTE.len()],
            )
        })
        .collect();
    let none = labels.iter().any(|l| l.id == 0);
    if none {
        legend.push(("none".into(), NONE_COLOUR));
    }
    let class = labels
        .iter()
        .map(|l| match l.id {
            0 => Some(attractors.len()),
            id => Some(id as usize - 1),
        })
        .collect();
    Plot {
        file: "basins.svg".into(),
        title: format!("{}: basins of attraction", opts.model),
        x_label: opts.x.name.clone(),
        y_label: opts.y.name.clone(),
        series: vec![],
        cells: Some(CellMap {
            x: opts.x.values.clone(),
            y: opts.y.values.clone(),
            class,
            legend,
        }),
    }
}

/// The settings in `meta.json`.
pub(super) fn settings(opts: &Options, sys: &System) -> Map<String, Value> {
    let axis = |a: &super::options::Axis| json!({ "coordinate": a.name, "from": a.values.first(), "to": a.values.last(), "points": a.values.len() });
    let (map, mut s) = (&opts.map, Map::new());
    s.insert("x".into(), axis(&opts.x));
    s.insert("y".into(), axis(&opts.y));
    s.insert("fixed".into(), json!(opts.fixed));
    s.insert("section".into(), section::describe(&map.section, sys));
    s.insert("transient_periods".into(), json!(map.transient));
    s.insert("keep".into(), json!(map.keep));
    s.insert("max_period".into(), json!(map.max_period));
    s.insert("tol".into(), json!(map.tol));
    s.insert("cell".into(), json!(map.cell));
    s.insert("rtol".into(), json!(map.rtol));
    s.insert("atol".into(), json!(map.atol));
    s.insert("block".into(), json!(opts.block));
    s.insert(
        "events".into(),
        json!(if map.smooth_only { "smooth" } else { "exact" }),
    );
    s.insert("method".into(), json!(map.engine.name()));
    s
}
