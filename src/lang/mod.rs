//! The language layer: text → AST → resolved `Model`, with miette diagnostics.
//!
//! **Invariant:** nothing here knows about solvers, nalgebra or sprs.

pub mod ast;
pub mod diagnostics;
pub mod eval;
pub mod load;
mod mtx;
pub(crate) mod options;
pub mod parse;
pub mod resolve;
pub mod source;
mod stdlib;
pub mod units;

pub use crate::span::Span;
pub use diagnostics::Failure;
pub use load::Program;
pub use resolve::{parse_override, resolve, Override};
