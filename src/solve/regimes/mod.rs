//! Motion regimes of systems with Coulomb contacts (paper 001): analytic boundaries from the
//! assembled system: the motion / no-motion threshold (`no_motion.rs`) and the continuous /
//! stick–slip boundary by modal superposition (`stick_slip.rs`); the `sweep regimes`
//! analysis builds on them.

pub mod no_motion;
pub mod stick_slip;
