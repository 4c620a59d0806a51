//! The event functions of the current modes: each is linear in the state, `Σ wᵢyᵢ + c`, plus
//! a moving-wall term when a side is the base, and names the crossing direction that ends the
//! mode and the action taken there — a gap's contact entry or exit, a rigid stop's impact, a
//! sliding Coulomb contact coming to rest, a Jenkins slider's stick or slip, a 2-D friction
//! contact's stick, slip, separation or touch-down (`contact2d.rs`).

use super::laws::ContactMode;
use super::laws::{ContactGap, FrictionMode, GapMode, Jenkins, JenkinsState};
use super::{weights, Hybrid};
use crate::ode::roots::Direction;
use crate::ode::tolerances::RESTART_SKIP;
use nsd_model::flat::{Dir, Sides};
use nsd_model::system::Attach;

/// What the crossing of an event function does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Action {
    /// A piecewise-linear gap changes mode.
    Switch { gap: usize, to: GapMode },
    /// A rigid stop is hit: the velocities jump by the impact law.
    Impact { stop: usize },
    /// A sliding Coulomb contact's relative velocity reaches zero.
    SlipEnds { contact: usize },
    /// A Jenkins element's spring force reaches `±F` (slip starts) or its sliding stops.
    Jenkins { element: usize, to: FrictionMode },
    /// A 2-D friction contact's stick, slip, separation or touch-down (`to` is `Stick` for a
    /// touch-down, whose mode is decided at the switch).
    Contact2d { element: usize, to: ContactMode },
}

/// The element whose mode an event function watches. After a switch, the event functions of
/// the elements just switched are searched from just past the restart point (their own
/// switching surface is where the motion starts); every other element's from the restart
/// point itself, so that its crossing at the same instant is not lost (two identical parts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Element {
    Gap(usize),
    Stop(usize),
    Friction(usize),
    Jenkins(usize),
    Contact(usize),
}

impl Action {
    /// The element whose mode this action changes.
    pub(crate) fn element(&self) -> Element {
        match *self {
            Action::Switch { gap, .. } => Element::Gap(gap),
            Action::Impact { stop } => Element::Stop(stop),
            Action::SlipEnds { contact } => Element::Friction(contact),
            Action::Jenkins { element, .. } => Element::Jenkins(element),
            Action::Contact2d { element, .. } => Element::Contact(element),
        }
    }
}

/// The elements switched at the instant the current step starts from (none after an
/// ordinary step end): where each element's crossing search starts.
#[derive(Debug, Default)]
pub(crate) struct JustSwitched(Vec<Element>);

impl JustSwitched {
    /// `elements` switched at a restart: with those switched before when the restart is at
    /// the same instant (`same_instant`: inside the skipped sliver of the last restart), so
    /// that none of them switches back and forth there; in their place otherwise.
    pub(crate) fn record(
        &mut self,
        elements: impl IntoIterator<Item = Element>,
        same_instant: bool,
    ) {
        if !same_instant {
            self.0.clear();
        }
        self.0.extend(elements);
    }

    /// The step starts at no switch.
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// Whether the step starts at a switch.
    pub(crate) fn at_restart(&self) -> bool {
        !self.0.is_empty()
    }

    /// Normalised step time from which `element`'s crossings are searched: just past the
    /// restart point (`RESTART_SKIP`) for an element switched there, whose own switching
    /// surface the motion starts on; from the restart point itself for every other element
    /// (a crossing there tested first, `roots::crosses_at_start`), so that its crossing at
    /// the same instant (two identical parts, started alike) is found and switched too
    /// rather than lost in the skipped sliver.
    pub(crate) fn skip(&self, element: Element) -> f64 {
        if self.0.contains(&element) {
            RESTART_SKIP
        } else {
            0.0
        }
    }
}

/// An event function `Σ w_i y_i + c`, the crossing direction that triggers it, and its action.
#[derive(Debug, Clone)]
pub(crate) struct EventFn {
    pub(crate) w: Vec<(usize, f64)>,
    pub(crate) c: f64,
    /// A moving-wall term `coef · y_dir(t)` (`order` 0) or `coef · ẏ_dir(t)` (`order` 1)
    /// added to the function (fitted by a polynomial over each step), for elements against
    /// the base: `(dir, coef, order)`.
    pub(crate) wall: Option<(Dir, f64, usize)>,
    pub(crate) dir: Direction,
    pub(crate) action: Action,
}

impl Hybrid<'_> {
    /// The event functions that can end the current modes, and the rigid stops' contacts:
    /// the gaps', the sliding contacts', the Jenkins sliders', the 2-D contacts' and the open
    /// stops', in this
    /// order (which breaks ties between simultaneous crossings).
    pub(crate) fn events(&self) -> Vec<EventFn> {
        let (form, state) = (&self.form, &self.state);
        let mut out = Vec::new();
        for (gi, (gap, &mode)) in form.gaps.iter().zip(&state.gaps).enumerate() {
            gap_events(gi, gap, mode, &mut out);
        }
        for (ci, (fc, mode)) in form.friction.iter().zip(&state.friction).enumerate() {
            let dir = match mode {
                FrictionMode::SlipPos => Direction::Falling,
                FrictionMode::SlipNeg => Direction::Rising,
                _ => continue,
            };
            // s = Σ w v − (wall velocity of b) + (wall velocity of a).
            out.push(EventFn {
                w: self.on_velocities(&fc.w),
                c: 0.0,
                wall: wall_term(fc.a, fc.b, 1),
                dir,
                action: Action::SlipEnds { contact: ci },
            });
        }
        for (ji, (jk, &s)) in form.jenkins.iter().zip(&state.jenkins).enumerate() {
            self.jenkins_events(ji, jk, s, &mut out);
        }
        for ci in 0..form.contacts.len() {
            self.contact_events(ci, &mut out);
        }
        for (si, (stop, held)) in form.stops.iter().zip(&state.stops).enumerate() {
            if held.is_some() {
                continue;
            }
            let w = stop.w.clone();
            if stop.sides != Sides::Negative {
                out.push(EventFn {
                    wall: wall_term(stop.a, stop.b, 0),
                    w: w.clone(),
                    c: -stop.g,
                    dir: Direction::Rising,
                    action: Action::Impact { stop: si },
                });
            }
            if stop.sides != Sides::Positive {
                out.push(EventFn {
                    wall: wall_term(stop.a, stop.b, 0),
                    w,
                    c: stop.g,
                    dir: Direction::Falling,
                    action: Action::Impact { stop: si },
                });
            }
        }
        out
    }

    /// A Jenkins slider's slip starts (stuck) or its sliding stop (sliding).
    fn jenkins_events(&self, ji: usize, jk: &Jenkins, s: JenkinsState, out: &mut Vec<EventFn>) {
        let w = weights(jk.a, jk.b);
        let action = |to| Action::Jenkins { element: ji, to };
        match s.mode {
            // Stuck: kt (u − z) reaches ±F.
            FrictionMode::Stick | FrictionMode::Free => {
                let reach = jk.slip / jk.kt;
                out.push(EventFn {
                    wall: wall_term(jk.a, jk.b, 0),
                    w: w.clone(),
                    c: -s.z - reach,
                    dir: Direction::Rising,
                    action: action(FrictionMode::SlipPos),
                });
                out.push(EventFn {
                    wall: wall_term(jk.a, jk.b, 0),
                    w,
                    c: -s.z + reach,
                    dir: Direction::Falling,
                    action: action(FrictionMode::SlipNeg),
                });
            }
            // Sliding: u̇ comes back through zero.
            slip => out.push(EventFn {
                wall: wall_term(jk.a, jk.b, 1),
                w: self.on_velocities(&w),
                c: 0.0,
                dir: if slip == FrictionMode::SlipPos {
                    Direction::Falling
                } else {
                    Direction::Rising
                },
                action: action(FrictionMode::Stick),
            }),
        }
    }

    /// DOF weights moved onto the velocity part of the state `y = [x, ẋ]`.
    pub(super) fn on_velocities(&self, w: &[(usize, f64)]) -> Vec<(usize, f64)> {
        w.iter().map(|&(i, wi)| (self.form.n + i, wi)).collect()
    }

    /// The event function's value `Σ w y + c` (+ the wall term) at `(t, y)`.
    pub(crate) fn event_value(&self, ev: &EventFn, t: f64, y: &[f64]) -> f64 {
        let wall = ev.wall.map_or(0.0, |(d, coef, order)| {
            coef * self.form.wall_motion(d, t, order)
        });
        ev.w.iter().map(|&(i, wi)| wi * y[i]).sum::<f64>() + ev.c + wall
    }

    /// The relative velocity `u̇` of a gap's or a stop's event function `u` (walls
    /// included).
    pub(crate) fn event_rate(&self, ev: &EventFn, t: f64, y: &[f64]) -> f64 {
        let wall = ev
            .wall
            .map_or(0.0, |(d, coef, _)| coef * self.form.wall_motion(d, t, 1));
        ev.w.iter()
            .map(|&(i, wi)| wi * y[self.form.n + i])
            .sum::<f64>()
            + wall
    }
}

/// An exact gap's contact entries (open) or exit (in contact) in `mode`; smoothed gaps have
/// none.
fn gap_events(gi: usize, gap: &ContactGap, mode: GapMode, out: &mut Vec<EventFn>) {
    if gap.smooth.is_some() {
        return;
    }
    let w = weights(gap.a, gap.b);
    let mut push = |c: f64, dir, to| {
        out.push(EventFn {
            wall: wall_term(gap.a, gap.b, 0),
            w: w.clone(),
            c,
            dir,
            action: Action::Switch { gap: gi, to },
        })
    };
    match mode {
        GapMode::Open => {
            if gap.sides != Sides::Negative {
                push(-gap.g, Direction::Rising, GapMode::Plus);
            }
            if gap.sides != Sides::Positive {
                push(gap.g, Direction::Falling, GapMode::Minus);
            }
        }
        GapMode::Plus => push(-gap.g, Direction::Falling, GapMode::Open),
        GapMode::Minus => push(gap.g, Direction::Rising, GapMode::Open),
    }
}

/// The moving-wall term of an element's event function `u = x_a − x_b` (or its rate) when a
/// side is the base: `+y` for side a, `−y` for side b.
fn wall_term(a: Attach, b: Attach, order: usize) -> Option<(Dir, f64, usize)> {
    match (a, b) {
        (_, Attach::Base(d)) => Some((d, -1.0, order)),
        (Attach::Base(d), _) => Some((d, 1.0, order)),
        _ => None,
    }
}
