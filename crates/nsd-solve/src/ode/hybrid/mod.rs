//! The hybrid (mode-switching) form of an assembled system for time integration:
//! `M ẍ + C ẋ + K x + f_nl(x, ẋ, t; modes) = f(t)`, state `y = [x, ẋ]`.
//!
//! Each exact piecewise-linear gap has a mode (open, in contact on the positive side, on the
//! negative side); the right-hand side is evaluated from the **mode**, never from the sign of
//! the state, and each mode lists the event functions (linear in the state) whose crossings
//! end it. Smoothed gaps (paper 000, eq. 8) and polynomial springs are plain smooth forces.
//!
//! Here: `Hybrid`, split by lifetime into the fixed `Form` (`form.rs`: the system, `M⁻¹`,
//! the elements' parameters sorted by law, the attachments' positions and the walls'
//! motion), the `ModeState` the events switch (`state.rs`) and the caller's `Recording`;
//! and a gap's switch. The element laws are in `laws.rs`, `M⁻¹` in `mass.rs`, the
//! right-hand side and the energy in `rhs.rs` (its linear part in `linear.rs`), the event
//! functions in `events.rs`, friction's stick and slip in `settle.rs`, the 2-D friction
//! contacts (law, events, switches) in `contact2d.rs`, the bilateral constraints in
//! `constraints.rs`, the rigid stops' impacts in `stops.rs`, the contact forces reported at
//! output samples in `forces.rs` and the exact linearisation for the stiff method in
//! `tangent.rs`.

mod constraints;
mod contact2d;
mod events;
mod forces;
mod form;
mod lanes;
mod laws;
mod linear;
mod mass;
mod rhs;
mod series;
mod settle;
mod state;
mod stops;
mod tangent;
mod trig;

pub(crate) use events::{Action, Element, EventFn, JustSwitched};
use form::Form;
pub(crate) use lanes::{LaneStart, Tape, LANES};
pub(crate) use laws::{law_force, law_potential, ContactMode, FrictionMode, GapMode};
pub(crate) use series::Series;
pub(crate) use state::ModeState;

use nsd_model::flat::Sides;
use nsd_model::system::{Attach, System};

/// Why a system cannot be integrated (yet).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Unsupported {
    #[error("`{element}`: {what} is not integrated yet (the event-driven {what} engine is still to land)")]
    Element { element: String, what: &'static str },
    #[error("`{element}` has no smoothing, but `events = smooth` was asked for; add `smooth = sigmoid(δ)` to the gap")]
    Unsmoothed { element: String },
    #[error("the mass matrix is singular: some DOF carries no mass")]
    SingularMass,
    #[error("rigid bodies and joints are integrated by the multibody backends of paper 002 (`solve::multibody`), not by this one")]
    Multibody,
    #[error("the model has no DOFs to integrate")]
    Empty,
}

/// What the caller asks an integration to record besides the motion; none of it changes
/// the motion.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// Whether the output samples carry the contact forces (`contact_forces`); off for the
    /// callers that read the motion only.
    pub forces_at_samples: bool,
    /// The DOF whose largest |x| both integrators track on the dense output
    /// (`Trajectory::peak`); none when `None`.
    pub peak_of: Option<usize>,
    /// The state components each output sample keeps, in this order (`simulate`'s
    /// `record`); every one when `None`. The events, sections and final state keep all.
    pub sampled_components: Option<Vec<usize>>,
    /// Whether the integration records every switch of modes with the state after it
    /// (`Trajectory::switches`), for the monodromy of a periodic orbit.
    pub(crate) switches: bool,
}

/// The integrable form of a system, split by lifetime: what the model fixes, what the
/// events switch, what the caller records (the habit of diffsol's problem against its
/// solver state).
pub struct Hybrid<'s> {
    /// The system, `M⁻¹`, the linear part, loads, base motion and the elements'
    /// parameters (`form.rs`).
    pub form: Form<'s>,
    /// Every element's mode and internal state (`state.rs`).
    pub(crate) state: ModeState,
    pub record: Recording,
    /// The DOF forces of one evaluation (kept to spare an allocation per evaluation).
    force: Vec<f64>,
    /// Right-hand-side evaluations so far.
    pub(crate) evals: usize,
}

/// The DOF weights `w` of an element's relative coordinate `u = x_a − x_b`: `+1` on side a's
/// DOF, `−1` on side b's (a wall or the ground carries none).
fn weights(a: Attach, b: Attach) -> Vec<(usize, f64)> {
    [(a, 1.0), (b, -1.0)]
        .into_iter()
        .filter_map(|(side, sign)| match side {
            Attach::Dof(i) => Some((i, sign)),
            _ => None,
        })
        .collect()
}

impl<'s> Hybrid<'s> {
    pub fn new(sys: &'s System, smooth_only: bool) -> Result<Hybrid<'s>, Unsupported> {
        let n = sys.n();
        if sys.multibody.is_some() {
            return Err(Unsupported::Multibody);
        }
        if n == 0 {
            return Err(Unsupported::Empty);
        }
        let form = Form::new(sys, smooth_only)?;
        Ok(Hybrid {
            state: ModeState::new(&form),
            form,
            record: Recording::default(),
            force: vec![0.0; n],
            evals: 0,
        })
    }

    /// The length of the state `y = [x, ẋ]`.
    pub fn dim(&self) -> usize {
        2 * self.form.n
    }

    /// The DOF whose peak is tracked (`peak_of`) and the number of DOFs.
    pub(crate) fn peak_dof(&self) -> Option<(usize, usize)> {
        self.record.peak_of.map(|dof| (dof, self.form.n))
    }

    /// Modes consistent with a state (for the initial condition).
    pub(crate) fn set_modes_from_state(&mut self, t: f64, y: &[f64]) {
        let form = &self.form;
        for (gap, mode) in form.gaps.iter().zip(&mut self.state.gaps) {
            let u = form.relative(gap.a, gap.b, t, y);
            *mode = if gap.smooth.is_some() {
                GapMode::Open
            } else if u > gap.g && gap.sides != Sides::Negative {
                GapMode::Plus
            } else if u < -gap.g && gap.sides != Sides::Positive {
                GapMode::Minus
            } else {
                GapMode::Open
            };
        }
    }

    /// Records the penetration rate at a contact entry (for the laws that scale their
    /// damping by it).
    fn enter(&mut self, gap: usize, speed: f64) {
        if let Some(g) = self.state.entry_speed.get_mut(gap) {
            *g = speed.abs();
        }
    }

    /// Gap `gap` enters or leaves contact (mode `to`) at the relative velocity `speed`, kept
    /// for the laws that scale their damping by it; the mode it leaves and the one it takes.
    /// A two-sided gap leaving one side for the other goes straight into it when the open
    /// passage, `2g/|u̇|`, would end within `sliver` (the time the next search skips past
    /// the restart, where the other side's entry would be lost): a clearance of zero, or
    /// within round-off of it, is no open mode.
    pub(crate) fn switch_gap(
        &mut self,
        gap: usize,
        to: GapMode,
        speed: f64,
        sliver: f64,
    ) -> (GapMode, GapMode) {
        let to = match (self.form.gaps.get(gap), self.state.gaps[gap], to) {
            (Some(g), from, GapMode::Open)
                if g.sides == Sides::Both && 2.0 * g.g <= speed.abs() * sliver =>
            {
                match from {
                    GapMode::Plus if speed < 0.0 => GapMode::Minus,
                    GapMode::Minus if speed > 0.0 => GapMode::Plus,
                    _ => to,
                }
            }
            _ => to,
        };
        let from = std::mem::replace(&mut self.state.gaps[gap], to);
        self.enter(gap, speed);
        (from, to)
    }
}
