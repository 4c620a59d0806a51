//! The model layer: the flat evaluated `Model`, its system graph, and assembly into the
//! `System` that every backend consumes.

mod assemble;
mod beam;
pub mod flat;
pub mod graph;
pub mod smoothing;
pub mod system;
pub mod time_fn;

pub use assemble::assemble;
pub use flat::Model;
pub use system::System;
