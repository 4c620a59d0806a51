//! Event-driven time integration: the one-step interface (`step.rs`) of the DOP853
//! Runge–Kutta pair (`dop853.rs`, coefficients in `tableau.rs`) and of the RODAS Rosenbrock
//! method for stiff segments (`rodas.rs`), the accept/reject bookkeeping every adaptive loop
//! shares (`step_control.rs`), their dense output (`dense.rs`), guaranteed root
//! isolation of event functions on the dense polynomial (`roots/`), the mode-switching form
//! of a system (`hybrid/`), the event-driven loop (`driver/`), the Taylor-series loop for
//! models polynomial in the state (`taylor.rs`) and the named tolerances (`tolerances.rs`).

pub(crate) mod dense;
pub mod dop853;
pub mod driver;
pub mod hybrid;
pub(crate) mod rodas;
pub mod roots;
mod sparse_stage;
pub(crate) mod step;
pub(crate) mod step_control;
mod tableau;
pub(crate) mod taylor;
pub mod tolerances;

pub use driver::{integrate, Config, Method, Output, Section, SectionPoint, Trajectory};
pub use hybrid::Hybrid;
pub use roots::Direction;
pub use step::Tolerances;
