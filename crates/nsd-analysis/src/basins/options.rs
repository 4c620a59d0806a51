//! The options of `basins`: `grid = { m1 = -1..1 by 0.01, v.m1 = -1..1 by 0.01 }` (required:
//! two state coordinates, a DOF or its velocity `v.DOF`, each over `a..b by h`, both ends
//! included), `fixed = { m2 = 0.1, … }` (the other coordinates of every start; at rest
//! otherwise), `section` (the section of the attractor table's points, default
//! `stroboscopic`), `transient` (most forcing periods integrated per cell, 300), `keep`
//! (stroboscopic points compared for the period, 32), `max_period` (8), `tol` (the period's
//! point tolerance relative to the largest coordinate, 1e-4), `cell` (the side of the
//! recurrence boxes and the capture radius of an attractor, in the state's units; default
//! the wider grid axis's span / 200), `block` (cells per independently mapped block, 65536), `plot` (the DOF whose amplitude is tabled, default the first grid
//! coordinate's), `rtol`, `atol`, `events`, `method = auto | dop853` (as `sweep
//! bifurcation`'s: Taylor series on models polynomial in the state, else DOP853).

use super::super::diagnostics::AnalysisError;
use super::super::options::OptionReader;
use super::super::tolerances::integrator_tolerances;
use crate::options::poincare::{engine, keep_and_max_period, state_block, state_index};
use crate::options::section;
use nsd_lang::ast::{Analysis, Value};
use nsd_lang::eval;
use nsd_lang::units::Dim;
use nsd_model::{Model, System};
use nsd_solve::poincare::MapSettings;
use nsd_solve::{bytes_text, MAX_OUTPUT_ROWS, MAX_REQUEST_BYTES};

/// Default most forcing periods integrated from one cell (paper 000, Sect. 4: the transient
/// of the bifurcation diagrams).
const DEFAULT_TRANSIENT: usize = 300;
/// Default stroboscopic points over which the period of a settled motion is detected.
const DEFAULT_KEEP: usize = 32;
/// Default longest period looked for, in forcing periods.
const DEFAULT_MAX_PERIOD: usize = 8;
/// Default tolerance of the period detection, relative to the largest section coordinate (as
/// `sweep bifurcation`'s).
const DEFAULT_PERIOD_TOL: f64 = 1e-4;
/// Default recurrence boxes across the wider grid axis (`cell` = its span / 200, whatever
/// the grid's resolution): on the free-play model at Ω = 1.2 (a −1..1 grid of 41 × 41), boxes
/// of 0.01, 0.001 and 1e-5 label every cell alike, boxes of 0.05 differ on 4 % of them.
const BOXES_PER_SPAN: f64 = 200.0;
/// Default cells per block (`block`): a block is mapped on its own (its own attractors found
/// again, its own boxes), so `--shard` can hand blocks to separate processes; 65536 keeps a
/// 200 × 200 map in one block.
const DEFAULT_BLOCK: usize = 65536;
/// Most cells of one map (a 2000 × 2000 grid): above it the map would run for days.
const MAX_CELLS: usize = 4_000_000;
/// Bytes held per cell while the map runs (its label, count and exit, and the boxes its
/// trajectory visited, about 16 of 64 bytes each): the preflight's estimate.
const BYTES_PER_CELL: f64 = 1100.0;

const GRID_EXAMPLE: &str = "write `grid = { m1 = -1..1 by 0.01, v.m1 = -1..1 by 0.01 }`";

/// One axis of the grid: the state coordinate, its name and its values.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Axis {
    pub(crate) index: usize,
    pub(crate) name: String,
    pub(crate) values: Vec<f64>,
}

/// The map as read from the statement.
pub(super) struct Options {
    pub(crate) x: Axis,
    pub(crate) y: Axis,
    /// The state of every start before the grid coordinates are set.
    pub(crate) fixed: Vec<f64>,
    /// Cells per block: each block of consecutive cells is mapped on its own.
    pub(crate) block: usize,
    /// How the cells are run and the attractors polished (the forcing period among them).
    pub(crate) map: MapSettings,
}

/// The options of `basins`.
pub(crate) const OPTIONS: [&str; 14] = [
    "grid",
    "fixed",
    "section",
    "transient",
    "keep",
    "max_period",
    "tol",
    "cell",
    "plot",
    "rtol",
    "atol",
    "events",
    "block",
    "method",
];

impl Options {
    pub(crate) fn read(
        a: &Analysis,
        model: &Model,
        sys: &System,
    ) -> Result<Options, AnalysisError> {
        let opts = OptionReader::new(a, model, &OPTIONS)?;
        let (x, y) = grid(a, model, sys, &opts)?;
        let cells = x.values.len() * y.values.len();
        preflight(&opts, cells)?;
        let span = |v: &[f64]| v.last().zip(v.first()).map_or(0.0, |(b, a)| b - a);
        let default_cell = span(&x.values).max(span(&y.values)) / BOXES_PER_SPAN;
        let forcing = section::forcing_period_for("a basin map", a, model, sys)?;
        let section = section::read_or_stroboscopic(a, model, sys, forcing)?;
        let (rtol, atol) = integrator_tolerances(&opts)?;
        let (keep, max_period) = keep_and_max_period(&opts, DEFAULT_KEEP, DEFAULT_MAX_PERIOD)?;
        let plot = opts.dof("plot", sys)?.unwrap_or(x.index % sys.n());
        // Checked in this order: of several bad options, the first here is the one reported.
        let fixed = fixed(a, model, sys, &opts, [x.index, y.index])?;
        let transient = opts.count("transient", 1)?.unwrap_or(DEFAULT_TRANSIENT);
        let tol = opts.positive("tol", Dim::NONE, DEFAULT_PERIOD_TOL, "1e-4")?;
        let cell = opts.positive("cell", Dim::NONE, default_cell, "0.01")?;
        let smooth_only = opts.choice("events", &["exact", "smooth"])? == Some("smooth");
        let block = opts.count("block", 1)?.unwrap_or(DEFAULT_BLOCK);
        let map = MapSettings {
            forcing,
            section,
            transient,
            keep,
            max_period,
            tol,
            cell,
            plot,
            rtol,
            atol,
            smooth_only,
            engine: engine(&opts)?,
        };
        Ok(Options {
            x,
            y,
            fixed,
            block,
            map,
        })
    }
}

impl Options {
    /// The number of blocks.
    pub(crate) fn blocks(&self) -> usize {
        (self.x.values.len() * self.y.values.len()).div_ceil(self.block)
    }

    /// The cells of block `b` (indices, the first coordinate fastest).
    pub(crate) fn block_range(&self, b: usize) -> std::ops::Range<usize> {
        let total = self.x.values.len() * self.y.values.len();
        (b * self.block).min(total)..((b + 1) * self.block).min(total)
    }
}

/// Refuses maps whose cells or table would not fit (`MAX_CELLS`, `MAX_OUTPUT_ROWS`,
/// `MAX_REQUEST_BYTES`).
fn preflight(opts: &OptionReader, cells: usize) -> Result<(), AnalysisError> {
    let bytes = cells as f64 * BYTES_PER_CELL;
    if cells > MAX_CELLS || cells as f64 > MAX_OUTPUT_ROWS || bytes > MAX_REQUEST_BYTES {
        return Err(opts.bad_value(
            "grid",
            opts.span_of("grid").unwrap_or(opts.statement_span()),
            &format!(
                "{cells} cells (an estimated {} of memory; at most {MAX_CELLS} cells)",
                bytes_text(bytes)
            ),
            "use coarser steps, or split the map into several statements",
        ));
    }
    Ok(())
}

/// `grid = { coordinate = a..b by h, coordinate = a..b by h }`.
fn grid(
    a: &Analysis,
    model: &Model,
    sys: &System,
    opts: &OptionReader,
) -> Result<(Axis, Axis), AnalysisError> {
    let Some(v) = nsd_lang::options::value(a.options.as_ref(), "grid") else {
        return Err(opts.bad_value("grid", a.span, "missing", GRID_EXAMPLE));
    };
    let Value::Block(block) = v else {
        return Err(opts.bad_value("grid", v.span(), "expected a block", GRID_EXAMPLE));
    };
    let [ex, ey] = block.entries.as_slice() else {
        return Err(opts.bad_value("grid", v.span(), "expected two coordinates", GRID_EXAMPLE));
    };
    let scope = section::param_scope(model);
    let axis = |e: &nsd_lang::ast::OptionEntry| -> Result<Axis, AnalysisError> {
        let index = state_index(opts, "grid", &e.key, model, sys)?;
        let Value::Range(r) = &e.value else {
            return Err(opts.bad_value("grid", e.value.span(), "expected a range", GRID_EXAMPLE));
        };
        let num = |x| {
            eval::eval(x, &scope)
                .map(|n| n.v)
                .map_err(AnalysisError::Resolve)
        };
        let (from, to) = (num(&r.from)?, num(&r.to)?);
        let step = r.step.as_ref().map(num).transpose()?;
        let count = step.map(|h| (to - from) / h);
        let Some(n) = count.filter(|n| n.is_finite() && *n >= 1.0 && *n <= MAX_CELLS as f64) else {
            return Err(opts.bad_value(
                "grid",
                r.span,
                "expected `a..b by h` with a < b and 0 < h ≤ b − a",
                GRID_EXAMPLE,
            ));
        };
        let n = n.round() as usize;
        let h = (to - from) / n as f64;
        let name = match index < sys.n() {
            true => sys.dofs[index].name.clone(),
            false => format!("v({})", sys.dofs[index - sys.n()].name),
        };
        let values = (0..=n).map(|i| from + i as f64 * h).collect();
        Ok(Axis {
            index,
            name,
            values,
        })
    };
    let (x, y) = (axis(ex)?, axis(ey)?);
    if x.index == y.index {
        return Err(opts.bad_value(
            "grid",
            ey.key.span,
            "the same coordinate twice",
            "the grid spans two different coordinates, e.g. a DOF and its velocity",
        ));
    }
    Ok((x, y))
}

/// `fixed = { m2 = 0.1, v.m2 = 0 }`: the other coordinates of every start (zero if absent).
fn fixed(
    a: &Analysis,
    model: &Model,
    sys: &System,
    opts: &OptionReader,
    grid: [usize; 2],
) -> Result<Vec<f64>, AnalysisError> {
    let Some(v) = nsd_lang::options::value(a.options.as_ref(), "fixed") else {
        return Ok(vec![0.0; 2 * sys.n()]);
    };
    let example = "write `fixed = { m2 = 0.1, v.m2 = 0 }`";
    let Value::Block(block) = v else {
        return Err(opts.bad_value("fixed", v.span(), "expected a block", example));
    };
    for e in &block.entries {
        if grid.contains(&state_index(opts, "fixed", &e.key, model, sys)?) {
            return Err(opts.bad_value(
                "fixed",
                e.key.span,
                "a coordinate of the grid: its value is the cell's",
                "`fixed` sets the state coordinates the grid does not span; remove this one",
            ));
        }
    }
    state_block(opts, "fixed", block, model, sys, example)
}
