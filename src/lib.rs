//! nsd: a modelling language and interpreter for nonsmooth mechanical dynamics.
//!
//! The crate is a pipeline: `lang` (text → `Model`), `model` (→ `System`), `solve`
//! (numerical backends), `analysis` (one module per analysis statement), `io` (reports),
//! and the thin shells `cli` and `repl`.

pub mod lang;
pub mod model;
pub mod solve;
pub mod analysis;
pub mod io;
pub mod cli;
pub mod repl;
