//! The mode state of the hybrid form: each element's mode and the internal state that goes
//! with it — what an event switches, and nothing the model fixes (`form.rs`). Plain `Copy`
//! values in one vector per kind of element, no names: `periodic` shooting saves it at
//! each switch and puts it back to integrate each smooth segment of an orbit again in its
//! own modes, and a save is a copy of a few numbers per element.

use super::laws::{Contact2dState, ContactMode, FrictionMode, GapMode, Held, JenkinsState};
use super::Form;

/// The modes of every element with the internal states that go with them (see the module
/// docs), indexed like the elements of `Form`.
#[derive(Debug)]
pub(crate) struct ModeState {
    /// Each gap's mode (smoothed gaps have no mode and stay `Open`).
    pub(crate) gaps: Vec<GapMode>,
    /// Each gap's penetration rate δ̇⁻ at its latest entry (Hunt–Crossley,
    /// Lankarani–Nikravesh scale their damping by it).
    pub(super) entry_speed: Vec<f64>,
    /// Each rigid stop's persistent contact, if it is held.
    pub(super) stops: Vec<Option<Held>>,
    /// Each rigid Coulomb contact's mode.
    pub(crate) friction: Vec<FrictionMode>,
    pub(crate) jenkins: Vec<JenkinsState>,
    pub(crate) contacts: Vec<Contact2dState>,
}

/// Written out so that `clone_from` reuses the vectors (the derived one allocates anew):
/// shooting puts a saved state back at every segment of every Newton iteration.
impl Clone for ModeState {
    fn clone(&self) -> ModeState {
        ModeState {
            gaps: self.gaps.clone(),
            entry_speed: self.entry_speed.clone(),
            stops: self.stops.clone(),
            friction: self.friction.clone(),
            jenkins: self.jenkins.clone(),
            contacts: self.contacts.clone(),
        }
    }

    fn clone_from(&mut self, from: &ModeState) {
        self.gaps.clone_from(&from.gaps);
        self.entry_speed.clone_from(&from.entry_speed);
        self.stops.clone_from(&from.stops);
        self.friction.clone_from(&from.friction);
        self.jenkins.clone_from(&from.jenkins);
        self.contacts.clone_from(&from.contacts);
    }
}

impl ModeState {
    /// The state before any initial condition is applied: gaps open and never entered,
    /// stops free, Coulomb contacts without force, sliders stuck at zero.
    pub(super) fn new(form: &Form) -> ModeState {
        ModeState {
            gaps: vec![GapMode::Open; form.gaps.len()],
            entry_speed: vec![0.0; form.gaps.len()],
            stops: vec![None; form.stops.len()],
            friction: vec![FrictionMode::Free; form.friction.len()],
            jenkins: vec![
                JenkinsState {
                    mode: FrictionMode::Stick,
                    z: 0.0,
                };
                form.jenkins.len()
            ],
            contacts: vec![
                Contact2dState {
                    mode: ContactMode::Stick,
                    w: 0.0,
                };
                form.contacts.len()
            ],
        }
    }

    /// The modes of every element as a compact key (gaps, Coulomb contacts, Jenkins
    /// sliders, 2-D contacts, held stops).
    pub(crate) fn key(&self) -> Vec<u8> {
        let gaps = self.gaps.iter().map(|m| *m as u8);
        let friction = self.friction.iter().map(|m| *m as u8);
        let jenkins = self.jenkins.iter().map(|j| j.mode as u8);
        let contacts = self.contacts.iter().map(|c| c.mode as u8);
        let held = self.stops.iter().map(|s| u8::from(s.is_some()));
        gaps.chain(friction)
            .chain(jenkins)
            .chain(contacts)
            .chain(held)
            .collect()
    }

    /// Whether any stop is held in persistent contact.
    pub(crate) fn any_held(&self) -> bool {
        self.stops.iter().any(Option::is_some)
    }

    /// Whether any Coulomb contact is stuck or any stop held (a bilateral constraint acts).
    pub(super) fn any_constrained(&self) -> bool {
        self.friction.contains(&FrictionMode::Stick) || self.any_held()
    }
}
