//! The language layer: text → AST → resolved flat `Model`, with miette diagnostics.
//!
//! **Invariant:** nothing here knows about solvers, nalgebra or sprs (the crate does not
//! depend on them). The flat model (`flat`, with its time functions `time_fn`) is this
//! stage's output; `nsd_model` assembles it.

pub mod ast;
pub mod diagnostics;
pub mod eval;
pub mod flat;
pub mod fmt;
pub(crate) mod load;
mod mtx;
pub mod options;
pub mod parse;
pub mod resolve;
pub mod source;
pub mod span;
mod stdlib;
pub mod time_fn;
pub mod units;

pub use diagnostics::Failure;
pub use flat::Model;
pub use load::Program;
pub use resolve::{analysis_overrides, declared_params, parse_override, resolve, Override};
pub use span::Span;

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
