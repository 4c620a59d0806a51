//! Damped nonlinear modes by the extended periodic motion concept (paper 003, Sect. 2.2,
//! after Krack): the autonomous balance with an artificial damping term `−ξ M q̇` that
//! feeds back what the structure dissipates (eqs. 7–8), the mode `ψ` mass-normalised on its
//! fundamental with its sine part zero at the monitored DOF (eq. 9), the modal amplitude
//! `a` (`Q = a ψ`) the continuation parameter; the forced backbone follows by the energy
//! balance (eqs. 10–12, after Sun): the level at which the force, phased for the largest
//! work, supplies per period the energy `E_d = ξ ∫ q̇ᵀ M q̇ dt = ξ π ω Σ_k k² (c_kᵀ M c_k +
//! s_kᵀ M s_k)` the mode dissipates, `α = E_d / (π |F̂₁ᴴ Q̂₁|)` with `F̂₁ = F_c − i F_s`,
//! `Q̂₁ = Q_c − i Q_s` the fundamentals (the quadratic forms replace eq. 12's element-wise
//! squares, which assume a diagonal M). ξ = 2ζω: the mode's damping ratio is ζ = ξ/(2ω).

use super::form::ModeForm;
use super::kept_mode::KeptMode;
use super::reduced::Reduced;
use super::ridge::Route;
use super::start::{frequency_response, peak};
use super::{along, within, BackboneError, Curve, Forced, Point, Settings};
use crate::cont::{follow, newton, Problem, Weighted};
use crate::hb::Operator;
use nalgebra::{DMatrix, DVector};
use std::f64::consts::PI;

/// How far past the amplitude ratio of the level range the modal amplitude is continued,
/// at most (a factor): the levels' range is reached first unless the damping grows faster
/// than the amplitude (dimensionless).
const AMPLITUDE_MARGIN: f64 = 100.0;

/// Where the continuation starts, relative to the first level's amplitude of the linearised
/// mode: far enough below that contacts which already slip at the first level start stuck,
/// where the linearised mode is the solution (dimensionless; points below the first level
/// are not reported).
const LINEAR_START: f64 = 1e-3;

/// Relative shortfall of the last point's level below the last asked level within which the
/// backbone counts as reaching it (the regula falsi's tolerance, `LEVEL_ITERATIONS`)
/// (dimensionless).
const LEVEL_REACHED: f64 = 1e-9;

/// Most regula falsi iterations placing the last point on the last level (count).
const LEVEL_ITERATIONS: usize = 60;

/// The point on the last level `s.levels.1` between two branch points that bracket it
/// (`below` and `above`: state, parameter, level), by the Illinois variant of regula
/// falsi on the parameter, each trial solved by Newton's method at fixed parameter from the
/// state interpolated between the bracket's ends; `None` where a trial does not converge.
fn last_level<P: Problem>(
    weighted: &Weighted<P>,
    at: &dyn Fn(&DVector<f64>, f64) -> Point,
    below: (DVector<f64>, f64, f64),
    above: (DVector<f64>, f64, f64),
    s: &Settings,
) -> Option<Point> {
    let target = s.levels.1;
    let scaled = |(z, p, level): (DVector<f64>, f64, f64)| (weighted.scaled(&z), p, level);
    let (mut lo, mut hi) = (scaled(below), scaled(above));
    let (mut side, mut point) = (0, None);
    for _ in 0..LEVEL_ITERATIONS {
        let (flo, fhi) = (lo.2 - target, hi.2 - target);
        let t = (flo / (flo - fhi)).clamp(0.0, 1.0);
        let p = lo.1 + t * (hi.1 - lo.1);
        let guess = &lo.0 + (&hi.0 - &lo.0) * t;
        let (zs, _) = newton(weighted, guess, p, s.tol)?;
        let found = at(&weighted.unscaled(&zs), p);
        let level = found.level;
        if (level - target).abs() <= LEVEL_REACHED * target {
            return Some(found);
        }
        point = Some(found);
        // Illinois: the end kept twice in a row has its value halved, so both ends move.
        if level < target {
            lo = (zs, p, level);
            if side == -1 {
                hi.2 = target + 0.5 * (hi.2 - target);
            }
            side = -1;
        } else {
            hi = (zs, p, level);
            if side == 1 {
                lo.2 = target + 0.5 * (lo.2 - target);
            }
            side = 1;
        }
    }
    point.filter(|p| (p.level - target).abs() <= LEVEL_REACHED * target)
}

impl ModeForm for Mode<'_> {
    fn n(&self) -> usize {
        self.f.dim()
    }
    fn restrict(&self, psi: &DVector<f64>) -> DVector<f64> {
        psi.clone()
    }
    fn full(&self, z: &DVector<f64>, a: f64) -> DVector<f64> {
        z.rows(0, self.n()) * a
    }
    fn peak_frequency(
        &self,
        level: f64,
        window: (f64, f64),
        s: &Settings,
    ) -> Result<f64, BackboneError> {
        let frc = frequency_response(self.f, level, window, s)?;
        Ok(frc[peak(self.f, &frc, level)?].1)
    }
}

/// The mode system in `[ψ (N); ω; ξ]` with `p` the modal amplitude's parameter; equations
/// `[(D̄ a ψ + F_nl(a ψ) − F_c)/a; ψ₁ᵀMψ₁ − 1; ψ_s1,k]`.
struct Mode<'a> {
    f: &'a Forced<'a>,
}

impl Mode<'_> {
    /// The fundamental's part of `x` (every other coefficient zero).
    fn fundamental(&self, x: &DVector<f64>) -> DVector<f64> {
        let n = self.f.hb.dofs();
        let mut out = DVector::zeros(x.len());
        out.rows_mut(n, 2 * n).copy_from(&x.rows(n, 2 * n));
        out
    }

    fn phase_slot(&self) -> usize {
        2 * self.f.hb.dofs() + self.f.monitored
    }
}

impl Problem for Mode<'_> {
    fn dim(&self) -> usize {
        self.f.dim() + 2
    }

    fn residual(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a, hb) = (self.f.dim(), self.f.level(p), self.f.hb);
        let (psi, omega, xi) = (z.rows(0, n).into_owned(), z[n], z[n + 1]);
        let q = &psi * a;
        let mut r = DVector::zeros(n + 2);
        let motion =
            self.f.residual(&q, omega, 0.0) / a + hb.apply(Operator::MassInput, &psi, omega) * xi;
        r.rows_mut(0, n).copy_from(&motion);
        let first = self.fundamental(&psi);
        r[n] = first.dot(&hb.apply(Operator::Mass, &first, omega)) - 1.0;
        r[n + 1] = psi[self.phase_slot()];
        r
    }

    fn jacobian(&self, z: &DVector<f64>, p: f64) -> DMatrix<f64> {
        let (n, a, hb) = (self.f.dim(), self.f.level(p), self.f.hb);
        let (psi, omega, xi) = (z.rows(0, n).into_owned(), z[n], z[n + 1]);
        let mut out = DMatrix::zeros(n + 2, n + 2);
        let j = self.f.jacobian(&(&psi * a), omega) + hb.matrix(Operator::MassInput, omega) * xi;
        out.view_mut((0, 0), (n, n)).copy_from(&j);
        let rate = hb.apply(Operator::Rate, &psi, omega)
            + hb.apply(Operator::MassInputRate, &psi, omega) * xi;
        out.view_mut((0, n), (n, 1)).copy_from(&rate);
        out.view_mut((0, n + 1), (n, 1))
            .copy_from(&hb.apply(Operator::MassInput, &psi, omega));
        let first = self.fundamental(&psi);
        let m_first = hb.apply(Operator::Mass, &first, omega) * 2.0;
        out.view_mut((n, 0), (1, n)).copy_from(&m_first.transpose());
        out[(n + 1, self.phase_slot())] = 1.0;
        out
    }

    /// `∂/∂p (F_nl(aψ) − F_c)/a = g (J_nl ψ − (F_nl(aψ) − F_c)/a)`, `g = (da/dp)/a`.
    fn param_derivative(&self, z: &DVector<f64>, p: f64) -> DVector<f64> {
        let (n, a, g, hb) = (self.f.dim(), self.f.level(p), self.f.rate(p), self.f.hb);
        let (psi, omega) = (z.rows(0, n).into_owned(), z[n]);
        let q = &psi * a;
        let linear = hb.apply(Operator::Dynamic, &psi, omega);
        let forces = self.f.residual(&q, omega, 0.0) / a - &linear;
        let j_nl_psi = self.f.jacobian(&q, omega) * &psi - linear;
        let mut d = DVector::zeros(n + 2);
        d.rows_mut(0, n).copy_from(&((j_nl_psi - forces) * g));
        d
    }
}

/// The energy the damping term feeds per period, `ξ π ω Σ_k k² (c_kᵀMc_k + s_kᵀMs_k)`.
fn dissipated(f: &Forced, q: &DVector<f64>, omega: f64, xi: f64) -> f64 {
    let n = f.hb.dofs();
    let mq = f.hb.apply(Operator::Mass, q, omega);
    let sum: f64 = (1..=f.hb.aft.harmonics)
        .map(|k| {
            let at = (2 * k - 1) * n;
            let e = q.rows(at, 2 * n).dot(&mq.rows(at, 2 * n));
            (k * k) as f64 * e
        })
        .sum();
    xi * PI * omega * sum
}

/// The level at which the harmonic load does the work `e` per period on `q` when phased
/// for the most: `e / (π |F̂₁ᴴ Q̂₁|)`.
fn equivalent_level(f: &Forced, q: &DVector<f64>, e: f64) -> f64 {
    let n = f.hb.dofs();
    let load = f.load();
    let (mut re, mut im) = (0.0, 0.0);
    for i in 0..n {
        let (fc, fs, qc, qs) = (load[n + i], load[2 * n + i], q[n + i], q[2 * n + i]);
        re += fc * qc + fs * qs;
        im += fs * qc - fc * qs;
    }
    e / (PI * re.hypot(im))
}

/// The mode of the system linearised at rest (stuck contacts, open gaps) nearest `target`,
/// mass-normalised, with its modal damping `ξ = φᵀCφ`: `(φ, ω, ξ)` as harmonic-1 cosine
/// coefficients.
fn linear_mode(f: &Forced, target: f64) -> Result<(DVector<f64>, f64, f64), BackboneError> {
    let (n, hb) = (f.hb.dofs(), f.hb);
    let k = hb.stiffness_at_rest();
    let k = (&k + k.transpose()) * 0.5;
    let m = hb.block(Operator::Mass, 0, 0.0);
    let modes = crate::modes::dense::solve(&m, &k).map_err(|e| BackboneError::Start {
        level: 0.0,
        why: e.to_string(),
    })?;
    let r = (0..modes.omega.len())
        .min_by(|&a, &b| {
            (modes.omega[a] - target)
                .abs()
                .total_cmp(&(modes.omega[b] - target).abs())
        })
        .ok_or_else(|| BackboneError::Start {
            level: 0.0,
            why: "no mode".into(),
        })?;
    let mut phi = DVector::zeros(f.dim());
    phi.rows_mut(n, n).copy_from(&modes.shapes.column(r));
    if phi[n + f.monitored] < 0.0 {
        phi = -phi;
    }
    let xi = phi.dot(&hb.apply(Operator::Damping, &phi, 0.0));
    Ok((phi, modes.omega[r], xi))
}

/// The damped-nonlinear-mode backbone (module docs) from the linearised mode nearest the
/// peak of the response at the first level in the window (the mode that resonance
/// excites; with `s.amplitudes`, whose modes may be undamped, the mode nearest the window's
/// centre), over the modal amplitudes `s.amplitudes` when given, else from the amplitude of
/// the first level up to the last level; condensed where it applies (`Route::Condensed`).
pub fn dnnm(f: &Forced, s: &Settings) -> Result<Curve, BackboneError> {
    dnnm_by(f, s, Route::Condensed)
}

/// `dnnm` by `route`: condensed onto the nonlinear and monitored DOFs in receptance form
/// (`kept_mode.rs`) where the ridge would be (`Route`), else on the full balance.
pub(crate) fn dnnm_by(f: &Forced, s: &Settings, route: Route) -> Result<Curve, BackboneError> {
    match (route == Route::Condensed)
        .then(|| Reduced::new(f))
        .flatten()
    {
        Some(reduced) => traced(f, s, &KeptMode::new(&reduced)),
        None => traced(f, s, &Mode { f }),
    }
}

/// The backbone on the mode system `pr` (`dnnm`).
fn traced<M: ModeForm>(f: &Forced, s: &Settings, pr: &M) -> Result<Curve, BackboneError> {
    let n = pr.n();
    let target = match s.amplitudes {
        Some(_) => 0.5 * (s.window.0 + s.window.1),
        None => pr.peak_frequency(s.levels.0, s.window, s)?,
    };
    let (psi, omega, xi) = linear_mode(f, target)?;
    let (a0, a_end) = match s.amplitudes {
        Some(range) => range,
        None => {
            // Linear energy balance: ξ π ω a² = π α a |F̂ᴴψ| at the first level.
            let a0 = s.levels.0 * equivalent_level(f, &psi, 1.0).recip() / (xi * PI * omega);
            (
                a0 * LINEAR_START,
                a0 * s.levels.1 / s.levels.0 * AMPLITUDE_MARGIN,
            )
        }
    };
    if !(a0.is_finite() && a0 > 0.0) {
        return Err(BackboneError::Start {
            level: s.levels.0,
            why: "the linearised mode is undamped or unforced: give `amplitude in a..b`".into(),
        });
    }
    let mut z = DVector::zeros(n + 2);
    z.rows_mut(0, n).copy_from(&pr.restrict(&psi));
    z[n] = omega;
    z[n + 1] = xi;
    let (p0, p_end) = (f.param(a0), f.param(a_end));
    let blocks = [0..n, n..n + 1, n + 1..n + 2];
    let weighted = Weighted::equilibrated(pr, &z, p0, &blocks);
    let (zs, _) = newton(&weighted, weighted.scaled(&z), p0, s.tol).ok_or_else(|| {
        BackboneError::Newton(format!("no damped mode at the modal amplitude {a0:e}"))
    })?;
    let settings = along(s, (p0, p_end));
    let branch =
        follow(&weighted, zs, p0, &settings).map_err(|e| BackboneError::Newton(e.to_string()))?;
    // Over given amplitudes the branch ends on `a..b` itself (`within`); over levels it
    // is cut where the equivalent level leaves `s.levels`.
    let solved: Vec<(DVector<f64>, f64)> = match s.amplitudes {
        Some(_) => within(&weighted, &branch, (p0, p_end), s.tol),
        None => branch
            .points
            .iter()
            .map(|pt| (weighted.unscaled(&pt.x), pt.p))
            .collect(),
    };
    // The point of the mode `z` at the parameter `p`, at its equivalent level.
    let at = |z: &DVector<f64>, p: f64| {
        let (q, omega, xi) = (pr.full(z, f.level(p)), z[n], z[n + 1]);
        let level = equivalent_level(f, &q, dissipated(f, &q, omega, xi));
        Point {
            q,
            omega,
            level,
            stage: 3,
            segment: 0,
            xi: Some(xi),
        }
    };
    let mut points = Vec::new();
    let mut before: Option<(DVector<f64>, f64, f64)> = None;
    for (z, p) in solved {
        let point = at(&z, p);
        let level = point.level;
        if s.amplitudes.is_none() && level > s.levels.1 {
            // The branch stepped past the last level: its last point is solved on it.
            let last = before
                .take()
                .and_then(|below| last_level(&weighted, &at, below, (z, p, level), s));
            points.extend(last);
            break;
        }
        before = Some((z, p, level));
        if s.amplitudes.is_none() && level < s.levels.0 {
            continue;
        }
        points.push(point);
    }
    let reached = s.amplitudes.is_some()
        || points
            .last()
            .is_some_and(|p| p.level >= s.levels.1 * (1.0 - LEVEL_REACHED));
    let stopped = match &branch.stopped {
        Some(e) => Some(e.to_string()),
        None if !reached => Some(format!(
            "the modal amplitudes continued (up to {a_end:e}) reach the level {:e} of {:e}",
            points.last().map_or(0.0, |p| p.level),
            s.levels.1
        )),
        None => None,
    };
    Ok(Curve { points, stopped })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backbone::fixtures::{cantilever, forced, settings};

    /// Points of the condensed damped-mode backbone (stuck, partly slipping, slipping) solved
    /// again by Newton on the full mode system at their modal amplitude stay where they are:
    /// ω and ξ to 1e-9, every coefficient to 1e-8 of the largest (the full balance's own
    /// conditioning on the 40-DOF beam).
    #[test]
    fn condensed_mode_points_solve_the_full_mode_system() {
        let hb = cantilever();
        let f = forced(&hb);
        let s = settings(1e4);
        assert!(Reduced::new(&f).is_some(), "the cantilever condenses");
        let curve = dnnm_by(&f, &s, Route::Condensed).expect("dnnm");
        assert_eq!(curve.stopped, None);
        let full = Mode { f: &f };
        let n = f.dim();
        let mut checked = 0;
        for pt in curve.points.iter().step_by(5) {
            let xi = pt.xi.expect("a damped mode");
            let first = full.fundamental(&pt.q);
            let a = first
                .dot(&hb.apply(Operator::Mass, &first, pt.omega))
                .sqrt();
            let mut z = DVector::zeros(n + 2);
            z.rows_mut(0, n).copy_from(&(&pt.q / a));
            z[n] = pt.omega;
            z[n + 1] = xi;
            let p = f.param(a);
            let weighted = Weighted::equilibrated(&full, &z, p, &[0..n, n..n + 1, n + 1..n + 2]);
            let (zs, _) = newton(&weighted, weighted.scaled(&z), p, 1e-10)
                .expect("the full mode system converges");
            let zf = weighted.unscaled(&zs);
            assert!(
                (zf[n] - pt.omega).abs() <= 1e-9 * pt.omega,
                "ω {} vs {}",
                pt.omega,
                zf[n]
            );
            assert!(
                (zf[n + 1] - xi).abs() <= 1e-9 * xi.abs().max(1.0),
                "ξ {xi} vs {}",
                zf[n + 1]
            );
            let moved = (zf.rows(0, n) * a - &pt.q).amax() / pt.q.amax();
            assert!(moved <= 1e-8, "level {}: moved by {moved:e}", pt.level);
            checked += 1;
        }
        assert!(checked >= 10, "{checked} points");
    }

    /// The condensed mode system's Jacobian and parameter derivative against central
    /// differences (relative steps 1e-6) at a partly slipping point: 1e-5 of their norms
    /// (measured 1e-8; the friction cycle's events move with the state, so differences are
    /// exact to the step's square only).
    #[test]
    fn condensed_mode_derivatives_match_finite_differences() {
        let hb = cantilever();
        let f = forced(&hb);
        let reduced = Reduced::new(&f).expect("condenses");
        let kept = KeptMode::new(&reduced);
        let n = kept.n();
        // A partly slipping point of the backbone (level ≈ 0.5).
        let s = settings(1.0);
        let curve = traced(&f, &s, &kept).expect("dnnm");
        let pt = curve
            .points
            .iter()
            .min_by(|a, b| {
                (a.level.ln() - 0.5f64.ln())
                    .abs()
                    .total_cmp(&(b.level.ln() - 0.5f64.ln()).abs())
            })
            .expect("points");
        let first = Mode { f: &f }.fundamental(&pt.q);
        let a = first
            .dot(&hb.apply(Operator::Mass, &first, pt.omega))
            .sqrt();
        let mut z = DVector::zeros(n + 2);
        z.rows_mut(0, n).copy_from(&kept.restrict(&(&pt.q / a)));
        z[n] = pt.omega;
        z[n + 1] = pt.xi.expect("damped");
        let p = f.param(a);
        let j = kept.jacobian(&z, p);
        let mut fd = DMatrix::zeros(n + 2, n + 2);
        for c in 0..n + 2 {
            let h = 1e-6 * z[c].abs().max(1e-6 * z.amax());
            let (mut up, mut down) = (z.clone(), z.clone());
            up[c] += h;
            down[c] -= h;
            fd.set_column(
                c,
                &((kept.residual(&up, p) - kept.residual(&down, p)) / (2.0 * h)),
            );
        }
        let off = (&j - &fd).norm() / j.norm();
        assert!(off <= 1e-5, "Jacobian off by {off:e}");
        let h = 1e-6;
        let dp = (kept.residual(&z, p + h) - kept.residual(&z, p - h)) / (2.0 * h);
        let exact = kept.param_derivative(&z, p);
        let off = (&exact - &dp).norm() / exact.norm();
        assert!(off <= 1e-5, "∂R/∂p off by {off:e}");
    }
}
