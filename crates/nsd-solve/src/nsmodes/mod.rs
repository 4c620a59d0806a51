//! Nonsmooth modes of impact oscillators (paper 004): periodic orbits of a conservative
//! linear system with one unilateral contact and an elastic impact, `k` impacts per period,
//! as families over the period. `spectral` is the modal core and the paper's functions,
//! `orbit` one potential solution with its closed-form motion and the NC3 proof, `families`
//! the one- and two-impact families and the roots and edges that bound them, `search` the
//! solutions with three impacts and more.

mod families;
mod orbit;
mod search;
mod spectral;
mod tolerances;

pub use families::{bridges, one_impact, one_impact_edge, phi_roots, two_impacts, Bridge, Tracker};
pub use orbit::{Admissibility, Orbit};

pub use spectral::{Oscillator, Period, SpectralError};
