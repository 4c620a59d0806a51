//! Event-driven time integration: the DOP853 Runge–Kutta pair with dense output
//! (`dop853.rs`, coefficients in `tableau.rs`).

pub mod dop853;
mod tableau;
