//! Motion regimes of systems with Coulomb contacts (paper 001): analytic boundaries from the
//! assembled system. This first part gives the motion / no-motion boundary; the continuous /
//! stick–slip boundary by modal superposition and the `sweep regimes` analysis build on it.

pub mod no_motion;
