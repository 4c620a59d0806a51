//! The right-hand side of the hybrid form in the current modes,
//! `ẏ = [ẋ, M⁻¹ (f(t) − C ẋ − K x − f_nl(x, ẋ, t; modes) + Σ λ w)]`, and the total mechanical
//! energy of a conservative system (the check of the integration's accuracy).

use super::laws::{FrictionMode, GapMode};
use super::Hybrid;
use nsd_model::flat::{ContactLaw, Sides};
use nsd_model::system::{Attach, Nonlinearity};

/// Subtracts an element's force `force` along its weights (`weights`: +1 on side a's DOF,
/// −1 on side b's) from the DOF forces. Written out for the two sides rather than through
/// `weights`, which allocates: this runs for every element on every evaluation.
#[inline]
pub(super) fn apply(a: Attach, b: Attach, force: f64, f: &mut [f64]) {
    if let Attach::Dof(i) = a {
        f[i] -= force;
    }
    if let Attach::Dof(j) = b {
        f[j] += force;
    }
}

impl Hybrid<'_> {
    /// `ẏ = [ẋ, M⁻¹ (f(t) − C ẋ − K x − f_nl + Σ λ w)]` in the current modes, the `λ` of the
    /// bilateral constraints (stuck contacts, held stops) solved together.
    pub(crate) fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self.free_rhs(t, y, dy);
        self.constrain(t, &mut dy[self.form.n..]);
    }

    /// The right-hand side without the bilateral constraints' forces.
    pub(super) fn free_rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self.evals += 1;
        let n = self.form.n;
        let (x, v) = y.split_at(n);
        let mut force = std::mem::take(&mut self.force);
        let f = force.as_mut_slice();
        self.external_forces(t, f);
        self.form.linear.subtract(self.form.sys, x, v, f);
        self.nonlinear_forces(t, x, v, f);
        dy[..n].copy_from_slice(v);
        self.form.mass.solve_into(f, &mut dy[n..]);
        self.force = force;
    }

    /// `f = f_static + f(t)` + the base's coupling through stiffness and damping.
    fn external_forces(&self, t: f64, f: &mut [f64]) {
        let form = &self.form;
        f.copy_from_slice(&form.sys.static_load);
        for (dof, load) in &form.loads {
            f[*dof] += load.eval(t);
        }
        for (b, (_, yb, dyb, _)) in form.sys.base.iter().zip(&form.base) {
            let (yv, dv) = (yb.eval(t), dyb.eval(t));
            for &(i, k) in &b.stiffness {
                f[i] += k * yv;
            }
            for &(i, c) in &b.damping {
                f[i] += c * dv;
            }
        }
    }

    /// `f −= f_nl`: polynomial springs, gaps in their modes (smoothed ones by their sigmoid
    /// force, paper 000 eq. 8), sliding Coulomb contacts, Jenkins sliders, 2-D friction
    /// contacts (`T` along `u_t`'s weights, `N` along `u_n`'s, paper 003 eqs. 24–25).
    fn nonlinear_forces(&self, t: f64, x: &[f64], v: &[f64], f: &mut [f64]) {
        let (form, state) = (&self.form, &self.state);
        for &(a, b, k2, k3) in &form.poly {
            let u = form.relative(a, b, t, x);
            apply(a, b, k2 * u * u + k3 * u * u * u, f);
        }
        for (gi, gap) in form.gaps.iter().enumerate() {
            apply(gap.a, gap.b, self.gap_force(gi, t, x, v), f);
        }
        for (fc, mode) in form.friction.iter().zip(&state.friction) {
            let force = match mode {
                FrictionMode::SlipPos => fc.slip,
                FrictionMode::SlipNeg => -fc.slip,
                FrictionMode::Stick | FrictionMode::Free => 0.0,
            };
            apply(fc.a, fc.b, force, f);
        }
        for (jk, s) in form.jenkins.iter().zip(&state.jenkins) {
            let u = form.relative(jk.a, jk.b, t, x);
            apply(jk.a, jk.b, jk.force(*s, u), f);
        }
        for (ct, s) in form.contacts.iter().zip(&state.contacts) {
            let (tf, nf) = ct.forces(*s, ct.relative(x));
            for &(i, wi) in &ct.tw {
                f[i] -= tf * wi;
            }
            for &(i, wi) in &ct.nw {
                f[i] -= nf * wi;
            }
        }
    }

    /// The force of gap `gi` in its mode (acting `−f` on side a, `+f` on side b): its
    /// penetration law on the side in contact, or the sigmoid force of a smoothed gap
    /// (paper 000, eq. 8) whatever the mode.
    #[inline]
    pub(super) fn gap_force(&self, gi: usize, t: f64, x: &[f64], v: &[f64]) -> f64 {
        let form = &self.form;
        let gap = &form.gaps[gi];
        // The entry speed δ̇⁻, read in a contact mode only (a smoothed or open gap's force
        // does not use it).
        let entry = || self.state.entry_speed[gi];
        let u = form.relative(gap.a, gap.b, t, x);
        let rate = form.rate(gap.a, t, v) - form.rate(gap.b, t, v);
        match (gap.smooth, gap.law, self.state.gaps[gi]) {
            (Some(s), ContactLaw::Linear { k }, _) => {
                nsd_model::smoothing::gap_force(k, gap.g, gap.sides, s, u).0
            }
            (_, _, GapMode::Open) => 0.0,
            (_, _, GapMode::Plus) => gap.normal_force(entry(), u - gap.g, rate),
            (_, _, GapMode::Minus) => -gap.normal_force(entry(), -(u + gap.g), -rate),
        }
    }

    /// Whether the model conserves its mechanical energy, whatever its state: no damping
    /// (viscous, Rayleigh), no time-dependent loads or base motion, no smoothing, every gap's
    /// law elastic (`linear`, `hertz`: Kelvin–Voigt, Hunt–Crossley and Lankarani–Nikravesh
    /// dissipate while in contact), every rigid stop with `e = 1`, no friction (Coulomb
    /// contacts, Jenkins sliders and 2-D contacts dissipate while slipping). Decided from the model, not
    /// from the current modes, so a dissipative contact that is open at a sample does not
    /// make that sample count.
    pub fn is_conservative(&self) -> bool {
        let s = self.form.sys;
        s.c.nnz() == 0
            && s.forces.is_empty()
            && s.base.is_empty()
            && self.form.gaps.iter().all(|g| {
                g.smooth.is_none()
                    && matches!(g.law, ContactLaw::Linear { .. } | ContactLaw::Hertz { .. })
            })
            && self.form.stops.iter().all(|st| st.e == 1.0)
            && s.nonlinear
                .iter()
                .all(|e| !matches!(e.law, Nonlinearity::Friction(_)))
    }

    /// Total mechanical energy when the system is conservative (`is_conservative`) and no
    /// stop is held in persistent contact, else `None`.
    pub fn energy(&self, y: &[f64]) -> Option<f64> {
        let (form, s) = (&self.form, self.form.sys);
        if !self.is_conservative() || self.state.any_held() {
            return None;
        }
        let n = form.n;
        let (x, v) = y.split_at(n);
        let quad = |a: &sprs::CsMat<f64>, z: &[f64]| -> f64 {
            a.iter().map(|(val, (i, j))| z[i] * val * z[j]).sum::<f64>()
        };
        let mut e = 0.5 * quad(&s.m, v) + 0.5 * quad(&s.k, x)
            - s.static_load
                .iter()
                .zip(x)
                .map(|(f, xi)| f * xi)
                .sum::<f64>();
        for &(a, b, k2, k3) in &form.poly {
            let u = form.relative(a, b, 0.0, x);
            e += k2 * u.powi(3) / 3.0 + k3 * u.powi(4) / 4.0;
        }
        for gap in &form.gaps {
            let u = form.relative(gap.a, gap.b, 0.0, x);
            if u > gap.g && gap.sides != Sides::Negative {
                e += gap.potential(u - gap.g)?;
            } else if u < -gap.g && gap.sides != Sides::Positive {
                e += gap.potential(-(u + gap.g))?;
            }
        }
        Some(e)
    }
}
