//! What a located crossing does, and the `Event` it logs: a gap's contact entry or exit, a
//! Jenkins slider's stick or slip, a 2-D friction contact's stick, slip, separation or
//! touch-down, a sliding Coulomb contact coming to rest (every contact at
//! rest at that instant settling together), an impact on one or several rigid stops (with the
//! Zeno watch and persistent contact), a stuck contact starting to slip, a held stop's
//! lift-off. Each ends with the restart of the integration at the located state.

use super::super::hybrid::{Action, ContactMode, Element, FrictionMode, GapMode};
use super::super::tolerances::{NO_REBOUND, RESTART_SKIP, TINY, ZENO_INTERVAL};
use super::crossings::Crossing;
use super::stepper::Accepted;
use super::{Cause, Pass, Run};

/// One located mode change or impact.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub t: f64,
    pub element: String,
    /// `contact` (a gap changes mode) or `impact` (a rigid stop is hit).
    pub kind: &'static str,
    pub from: &'static str,
    pub to: &'static str,
    /// Relative velocity of the element at the event (before the impact for impacts).
    pub velocity: f64,
    /// Relative velocity after an impact.
    pub velocity_after: Option<f64>,
    /// The impulse of an impact (`impact`, and `zeno` net of the rebound removed), in N s
    /// for translational DOFs; `None` for events that are not impacts.
    pub impulse: Option<f64>,
}

impl Event {
    fn new(
        t: f64,
        element: &str,
        kind: &'static str,
        (from, to): (&'static str, &'static str),
        velocity: f64,
        velocity_after: Option<f64>,
    ) -> Event {
        Event {
            t,
            element: element.to_string(),
            kind,
            from,
            to,
            velocity,
            velocity_after,
            impulse: None,
        }
    }

    /// A friction element's (Coulomb contact or Jenkins slider) change of mode: `stick`
    /// when it comes to stick, else `slip`.
    fn friction(
        t: f64,
        element: &str,
        from: FrictionMode,
        to: FrictionMode,
        velocity: f64,
    ) -> Event {
        let kind = if to == FrictionMode::Stick {
            "stick"
        } else {
            "slip"
        };
        Event::new(t, element, kind, (from.name(), to.name()), velocity, None)
    }

    /// A 2-D friction contact's change of mode at the tangential relative velocity
    /// `velocity`: `contact` when it separates or touches down, else `stick` or `slip`.
    fn contact2d(
        t: f64,
        element: &str,
        from: ContactMode,
        to: ContactMode,
        velocity: f64,
    ) -> Event {
        let kind = match (from, to) {
            (ContactMode::Separated, _) | (_, ContactMode::Separated) => "contact",
            (_, ContactMode::Stick) => "stick",
            _ => "slip",
        };
        Event::new(t, element, kind, (from.name(), to.name()), velocity, None)
    }

    /// A gap's contact entry or exit at the relative velocity `velocity`.
    fn contact(t: f64, element: &str, from: GapMode, to: GapMode, velocity: f64) -> Event {
        let modes = (from.name(), to.name());
        Event::new(t, element, "contact", modes, velocity, None)
    }

    /// An impact on a rigid stop: the relative velocity jumps from `before` to `after`
    /// under the impulse `impulse`.
    pub(crate) fn impact(t: f64, element: &str, before: f64, after: f64, impulse: f64) -> Event {
        let modes = ("open", "open");
        Event {
            impulse: Some(impulse),
            ..Event::new(t, element, "impact", modes, before, Some(after))
        }
    }

    /// A stop held in persistent contact after an impact without rebound (`velocity` the
    /// rebound velocity, within round-off of zero).
    pub(crate) fn hold(t: f64, element: &str, velocity: f64) -> Event {
        Event::new(t, element, "hold", ("open", "held"), velocity, Some(0.0))
    }

    /// A stop held in persistent contact after a Zeno accumulation of impacts (`velocity` the
    /// approach velocity of the last one, `impulse` that impact's net of the rebound removed).
    pub(crate) fn zeno(t: f64, element: &str, velocity: f64, impulse: f64) -> Event {
        Event {
            impulse: Some(impulse),
            ..Event::new(t, element, "zeno", ("open", "held"), velocity, Some(0.0))
        }
    }

    /// A held stop lets go.
    pub(crate) fn lift_off(t: f64, element: &str) -> Event {
        Event::new(t, element, "lift-off", ("held", "open"), 0.0, None)
    }

    /// A multibody contact point comes into contact at the gap rate `velocity`: a compliant
    /// contact of the `events` backend, any contact of `timestepping`.
    pub(crate) fn entry(t: f64, element: &str, velocity: f64) -> Event {
        Event::new(t, element, "entry", ("open", "closed"), velocity, None)
    }

    /// A multibody contact point leaves contact at the gap rate `velocity` (as `entry`).
    pub(crate) fn exit(t: f64, element: &str, velocity: f64) -> Event {
        Event::new(t, element, "exit", ("closed", "open"), velocity, None)
    }
}

/// Watches the impact times of each stop for a geometric accumulation (Zeno): when an
/// interval falls below `ZENO_INTERVAL` of the time scale, returns the estimated accumulation
/// time `t* = t₃ + (t₃ − t₂) r / (1 − r)` with `r = (t₃ − t₂)/(t₂ − t₁)`. Shared with the
/// multibody `events` backend's rigid contacts (`solve::multibody::impacts`).
#[derive(Default)]
pub(crate) struct ZenoWatch {
    last: Vec<Vec<f64>>,
}

impl ZenoWatch {
    pub(crate) fn check(&mut self, stop: usize, t: f64) -> Result<(), f64> {
        if self.last.len() <= stop {
            self.last.resize(stop + 1, Vec::new());
        }
        let times = &mut self.last[stop];
        times.push(t);
        if times.len() > 3 {
            times.remove(0);
        }
        if let [t1, t2, t3] = times[..] {
            if t3 - t2 < ZENO_INTERVAL * t3.abs().max(1.0) {
                let r = (t3 - t2) / (t2 - t1);
                let t_star = if r < 1.0 {
                    t3 + (t3 - t2) * r / (1.0 - r)
                } else {
                    t3
                };
                return Err(t_star);
            }
        }
        Ok(())
    }
}

impl Run<'_, '_> {
    /// Adds `event` to the trajectory's log.
    fn log(&mut self, event: Event) {
        self.traj.events.push(event);
    }

    /// The located crossing `at` of an event function ends `step`: the output is sampled up
    /// to it, the event's action switches the modes and the integration restarts there.
    pub(super) fn on_event(&mut self, at: Crossing, step: &Accepted) -> Pass {
        let te = self.t + at.x * step.h;
        let mut ye = self.stepper.dense().eval(te);
        self.sample_until(te);
        let action = self.events[at.which].action;
        let switched = match action {
            Action::Jenkins { element, to } => self.switch_jenkins(at.which, element, to, te, &ye),
            Action::Contact2d { element, to } => self.switch_contact(element, to, te, &ye),
            Action::Switch { gap, to } => self.switch_gap(at.which, gap, to, te, &ye),
            Action::SlipEnds { contact } => {
                let (changed, settled) = self.end_slip(contact, te, &mut ye);
                if !changed {
                    let cause = Cause::Event(self.events[at.which].clone());
                    self.restart(te, ye, cause, settled);
                    return Pass::Restarted;
                }
                settled
            }
            Action::Impact { .. } => self.impact(at.which, te, &mut ye),
        };
        let cause = Cause::Event(self.events[at.which].clone());
        let remembered = self.restart(te, ye, cause, switched);
        self.stepper.after_event(remembered, step, te);
        Pass::Advanced
    }

    /// A Jenkins element sticks or starts to slip (event function `k`); returns it.
    fn switch_jenkins(
        &mut self,
        k: usize,
        element: usize,
        to: FrictionMode,
        te: f64,
        ye: &[f64],
    ) -> Vec<Element> {
        // Its event functions watch the spring (positions) or the sliding (velocities); the
        // logged velocity is the DOFs' relative velocity either way.
        let n = self.h.dim() / 2;
        let velocity: f64 = self.events[k]
            .w
            .iter()
            .map(|&(i, wi)| wi * ye[if i < n { n + i } else { i }])
            .sum();
        let from = self.h.state.jenkins[element].mode;
        self.h.switch_jenkins(element, to, te, ye);
        let event = Event::friction(te, &self.h.form.jenkins[element].name, from, to, velocity);
        self.log(event);
        vec![Element::Jenkins(element)]
    }

    /// A 2-D friction contact changes mode towards `to` (the one a touch-down takes is
    /// decided by the contact); returns it.
    fn switch_contact(
        &mut self,
        element: usize,
        to: ContactMode,
        te: f64,
        ye: &[f64],
    ) -> Vec<Element> {
        let from = self.h.state.contacts[element].mode;
        let velocity = self.h.contact_slip_rate(element, ye);
        let to = self.h.switch_contact(element, to, ye);
        let event = Event::contact2d(te, &self.h.form.contacts[element].name, from, to, velocity);
        self.log(event);
        vec![Element::Contact(element)]
    }

    /// A gap enters or leaves contact (event function `k`); the entry speed is kept for the
    /// laws that scale their damping by it. Returns the gap.
    fn switch_gap(
        &mut self,
        k: usize,
        gap: usize,
        to: GapMode,
        te: f64,
        ye: &[f64],
    ) -> Vec<Element> {
        let velocity = self.h.event_rate(&self.events[k], te, ye);
        let sliver = RESTART_SKIP * self.stepper.span().1;
        let (from, to) = self.h.switch_gap(gap, to, velocity, sliver);
        let event = Event::contact(te, &self.h.form.gaps[gap].name, from, to, velocity);
        self.log(event);
        vec![Element::Gap(gap)]
    }

    /// A sliding contact comes to rest: it settles together with every contact at rest at
    /// this instant. Returns whether any of them changed mode (a contact starting from rest
    /// may slide on the same way), and the contacts settled.
    fn end_slip(&mut self, contact: usize, te: f64, ye: &mut [f64]) -> (bool, Vec<Element>) {
        let mut set = vec![contact];
        set.extend(self.h.also_at_rest(contact, te, ye));
        let before: Vec<(FrictionMode, f64)> = set
            .iter()
            .map(|&c| (self.h.state.friction[c], self.h.slip_velocity(c, te, ye)))
            .collect();
        let modes = self.h.settle(&set, te, ye);
        let mut changed = false;
        for ((&c, (from, velocity)), to) in set.iter().zip(before).zip(modes) {
            if to == from {
                continue;
            }
            changed = true;
            let event = Event::friction(te, &self.h.form.friction[c].name, from, to, velocity);
            self.log(event);
        }
        (changed, set.into_iter().map(Element::Friction).collect())
    }

    /// A rigid stop is hit (event function `k`): every stop closing at this instant takes its
    /// impulse together; a stop without rebound, or whose impacts accumulate (Zeno), is held
    /// in persistent contact while the loads push into it. Returns the stops hit.
    fn impact(&mut self, k: usize, te: f64, ye: &mut [f64]) -> Vec<Element> {
        let set = self.h.simultaneous(&self.events, k, te, ye);
        let jumps = self.h.impacts(&self.events, &set, te, ye);
        self.traj.impacts += jumps.len();
        let mut hit = Vec::with_capacity(jumps.len());
        for (&idx, jump) in set.iter().zip(jumps) {
            let (stop, before, after) = (jump.stop, jump.before, jump.after);
            hit.push(Element::Stop(stop));
            let element = self.h.form.stops[stop].name.clone();
            match self.zeno.check(stop, te) {
                Ok(()) => {
                    self.log(Event::impact(te, &element, before, after, jump.impulse));
                    // No rebound (e = 0, or a vanishing approach speed) while the loads push
                    // into the stop: it stays in contact.
                    if after.abs() <= NO_REBOUND * before.abs().max(TINY) {
                        self.h.hold(&self.events[idx], stop, te, ye);
                        if self.h.holding_force(stop, te, ye) < 0.0 {
                            self.h.release(stop);
                        } else {
                            self.log(Event::hold(te, &element, after));
                        }
                    }
                }
                Err(t_star) => {
                    // Zeno: the remaining bounces last ~(t* − t); continue in persistent
                    // contact, the constraint monitored for lift-off.
                    let removed = self.h.hold(&self.events[idx], stop, te, ye);
                    self.traj.zeno.push(t_star);
                    let impulse = jump.impulse + removed;
                    self.log(Event::zeno(te, &element, before, impulse));
                }
            }
        }
        // The post-impact state is a new initial point of the output.
        self.out.record_point(&mut self.traj, self.h, te, ye);
        hit
    }

    /// The stuck contact `at.which` starts to slip at the located crossing `at` of `step`,
    /// against the friction force that sticking would need there.
    pub(super) fn break_stick(&mut self, at: Crossing, step: &Accepted) {
        let c = at.which;
        let tb = self.t + at.x * step.h;
        let yb = self.stepper.dense().eval(tb);
        let need = self.h.stick_force(c, tb, &yb);
        self.sample_until(tb);
        let to = if need > 0.0 {
            FrictionMode::SlipNeg
        } else {
            FrictionMode::SlipPos
        };
        self.h.state.friction[c] = to;
        let name = &self.h.form.friction[c].name;
        let event = Event::friction(tb, name, FrictionMode::Stick, to, 0.0);
        self.log(event);
        let switched = vec![Element::Friction(c)];
        self.restart(tb, yb, Cause::StickBreak { contact: c }, switched);
    }

    /// The held stop `stop` lets go at `tl` (located inside the current step).
    pub(super) fn lift_off(&mut self, stop: usize, tl: f64) {
        let yl = self.stepper.dense().eval(tl);
        self.sample_until(tl);
        self.h.release(stop);
        let event = Event::lift_off(tl, &self.h.form.stops[stop].name);
        self.log(event);
        self.restart(tl, yl, Cause::LiftOff { stop }, vec![Element::Stop(stop)]);
    }
}
