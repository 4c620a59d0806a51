//! The contact forces of the current modes at a state, for the output of `simulate`: one
//! value per contact element, evaluated only where an output sample is taken (nothing is
//! added to the steps themselves).
//!
//! Conventions (newtons for translational DOFs):
//! - a gap of any law (`NAME.F`): the force it exerts, positive when it pushes its two sides
//!   apart — `k δ` for `linear(k)` at penetration δ (paper 002, eqs. 1–3), the sigmoid force
//!   of a smoothed gap (paper 000, eq. 8) on the side `u` is on;
//! - a rigid stop (`NAME.N`): the holding force `−side·λ` of a stop in persistent contact
//!   (the constraint force solved with the other constraints, `constraints.rs`), 0 while open
//!   (its impacts are impulses, logged with their events);
//! - a Coulomb contact or Jenkins element (`NAME.T`): the friction force `T` of the element,
//!   acting `−T` on side a and `+T` on side b (the sign of a spring's `k u`): `±F` while
//!   slipping with `s ≷ 0` (paper 001, eq. 3), `T = −λ` while stuck (the sticking force of
//!   paper 001, eq. 11, solved with the other constraints), `kt (u − z)` for a stuck Jenkins
//!   slider;
//! - a 2-D friction contact (`NAME.T`, `NAME.N`): its tangential force `T` (acting `−T t` on
//!   side a, the sign of a spring's `kt u_t`) and normal load `N` (acting `−N n` on side a,
//!   positive when compressed), both 0 while separated (paper 003, eqs. 24–25).

use super::constraints::Bilateral;
use super::laws::{FrictionMode, GapMode};
use super::Hybrid;

impl Hybrid<'_> {
    /// One name per contact force, `NAME.F` (gaps), `NAME.N` (rigid stops), `NAME.T`
    /// (Coulomb contacts, Jenkins elements), `NAME.T` and `NAME.N` (2-D contacts), in the
    /// order of `contact_forces`.
    pub fn contact_force_names(&self) -> Vec<String> {
        let form = &self.form;
        let gaps = form.gaps.iter().map(|g| format!("{}.F", g.name));
        let stops = form.stops.iter().map(|s| format!("{}.N", s.name));
        let friction = form.friction.iter().map(|c| format!("{}.T", c.name));
        let jenkins = form.jenkins.iter().map(|j| format!("{}.T", j.name));
        let contacts = form
            .contacts
            .iter()
            .flat_map(|c| [format!("{}.T", c.name), format!("{}.N", c.name)]);
        gaps.chain(stops)
            .chain(friction)
            .chain(jenkins)
            .chain(contacts)
            .collect()
    }

    /// The contact forces at `(t, y)` in the current modes (see the module docs for signs).
    /// The constraint forces of stuck contacts and held stops take one right-hand-side
    /// evaluation, which is not counted in `evals` (it is output, not integration).
    pub(crate) fn contact_forces(&mut self, t: f64, y: &[f64]) -> Vec<f64> {
        let evals = self.evals;
        let lambda = self.constraint_forces(t, y);
        self.evals = evals;
        let of = |id: Bilateral| lambda.iter().find(|(b, _)| *b == id).map_or(0.0, |l| l.1);
        let (form, state) = (&self.form, &self.state);
        let (x, v) = y.split_at(form.n);
        let mut out = Vec::with_capacity(self.contact_force_names().len());
        for (gi, (gap, mode)) in form.gaps.iter().zip(&state.gaps).enumerate() {
            let pushing = match mode {
                GapMode::Minus => -1.0,
                GapMode::Plus => 1.0,
                GapMode::Open if form.relative(gap.a, gap.b, t, x) < 0.0 => -1.0,
                GapMode::Open => 1.0,
            };
            out.push(pushing * self.gap_force(gi, t, x, v));
        }
        for (s, held) in state.stops.iter().enumerate() {
            out.push(held.map_or(0.0, |h| -h.side * of(Bilateral::Held(s))));
        }
        for (c, (fc, mode)) in form.friction.iter().zip(&state.friction).enumerate() {
            out.push(match mode {
                FrictionMode::SlipPos => fc.slip,
                FrictionMode::SlipNeg => -fc.slip,
                FrictionMode::Stick => -of(Bilateral::Stuck(c)),
                FrictionMode::Free => 0.0,
            });
        }
        for (jk, s) in form.jenkins.iter().zip(&state.jenkins) {
            out.push(jk.force(*s, form.relative(jk.a, jk.b, t, x)));
        }
        for (ct, s) in form.contacts.iter().zip(&state.contacts) {
            let (tf, nf) = ct.forces(*s, ct.relative(x));
            out.extend([tf, nf]);
        }
        out
    }
}
