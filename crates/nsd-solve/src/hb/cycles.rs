//! The friction contacts' marched cycles (`FrictionContact::cycle`) of the last few
//! displacements, per thread, with the motions' tables they were marched on and, once
//! integrated, the forces. At one point of a continuation the residual, then the Jacobian
//! (`elements.rs`), then the Hessian product (`friction_hessian.rs`) each need the same
//! cycle of every contact, and the march — the transition search over two periods on
//! freshly built tables — is most of what each costs. Keyed by the contact and its
//! harmonics bit for bit, so a kept entry is what the march would return.

use super::friction::{ContactForces, FrictionContact, Marched, State};
use super::tolerances::CYCLES_KEPT;
use super::trig::Trig;
use std::cell::{OnceCell, RefCell};
use std::collections::VecDeque;
use std::f64::consts::TAU;
use std::rc::Rc;

thread_local! {
    /// The last `CYCLES_KEPT` cycles of this thread with their contacts, the newest last.
    static LAST: RefCell<VecDeque<(FrictionContact, Rc<Marched>)>> =
        const { RefCell::new(VecDeque::new()) };
}

/// The cycle of `contact` for the harmonics `x`, `y`: a kept one, else marched and kept.
pub(super) fn marched(contact: &FrictionContact, x: &[f64], y: &[f64]) -> Rc<Marched> {
    let kept = LAST.with_borrow(|last| {
        last.iter()
            .find(|(c, m)| c == contact && m.x.coefficients() == x && m.y.coefficients() == y)
            .map(|(_, m)| m.clone())
    });
    if let Some(m) = kept {
        return m;
    }
    let (xt, yt) = Trig::pair(x, y);
    let cycle = contact.cycle(&xt, &yt, x.len() / 2);
    let m = Rc::new(Marched {
        x: xt,
        y: yt,
        cycle,
        forces: OnceCell::new(),
    });
    LAST.with_borrow_mut(|last| {
        if last.len() == CYCLES_KEPT {
            last.pop_front();
        }
        last.push_back((*contact, m.clone()));
    });
    m
}

/// The contact's forces and state fractions, from its kept cycle.
impl FrictionContact {
    /// The force harmonics and stiffness for displacement harmonics `x`, `y` (eqs. 30–43).
    pub(crate) fn forces(&self, x: &[f64], y: &[f64]) -> ContactForces {
        let m = marched(self, x, y);
        m.forces.get_or_init(|| self.integrated(&m, x, y)).clone()
    }

    /// The fractions of the period the converged cycle spends stuck, slipping and
    /// separated (the contact's state summary of a backbone point).
    pub(crate) fn state_fractions(&self, x: &[f64], y: &[f64]) -> [f64; 3] {
        let mut out = [0.0; 3];
        for &(a, b, state) in &marched(self, x, y).cycle {
            let slot = match state {
                State::Stick { .. } => 0,
                State::Slip { .. } => 1,
                State::Separated => 2,
            };
            out[slot] += (b - a) / TAU;
        }
        out
    }
}
