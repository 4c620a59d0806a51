//! Event-driven time integration: the DOP853 Runge–Kutta pair with dense output
//! (`dop853.rs`, coefficients in `tableau.rs`), guaranteed root isolation of event functions
//! on the dense polynomial (`roots.rs`), the mode-switching form of a system (`hybrid.rs`) and
//! the integration loop (`driver.rs`).

pub mod dop853;
pub mod driver;
pub mod hybrid;
pub mod rodas;
pub mod roots;
mod tableau;
