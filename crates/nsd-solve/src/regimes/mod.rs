//! Motion regimes of systems with one Coulomb contact (paper 001): the contact and its
//! excitation in a wall-independent form (`contact.rs`), the analytic motion / no-motion
//! threshold (`no_motion.rs`) and continuous / stick–slip boundary (`stick_slip.rs`), and the
//! numerical classification of a simulated steady state (`classify.rs`). The `sweep regimes`
//! analysis maps them over two parameters.

pub mod classify;
pub mod contact;
pub(crate) mod exact;
pub mod no_motion;
mod sinusoids;
pub mod stick_slip;
mod tolerances;

pub use contact::{setup, Wall};
pub use exact::Problem as ClosedForm;
pub use no_motion::{holding_force, peaks_and_antiresonances};
pub use stick_slip::{continuous_limit, StopFactor};
