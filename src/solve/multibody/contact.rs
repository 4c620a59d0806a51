//! Contact forces at the clearance joints' gaps (`clearance.rs`): the normal force of the
//! joint's compliant `law` (paper 002, eqs. 1–3, evaluated by the DOF gaps' `law_force`, so
//! both backends share one law) on the penetration `δ = −g` while the contact is closed, and
//! a regularised Coulomb friction `μ F_n` against the tangential slip at the contact point.
//!
//! Whether a contact is closed is a mode (`Modes`) switched by the integrator at the exact
//! crossing of `g = 0` on the dense output, so the law acts on `δ ≥ 0` up to the rounding of
//! the event (elastic laws continue smoothly past it, see `law_force`). The rate `δ̇⁻` at
//! entry scales the hysteresis damping of eq. 3.

use super::clearance::{Gap, Spec};
use super::dynamics::Mechanism;
use super::joints::{Row, Side};
use super::tolerances::FRICTION_SLIP_SPEED;
use crate::model::flat::ContactLaw;
use crate::solve::ode::hybrid::{law_force, law_potential};
use nalgebra::{DVector, Vector3};

type V3 = Vector3<f64>;

/// One contact point of a clearance joint.
#[derive(Debug, Clone)]
pub struct Contact {
    /// The joint's index in the mechanism.
    pub joint: usize,
    /// `joint.label`, e.g. `hinge.rim+`.
    pub name: String,
    pub spec: Spec,
    pub law: ContactLaw,
    pub mu: f64,
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
    pub entry_speed: Vec<f64>,
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

/// The elastic part of a law (its potential): the Hertz or linear spring of a damped law.
fn elastic(law: ContactLaw) -> ContactLaw {
    match law {
        ContactLaw::HuntCrossley { k, n, .. } | ContactLaw::LankaraniNikravesh { k, n, .. } => {
            ContactLaw::Hertz { k, n }
        }
        ContactLaw::KelvinVoigt { k, .. } => ContactLaw::Linear { k },
        other => other,
    }
}

impl Mechanism {
    /// The contact modes at the state `y`: closed where the gap is negative.
    pub fn initial_modes(&self, y: &[f64]) -> Modes {
        let closed: Vec<bool> = self.loads(y, None).iter().map(|l| l.gap < 0.0).collect();
        Modes {
            entry_speed: vec![0.0; closed.len()],
            closed,
        }
    }

    /// Every contact's gap, rate and forces at `y` (forces only where `modes` says closed;
    /// none without `modes`).
    pub fn loads(&self, y: &[f64], modes: Option<&Modes>) -> Vec<Load> {
        (0..self.contacts.len())
            .map(|k| self.load(y, modes, k))
            .collect()
    }

    /// Contact `k`'s gap, rate and forces at `y`, as `loads`.
    pub(super) fn load(&self, y: &[f64], modes: Option<&Modes>, k: usize) -> Load {
        let c = &self.contacts[k];
        let joint = &self.joints[c.joint];
        let sides = joint.sides.map(|s| self.side(y, s));
        let at = c.spec.gap(&joint.geometry, &sides);
        let row = &at.row;
        let rate: f64 = (0..2)
            .map(|s| row.jr[s].dot(&sides[s].v) + row.jt[s].dot(&sides[s].w))
            .sum();
        let (mut normal, mut friction) = (0.0, V3::zeros());
        if let Some(m) = modes.filter(|m| m.closed[k]) {
            normal = law_force(c.law, -row.phi, -rate, m.entry_speed[k]);
            if c.mu > 0.0 && normal > 0.0 {
                let slip = slip_velocity(&sides, &at);
                let scale = (slip.norm_squared() + FRICTION_SLIP_SPEED.powi(2)).sqrt();
                friction = slip * (-c.mu * normal / scale);
            }
        }
        Load {
            gap: row.phi,
            rate,
            normal,
            friction,
            at,
        }
    }

    /// Adds the generalised contact forces at `y` in `modes` to `f` (per body: global force,
    /// body-frame torque, as in `solve`).
    pub(super) fn add_contact_forces(&self, y: &[f64], modes: &Modes, f: &mut DVector<f64>) {
        for (c, load) in self.contacts.iter().zip(self.loads(y, Some(modes))) {
            if load.normal == 0.0 && load.friction == V3::zeros() {
                continue;
            }
            let joint = &self.joints[c.joint];
            for (k, body) in joint.sides.iter().enumerate() {
                let Some(i) = body else { continue };
                let side = self.side(y, Some(*i));
                let sign = if k == 1 { 1.0 } else { -1.0 };
                let ft = load.friction * sign;
                let row = &load.at.row;
                let force = row.jr[k] * load.normal + ft;
                let torque = row.jt[k] * load.normal + (load.at.point - side.r).cross(&ft);
                let torque = side.a.transpose() * torque;
                for d in 0..3 {
                    f[6 * i + d] += force[d];
                    f[6 * i + 3 + d] += torque[d];
                }
            }
        }
    }

    /// The elastic energy stored in the contacts at `y` (J): the potential of each law's
    /// elastic part at `δ = max(−g, 0)`.
    pub fn contact_energy(&self, y: &[f64]) -> f64 {
        self.contacts
            .iter()
            .zip(self.loads(y, None))
            .map(|(c, l)| law_potential(elastic(c.law), -l.gap).unwrap_or(0.0))
            .sum()
    }

    /// The contacts, in the order of `Modes` and `loads`.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// The rigid contacts held in persistent contact in `modes`, ascending.
    pub fn held(&self, modes: &Modes) -> Vec<usize> {
        if !self.any_rigid {
            return Vec::new();
        }
        (0..self.contacts.len())
            .filter(|&k| modes.closed[k] && self.contacts[k].rigid())
            .collect()
    }
}

/// The tangential velocity of side 1 relative to side 0 at the contact point.
fn slip_velocity(sides: &[Side; 2], at: &Gap) -> V3 {
    let v = |s: &Side| s.v + s.w.cross(&(at.point - s.r));
    let rel = v(&sides[1]) - v(&sides[0]);
    let n = at.row.jr[1];
    rel - n * n.dot(&rel)
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
