//! The 2-D friction contact with normal load variation (paper 003, Sect. 3, eqs. 24–29): a
//! tangential spring `kt` in series with a slider of limit `μN`, and a normal spring `kn`
//! with preload `N₀`, on the relative displacements `u_t = t·d`, `u_n = n·d` of its two
//! sides (`d` in the plane of the element's two directions, `t = (cos α, sin α)`,
//! `n = (−sin α, cos α)`; `u_n > 0` compresses the contact, as in the harmonic balance's
//! element, `hb/elements.rs`). The slider position `w` is the internal state.
//!
//! Forces (eqs. 24–25): `N = N₀ + kn u_n` in contact, `T = kt (u_t − w)` stuck, `T = ξ μ N`
//! slipping (`ξ = ±1`, the slider following so that `T` stays on the limit), `T = N = 0`
//! separated. Transitions, each an event function linear in the state (divided by `kt`, so
//! in units of displacement): stick → slip where `±kt (u_t − w) − μ (N₀ + kn u_n)` rises
//! through zero (eq. 26); slip → stick where the slider's velocity
//! `ξ kt u̇_t − μ kn u̇_n` falls through zero (eq. 27: it reduces to Jenkins' `u̇_t = 0` for
//! a constant load); contact → separation where `N` falls through zero (eq. 28); separation
//! → contact where it rises again (eq. 29), sticking with `T = 0` unless the tangential
//! force would grow faster than the limit (`|kt u̇_t| > μ kn u̇_n`), in which case it slides
//! from the touch-down — the rule of the harmonic balance's element (`hb/friction.rs`).
//! The mode and `w` are the contact's `Contact2dState`, kept in the hybrid form's
//! `ModeState`; `Contact2d` holds the fixed law.

use super::events::{Action, EventFn};
use super::laws::{Contact2dState, ContactMode};
use super::{weights, Hybrid};
use crate::ode::roots::Direction;
use nsd_model::system::Attach;

/// A 2-D friction contact's fixed law (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Contact2d {
    pub(crate) name: String,
    /// The DOF weights of `u_t` and `u_n`.
    pub(super) tw: Vec<(usize, f64)>,
    pub(super) nw: Vec<(usize, f64)>,
    pub(super) kt: f64,
    pub(super) kn: f64,
    pub(super) mu: f64,
    pub(super) n0: f64,
}

/// `Σ wᵢ zᵢ`.
fn along(w: &[(usize, f64)], z: &[f64]) -> f64 {
    w.iter().map(|&(i, wi)| wi * z[i]).sum()
}

/// `Σₖ cₖ wₖ` over the listed weight vectors, zero coefficients dropped (repeated DOFs are
/// summed by every user of the weights).
fn combine(parts: &[(f64, &[(usize, f64)])]) -> Vec<(usize, f64)> {
    parts
        .iter()
        .filter(|(c, _)| *c != 0.0)
        .flat_map(|&(c, w)| w.iter().map(move |&(i, wi)| (i, c * wi)))
        .collect()
}

impl Contact2d {
    /// The contact of `name` between sides `a`, `b` (`[first, second]` direction each) with
    /// the contact angle `angle`; `None` when a side is the moving base.
    pub(super) fn new(
        name: String,
        a: &[Attach],
        b: &[Attach],
        (kt, kn, mu, n0): (f64, f64, f64, f64),
        angle: f64,
    ) -> Option<Contact2d> {
        if a.iter().chain(b).any(|s| matches!(s, Attach::Base(_))) {
            return None;
        }
        let (s, c) = angle.sin_cos();
        let (d1, d2) = (weights(a[0], b[0]), weights(a[1], b[1]));
        Some(Contact2d {
            name,
            tw: combine(&[(c, d1.as_slice()), (s, d2.as_slice())]),
            nw: combine(&[(-s, d1.as_slice()), (c, d2.as_slice())]),
            kt,
            kn,
            mu,
            n0,
        })
    }

    /// `(u_t, u_n)` of the displacements `x`, or their rates of the velocities.
    pub(super) fn relative(&self, x: &[f64]) -> (f64, f64) {
        (along(&self.tw, x), along(&self.nw, x))
    }

    /// The normal load `N₀ + kn u_n` of the contact law (whatever the mode).
    fn load(&self, un: f64) -> f64 {
        self.n0 + self.kn * un
    }

    /// `(T, N)` in the state `s` at `(u_t, u_n)` (eqs. 24–25).
    pub(super) fn forces(&self, s: Contact2dState, (ut, un): (f64, f64)) -> (f64, f64) {
        match s.mode {
            ContactMode::Separated => (0.0, 0.0),
            ContactMode::Stick => (self.kt * (ut - s.w), self.load(un)),
            slip => (slip.xi() * self.mu * self.load(un), self.load(un)),
        }
    }

    /// Whether the tangent in `mode` is symmetric: a sliding contact couples `T` to
    /// `u_n` (`∂T/∂u_n = ξ μ kn`) but not `N` to `u_t`.
    pub(super) fn symmetric_tangent(&self, mode: ContactMode) -> bool {
        mode.xi() == 0.0 || self.mu * self.kn == 0.0 || self.nw.is_empty()
    }

    /// `(∂T/∂u_t, ∂N/∂u_n)` in `mode` (the symmetric part of the tangent).
    pub(super) fn stiffness(&self, mode: ContactMode) -> (f64, f64) {
        match mode {
            ContactMode::Separated => (0.0, 0.0),
            ContactMode::Stick => (self.kt, self.kn),
            _ => (0.0, self.kn),
        }
    }

    /// The mode a touch-down at the relative velocities `(u̇_t, u̇_n)` enters.
    fn touch_down(&self, (vt, vn): (f64, f64)) -> ContactMode {
        let (rate, limit) = (self.kt * vt, self.mu * self.kn * vn);
        if rate.abs() <= limit {
            ContactMode::Stick
        } else if rate > 0.0 {
            ContactMode::SlipPos
        } else {
            ContactMode::SlipNeg
        }
    }
}

impl Hybrid<'_> {
    /// The event functions of contact `ci` in its mode (see the module docs).
    pub(super) fn contact_events(&self, ci: usize, out: &mut Vec<EventFn>) {
        let ct = &self.form.contacts[ci];
        let s = self.state.contacts[ci];
        let action = |to| Action::Contact2d { element: ci, to };
        let (limit, normal) = (ct.mu * ct.kn / ct.kt, ct.kn / ct.kt);
        let push = |out: &mut Vec<EventFn>, w, c, dir, to| {
            out.push(EventFn {
                w,
                c,
                wall: None,
                dir,
                action: action(to),
            })
        };
        // N/kt falling (separation) or rising (touch-down); none for a constant load.
        let load = |out: &mut Vec<EventFn>, dir, to| {
            if !ct.nw.is_empty() {
                let w = combine(&[(normal, ct.nw.as_slice())]);
                push(out, w, ct.n0 / ct.kt, dir, to);
            }
        };
        match s.mode {
            ContactMode::Stick => {
                for (sign, to) in [(1.0, ContactMode::SlipPos), (-1.0, ContactMode::SlipNeg)] {
                    let w = combine(&[(sign, ct.tw.as_slice()), (-limit, ct.nw.as_slice())]);
                    let c = -sign * s.w - ct.mu * ct.n0 / ct.kt;
                    push(out, w, c, Direction::Rising, to);
                }
                load(out, Direction::Falling, ContactMode::Separated);
            }
            ContactMode::SlipPos | ContactMode::SlipNeg => {
                let w = combine(&[(s.mode.xi(), ct.tw.as_slice()), (-limit, ct.nw.as_slice())]);
                let w = self.on_velocities(&w);
                push(out, w, 0.0, Direction::Falling, ContactMode::Stick);
                load(out, Direction::Falling, ContactMode::Separated);
            }
            ContactMode::Separated => load(out, Direction::Rising, ContactMode::Stick),
        }
    }

    /// The tangential relative velocity `u̇_t` of contact `ci` at the state `y`.
    pub(crate) fn contact_slip_rate(&self, ci: usize, y: &[f64]) -> f64 {
        self.form.contacts[ci].relative(&y[self.form.n..]).0
    }

    /// Switches contact `ci` at the state `y` towards `to` and returns the mode taken: a
    /// slip that stops re-sticks the slider where the spring carries the force it had (`T`
    /// continuous), a touch-down sticks unstressed or slides (see the module docs).
    pub(crate) fn switch_contact(&mut self, ci: usize, to: ContactMode, y: &[f64]) -> ContactMode {
        let (x, v) = y.split_at(self.form.n);
        let (ct, s) = (&self.form.contacts[ci], &mut self.state.contacts[ci]);
        let u = ct.relative(x);
        let to = match (s.mode, to) {
            (ContactMode::Separated, _) => ct.touch_down(ct.relative(v)),
            _ => to,
        };
        if to == ContactMode::Stick {
            s.w = u.0 - ct.forces(*s, u).0 / ct.kt;
        }
        s.mode = to;
        to
    }

    /// Initial contact states: stuck and unstressed tangentially (`w = u_t(t₀)`) where the
    /// normal load is positive, else separated.
    pub(super) fn set_contacts_from_state(&mut self, y: &[f64]) {
        let contacts = self.form.contacts.iter().zip(&mut self.state.contacts);
        for (ct, s) in contacts {
            let (ut, un) = ct.relative(&y[..self.form.n]);
            s.w = ut;
            s.mode = if ct.load(un) > 0.0 {
                ContactMode::Stick
            } else {
                ContactMode::Separated
            };
        }
    }
}
