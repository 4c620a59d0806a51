//! The loads of a mechanism's contacts at a state (`Mechanism::loads`): each clearance
//! joint's gap and rate, the compliant law's normal force while the contact is closed, the
//! regularised Coulomb friction against the slip at the contact point; the initial modes
//! and the contacts' potential energy. The contact types are `contact.rs`'s.

use super::clearance::Gap;
use super::contact::{Contact, Load, Modes};
use super::dynamics::Mechanism;
use super::joints::Side;
use super::state::{angular, linear};
use super::tolerances::FRICTION_SLIP_SPEED;
use crate::ode::hybrid::{law_force, law_potential};
use nalgebra::{DVector, Vector3};
use nsd_model::flat::ContactLaw;

type V3 = Vector3<f64>;

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
    pub(crate) fn initial_modes(&self, y: &[f64]) -> Modes {
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
                let f = f.as_mut_slice();
                for (d, (lin, ang)) in linear(*i).zip(angular(*i)).enumerate() {
                    f[lin] += force[d];
                    f[ang] += torque[d];
                }
            }
        }
    }

    /// The elastic energy stored in the contacts at `y` (J): the potential of each law's
    /// elastic part at `δ = max(−g, 0)`.
    pub(crate) fn contact_energy(&self, y: &[f64]) -> f64 {
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
    pub(crate) fn held(&self, modes: &Modes) -> Vec<usize> {
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
