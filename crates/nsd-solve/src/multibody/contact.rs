//! Contact points at the clearance joints' gaps (`clearance.rs`), their modes and loads; the
//! loads are computed by `loads.rs`: the normal force of the
//! joint's compliant `law` (paper 002, eqs. 1–3, evaluated by the DOF gaps' `law_force`, so
//! both backends share one law) on the penetration `δ = −g` while the contact is closed, and
//! a regularised Coulomb friction `μ F_n` against the tangential slip at the contact point.
//!
//! Whether a contact is closed is a mode (`Modes`) switched by the integrator at the exact
//! crossing of `g = 0` on the dense output, so the law acts on `δ ≥ 0` up to the rounding of
//! the event (elastic laws continue smoothly past it, see `law_force`). The rate `δ̇⁻` at
//! entry scales the hysteresis damping of eq. 3.

use super::clearance::{Gap, Spec};
use super::joints::{Row, Side};
use nalgebra::Vector3;
use nsd_model::flat::ContactLaw;

type V3 = Vector3<f64>;

/// One contact point of a clearance joint.
#[derive(Debug, Clone)]
pub struct Contact {
    /// The joint's index in the mechanism.
    pub(crate) joint: usize,
    /// `joint.label`, e.g. `hinge.rim+`.
    pub name: String,
    pub(crate) spec: Spec,
    pub(crate) law: ContactLaw,
    pub(crate) mu: f64,
}

impl Contact {
    /// Whether the contact is rigid (`impact(e)`): impacts and persistent contact
    /// (`impacts.rs`) instead of a compliant force.
    pub fn rigid(&self) -> bool {
        matches!(self.law, ContactLaw::Impact { .. })
    }
}

/// The contact modes: closed or open (a closed rigid contact is held in persistent
/// contact, `impacts.rs`), and the penetration rate at the latest entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Modes {
    pub closed: Vec<bool>,
    pub(crate) entry_speed: Vec<f64>,
}

/// One contact's state and forces at one time.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    /// The gap `g` (m; negative = penetration) and its rate (m/s).
    pub gap: f64,
    pub rate: f64,
    /// The normal force (N, ≥ 0 pushes the sides apart) and the friction force on side 1
    /// (global, N).
    pub normal: f64,
    pub friction: V3,
    pub at: Gap,
}

/// The slip of `slip_velocity` along `d` (a unit vector in the tangent plane at `at`),
/// `d·(ṽ₁ − ṽ₀)` with `ṽ_k` side `k`'s velocity at the contact point, as a `Row` (`jr`, `jt`
/// global; `phi`, `gamma` zero): an impulse `β` along the row is the force `β d` on side 1 at
/// the contact point and its opposite on side 0, as `add_contact_forces` applies friction.
pub(super) fn tangent_row(sides: &[Side; 2], at: &Gap, d: &V3) -> Row {
    let arm = |s: &Side| (at.point - s.r).cross(d);
    Row {
        phi: 0.0,
        jr: [-d, *d],
        jt: [-arm(&sides[0]), arm(&sides[1])],
        gamma: 0.0,
    }
}
