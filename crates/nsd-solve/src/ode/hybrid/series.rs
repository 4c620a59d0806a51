//! The Taylor coefficients of the motion in the current modes, for models whose right-hand
//! side is a polynomial in the state plus harmonics in time: linear `M`, `C`, `K`, polynomial
//! springs (`k2 u² + k3 u³`), exact gaps with a `linear` law (or a Kelvin–Voigt law with
//! `tension`, affine in `δ` and `δ̇`), DOF loads that are sums of harmonics; no base motion,
//! friction, rigid stops or smoothing. On such a model `y(t0 + s) = Σ_k Y_k s^k` follows from
//! `y(t0)` by the recurrence of automatic differentiation: `X_{k+1} = V_k/(k + 1)`,
//! `V_{k+1} = M⁻¹F_k/(k + 1)`, where `F_k`, the `k`-th coefficient of the force, takes the
//! linear terms from `X_k, V_k`, the powers of an element's stretch `u` from Cauchy products
//! (`(u²)_k = Σ_j u_j u_{k−j}`, `(u³)_k = Σ_j (u²)_j u_{k−j}`) and the loads in closed form
//! (`A cos(ω(t0 + s) + φ)` has `A ωᵏ cos(ωt0 + φ + kπ/2)/k!`). The cost is `O(p²)` per
//! element for `p` coefficients, against the many right-hand sides a Runge–Kutta step of
//! the same accuracy takes.
//!
//! # References
//! À. Jorba and M. Zou, "A software package for the numerical integration of ODEs by means of
//! high-order Taylor methods", Experimental Mathematics 14 (2005) 99–117, Sect. 2 (the
//! recurrences of automatic differentiation).

use super::laws::GapMode;
use super::Hybrid;
use nsd_model::flat::ContactLaw;
use nsd_model::time_fn::Prepared;

/// The Taylor coefficients `Y_0 … Y_p` of the state at one instant, with the work arrays of
/// their recurrence (one buffer per integration: no allocation per step).
pub(crate) struct Series {
    /// `Y_k` at `k · width … (k + 1) · width` (the state's length): `y(t0 + s) = Σ_k Y_k s^k`,
    /// one block so that the lanes copy a motion's series out in one pass.
    pub(super) coef: Vec<f64>,
    width: usize,
    /// Per polynomial spring: the coefficients of its stretch `u`, of `u²`, and of `u` in
    /// reverse (`u_j` at `order − j`), so that a Cauchy product is a forward dot product.
    stretch: Vec<[Vec<f64>; 3]>,
    /// Per harmonic of the loads (in order): `A ωᵏ/k!` at the current `k`, and
    /// `cos`, `sin` of its phase `ωt0 + φ` at the step's start.
    harmonics: Vec<(f64, f64, f64)>,
    force: Vec<f64>,
    acc: Vec<f64>,
}

impl Series {
    /// Storage for `order + 1` coefficients of the state of `h`.
    pub(crate) fn new(h: &Hybrid, order: usize) -> Series {
        let n = h.form.n;
        Series {
            coef: vec![0.0; 2 * n * (order + 1)],
            width: 2 * n,
            stretch: vec![
                [
                    vec![0.0; order + 1],
                    vec![0.0; order + 1],
                    vec![0.0; order + 1]
                ];
                h.form.poly.len()
            ],
            harmonics: vec![
                (0.0, 0.0, 0.0);
                h.form.loads.iter().map(|(_, f)| harmonic_count(f)).sum()
            ],
            force: vec![0.0; n],
            acc: vec![0.0; n],
        }
    }

    /// The highest power kept.
    pub(crate) fn order(&self) -> usize {
        self.coef.len() / self.width - 1
    }

    /// `Y_0 … Y_p` in order.
    pub(crate) fn rows(&self) -> std::slice::ChunksExact<'_, f64> {
        self.coef.chunks_exact(self.width)
    }

    /// `Y_k`.
    pub(crate) fn row(&self, k: usize) -> &[f64] {
        row_of(&self.coef, self.width, k)
    }

    /// The state at `t0 + s` into `out`: per block of four components, the even and the
    /// odd coefficients by two Horner chains in `s²` side by side (fused multiply–adds, the
    /// block in registers), then `even + s · odd` — half the dependent chain of one Horner
    /// pass in `s`, which bounded the end state of every Taylor step. The components past
    /// the last whole block by Horner's rule in `s`.
    pub(crate) fn state_at(&self, s: f64, out: &mut [f64]) {
        const BLOCK: usize = 4;
        let (s2, p) = (s * s, self.order());
        let whole = out.len() / BLOCK * BLOCK;
        let (blocks, rest) = out.split_at_mut(whole);
        for (b, chunk) in blocks.chunks_exact_mut(BLOCK).enumerate() {
            let column = |k: usize| &self.row(k)[b * BLOCK..(b + 1) * BLOCK];
            let (mut even, mut odd) = ([0.0_f64; BLOCK], [0.0_f64; BLOCK]);
            for j in (0..=p / 2).rev() {
                let c = column(2 * j);
                for l in 0..BLOCK {
                    even[l] = even[l].mul_add(s2, c[l]);
                }
                if 2 * j < p {
                    let c = column(2 * j + 1);
                    for l in 0..BLOCK {
                        odd[l] = odd[l].mul_add(s2, c[l]);
                    }
                }
            }
            for l in 0..BLOCK {
                chunk[l] = odd[l].mul_add(s, even[l]);
            }
        }
        for (i, y) in rest.iter_mut().enumerate() {
            *y = self
                .rows()
                .rev()
                .fold(0.0, |acc, row| acc.mul_add(s, row[whole + i]));
        }
    }

    /// The monomial coefficients in the normalised time `θ = s/step` of `Σ wᵢ yᵢ + c`.
    pub(crate) fn linear_poly(&self, w: &[(usize, f64)], c: f64, step: f64) -> Vec<f64> {
        let mut p = vec![0.0; self.order() + 1];
        self.linear_poly_into(w, c, step, &mut p);
        p
    }

    /// `linear_poly` into `p` (of `order + 1` entries): no allocation, for the event search
    /// of every step.
    pub(crate) fn linear_poly_into(&self, w: &[(usize, f64)], c: f64, step: f64, p: &mut [f64]) {
        let mut scale = 1.0;
        for (pk, y) in p.iter_mut().zip(self.rows()) {
            *pk = scale * w.iter().map(|&(i, wi)| wi * y[i]).sum::<f64>();
            scale *= step;
        }
        p[0] += c;
    }
}

/// The Cauchy product's coefficient `Σ_j a_j b_{k−j}` of two series known to `k`, from
/// `a = (a_0 … a_k)` and `b` reversed, `(b_k … b_0)` (or a leading part of both): a dot
/// product in four independent parts (the pairs `j ≡ i mod 4` in part `i`, the last
/// `(k + 1) mod 4` pairs summed apart), whose single running sum would wait on each addition
/// and which the compiler vectorises.
#[inline]
fn cauchy(a: &[f64], b_reversed: &[f64]) -> f64 {
    let (a4, b4) = (a.chunks_exact(4), b_reversed.chunks_exact(4));
    let tail: f64 = a4
        .remainder()
        .iter()
        .zip(b4.remainder())
        .map(|(x, y)| x * y)
        .sum();
    let mut parts = [0.0; 4];
    for (x, y) in a4.zip(b4) {
        for ((part, xi), yi) in parts.iter_mut().zip(x).zip(y) {
            *part += xi * yi;
        }
    }
    (parts[0] + parts[1]) + (parts[2] + parts[3]) + tail
}

/// `Y_k` of the block `coef` of rows of `width`.
fn row_of(coef: &[f64], width: usize, k: usize) -> &[f64] {
    &coef[k * width..(k + 1) * width]
}

/// The harmonics of a prepared load (none for a general function of time).
fn harmonic_count(f: &Prepared) -> usize {
    match f {
        Prepared::Harmonics(_, hs) => hs.len(),
        Prepared::Tree(_) => 0,
    }
}

impl Hybrid<'_> {
    /// Why the Taylor coefficients of this model cannot be had from `taylor` (the element
    /// or load that is not a polynomial in the state and harmonic in time), or `None`.
    pub fn not_polynomial(&self) -> Option<&'static str> {
        let affine = |law| match law {
            ContactLaw::Linear { .. } => true,
            ContactLaw::KelvinVoigt { tension, .. } => tension,
            _ => false,
        };
        let form = &self.form;
        if !form.sys.base.is_empty() {
            Some("base motion")
        } else if !(form.friction.is_empty() && form.jenkins.is_empty() && form.contacts.is_empty())
        {
            Some("friction")
        } else if !form.stops.is_empty() {
            Some("a rigid stop")
        } else if form
            .gaps
            .iter()
            .any(|g| g.smooth.is_some() || !affine(g.law))
        {
            Some("a gap law that is not linear")
        } else if form
            .loads
            .iter()
            .any(|(_, f)| !matches!(f, Prepared::Harmonics(..)))
        {
            Some("a load that is not a sum of harmonics")
        } else {
            None
        }
    }

    /// The Taylor coefficients of the motion from `(t0, y0)` in the current modes into `s`
    /// (the model must pass `not_polynomial`).
    pub(crate) fn taylor(&mut self, t0: f64, y0: &[f64], s: &mut Series) {
        let n = self.form.n;
        let m = s.width;
        s.coef[..m].copy_from_slice(y0);
        let mut force = std::mem::take(&mut s.force);
        for k in 0..s.order() {
            self.force_coefficient(t0, k, s, &mut force);
            self.form.mass.solve_into(&force, &mut s.acc);
            let inv = 1.0 / (k + 1) as f64;
            let (done, next) = s.coef.split_at_mut((k + 1) * m);
            let (yk, y1) = (&done[k * m..], &mut next[..m]);
            for i in 0..n {
                y1[i] = yk[n + i] * inv;
                y1[n + i] = s.acc[i] * inv;
            }
        }
        s.force = force;
        self.evals += 1;
    }

    /// `F_k`, the `k`-th Taylor coefficient of the force `f(t) − C ẋ − K x − f_nl`, into `f`
    /// (the coefficients `Y_0 … Y_k` known).
    fn force_coefficient(&mut self, t0: f64, k: usize, s: &mut Series, f: &mut [f64]) {
        let n = self.form.n;
        // Not `s.row(k)`: the harmonics and stretches of `s` are borrowed mutably below.
        let (x, v) = row_of(&s.coef, s.width, k).split_at(n);
        if k == 0 {
            f.copy_from_slice(&self.form.sys.static_load);
        } else {
            f.fill(0.0);
        }
        let mut slots = s.harmonics.iter_mut();
        for (dof, load) in &self.form.loads {
            if let Prepared::Harmonics(c0, hs) = load {
                f[*dof] += if k == 0 { *c0 } else { 0.0 };
                for (h, (scale, cos, sin)) in hs.iter().zip(slots.by_ref()) {
                    if k == 0 {
                        let phase = h.omega * t0 + h.phase;
                        (*scale, *cos, *sin) = (h.amplitude, phase.cos(), phase.sin());
                    } else {
                        *scale *= h.omega / k as f64;
                    }
                    // d^k/dt^k cos(θ) = cos(θ + kπ/2): cos, −sin, −cos, sin in turn.
                    f[*dof] += *scale
                        * match k % 4 {
                            0 => *cos,
                            1 => -*sin,
                            2 => -*cos,
                            _ => *sin,
                        };
                }
            }
        }
        self.form.linear.subtract(self.form.sys, x, v, f);
        for (e, &(a, b, k2, k3)) in self.form.poly.iter().enumerate() {
            let [u, u2, reversed] = &mut s.stretch[e];
            let p = reversed.len() - 1;
            // Without base motion an attachment's position is linear in x (the ground at 0).
            u[k] = self.form.relative(a, b, t0, x);
            reversed[p - k] = u[k];
            // (u²)_k = 2 Σ_{j < k−j} u_j u_{k−j} + u_{k/2}² (k even): half the products.
            let half = k.div_ceil(2);
            let middle = if k.is_multiple_of(2) {
                u[k / 2] * u[k / 2]
            } else {
                0.0
            };
            u2[k] = 2.0 * cauchy(&u[..half], &reversed[p - k..p - k + half]) + middle;
            let u3 = cauchy(&u2[..=k], &reversed[p - k..]);
            super::rhs::apply(a, b, k2 * u2[k] + k3 * u3, f);
        }
        for (gi, gap) in self.form.gaps.iter().enumerate() {
            let u = self.form.relative(gap.a, gap.b, t0, x);
            let rate = self.form.rate(gap.a, t0, v) - self.form.rate(gap.b, t0, v);
            // The law is linear in (δ, δ̇) (`not_polynomial`): the clearance enters the
            // constant term only, and `normal_force` of the coefficients is the coefficient.
            let g = if k == 0 { gap.g } else { 0.0 };
            let force = match self.state.gaps[gi] {
                GapMode::Open => 0.0,
                GapMode::Plus => gap.normal_force(self.state.entry_speed[gi], u - g, rate),
                GapMode::Minus => -gap.normal_force(self.state.entry_speed[gi], -(u + g), -rate),
            };
            super::rhs::apply(gap.a, gap.b, force, f);
        }
    }
}
