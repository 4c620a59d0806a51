//! Reports: `Results` → CSV, JSON, SVG and PNG files, written atomically.
//!
//! **Invariant:** besides `nsd_lang::load` (sources and imported matrices) and the shells,
//! this is the only crate that touches the file system.

pub(crate) mod csv;
pub(crate) mod plot;
pub mod report;
