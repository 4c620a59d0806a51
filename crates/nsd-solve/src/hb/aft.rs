//! Alternating frequency/time (AFT) transforms for harmonic balance (paper 003, eqs. 1–5):
//! a periodic signal is held as real Fourier coefficients `[q0, c1, s1, …, cH, sH]`
//! (`x(θ) = q0 + Σ c_k cos kθ + s_k sin kθ`, θ = ωt), sampled at `N` equally spaced phases by
//! an inverse FFT, and a nonlinear force evaluated on the samples is brought back by a
//! forward FFT. The Jacobian of that map is exact for the sampled force:
//! `∂F_p/∂q_q = (w_p/N) Σ_j φ_p(θ_j) [∂f/∂u_j φ_q(θ_j) + ω ∂f/∂u̇_j φ'_q(θ_j)]`
//! (`w_0 = 1`, else 2), so Newton never needs finite differences.

use super::tolerances::{PEAK_MAX_ITERATIONS, PEAK_STEP_TOL};
use nalgebra::DMatrix;
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};
use std::sync::Arc;

/// The transforms for `h` harmonics on `n` samples.
pub struct Aft {
    pub harmonics: usize,
    pub samples: usize,
    forward: Arc<dyn Fft<f64>>,
    inverse: Arc<dyn Fft<f64>>,
    /// `φ_p(θ_j)` and `dφ_p/dθ(θ_j)`, one row per sample.
    basis: DMatrix<f64>,
    dbasis: DMatrix<f64>,
}

/// Why the transforms for a request cannot be built.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum AftError {
    #[error("{samples} time samples cannot resolve {harmonics} harmonics (need more than {})", 2 * .harmonics)]
    TooFewSamples { harmonics: usize, samples: usize },
    #[error("{harmonics} harmonics on {samples} samples need an estimated {} for the sampled bases (the limit is {})", crate::bytes_text(*.bytes), crate::bytes_text(crate::MAX_REQUEST_BYTES))]
    TooLarge {
        harmonics: usize,
        samples: usize,
        bytes: f64,
    },
}

impl Aft {
    /// Bytes of the sampled bases `φ_p(θ_j)` and `dφ_p/dθ(θ_j)` (`samples × (2H + 1)` each):
    /// what a request of `harmonics` on `samples` allocates before its first solve.
    pub fn bytes(harmonics: usize, samples: usize) -> f64 {
        2.0 * samples as f64 * (2 * harmonics + 1) as f64 * std::mem::size_of::<f64>() as f64
    }

    /// The transforms, refused (never allocated) past `MAX_REQUEST_BYTES`: every harmonic
    /// balance builds its AFT here, so no request can abort in the allocation.
    pub fn new(harmonics: usize, samples: usize) -> Result<Aft, AftError> {
        if samples <= 2 * harmonics {
            return Err(AftError::TooFewSamples { harmonics, samples });
        }
        let bytes = Aft::bytes(harmonics, samples);
        if bytes > crate::MAX_REQUEST_BYTES {
            return Err(AftError::TooLarge {
                harmonics,
                samples,
                bytes,
            });
        }
        let mut planner = FftPlanner::new();
        let width = 2 * harmonics + 1;
        let theta = |j: usize| std::f64::consts::TAU * j as f64 / samples as f64;
        let basis = DMatrix::from_fn(samples, width, |j, p| match p {
            0 => 1.0,
            p if p % 2 == 1 => (p.div_ceil(2) as f64 * theta(j)).cos(),
            p => ((p / 2) as f64 * theta(j)).sin(),
        });
        let dbasis = DMatrix::from_fn(samples, width, |j, p| match p {
            0 => 0.0,
            p if p % 2 == 1 => {
                let k = p.div_ceil(2) as f64;
                -k * (k * theta(j)).sin()
            }
            p => {
                let k = (p / 2) as f64;
                k * (k * theta(j)).cos()
            }
        });
        Ok(Aft {
            harmonics,
            samples,
            forward: planner.plan_fft_forward(samples),
            inverse: planner.plan_fft_inverse(samples),
            basis,
            dbasis,
        })
    }

    /// The number of coefficients per signal, `2H + 1`.
    pub fn width(&self) -> usize {
        2 * self.harmonics + 1
    }

    /// Samples of the signal with coefficients `q` (and, with `omega`, of its time
    /// derivative: `c_k ← kω s_k`, `s_k ← −kω c_k`).
    pub fn to_time(&self, q: &[f64], omega: Option<f64>) -> Vec<f64> {
        let mut spec = vec![Complex::new(0.0, 0.0); self.samples];
        if omega.is_none() {
            spec[0] = Complex::new(q[0], 0.0);
        }
        for k in 1..=self.harmonics {
            let (c, s) = (q[2 * k - 1], q[2 * k]);
            let (c, s) = match omega {
                Some(w) => (k as f64 * w * s, -(k as f64) * w * c),
                None => (c, s),
            };
            // c cos kθ + s sin kθ = Re[(c − i s) e^{ikθ}]: half on k, the conjugate on N − k.
            spec[k] += Complex::new(0.5 * c, -0.5 * s);
            spec[self.samples - k] += Complex::new(0.5 * c, 0.5 * s);
        }
        self.inverse.process(&mut spec);
        spec.iter().map(|z| z.re).collect()
    }

    /// `max_θ |x(θ)|` of the signal with coefficients `q`: the largest sample in magnitude,
    /// refined by Newton's method on `x'(θ) = 0` (the samples resolve every harmonic, so the
    /// largest one lies next to the global extremum; sampled alone, one harmonic on 16
    /// samples would be up to 2 % low).
    pub fn peak(&self, q: &[f64]) -> f64 {
        let samples = self.to_time(q, None);
        let Some((j, _)) = samples
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        else {
            return 0.0;
        };
        // x, x', x'' at θ.
        let eval = |theta: f64| {
            let (mut x, mut d1, mut d2) = (q[0], 0.0, 0.0);
            for k in 1..=self.harmonics {
                let kf = k as f64;
                let (s, c) = (kf * theta).sin_cos();
                let (ck, sk) = (q[2 * k - 1], q[2 * k]);
                x += ck * c + sk * s;
                d1 += kf * (sk * c - ck * s);
                d2 -= kf * kf * (ck * c + sk * s);
            }
            (x, d1, d2)
        };
        let step = std::f64::consts::TAU / self.samples as f64;
        let start = step * j as f64;
        let mut theta = start;
        for _ in 0..PEAK_MAX_ITERATIONS {
            let (_, d1, d2) = eval(theta);
            if d2 == 0.0 {
                break;
            }
            let next = (theta - d1 / d2).clamp(start - step, start + step);
            if (next - theta).abs() <= PEAK_STEP_TOL {
                break;
            }
            theta = next;
        }
        eval(theta).0.abs().max(samples[j].abs())
    }

    /// The coefficients `[f0, c1, s1, …]` of sampled values `f`.
    pub fn to_coefficients(&self, f: &[f64]) -> Vec<f64> {
        let mut spec: Vec<Complex<f64>> = f.iter().map(|&v| Complex::new(v, 0.0)).collect();
        self.forward.process(&mut spec);
        let scale = 1.0 / self.samples as f64;
        let mut q = vec![0.0; self.width()];
        q[0] = spec[0].re * scale;
        for k in 1..=self.harmonics {
            q[2 * k - 1] = 2.0 * spec[k].re * scale;
            q[2 * k] = -2.0 * spec[k].im * scale;
        }
        q
    }

    /// `∂(coefficients of f)/∂(coefficients of u)` for `f(u, u̇)` with sampled partial
    /// derivatives `dfdu`, `dfdv` (module docs).
    pub(crate) fn jacobian(&self, dfdu: &[f64], dfdv: &[f64], omega: f64) -> DMatrix<f64> {
        let mut weighted = self.basis.clone();
        for (j, mut row) in weighted.row_iter_mut().enumerate() {
            for (p, v) in row.iter_mut().enumerate() {
                *v = *v * dfdu[j] + omega * dfdv[j] * self.dbasis[(j, p)];
            }
        }
        let mut jac = self.basis.transpose() * weighted;
        let scale = 1.0 / self.samples as f64;
        for (p, mut row) in jac.row_iter_mut().enumerate() {
            row *= if p == 0 { scale } else { 2.0 * scale };
        }
        jac
    }

    /// `Σ_p λ_p ∂²F_p/∂U_a∂U_b` for the coefficients `F` of a force `f(u)` with sampled
    /// second derivative `curvature` (`f''(u_j)`), in the coefficients `U` of `u`: the
    /// derivative of the module docs' Jacobian contracted with `λ`,
    /// `Σ_j f''(u_j) μ_j φ_a(θ_j) φ_b(θ_j)` with `μ_j = (1/N) Σ_p w_p λ_p φ_p(θ_j)`, the
    /// samples of `λ` (as coefficients weighted by `w_p/N`): one inverse transform and a
    /// weighted Gram matrix of the basis.
    pub(crate) fn contracted_hessian(&self, curvature: &[f64], lambda: &[f64]) -> DMatrix<f64> {
        let scale = 1.0 / self.samples as f64;
        let weighted: Vec<f64> = lambda
            .iter()
            .enumerate()
            .map(|(p, l)| l * if p == 0 { scale } else { 2.0 * scale })
            .collect();
        let mu = self.to_time(&weighted, None);
        let mut rows = self.basis.clone();
        for (j, mut row) in rows.row_iter_mut().enumerate() {
            row *= curvature[j] * mu[j];
        }
        self.basis.transpose() * rows
    }
}

/// `∫_a^b φ_p(θ) φ_r(θ) dθ` for the basis `φ_0 = 1`, `φ_{2k−1} = cos kθ`, `φ_{2k} = sin kθ`
/// (`k ≤ harmonics`), by the product-to-sum identities from the closed-form moments
/// `∫ cos mθ`, `∫ sin mθ` (`m ≤ 2H`, by the angle-addition recurrence from one `sin_cos` per
/// end): the Fourier integrals of a force that is linear in the displacement on an interval
/// (free-play contacts, the friction element's stick and slip phases).
pub(crate) fn interval_gram(harmonics: usize, a: f64, b: f64) -> DMatrix<f64> {
    let top = 2 * harmonics;
    let multiples = |tau: f64| {
        let (s1, c1) = tau.sin_cos();
        let (mut s, mut c) = (0.0, 1.0);
        (0..=top)
            .map(|_| {
                let out = (s, c);
                (s, c) = (s * c1 + c * s1, c * c1 - s * s1);
                out
            })
            .collect::<Vec<(f64, f64)>>()
    };
    let (ma, mb) = (multiples(a), multiples(b));
    let cos_int: Vec<f64> = (0..=top)
        .map(|m| {
            if m == 0 {
                b - a
            } else {
                (mb[m].0 - ma[m].0) / m as f64
            }
        })
        .collect();
    let sin_int: Vec<f64> = (0..=top)
        .map(|m| {
            if m == 0 {
                0.0
            } else {
                (ma[m].1 - mb[m].1) / m as f64
            }
        })
        .collect();
    // φ_p as (harmonic, is-sine).
    let basis = |p: usize| {
        if p == 0 {
            (0, false)
        } else {
            (p.div_ceil(2), p.is_multiple_of(2))
        }
    };
    let width = top + 1;
    let mut gram = DMatrix::zeros(width, width);
    for p in 0..width {
        for r in p..width {
            let ((k, sk), (l, sl)) = (basis(p), basis(r));
            let (sum, diff) = (k + l, k.abs_diff(l));
            // sin((k − l)θ) = sign(k − l) sin(|k − l|θ).
            let signed = |x: usize, y: usize| match x.cmp(&y) {
                std::cmp::Ordering::Greater => sin_int[diff],
                std::cmp::Ordering::Less => -sin_int[diff],
                std::cmp::Ordering::Equal => 0.0,
            };
            let v = 0.5
                * match (sk, sl) {
                    (false, false) => cos_int[diff] + cos_int[sum],
                    (true, true) => cos_int[diff] - cos_int[sum],
                    (true, false) => sin_int[sum] + signed(k, l),
                    (false, true) => sin_int[sum] + signed(l, k),
                };
            gram[(p, r)] = v;
            gram[(r, p)] = v;
        }
    }
    gram
}
