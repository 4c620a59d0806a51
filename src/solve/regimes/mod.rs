//! Motion regimes of systems with one Coulomb contact (paper 001): the contact and its
//! excitation in a wall-independent form (`contact.rs`), the analytic motion / no-motion
//! threshold (`no_motion.rs`) and continuous / stick–slip boundary (`stick_slip.rs`), and the
//! numerical classification of a simulated steady state (`classify.rs`). The `sweep regimes`
//! analysis maps them over two parameters.

pub mod classify;
pub mod contact;
pub mod exact;
pub mod no_motion;
mod sinusoids;
pub mod stick_slip;
mod tolerances;
