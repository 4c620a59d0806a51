//! The free-play gap's harmonic forces in closed form, for harmonic balance: the contact
//! intervals are bounded by the exact roots of `u(θ) = ±g` (`u` the trigonometric polynomial
//! of the element's relative displacement), and the force `k(u ∓ g)` is integrated over them
//! analytically. The residual so has no sampling error, and it is continuously
//! differentiable in the coefficients: the force vanishes where an interval begins and
//! ends, so the boundaries' motion adds nothing to the Jacobian
//! `∂F_p/∂q_r = (w_p/2π) k Σ_I ∫_I φ_p φ_r dθ` (`w_0 = 1`, else 2), and a contact that
//! appears at grazing starts with an interval of zero length. (The AFT of the same law is
//! piecewise smooth in the coefficients, its Jacobian jumping whenever a sample crosses
//! the clearance, which stalls continuation through grazing.)
//!
//! Roots are isolated on `[0, 2π]` with the bound `|u''| ≤ Σ k²(|c_k| + |s_k|)`: an
//! interval whose end values share a sign and exceed that bound's chord deviation holds no
//! root, one where `|u'|` stays away from zero holds at most one; the rest are halved. Only
//! tangencies narrower than `GAP_TANGENCY_WIDTH` (contacts of zero length, no force) are
//! passed over.

use super::aft::interval_gram;
use super::tolerances::{
    GAP_CELLS_PER_HARMONIC, GAP_ON_LEVEL, GAP_REFINE_MAX_ITERATIONS, GAP_REFINE_STEP_TOL,
    GAP_ROOT_MERGE, GAP_TANGENCY_WIDTH,
};
use nalgebra::DMatrix;
use nsd_model::flat::Sides;
use std::f64::consts::TAU;

/// A real trigonometric polynomial `q0 + Σ c_k cos kθ + s_k sin kθ` (coefficients
/// `[q0, c1, s1, …]`) minus a level.
struct Trig<'a> {
    q: &'a [f64],
    level: f64,
    /// Bound on `|u''|`.
    curvature: f64,
    /// Size of `u − level` below which a cell counts as on the level (`GAP_ON_LEVEL`).
    on_level: f64,
}

impl Trig<'_> {
    fn harmonics(&self) -> usize {
        self.q.len() / 2
    }

    /// `u(θ) − level` and `u'(θ)`.
    fn eval(&self, theta: f64) -> (f64, f64) {
        let (s1, c1) = theta.sin_cos();
        let (mut c, mut s) = (1.0, 0.0);
        let (mut v, mut d) = (self.q[0] - self.level, 0.0);
        for k in 1..=self.harmonics() {
            (c, s) = (c * c1 - s * s1, s * c1 + c * s1);
            let (ck, sk) = (self.q[2 * k - 1], self.q[2 * k]);
            v += ck * c + sk * s;
            d += k as f64 * (sk * c - ck * s);
        }
        (v, d)
    }

    /// Every root in `[0, 2π)`, ascending (tangencies excepted, module docs).
    fn roots(&self) -> Vec<f64> {
        let cells = GAP_CELLS_PER_HARMONIC * (self.harmonics() + 1);
        let mut out = Vec::new();
        let mut a = 0.0;
        let mut fa = self.eval(0.0).0;
        for j in 1..=cells {
            let b = TAU * j as f64 / cells as f64;
            let fb = self.eval(b).0;
            self.isolate(a, b, fa, fb, &mut out);
            (a, fa) = (b, fb);
        }
        out.retain(|r| *r < TAU);
        out.sort_by(f64::total_cmp);
        out.dedup_by(|x, y| (*x - *y).abs() <= GAP_ROOT_MERGE);
        out
    }

    fn isolate(&self, a: f64, b: f64, fa: f64, fb: f64, out: &mut Vec<f64>) {
        if fa == 0.0 {
            out.push(a);
        }
        let w = b - a;
        let same_sign = (fa > 0.0 && fb > 0.0) || (fa < 0.0 && fb < 0.0);
        // Below the chord by at most curvature·w²/8: no root when both ends clear it.
        let bow = self.curvature * w * w / 8.0;
        if same_sign && fa.abs().min(fb.abs()) > bow {
            return;
        }
        // On the level to round-off over the whole cell: no force, and no root to find.
        if fa.abs().max(fb.abs()) + bow <= self.on_level {
            return;
        }
        let m = 0.5 * (a + b);
        let (fm, dm) = self.eval(m);
        let monotone = dm.abs() > self.curvature * w / 2.0;
        if monotone || w < GAP_TANGENCY_WIDTH {
            if (fa < 0.0 && fb > 0.0) || (fa > 0.0 && fb < 0.0) {
                out.push(self.refine(a, b, fa));
            }
            return;
        }
        self.isolate(a, m, fa, fm, out);
        self.isolate(m, b, fm, fb, out);
    }

    /// The root in the bracket `[a, b]` (a sign change) by Newton's method safeguarded by
    /// bisection, to round-off.
    fn refine(&self, mut a: f64, mut b: f64, fa: f64) -> f64 {
        let rising = fa < 0.0;
        let mut x = 0.5 * (a + b);
        for _ in 0..GAP_REFINE_MAX_ITERATIONS {
            let (f, d) = self.eval(x);
            if f == 0.0 {
                return x;
            }
            if (f < 0.0) == rising {
                a = x;
            } else {
                b = x;
            }
            let newton = x - f / d;
            let next = if d != 0.0 && newton > a && newton < b {
                newton
            } else {
                0.5 * (a + b)
            };
            if (next - x).abs() <= GAP_REFINE_STEP_TOL * x.abs().max(1.0) || b - a <= 0.0 {
                return next;
            }
            x = next;
        }
        x
    }
}

/// The Fourier coefficients `[F0, C1, S1, …]` of the gap force `k(u − g)` where `u > g`
/// and `k(u + g)` where `u < −g` (per `sides`) for the displacement coefficients `u`, and
/// their Jacobian when asked.
pub(crate) fn forces(
    u: &[f64],
    k: f64,
    g: f64,
    sides: Sides,
    with_jacobian: bool,
) -> (Vec<f64>, Option<DMatrix<f64>>) {
    let width = u.len();
    let mut gram = DMatrix::zeros(width, width);
    let mut load = vec![0.0; width];
    for (trig, sign) in levels(u, g, sides) {
        let level = trig.level;
        let roots = trig.roots();
        let pieces: Vec<(f64, f64)> = if roots.is_empty() {
            vec![(0.0, TAU)]
        } else {
            (0..roots.len())
                .map(|i| {
                    let next = roots.get(i + 1).copied().unwrap_or(roots[0] + TAU);
                    (roots[i], next)
                })
                .collect()
        };
        for (alpha, beta) in pieces {
            if sign * trig.eval(0.5 * (alpha + beta)).0 <= 0.0 {
                continue;
            }
            let piece = interval_gram(width / 2, alpha, beta);
            for p in 0..width {
                load[p] += level * piece[(p, 0)];
            }
            gram += piece;
        }
    }
    // F_p = (w_p/2π) k (Σ_r G_pr u_r − Σ_I level g_p).
    let weight = |p: usize| k * weight(p);
    let coef = (0..width)
        .map(|p| weight(p) * ((0..width).map(|r| gram[(p, r)] * u[r]).sum::<f64>() - load[p]))
        .collect();
    let jac = with_jacobian.then(|| {
        for p in 0..width {
            let w = weight(p);
            gram.row_mut(p).scale_mut(w);
        }
        gram
    });
    (coef, jac)
}

/// `w_p/2π` (`w_0 = 1`, else 2): the Fourier coefficients' weights.
fn weight(p: usize) -> f64 {
    let w = if p == 0 { 1.0 } else { 2.0 };
    w / TAU
}

/// Per active side, `u − level` as a trigonometric polynomial and the sign of `u − level`
/// where the contact acts.
fn levels(u: &[f64], g: f64, sides: Sides) -> Vec<(Trig<'_>, f64)> {
    let curvature: f64 = (1..=u.len() / 2)
        .map(|h| (h * h) as f64 * (u[2 * h - 1].abs() + u[2 * h].abs()))
        .sum();
    let size: f64 = u.iter().map(|c| c.abs()).sum::<f64>() + g.abs();
    let trig = |level| Trig {
        q: u,
        level,
        curvature,
        on_level: GAP_ON_LEVEL * size,
    };
    let mut active = Vec::with_capacity(2);
    if sides != Sides::Negative {
        active.push((trig(g), 1.0));
    }
    if sides != Sides::Positive {
        active.push((trig(-g), -1.0));
    }
    active
}

/// `Σ_p λ_p ∂²F_p/∂u_a∂u_b` of `forces`: the Jacobian `(w_p/2π) k Σ_I ∫_I φ_p φ_r` changes
/// only through the interval ends θ*, roots of `u(θ*) = ±g`, which move by
/// `∂θ*/∂u_b = −φ_b(θ*)/u'(θ*)`. An interval's end adds `φφᵀ(θ*) ∂θ*/∂u_b`, its start
/// subtracts it, and `u'` has the sign that makes each root contribute
/// `± k φ(θ*) φ(θ*)ᵀ / |u'(θ*)|` (+ on the positive side, − on the negative one): the
/// sampled law's `f'' = ±k δ(u ∓ g)` integrated exactly. Contracted with `λ`, each root adds
/// `± k ℓ(θ*) φφᵀ / |u'|` with `ℓ(θ) = Σ_p (w_p/2π) λ_p φ_p(θ)`. A tangency (`u' = 0`, a
/// contact of zero length) is where the Hessian is unbounded; it is passed over.
pub(crate) fn contracted_hessian(
    u: &[f64],
    k: f64,
    g: f64,
    sides: Sides,
    lambda: &[f64],
) -> DMatrix<f64> {
    let width = u.len();
    let mut out = DMatrix::zeros(width, width);
    for (trig, sign) in levels(u, g, sides) {
        for theta in trig.roots() {
            let (_, rate) = trig.eval(theta);
            if rate == 0.0 {
                continue;
            }
            let phi = nalgebra::DVector::from_fn(width, |p, _| match p {
                0 => 1.0,
                p if p % 2 == 1 => (p.div_ceil(2) as f64 * theta).cos(),
                p => ((p / 2) as f64 * theta).sin(),
            });
            let ell: f64 = (0..width).map(|p| weight(p) * lambda[p] * phi[p]).sum();
            out.ger(sign * k * ell / rate.abs(), &phi, &phi, 1.0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hb::aft::Aft;

    fn sampled(u: &[f64], k: f64, g: f64, sides: Sides, samples: usize) -> Vec<f64> {
        let aft = Aft::new(u.len() / 2, samples).expect("samples");
        let force: Vec<f64> = aft
            .to_time(u, None)
            .iter()
            .map(|&x| {
                if x > g && sides != Sides::Negative {
                    k * (x - g)
                } else if x < -g && sides != Sides::Positive {
                    k * (x + g)
                } else {
                    0.0
                }
            })
            .collect();
        aft.to_coefficients(&force)
    }

    /// Deterministic states of 5 harmonics, some crossing one side, both, or neither.
    fn states() -> Vec<Vec<f64>> {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        (0..40)
            .map(|i| {
                let scale = 0.02 + 0.01 * (i % 8) as f64;
                (0..11)
                    .map(|p| scale * next() / (1 + p / 2) as f64)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn one_harmonic_is_the_free_play_describing_function() {
        // u = A cos θ through a symmetric gap: F1 = k A [1 − (2/π)(asin(g/A) + (g/A)√(1 − (g/A)²))].
        let (k, g) = (10.0, 0.05);
        for a in [0.051, 0.07, 0.1, 0.5, 3.0] {
            let (f, _) = forces(&[0.0, a, 0.0], k, g, Sides::Both, false);
            let r: f64 = g / a;
            let exact =
                k * a * (1.0 - 2.0 / std::f64::consts::PI * (r.asin() + r * (1.0 - r * r).sqrt()));
            assert!(
                (f[1] - exact).abs() < 1e-13 * exact.abs().max(1e-3),
                "A = {a}: {} vs {exact}",
                f[1]
            );
            assert!(f[0].abs() < 1e-15 && f[2].abs() < 1e-15, "{f:?}");
        }
        // Below the clearance, and exactly grazing: no force.
        for a in [0.03, 0.05] {
            let (f, _) = forces(&[0.0, a, 0.0], k, g, Sides::Both, false);
            assert!(f.iter().all(|v| v.abs() < 1e-15), "A = {a}: {f:?}");
        }
    }

    #[test]
    fn coefficients_agree_with_a_fine_sampled_transform() {
        // The AFT of the kinked force converges as N⁻²: 2¹⁶ samples leave ~1e-10.
        for (i, u) in states().iter().enumerate() {
            let sides = [Sides::Both, Sides::Positive, Sides::Negative][i % 3];
            let (f, _) = forces(u, 10.0, 0.05, sides, false);
            let reference = sampled(u, 10.0, 0.05, sides, 1 << 16);
            let scale = u.iter().map(|v| v.abs()).sum::<f64>() * 10.0;
            for (a, b) in f.iter().zip(&reference) {
                assert!(
                    (a - b).abs() < 1e-8 * scale,
                    "state {i}: {f:?} vs {reference:?}"
                );
            }
        }
    }

    #[test]
    fn jacobian_agrees_with_central_differences() {
        for (i, u) in states().iter().enumerate() {
            let sides = [Sides::Both, Sides::Positive, Sides::Negative][i % 3];
            let (_, jac) = forces(u, 10.0, 0.05, sides, true);
            let jac = jac.expect("asked");
            let scale = jac.amax().max(1e-12);
            for r in 0..u.len() {
                let h = 1e-7;
                let mut up = u.clone();
                up[r] += h;
                let mut down = u.clone();
                down[r] -= h;
                let (fp, _) = forces(&up, 10.0, 0.05, sides, false);
                let (fm, _) = forces(&down, 10.0, 0.05, sides, false);
                for p in 0..u.len() {
                    let fd = (fp[p] - fm[p]) / (2.0 * h);
                    assert!(
                        (fd - jac[(p, r)]).abs() < 1e-6 * scale,
                        "state {i}, ∂F{p}/∂q{r}: {fd} vs {}",
                        jac[(p, r)]
                    );
                }
            }
        }
    }

    #[test]
    fn contracted_hessian_agrees_with_central_differences_of_the_jacobian() {
        // 40 states of 5 harmonics crossing one side, both or neither (a draw with a root
        // within 1e-4 of a tangency, where the Hessian is unbounded, would be skipped: the
        // smallest |u'| at a root times the state's scale is reported when one fails).
        for (i, u) in states().iter().enumerate() {
            let sides = [Sides::Both, Sides::Positive, Sides::Negative][i % 3];
            let lambda: Vec<f64> = (0..u.len())
                .map(|p| ((p * 7 + i) % 5) as f64 - 2.0)
                .collect();
            let hess = contracted_hessian(u, 10.0, 0.05, sides, &lambda);
            let scale = hess.amax().max(1e-9);
            let h = 1e-7;
            for b in 0..u.len() {
                let (mut up, mut down) = (u.clone(), u.clone());
                up[b] += h;
                down[b] -= h;
                let jp = forces(&up, 10.0, 0.05, sides, true).1.expect("asked");
                let jm = forces(&down, 10.0, 0.05, sides, true).1.expect("asked");
                let fd = (jp - jm).transpose() * nalgebra::DVector::from_column_slice(&lambda)
                    / (2.0 * h);
                for a in 0..u.len() {
                    assert!(
                        (fd[a] - hess[(a, b)]).abs() < 1e-6 * scale,
                        "state {i}, ({a}, {b}): {} vs {}",
                        hess[(a, b)],
                        fd[a]
                    );
                }
            }
            assert!(
                (&hess - hess.transpose()).amax() < 1e-12 * scale,
                "symmetric"
            );
        }
    }

    #[test]
    fn a_shallow_contact_between_coarse_grid_points_is_found() {
        // u = A cos(θ − φ) with A − g = 1e-7 g: the contact lasts 2θ₀ ≈ 9e-4 rad around
        // φ, between the 0.26 rad grid points the search starts from.
        let (k, g, a, phi): (f64, f64, f64, f64) = (10.0, 1.0, 1.0 + 1e-7, 0.1234);
        let u = [0.0, a * phi.cos(), a * phi.sin(), 0.0, 0.0];
        let (f, _) = forces(&u, k, g, Sides::Positive, false);
        // F = (kA/π)(θ₀ − sin 2θ₀ / 2), θ₀ = acos(g/A), by its series (no cancellation).
        let theta0 = ((a - 1.0) * (a + 1.0)).sqrt().atan();
        let x: f64 = 2.0 * theta0;
        let exact = k * a / std::f64::consts::PI
            * (x.powi(3) / 6.0 - x.powi(5) / 120.0 + x.powi(7) / 5040.0)
            / 2.0;
        let found = f[1].hypot(f[2]);
        // The closed form subtracts O(θ₀) integrals to get O(θ₀³): ~1e-9 relative round-off.
        assert!((found - exact).abs() < 1e-6 * exact, "{found} vs {exact}");
        assert!((f[2].atan2(f[1]) - phi).abs() < 1e-6, "centred on φ");
    }
}
