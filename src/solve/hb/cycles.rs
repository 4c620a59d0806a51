//! The friction contacts' converged cycles (`FrictionContact::cycle`) of the last few
//! displacements, per thread. At one point of a continuation the forces (`elements.rs`,
//! the residual and then, at the same point, its Jacobian) and the Hessian product
//! (`friction_hessian.rs`) each march the same cycle of every contact, and the march —
//! the transition search over two periods — is most of what each costs. Keyed by the
//! contact and its harmonics bit for bit, so a hit is what the march would return.

use super::friction::{FrictionContact, State};
use super::tolerances::CYCLES_KEPT;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// A converged cycle: `(start, end, state)` intervals covering `[2π, 4π]`.
pub(super) type Cycle = Vec<(f64, f64, State)>;

/// One marched cycle and what it was marched for.
struct Entry {
    contact: FrictionContact,
    x: Vec<f64>,
    y: Vec<f64>,
    cycle: Rc<Cycle>,
}

thread_local! {
    /// The last `CYCLES_KEPT` cycles of this thread, the newest last.
    static LAST: RefCell<VecDeque<Entry>> = const { RefCell::new(VecDeque::new()) };
}

/// The cycle of `contact` for the harmonics `x`, `y`: a kept one, else `march`'s, kept.
pub(super) fn cycle_of(
    contact: &FrictionContact,
    (x, y): (&[f64], &[f64]),
    march: impl FnOnce() -> Cycle,
) -> Rc<Cycle> {
    let kept = LAST.with_borrow(|last| {
        last.iter()
            .find(|e| e.contact == *contact && e.x == x && e.y == y)
            .map(|e| e.cycle.clone())
    });
    if let Some(cycle) = kept {
        return cycle;
    }
    let cycle = Rc::new(march());
    LAST.with_borrow_mut(|last| {
        if last.len() == CYCLES_KEPT {
            last.pop_front();
        }
        last.push_back(Entry {
            contact: *contact,
            x: x.to_vec(),
            y: y.to_vec(),
            cycle: cycle.clone(),
        });
    });
    cycle
}
