//! Harmonic balance (paper 003, eqs. 1–5): the periodic response `x(t) = q0 + Σ c_k cos kωt
//! + s_k sin kωt` of the assembled system solves `R(Q) = D(ω) Q + F_nl(Q) − F_ex = 0` with
//! the per-harmonic dynamic stiffness (eq. 5, ERRATA form)
//! `[[K − (kω)²M, kωC], [−kωC, K − (kω)²M]]` and the nonlinear forces by AFT (`aft.rs`)
//! with their exact Jacobian. Unknowns are harmonic-major: coefficient `p` of DOF `i` is
//! `Q[p·n + i]`, `p = 0, 1, 2, …` for `q0, c1, s1, …`.
//!
//! This is the residual/Jacobian core the continuation (`continue frf`, backbones) builds on:
//! `balance.rs` holds `Balance` (the residual, its Jacobian, the excitation, `cont::Problem`),
//! `elements.rs` the nonlinear forces, `start.rs` the starting guesses and the Newton solve at
//! one frequency, `hill/` the stability by Hill's method (full, or condensed onto the
//! nonlinear DOFs). Polynomial springs and smoothed
//! gaps go through the AFT; piecewise-linear free-play gaps through their exact contact
//! intervals (`gap.rs`; by AFT on request, `GapMethod`); Jenkins elements and 2-D friction
//! contacts through the exact friction element (`friction.rs`, paper 003 eqs. 24–43; its
//! transition times by `transition.rs`, its cycles shared within a point by `cycles.rs`, its motions tabulated by `trig.rs`), which
//! acts on the harmonics only (no static component, as in the paper). `hessian.rs` gives the
//! second derivatives of the nonlinear forces as products `∂(J_nlᵀλ)/∂Q` (eqs. 44–63; the
//! friction element's in `friction_hessian.rs`) for the backbone's ridge method. `condense.rs`
//! reduces the balance onto the nonlinear DOFs, `receptance.rs` states it in receptance form
//! on kept DOFs with the receptance's ω-derivatives (the backbone's condensed ridge),
//! `compliance.rs` is the forced balance in that form (`continue frf`); `tolerances.rs`
//! names every tolerance of the backend.

pub mod aft;
mod balance;
mod compliance;
mod condense;
mod cycles;
mod elements;
pub mod frf;
pub(crate) mod friction;
mod friction_hessian;
pub(crate) mod gap;
mod hessian;
mod hill;
mod linear;
mod receptance;
mod start;
mod states;
mod tolerances;
mod transition;
mod trig;

pub use aft::Aft;
pub use balance::{Balance, GapMethod, HbError};
pub use compliance::Compliance;
pub use condense::Condensed;
pub use hill::{full_hill_bytes, grows, Hill, Unresolved, Unstable};
pub use linear::Operator;
pub(crate) use receptance::Derivative;
pub use receptance::Receptance;
pub use states::ElementState;
