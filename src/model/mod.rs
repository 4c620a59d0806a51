//! The model layer: the flat evaluated `Model`, its system graph, and assembly into the
//! `System` that every backend consumes.

mod assemble;
mod beam;
pub(crate) mod flat;
pub(crate) mod graph;
pub(crate) mod smoothing;
pub(crate) mod system;
pub(crate) mod time_fn;

pub use assemble::assemble;
pub use flat::Model;
pub use system::System;
