//! The hybrid (mode-switching) form of an assembled system for time integration:
//! `M ẍ + C ẋ + K x + f_nl(x, ẋ, t; modes) = f(t)`, state `y = [x, ẋ]`.
//!
//! Each exact piecewise-linear gap has a mode (open, in contact on the positive side, on the
//! negative side); the right-hand side is evaluated from the **mode**, never from the sign of
//! the state, and each mode lists the event functions (linear in the state) whose crossings
//! end it. Smoothed gaps (paper 000, eq. 8) and polynomial springs are plain smooth forces.
//!
//! Here: the system's elements sorted by law, the attachments' positions and the walls'
//! motion. The element laws are in `laws.rs`, `M⁻¹` in `mass.rs`, the right-hand side and
//! the energy in `rhs.rs` (its linear part in `linear.rs`), the event functions in `events.rs`, friction's stick and slip in
//! `settle.rs`, the 2-D friction contacts (law, events, switches) in `contact2d.rs`, the bilateral constraints in `constraints.rs`, the rigid stops' impacts
//! in `stops.rs`, the contact forces reported at output samples in `forces.rs` and the exact
//! linearisation for the stiff method in `tangent.rs`.

mod constraints;
mod contact2d;
mod events;
mod forces;
mod lanes;
mod laws;
mod linear;
mod mass;
mod rhs;
mod series;
mod settle;
mod stops;
mod tangent;
mod trig;

pub use contact2d::Contact2d;
pub use events::{Action, Element, EventFn, JustSwitched};
pub use lanes::{LaneStart, Tape, LANES};
pub use laws::{
    law_force, law_potential, ContactGap, ContactMode, Coulomb, FrictionMode, GapMode, Jenkins,
    RigidStop,
};
pub use series::Series;

use linear::LinearPart;
use mass::MassSolver;
use nsd_model::flat::{Dir, Friction, Sides};
use nsd_model::system::{Attach, Nonlinearity, System};
use nsd_model::time_fn::Prepared;
use tangent::TangentForm;

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
    pub switches: bool,
}

/// The integrable form of a system.
pub struct Hybrid<'s> {
    sys: &'s System,
    n: usize,
    mass: MassSolver,
    pub gaps: Vec<ContactGap>,
    pub stops: Vec<RigidStop>,
    /// Exact gaps' modes (smoothed gaps have no mode and stay `Open`).
    pub modes: Vec<GapMode>,
    poly: Vec<(Attach, Attach, f64, f64)>,
    /// Base motion per direction: `y`, `ẏ`, `ÿ`.
    base: Vec<(Dir, Prepared, Prepared, Prepared)>,
    /// The DOF forces, prepared for fast evaluation.
    loads: Vec<(usize, Prepared)>,
    /// `K` and `C` in the layout of their product (`linear.rs`).
    linear: LinearPart,
    pub friction: Vec<Coulomb>,
    pub jenkins: Vec<Jenkins>,
    pub contacts: Vec<Contact2d>,
    force: Vec<f64>,
    /// What the caller asks the integration to record.
    pub record: Recording,
    /// The exact linearisation's pattern and storage (`None` for asymmetric `M`, `K`, `C`).
    tangent: Option<TangentForm>,
    /// Right-hand-side evaluations so far.
    pub evals: usize,
}

/// The modes of every element with the internal states that go with them: what a switch
/// changes. `periodic` shooting saves them at each switch and puts them back to integrate
/// each smooth segment of an orbit again in its own modes.
#[derive(Debug, Clone)]
pub struct ModeState {
    modes: Vec<GapMode>,
    gaps: Vec<ContactGap>,
    friction: Vec<FrictionMode>,
    jenkins: Vec<Jenkins>,
    contacts: Vec<Contact2d>,
    stops: Vec<RigidStop>,
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

/// The nonlinear elements of a system, sorted by how the integration treats them.
#[derive(Default)]
struct Elements {
    gaps: Vec<ContactGap>,
    stops: Vec<RigidStop>,
    poly: Vec<(Attach, Attach, f64, f64)>,
    jenkins: Vec<Jenkins>,
    contacts: Vec<Contact2d>,
    /// Rigid Coulomb contacts: name, sides and slip force (their `M⁻¹w` needs the mass
    /// solver).
    coulomb: Vec<(String, Attach, Attach, f64)>,
}

impl Elements {
    /// Sorts the elements of `sys`; with `smooth_only`, every gap must be smoothed.
    fn sort(sys: &System, smooth_only: bool) -> Result<Elements, Unsupported> {
        let mut out = Elements::default();
        for el in &sys.nonlinear {
            let (a, b) = (el.a[0], el.b[0]);
            let name = el.name.clone();
            match &el.law {
                Nonlinearity::Polynomial { k2, k3 } => out.poly.push((a, b, *k2, *k3)),
                Nonlinearity::Gap(g) => {
                    if let nsd_model::flat::ContactLaw::Impact { e } = g.law {
                        out.stops.push(RigidStop {
                            name,
                            a,
                            b,
                            g: g.clearance,
                            sides: g.sides,
                            e,
                            held: None,
                        });
                        continue;
                    }
                    if smooth_only && g.smooth.is_none() {
                        return Err(Unsupported::Unsmoothed { element: name });
                    }
                    out.gaps.push(ContactGap {
                        name,
                        a,
                        b,
                        law: g.law,
                        g: g.clearance,
                        sides: g.sides,
                        smooth: g.smooth,
                        entry_speed: 0.0,
                    });
                }
                Nonlinearity::Friction(Friction::Coulomb { slip_force }) => {
                    out.coulomb.push((name, a, b, *slip_force));
                }
                Nonlinearity::Friction(Friction::Jenkins { kt, slip_force }) => {
                    out.jenkins.push(Jenkins {
                        name,
                        a,
                        b,
                        kt: *kt,
                        slip: *slip_force,
                        mode: FrictionMode::Stick,
                        z: 0.0,
                    });
                }
                Nonlinearity::Friction(Friction::Contact2d {
                    kt,
                    kn,
                    mu,
                    n0,
                    angle,
                    ..
                }) => {
                    let contact =
                        Contact2d::new(name.clone(), &el.a, &el.b, (*kt, *kn, *mu, *n0), *angle)
                            .ok_or(Unsupported::Element {
                                element: name,
                                what: "a 2-D friction contact against the moving base",
                            })?;
                    out.contacts.push(contact);
                }
            }
        }
        Ok(out)
    }
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
        let elements = Elements::sort(sys, smooth_only)?;
        let mass = MassSolver::new(sys)?;
        let base = sys
            .base
            .iter()
            .map(|b| {
                let dy = b.y.derivative();
                let ddy = dy.derivative();
                (
                    b.dir,
                    Prepared::new(&b.y),
                    Prepared::new(&dy),
                    Prepared::new(&ddy),
                )
            })
            .collect();
        let loads = sys
            .forces
            .iter()
            .map(|f| (f.dof, Prepared::new(&f.f)))
            .collect();
        let friction = elements
            .coulomb
            .into_iter()
            .map(|(name, a, b, slip)| {
                let w = weights(a, b);
                let minv_w = mass.solve_sparse(n, &w);
                Coulomb {
                    name,
                    a,
                    b,
                    slip,
                    mode: FrictionMode::Free,
                    w,
                    minv_w,
                }
            })
            .collect();
        let poly: Vec<_> = elements.poly.iter().map(|p| weights(p.0, p.1)).collect();
        let gaps: Vec<_> = elements.gaps.iter().map(|g| weights(g.a, g.b)).collect();
        let jenkins: Vec<_> = elements.jenkins.iter().map(|j| weights(j.a, j.b)).collect();
        let tangent = TangentForm::new(sys, [&poly, &gaps, &jenkins], &elements.contacts);
        Ok(Hybrid {
            tangent,
            loads,
            linear: LinearPart::new(sys),
            sys,
            n,
            mass,
            modes: vec![GapMode::Open; elements.gaps.len()],
            gaps: elements.gaps,
            stops: elements.stops,
            poly: elements.poly,
            base,
            friction,
            jenkins: elements.jenkins,
            contacts: elements.contacts,
            force: vec![0.0; n],
            record: Recording::default(),
            evals: 0,
        })
    }

    /// The length of the state `y = [x, ẋ]`.
    pub fn dim(&self) -> usize {
        2 * self.n
    }

    /// The DOF whose peak is tracked (`peak_of`) and the number of DOFs.
    pub(crate) fn peak_dof(&self) -> Option<(usize, usize)> {
        self.record.peak_of.map(|dof| (dof, self.n))
    }

    /// Displacement (`order = 0`), velocity (1) or acceleration (2) of an attachment's wall.
    fn wall_rate(&self, a: Attach, t: f64, order: usize) -> f64 {
        match a {
            Attach::Base(d) => self
                .base
                .iter()
                .find(|b| b.0 == d)
                .map_or(0.0, |b| match order {
                    0 => b.1.eval(t),
                    1 => b.2.eval(t),
                    _ => b.3.eval(t),
                }),
            _ => 0.0,
        }
    }

    /// The moving wall's displacement (`order` 0), velocity (1) or acceleration (2).
    pub fn wall_motion(&self, d: Dir, t: f64, order: usize) -> f64 {
        self.wall_rate(Attach::Base(d), t, order)
    }

    /// The velocity of an attachment (`v` the DOF velocities; the base's `ẏ`). Inlined, like
    /// `pos`: the right-hand side calls both for every element on every evaluation.
    #[inline(always)]
    fn rate(&self, a: Attach, t: f64, v: &[f64]) -> f64 {
        match a {
            Attach::Base(_) => self.wall_rate(a, t, 1),
            _ => self.pos(a, t, v),
        }
    }

    /// The position of an attachment (`y` the DOF displacements; the base's `y`).
    #[inline(always)]
    fn pos(&self, a: Attach, t: f64, y: &[f64]) -> f64 {
        match a {
            Attach::Dof(i) => y[i],
            Attach::Ground => 0.0,
            Attach::Base(_) => self.wall_rate(a, t, 0),
        }
    }

    /// An element's relative displacement `u = x_a − x_b` (walls included). Inlined: the
    /// right-hand side calls it for every element on every evaluation.
    #[inline(always)]
    fn relative(&self, a: Attach, b: Attach, t: f64, x: &[f64]) -> f64 {
        self.pos(a, t, x) - self.pos(b, t, x)
    }

    /// Modes consistent with a state (for the initial condition).
    pub fn set_modes_from_state(&mut self, t: f64, y: &[f64]) {
        let modes: Vec<GapMode> = self
            .gaps
            .iter()
            .map(|gap| {
                let u = self.relative(gap.a, gap.b, t, y);
                if gap.smooth.is_some() {
                    GapMode::Open
                } else if u > gap.g && gap.sides != Sides::Negative {
                    GapMode::Plus
                } else if u < -gap.g && gap.sides != Sides::Positive {
                    GapMode::Minus
                } else {
                    GapMode::Open
                }
            })
            .collect();
        self.modes = modes;
    }

    /// The current modes of every element as a compact key (gaps, Coulomb contacts, Jenkins
    /// sliders, 2-D contacts, held stops).
    pub fn mode_key(&self) -> Vec<u8> {
        let gaps = self.modes.iter().map(|m| *m as u8);
        let friction = self.friction.iter().map(|c| c.mode as u8);
        let jenkins = self.jenkins.iter().map(|j| j.mode as u8);
        let contacts = self.contacts.iter().map(|c| c.mode as u8);
        let held = self.stops.iter().map(|s| u8::from(s.held.is_some()));
        gaps.chain(friction)
            .chain(jenkins)
            .chain(contacts)
            .chain(held)
            .collect()
    }

    /// The current modes (see `ModeState`).
    pub fn mode_state(&self) -> ModeState {
        ModeState {
            modes: self.modes.clone(),
            gaps: self.gaps.clone(),
            friction: self.friction.iter().map(|c| c.mode).collect(),
            jenkins: self.jenkins.clone(),
            contacts: self.contacts.clone(),
            stops: self.stops.clone(),
        }
    }

    /// Puts back modes saved by `mode_state`.
    pub fn set_mode_state(&mut self, m: &ModeState) {
        self.modes.clone_from(&m.modes);
        self.gaps.clone_from(&m.gaps);
        for (c, mode) in self.friction.iter_mut().zip(&m.friction) {
            c.mode = *mode;
        }
        self.jenkins.clone_from(&m.jenkins);
        self.contacts.clone_from(&m.contacts);
        self.stops.clone_from(&m.stops);
    }

    /// Records the penetration rate at a contact entry (for the laws that scale their
    /// damping by it).
    pub fn enter(&mut self, gap: usize, speed: f64) {
        if let Some(g) = self.gaps.get_mut(gap) {
            g.entry_speed = speed.abs();
        }
    }

    /// Gap `gap` enters or leaves contact (mode `to`) at the relative velocity `speed`, kept
    /// for the laws that scale their damping by it; the mode it leaves and the one it takes.
    /// A two-sided gap leaving one side for the other goes straight into it when the open
    /// passage, `2g/|u̇|`, would end within `sliver` (the time the next search skips past
    /// the restart, where the other side's entry would be lost): a clearance of zero, or
    /// within round-off of it, is no open mode.
    pub fn switch_gap(
        &mut self,
        gap: usize,
        to: GapMode,
        speed: f64,
        sliver: f64,
    ) -> (GapMode, GapMode) {
        let to = match (self.gaps.get(gap), self.modes[gap], to) {
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
        let from = std::mem::replace(&mut self.modes[gap], to);
        self.enter(gap, speed);
        (from, to)
    }
}
