//! The friction contacts' marched cycles (`FrictionContact::cycle`) of the last few
//! displacements, per thread, with the motions' tables they were marched on and, once
//! integrated, the forces. At one point of a continuation the residual, then the Jacobian
//! (`elements.rs`), then the Hessian product (`friction_hessian.rs`) each need the same
//! cycle of every contact, and the march — the transition search over two periods on
//! freshly built tables — is most of what each costs. Keyed by the contact and its
//! harmonics bit for bit, so a kept entry is what the march would return.

use super::friction::{ContactForces, FrictionContact, State};
use super::tolerances::CYCLES_KEPT;
use super::trig::Trig;
use std::cell::{OnceCell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

/// A converged cycle: `(start, end, state)` intervals covering `[2π, 4π]`.
pub(super) type Cycle = Vec<(f64, f64, State)>;

/// One contact's cycle at one displacement.
pub(super) struct Marched {
    /// The tangential and normal motions, tabulated on the search grid (`Trig::pair`).
    pub x: Trig,
    pub y: Trig,
    pub cycle: Cycle,
    /// The forces and their stiffness integrated over the cycle, once asked.
    pub forces: OnceCell<ContactForces>,
}

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
