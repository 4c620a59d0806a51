//! The model layer: the flat evaluated `Model` (made by `nsd_lang`, re-exported here as the
//! stage's input), its system graph, and assembly into the `System` that every backend
//! consumes.

mod assemble;
mod beam;
mod graph;
pub mod smoothing;
pub mod system;

pub use assemble::assemble;
pub use nsd_lang::{flat, time_fn, Model};
pub use system::System;
