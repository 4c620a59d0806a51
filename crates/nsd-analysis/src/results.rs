//! `Results`: what an analysis returns — named tables, plots, a summary of key scalars and
//! the metadata that goes into `meta.json`. Plain data; `io` turns it into files.

use serde_json::{Map, Value};

/// One CSV cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Num(f64),
    /// A count, an index, an id or a 0/1 flag: written `3`, not `3.0`, so that a reader
    /// (and a user's eye) sees an integer column.
    Int(u64),
    Text(String),
}

impl From<f64> for Cell {
    fn from(v: f64) -> Cell {
        Cell::Num(v)
    }
}

impl From<usize> for Cell {
    fn from(v: usize) -> Cell {
        // Lossless: `usize` is at most 64 bits on every target Rust supports.
        Cell::Int(v as u64)
    }
}

impl From<u32> for Cell {
    fn from(v: u32) -> Cell {
        Cell::Int(v.into())
    }
}

/// A flag column: `1` for true, `0` for false.
impl From<bool> for Cell {
    fn from(v: bool) -> Cell {
        Cell::Int(v.into())
    }
}

impl From<&str> for Cell {
    fn from(v: &str) -> Cell {
        Cell::Text(v.to_string())
    }
}

/// A table written as `file` (one header row; units in brackets where known).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub file: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

/// One curve of a plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    /// Markers only (no line), e.g. for frequencies or Poincaré points.
    pub points: bool,
    /// A dashed line (e.g. the unstable part of a branch).
    pub dashed: bool,
}

/// Coloured grid cells under a plot's curves (a regime map): cell `(i, j)` at `(x[i], y[j])`
/// has class `class[j * x.len() + i]`, an index into `legend` (`None`: not drawn).
#[derive(Debug, Clone, PartialEq)]
pub struct CellMap {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub class: Vec<Option<usize>>,
    /// Class names and RGB colours.
    pub legend: Vec<(String, [u8; 3])>,
}

/// A 2-D plot written as `file` (SVG). With `cells`, the axes span the cell grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    pub file: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    pub cells: Option<CellMap>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    /// Folder name under `--out`.
    pub name: String,
    /// The statement, e.g. `modes`.
    pub kind: String,
    pub model: String,
    pub tables: Vec<Table>,
    pub plots: Vec<Plot>,
    /// Key scalar results (`run --json`'s `summary`).
    pub summary: Map<String, Value>,
    /// Solver settings and counters for `meta.json`.
    pub settings: Map<String, Value>,
    pub params: Vec<(String, f64)>,
    pub warnings: Vec<String>,
    pub wall_s: f64,
}
