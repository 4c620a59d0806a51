//! Stick and slip of the friction elements: a Coulomb contact's relative velocity and the
//! force sticking needs, the modes several contacts at rest take together (paper 001, eqs.
//! 11–12, generalised to coupled contacts), the initial friction states, and a Jenkins
//! slider's switch.

use super::constraints::Bilateral;
use super::laws::{FrictionMode, JenkinsState};
use super::Hybrid;
use crate::ode::tolerances::{AT_REST, STICK_FORCE_SLACK};

impl Hybrid<'_> {
    /// Relative velocity `s = v_a − v_b` of a friction contact.
    pub(crate) fn slip_velocity(&self, c: usize, t: f64, y: &[f64]) -> f64 {
        let (form, f) = (&self.form, &self.form.friction[c]);
        let v = &y[form.n..];
        form.rate(f.a, t, v) - form.rate(f.b, t, v)
    }

    /// The friction force (on side a, along w) that sticking needs at `(t, y)`, with the
    /// other stuck contacts and held stops held too (their forces are solved together).
    pub(crate) fn stick_force(&mut self, c: usize, t: f64, y: &[f64]) -> f64 {
        let saved = std::mem::replace(&mut self.state.friction[c], FrictionMode::Stick);
        let force = self.constraint_force(Bilateral::Stuck(c), t, y);
        self.state.friction[c] = saved;
        force
    }

    /// The modes the contacts `set` take together at `(t, y)`, where each one's relative
    /// velocity is zero (a small complementarity problem, solved by enumeration): every
    /// assignment of stick / slip+ / slip− is tried, those with more stuck contacts first, and
    /// the first consistent one is taken — each stuck contact's force (solved together with
    /// the others, `constraints.rs`) within its slip force, each sliding one accelerating the
    /// way it slides. For one contact this is paper 001's eqs. 11–12: stick if the force it
    /// needs is within `F`, else slide the way that force would push. Round-off relative
    /// velocities of the stuck ones are removed (a joint mass-weighted projection).
    pub(crate) fn settle(&mut self, set: &[usize], t: f64, y: &mut [f64]) -> Vec<FrictionMode> {
        const MODES: [FrictionMode; 3] = [
            FrictionMode::Stick,
            FrictionMode::SlipPos,
            FrictionMode::SlipNeg,
        ];
        let m = set.len();
        let mut assignments: Vec<Vec<FrictionMode>> = (0..3usize.pow(m as u32))
            .map(|code| {
                (0..m)
                    .map(|i| MODES[code / 3usize.pow(i as u32) % 3])
                    .collect()
            })
            .collect();
        assignments.sort_by_key(|a| {
            std::cmp::Reverse(a.iter().filter(|&&x| x == FrictionMode::Stick).count())
        });
        let n = self.form.n;
        let mut dy = vec![0.0; 2 * n];
        let mut chosen = None;
        for modes in &assignments {
            for (&c, &mode) in set.iter().zip(modes) {
                self.state.friction[c] = mode;
            }
            self.free_rhs(t, y, &mut dy);
            let forces = self.constrain(t, &mut dy[n..]);
            let consistent = set.iter().zip(modes).all(|(&c, &mode)| {
                let f = &self.form.friction[c];
                match mode {
                    FrictionMode::Stick => forces
                        .iter()
                        .find(|(id, _)| *id == Bilateral::Stuck(c))
                        .is_some_and(|(_, l)| l.abs() <= f.slip * (1.0 + STICK_FORCE_SLACK)),
                    slip => {
                        let accel = f.w.iter().map(|&(i, wi)| wi * dy[n + i]).sum::<f64>()
                            - self.wall_acceleration(f.a, f.b, t);
                        (slip == FrictionMode::SlipPos) == (accel > 0.0)
                    }
                }
            });
            if consistent {
                chosen = Some(modes.clone());
                break;
            }
        }
        // No consistent assignment (a degenerate, exactly balanced case): stick all.
        let modes = chosen.unwrap_or_else(|| vec![FrictionMode::Stick; m]);
        for (&c, &mode) in set.iter().zip(&modes) {
            self.state.friction[c] = mode;
        }
        self.remove_stuck_velocity(t, y);
        modes
    }

    /// Initial friction modes: a rigid contact slides with the initial relative velocity,
    /// else settles (all contacts at rest relative to their walls together); Jenkins
    /// elements and loaded 2-D contacts start stuck and unstressed.
    pub(crate) fn set_friction_from_state(&mut self, t: f64, y: &mut [f64]) {
        self.set_jenkins_from_state(t, y);
        self.set_contacts_from_state(y);
        let mut resting = Vec::new();
        for c in 0..self.form.friction.len() {
            let s = self.slip_velocity(c, t, y);
            self.state.friction[c] = if s > 0.0 {
                FrictionMode::SlipPos
            } else if s < 0.0 {
                FrictionMode::SlipNeg
            } else {
                resting.push(c);
                FrictionMode::Free
            };
        }
        if !resting.is_empty() {
            self.settle(&resting, t, y);
        }
    }

    /// The sliding contacts other than `c` whose relative velocity vanishes at `(t, y)` to
    /// within the rounding of a located event (`AT_REST` of the velocity scale): they settle
    /// together with `c`.
    pub(crate) fn also_at_rest(&self, c: usize, t: f64, y: &[f64]) -> Vec<usize> {
        let scale = y[self.form.n..].iter().fold(1.0_f64, |a, v| a.max(v.abs()));
        (0..self.form.friction.len())
            .filter(|&k| k != c)
            .filter(|&k| {
                matches!(
                    self.state.friction[k],
                    FrictionMode::SlipPos | FrictionMode::SlipNeg
                ) && self.slip_velocity(k, t, y).abs() <= AT_REST * scale
            })
            .collect()
    }

    /// Switches a Jenkins element at `(t, y)`; a stop re-sticks the slider where the spring
    /// carries exactly the slip force, so the force is continuous.
    pub(crate) fn switch_jenkins(&mut self, element: usize, to: FrictionMode, t: f64, y: &[f64]) {
        let jk = &self.form.jenkins[element];
        let u = self.form.relative(jk.a, jk.b, t, y);
        let s = &mut self.state.jenkins[element];
        if to == FrictionMode::Stick {
            s.z = u - jk.force(*s, u) / jk.kt;
        }
        s.mode = to;
    }

    /// Initial Jenkins states: stuck, the spring unstressed (`z = u(t0)`).
    fn set_jenkins_from_state(&mut self, t: f64, y: &[f64]) {
        let form = &self.form;
        for (jk, s) in form.jenkins.iter().zip(&mut self.state.jenkins) {
            let u = form.relative(jk.a, jk.b, t, y);
            *s = JenkinsState {
                mode: FrictionMode::Stick,
                z: u,
            };
        }
    }
}
