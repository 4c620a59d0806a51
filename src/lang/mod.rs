//! The language layer: text → AST → resolved `Model`, with miette diagnostics.
//!
//! **Invariant:** nothing here knows about solvers, nalgebra or sprs.

pub(crate) mod ast;
pub(crate) mod diagnostics;
pub(crate) mod eval;
pub mod fmt;
pub(crate) mod load;
mod mtx;
pub(crate) mod options;
pub(crate) mod parse;
pub(crate) mod resolve;
pub(crate) mod source;
mod stdlib;
pub(crate) mod units;

pub use crate::span::Span;
pub use diagnostics::Failure;
pub use load::Program;
pub use resolve::{analysis_overrides, declared_params, parse_override, resolve, Override};
