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

/// The words that open statements or join their parts (`grammar/nsd.pest`), without the
/// analysis kinds (`ast::AnalysisKind::keyword`): what editors and the REPL complete.
pub const STATEMENT_KEYWORDS: [&str; 25] = [
    "model",
    "component",
    "import",
    "param",
    "mass",
    "spring",
    "damper",
    "gap",
    "friction",
    "force",
    "base",
    "gravity",
    "damping",
    "beam",
    "matrices",
    "body",
    "joint",
    "use",
    "for",
    "in",
    "as",
    "by",
    "expect",
    "ground",
    "rayleigh",
];
