//! Rigid multibody dynamics (paper 002): bodies in position and Euler parameters, the
//! Newton–Euler equations with the gyroscopic term, ideal joints as bilateral constraints,
//! integrated by the `events` backend (DOP853 with coordinate projection) or by the paper's
//! `timestepping` scheme (rigid contact, Gauss's principle per step: `timestepping.rs`).
//!
//! # Formulation and stabilisation
//! The equations are solved in index-1 form: each right-hand side evaluation solves the
//! augmented system `[M Φ_qᵀ; Φ_q 0] [v̇; −λ] = [Q_A − S; γ]` (by its Schur complement,
//! `dynamics.rs`), so the accelerations meet the joints exactly and `λ` gives the reactions.
//! Index-1 equations drift at position and velocity level (by the integration error, growing
//! polynomially); after every accepted step, and at every output sample, the state is
//! projected: `|p| = 1`, `q` onto `Φ(q) = 0` by mass-weighted Newton and `v` onto
//! `Φ_q v = 0` (Hairer, Lubich and Roche's coordinate projection). That bounds the drift by
//! the projection tolerance (`PROJECTION_TOL`, 1e-13) by construction, and unlike Baumgarte
//! stabilisation it has no gain to tune and adds no artificial stiffness or damping to the
//! energy balance. The norm constraint of the Euler parameters (eq. 14) is kept at velocity
//! level by the rates of eq. 9 (`pᵀṗ = 0`) and at position level by the normalisation.
//!
//! # Clearance joints
//! A joint with a clearance keeps only the bilateral rows its gaps do not replace
//! (`clearance.rs`); the gaps carry a compliant contact force `F ∇g` and a regularised
//! friction (`contact.rs`), switched on and off at events located on the dense output
//! (`events.rs`), so the contact modes are part of the integrator's state. A rigid law
//! (`impact(e)`) makes each closure an impact of the whole mechanism and a contact at rest a
//! held bilateral row (`impacts.rs`).
//!
//! # Time stepping
//! `method = timestepping` takes the paper's own route (Sect. 2.1.4): per step a convex QP
//! (Gauss's principle with the joints and gaps linearised, eqs. 17–24, `gauss.rs`, solved
//! from the previous step's active contacts by `active_set.rs`, else by Lemke's method in
//! `lcp.rs`; `timestep.rs`), rigid contacts (inelastic, or Newton's restitution for
//! `impact(e)`) with Coulomb friction in a polyhedral cone (`friction.rs`), the positions projected onto the joints and the open gaps after every
//! step and the velocities onto the joints, and the step size chosen in `[h_min, h_max]` by
//! the drift of the linearised constraints.
//!
//! Velocities are `[ṙ, ω']` (body-frame angular velocity, eq. 8), six per body, so the
//! mass matrix is constant and diagonal in principal axes. Where each body's coordinates sit
//! in the state and in the six-per-body vectors is named in `state.rs`.
//!
//! # References
//! P. E. Nikravesh, *Computer-Aided Analysis of Mechanical Systems*, Prentice Hall 1988
//! (Euler parameters, ch. 6; joints, ch. 7). E. Hairer, C. Lubich and M. Roche, *The
//! Numerical Solution of Differential-Algebraic Systems by Runge–Kutta Methods*, LNM 1409,
//! 1989 (projection).

mod active_set;
mod clearance;
mod contact;
mod dynamics;
mod events;
mod extremes;
mod friction;
mod gauss;
mod gram;
mod impacts;
mod integrate;
mod joints;
mod kinematics;
mod lcp;
mod loads;
mod run;
mod state;
mod timestep;
mod timestepping;
pub mod tolerances;

pub use contact::{Contact, Load, Modes};
pub use dynamics::{BodyState, Degenerate, Mechanism};
pub use integrate::integrate;
pub use run::{ContactEvent, Failed, Run, RunError, Settings, StepForces, StepRecord};
pub use timestepping::{timestep, Stepping};
