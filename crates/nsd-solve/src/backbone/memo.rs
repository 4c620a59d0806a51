//! The last point's evaluation of a ridge system (`ridge.rs`, `reduced.rs`): a Newton step
//! of the continuation asks for the residual, the Jacobian and the level derivative at the
//! same point, and each needs the nonlinear forces with their Jacobian and, for the last
//! two, their Hessian contracted with the multipliers — where friction contacts' exact
//! cycles are most of a step's cost. Kept here, each is computed once per point.

use nalgebra::{DMatrix, DVector};
use std::cell::RefCell;
use std::rc::Rc;

/// What a form computes once per point: a vector and a matrix (the balance's residual and
/// Jacobian, or the nonlinear forces and theirs) and, when first asked, the contracted
/// Hessian.
pub(super) struct Eval {
    z: DVector<f64>,
    p: f64,
    pub(super) value: DVector<f64>,
    pub(super) jacobian: DMatrix<f64>,
    second: RefCell<Option<Rc<DMatrix<f64>>>>,
}

impl Eval {
    /// The contracted Hessian at this point, computed by `compute` on first use.
    pub(super) fn second(&self, compute: impl FnOnce() -> DMatrix<f64>) -> Rc<DMatrix<f64>> {
        if let Some(h) = self.second.borrow().as_ref() {
            return h.clone();
        }
        let h = Rc::new(compute());
        *self.second.borrow_mut() = Some(h.clone());
        h
    }
}

/// The last point's `Eval`.
#[derive(Default)]
pub(super) struct Memo {
    last: RefCell<Option<Rc<Eval>>>,
}

impl Memo {
    /// The evaluation at `(z, p)`: the last one if it was at the same point (bit for bit),
    /// else `compute`'s.
    pub(super) fn at(
        &self,
        z: &DVector<f64>,
        p: f64,
        compute: impl FnOnce() -> (DVector<f64>, DMatrix<f64>),
    ) -> Rc<Eval> {
        if let Some(e) = self.last.borrow().as_ref() {
            if e.p == p && e.z == *z {
                return e.clone();
            }
        }
        let (value, jacobian) = compute();
        let e = Rc::new(Eval {
            z: z.clone(),
            p,
            value,
            jacobian,
            second: RefCell::new(None),
        });
        *self.last.borrow_mut() = Some(e.clone());
        e
    }
}
