//! Reports: `Results` → CSV, JSON and SVG files, written atomically.
//!
//! **Invariant:** besides `lang::load` (sources and imported matrices) and the shells, this
//! is the only module that touches the file system.

pub(crate) mod csv;
pub(crate) mod plot;
pub(crate) mod report;
