//! Rigid contacts (`law = impact(e)`) in the `events` backend: Newton's impact law on the
//! whole mechanism at a located gap closure, and persistent contact after an accumulation
//! of impacts (Zeno) or an impact without rebound, with lift-off where the contact would
//! pull. The rules and tolerances are the DOF integrator's (`solve::ode::driver::actions`,
//! `hybrid/stops.rs`): `ON_STOP`, `NO_REBOUND`, `ZENO_INTERVAL` (through its `ZenoWatch`).
//!
//! # Impacts
//! An open rigid contact whose gap turns negative while closing is an event located on the
//! dense output (`events.rs`). There every open rigid contact within `ON_STOP` (m, of the
//! 1 m scale) of its surface and closing takes part, with rates `γ⁻ = D v⁻`. The velocity
//! jump solves Gauss's programme of `gauss.rs` with `x_f = v⁻`:
//! `min ½(v⁺ − v⁻)ᵀM(v⁺ − v⁻)` subject to `Φ_q v⁺ = 0` and `D_i v⁺ ≥ −e_i γ_i⁻`, i.e.
//! `M Δv = Φ_qᵀΛ + Dᵀ P`, `P ≥ 0`, complementary to `D v⁺ + e γ⁻ ≥ 0`: each contact either
//! rebounds with exactly `γ⁺ = −e γ⁻` or takes no impulse and separates faster (the
//! multi-contact Newton law of paper 004, Prop. 2.1, as `hybrid/stops.rs` solves it for DOF
//! stops), with `e = 1` on every contact the kinetic energy is kept. Held contacts take part
//! with the bound `D v⁺ ≥ 0`. The programme is solved by active sets from the participating
//! contacts, else by Lemke's method on their rows (`active_set.rs`, `gauss.rs`).
//!
//! # Persistent contact
//! A contact whose rebound is at most `NO_REBOUND` of its approach (`e = 0`) is held; so is
//! one whose impacts accumulate (`ZenoWatch`: an interval below `ZENO_INTERVAL` of the time
//! scale; the accumulation time `t*` is recorded), its rebound removed. A held contact is
//! one more bilateral row `g = 0` of the index-1 solve and of the projections, its
//! multiplier `λ_n` the normal force (N), and it is released where `λ_n` turns negative
//! (located on the dense output, `events.rs`), or where another impact throws it off.

use super::contact::{Load, Modes};
use super::dynamics::{scatter, Degenerate, Mechanism};
use super::gauss::{Linearised, Programme, Solution};
use super::joints::Row;
use super::run::Run;
use crate::ode::driver::{Event, ZenoWatch};
use crate::ode::tolerances::{NO_REBOUND, ON_STOP, TINY};
use nalgebra::{DMatrix, DVector, Vector3};
use std::borrow::Cow;

type V3 = Vector3<f64>;

/// One contact's velocity jump at an impact.
struct Jump {
    contact: usize,
    /// The gap rate `D v` (m/s) before and after.
    before: f64,
    after: f64,
    /// The impulse along the contact normal (N s, ≥ 0).
    impulse: f64,
}

impl Mechanism {
    /// The joints' rows and Jacobian at `y` followed by the gap rows of the rigid contacts
    /// `held`, with the rows at each body (borrowed when nothing is held).
    pub(super) fn constraints_held(
        &self,
        y: &[f64],
        held: &[usize],
    ) -> (Vec<Row>, DMatrix<f64>, Cow<'_, [Vec<usize>]>) {
        let (mut rows, jac) = self.constraints(y);
        if held.is_empty() {
            return (rows, jac, Cow::Borrowed(&self.rows_at_body));
        }
        let mut jac = jac.resize_vertically(self.rows + held.len(), 0.0);
        let mut at_body = self.rows_at_body.clone();
        for (i, &k) in held.iter().enumerate() {
            let c = &self.contacts[k];
            let joint = &self.joints[c.joint];
            let sides = joint.sides.map(|s| self.side(y, s));
            let row = c.spec.held_row(&joint.geometry, &sides);
            let r = self.rows + i;
            scatter(&mut jac, r, &row, joint, &sides);
            for b in joint.sides.iter().flatten() {
                at_body[*b].push(r);
            }
            rows.push(row);
        }
        (rows, jac, Cow::Owned(at_body))
    }

    /// The normal force of each held rigid contact at `(t, y)` in `modes` (N, positive while
    /// it pushes: its multiplier `λ_n`), 0 for the others.
    pub(crate) fn holding_forces(
        &self,
        t: f64,
        y: &[f64],
        modes: &Modes,
    ) -> Result<Vec<f64>, Degenerate> {
        let held = self.held(modes);
        let mut out = vec![0.0; self.contacts.len()];
        if held.is_empty() {
            return Ok(out);
        }
        let lambda = self.solve(t, y, modes)?.lambda;
        for (i, &k) in held.iter().enumerate() {
            out[k] = lambda[self.rows + i];
        }
        Ok(out)
    }

    /// Every contact's load at `(t, y)` in `modes` (`loads`), a held rigid contact's normal
    /// force its multiplier (`holding_forces`; left at 0 at a degenerate pose, which the run
    /// reports).
    pub fn loads_held(&self, t: f64, y: &[f64], modes: &Modes) -> Vec<Load> {
        let mut loads = self.loads(y, Some(modes));
        let held = self.held(modes);
        if !held.is_empty() {
            if let Ok(forces) = self.holding_forces(t, y, modes) {
                held.iter().for_each(|&k| loads[k].normal = forces[k]);
            }
        }
        loads
    }

    /// The open rigid contacts of `modes` that are closing at `y` and penetrated or within
    /// `ON_STOP` of their surface: the participants of an impact located there.
    fn closing(&self, y: &[f64], modes: &Modes) -> Vec<usize> {
        self.loads(y, None)
            .iter()
            .enumerate()
            .filter(|(k, l)| {
                self.contacts[*k].rigid()
                    && !modes.closed[*k]
                    && l.rate < 0.0
                    && (l.gap < 0.0 || l.gap.abs() <= ON_STOP)
            })
            .map(|(k, _)| k)
            .collect()
    }

    /// The first open rigid contact that `y` penetrates beyond `ON_STOP` (m): a closure the
    /// event search missed, which the run reports rather than continuing.
    pub(super) fn penetrated(&self, y: &[f64], modes: &Modes) -> Option<usize> {
        if !self.any_rigid {
            return None;
        }
        self.loads(y, None)
            .iter()
            .enumerate()
            .position(|(k, l)| self.contacts[k].rigid() && !modes.closed[k] && l.gap < -ON_STOP)
    }

    /// Newton's law on the contacts `set` (closing) and `held` at `(t, y)` (module doc): the
    /// velocities of `y` jump; returns each contact's jump, `set` first.
    fn jump(
        &self,
        t: f64,
        y: &mut [f64],
        set: &[usize],
        held: &[usize],
    ) -> Result<Vec<Jump>, Degenerate> {
        let velocities = self.layout().velocities();
        let lin = self.linearise(y);
        let v0 = DVector::from_column_slice(&y[velocities.clone()]);
        let rates = &lin.d * &v0;
        let e = self.restitution();
        let all: Vec<usize> = set.iter().chain(held).copied().collect();
        let bound = |i: usize, k: usize| if i < set.len() { -e[k] * rates[k] } else { 0.0 };
        // The other contacts never bind (open, or compliant).
        let mut lower = DVector::from_element(self.contacts.len(), f64::NEG_INFINITY);
        let mut guess = vec![false; self.contacts.len()];
        for (i, &k) in all.iter().enumerate() {
            lower[k] = bound(i, k);
            guess[k] = true;
        }
        let b = DVector::zeros(self.rows);
        let programme = Programme {
            t,
            lin: &lin,
            x_free: &v0,
            b: &b,
            lower: &lower,
        };
        let settled = self.active_set(&programme, &guess);
        let Solution { x, z, .. } = match settled {
            Some(sol) => sol,
            None => {
                let sub = Linearised {
                    gaps: lin.gaps.select_rows(all.iter()),
                    d: lin.d.select_rows(all.iter()),
                    ..lin
                };
                let lower = DVector::from_fn(all.len(), |i, _| bound(i, all[i]));
                let sol = self.by_lemke(&Programme {
                    t,
                    lin: &sub,
                    x_free: &v0,
                    b: &b,
                    lower: &lower,
                })?;
                let mut z = DVector::zeros(self.contacts.len());
                for (i, &k) in all.iter().enumerate() {
                    z[k] = sol.z[i];
                }
                Solution { z, ..sol }
            }
        };
        let rates_after = self.linearise(y).d * &x;
        y[velocities].copy_from_slice(x.as_slice());
        Ok(all
            .iter()
            .map(|&k| Jump {
                contact: k,
                before: rates[k],
                after: rates_after[k],
                impulse: z[k],
            })
            .collect())
    }

    /// Holds the rigid contact `k` at `(t, y)`: its gap rate is removed with the joints kept
    /// (the velocities projected onto them and the held rows). Returns the impulse that took
    /// (N s, positive when pushing).
    fn hold(&self, t: f64, y: &mut [f64], modes: &mut Modes, k: usize) -> Result<f64, Degenerate> {
        modes.closed[k] = true;
        let held = self.held(modes);
        let mu = self.project_velocities(t, y, &held)?;
        let at = held.iter().position(|&h| h == k).unwrap_or_default();
        Ok(-mu[self.rows + at])
    }

    /// The contact events at the located instant `t` (state `y`, at the far end of the
    /// crossing's bracket): compliant entries and exits (`events::switch_modes`), lift-off
    /// of held contacts whose force would pull, and impacts of the closing rigid contacts
    /// with persistent contact after an accumulation or a plastic impact (module doc). Each
    /// is logged in `run.events` with its contact point (the positions do not jump); returns
    /// how many contacts changed mode.
    pub(super) fn contact_events(
        &self,
        t: f64,
        y: &mut [f64],
        modes: &mut Modes,
        zeno: &mut ZenoWatch,
        run: &mut Run,
    ) -> Result<usize, Degenerate> {
        let mut switched = super::events::switch_modes(self, modes, (t, y), run);
        let points: Vec<V3> = self
            .loads(y, None)
            .into_iter()
            .map(|l| l.at.point)
            .collect();
        let forces = self.holding_forces(t, y, modes)?;
        for k in self.held(modes) {
            if forces[k] < 0.0 {
                modes.closed[k] = false;
                run.log(Event::lift_off(t, &self.contacts[k].name), &points[k]);
                switched += 1;
            }
        }
        let set = self.closing(y, modes);
        if set.is_empty() {
            return Ok(switched);
        }
        let held = self.held(modes);
        let jumps = self.jump(t, y, &set, &held)?;
        run.impacts += set.len();
        let scale = jumps.iter().fold(TINY, |a, j| a.max(j.before.abs()));
        for jump in jumps {
            let k = jump.contact;
            let (name, at) = (self.contacts[k].name.as_str(), &points[k]);
            if modes.closed[k] {
                // A held contact thrown off by the others' impulses lets go.
                if jump.after > NO_REBOUND * scale {
                    modes.closed[k] = false;
                    run.log(Event::lift_off(t, name), at);
                    switched += 1;
                }
                continue;
            }
            match zeno.check(k, t) {
                Ok(()) => {
                    let (before, after) = (jump.before, jump.after);
                    run.log(Event::impact(t, name, before, after, jump.impulse), at);
                    if after.abs() <= NO_REBOUND * before.abs().max(TINY) {
                        self.hold(t, y, modes, k)?;
                        if self.holding_forces(t, y, modes)?[k] < 0.0 {
                            modes.closed[k] = false;
                        } else {
                            run.log(Event::hold(t, name, after), at);
                            switched += 1;
                        }
                    }
                }
                Err(t_star) => {
                    let removed = self.hold(t, y, modes, k)?;
                    run.zeno.push(t_star);
                    let impulse = jump.impulse + removed;
                    run.log(Event::zeno(t, name, jump.before, impulse), at);
                    switched += 1;
                }
            }
        }
        Ok(switched)
    }
}
