//! The frequency response at one level over the window — the paper's first stage (Sect.
//! 3.2, step 1), from which the ridge and phase resonance start — and its peak.
//!
//! The ridge needs the peak only, as the start of its Newton iterations (stage 2 then
//! solves it exactly): `peak_of` looks for it by solves at fixed frequencies — a grid over
//! the window, then Brent's search of the bracket around each of the grid's local maxima
//! of `Am` — which
//! costs a few dozen solves where the continuation over the whole window crawls through
//! hundreds of points at a sharp, lightly damped peak. Where a solve fails (a fold of the
//! response) or the grid's peak is at an edge, the continuation decides, as before.

use super::{amplitude, BackboneError, Forced, Settings};
use crate::cont::{self, follow, newton, Problem, Scale, Weighted};
use nalgebra::{DMatrix, DVector};

/// The response at one level near its peak as `(Q, ω)` points, ascending in ω, and the
/// peak's index among them.
pub(super) type Peak = (Vec<(DVector<f64>, f64)>, usize);

/// Divisions of the window where the peak is first looked for (count).
const PEAK_GRID: usize = 40;

/// Brent's search stops when the bracket around the peak is below this fraction of the
/// window (dimensionless): stage 2's Newton converges from there.
const PEAK_BRACKET: f64 = 1e-6;

/// Steps at most of Brent's search (`brent`; it needs about 30 from the grid's bracket to
/// `PEAK_BRACKET` when every step is a golden section) (count).
const BRENT_MAX_STEPS: usize = 100;

/// Divisions of the window for the first step (the response is continued, so this only
/// sets how finely a sharp peak is first approached).
const WINDOW_STEPS: f64 = 100.0;

/// Largest step, as a fraction of the window.
const MAX_STEP_FRACTION: f64 = 0.02;

/// Smallest step, as a fraction of the window.
const MIN_STEP_FRACTION: f64 = 1e-9;

/// The forced balance at a fixed level, continued in ω.
struct AtLevel<'a> {
    f: &'a Forced<'a>,
    level: f64,
}

impl Problem for AtLevel<'_> {
    fn dim(&self) -> usize {
        self.f.dim()
    }

    fn residual(&self, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        self.f.residual(q, omega, self.level)
    }

    fn jacobian(&self, q: &DVector<f64>, omega: f64) -> DMatrix<f64> {
        self.f.jacobian(q, omega)
    }

    fn param_derivative(&self, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        self.f.hb.apply(crate::hb::Operator::Rate, q, omega)
    }
}

/// The response at `level` over `window` as `(Q, ω)` points, from the system linearised at
/// rest (stuck contacts, open gaps): `continue frf` at `excitation = level` on the full
/// balance.
pub fn frequency_response(
    f: &Forced,
    level: f64,
    window: (f64, f64),
    s: &Settings,
) -> Result<Vec<(DVector<f64>, f64)>, BackboneError> {
    continued(&AtLevel { f, level }, level, window, s)
}

/// The response of `pr` (a forced balance at `level`, continued in ω) over `window` from
/// its linearisation at rest: the full balance (`frequency_response`) or a condensed form
/// of it (`reduced.rs`, through `peak_of`).
fn continued<P: Problem>(
    pr: &P,
    level: f64,
    window: (f64, f64),
    s: &Settings,
) -> Result<Vec<(DVector<f64>, f64)>, BackboneError> {
    let (lo, hi) = window;
    let width = (hi - lo).abs();
    let x0 = cont::linearised(pr, lo);
    let rest = pr.residual(&DVector::zeros(pr.dim()), lo).norm();
    let size = [lo, 0.5 * (lo + hi), hi]
        .iter()
        .map(|&w| cont::linearised(pr, w).amax())
        .fold(f64::MIN_POSITIVE, f64::max);
    let settings = cont::Settings {
        range: window,
        step: width / WINDOW_STEPS,
        min_step: width * MIN_STEP_FRACTION,
        max_step: width * MAX_STEP_FRACTION,
        max_points: s.max_points,
        tol: s.tol,
        scale: Scale {
            x: size,
            p: width,
            r: rest.max(f64::MIN_POSITIVE),
        },
    };
    let branch = follow(pr, x0, lo, &settings).map_err(|e| BackboneError::Start {
        level,
        why: e.to_string(),
    })?;
    Ok(branch
        .points
        .into_iter()
        .filter(|pt| pt.p >= lo.min(hi) && pt.p <= lo.max(hi))
        .map(|pt| (pt.x, pt.p))
        .collect())
}

/// `peak_of` on the full balance, `Am` of the monitored DOF.
pub(super) fn peak_response(
    f: &Forced,
    level: f64,
    window: (f64, f64),
    s: &Settings,
) -> Result<Peak, BackboneError> {
    peak_of(&AtLevel { f, level }, level, window, s, |q| {
        amplitude(f.hb, q, f.monitored)
    })
}

/// The response at `level` near its peak over `window` and the peak's index: by fixed-
/// frequency solves (module docs), else by the continuation over the window (`continued`,
/// `peak_by`). `am` is `Am` of a point of `pr`.
pub(super) fn peak_of<P: Problem>(
    pr: &P,
    level: f64,
    window: (f64, f64),
    s: &Settings,
    am: impl Fn(&DVector<f64>) -> f64,
) -> Result<Peak, BackboneError> {
    if let Some(found) = sampled_peak(pr, window, s.tol, &am) {
        return Ok(found);
    }
    let points = continued(pr, level, window, s)?;
    let top = peak_by(&points, level, am)?;
    Ok((points, top))
}

/// The grid and Brent search of `peak_of`; `None` where a solve fails or the
/// grid's largest `Am` is at an edge of the window.
fn sampled_peak<P: Problem>(
    pr: &P,
    (lo, hi): (f64, f64),
    tol: f64,
    am: &impl Fn(&DVector<f64>) -> f64,
) -> Option<Peak> {
    let n = pr.dim();
    // Unknowns and residual scaled at the largest linearised response of the window.
    let reference = [lo, 0.5 * (lo + hi), hi]
        .iter()
        .map(|&w| (cont::linearised(pr, w), w))
        .max_by(|a, b| a.0.amax().total_cmp(&b.0.amax()))?;
    let weighted =
        Weighted::equilibrated(pr, &reference.0, reference.1, std::slice::from_ref(&(0..n)));
    // The solution at ω from `near` (the neighbouring point's), else from the linearised
    // response. Comparing the two guesses' residuals first cost a Jacobian, an LU and two
    // residuals per solve, 15 % of the blade–damper–blade ridge, and the neighbour's
    // solution nearly always won.
    let solve = |near: Option<&DVector<f64>>, omega: f64| -> Option<(DVector<f64>, f64)> {
        let from = |guess: &DVector<f64>| newton(&weighted, weighted.scaled(guess), omega, tol);
        let (x, _) = near
            .and_then(from)
            .or_else(|| from(&cont::linearised(pr, omega)))?;
        Some((weighted.unscaled(&x), omega))
    };
    let mut points: Vec<(DVector<f64>, f64)> = Vec::with_capacity(PEAK_GRID + 40);
    for i in 0..=PEAK_GRID {
        let omega = lo + (hi - lo) * i as f64 / PEAK_GRID as f64;
        let next = solve(points.last().map(|p| &p.0), omega)?;
        points.push(next);
    }
    let top = top_of(&points, am);
    if top == 0 || top == PEAK_GRID {
        return None;
    }
    // Every interior local maximum of the grid is refined: a sharp peak between two grid
    // points may sample lower than a broader one elsewhere and still be the taller.
    let amps: Vec<f64> = points.iter().map(|p| am(&p.0)).collect();
    let maxima: Vec<usize> = (1..PEAK_GRID)
        .filter(|&i| amps[i] >= amps[i - 1] && amps[i] >= amps[i + 1])
        .collect();
    for i in maxima {
        let bracket = (points[i - 1].1, points[i + 1].1);
        let refined = brent(&solve, am, bracket, &points[i], PEAK_BRACKET * (hi - lo))?;
        points.extend(refined);
    }
    points.sort_by(|x, y| x.1.total_cmp(&y.1));
    let top = top_of(&points, am);
    Some((points, top))
}

/// Brent's search (Brent 1973, *Algorithms for Minimization without Derivatives*, ch. 5) for
/// the largest `am` in `(a, b)` from the grid's point `top` inside it: a parabola through
/// the three best points where its step stays well inside the bracket and shrinks, a golden
/// section where not, until the bracket around the best point is below `width`. A smooth
/// peak takes about a third of the golden sections' solves (`am` is smooth near a peak: its
/// kinks are where a contact changes state). One solve per step, from the best point's
/// solution; every point solved.
fn brent(
    solve: &impl Fn(Option<&DVector<f64>>, f64) -> Option<(DVector<f64>, f64)>,
    am: &impl Fn(&DVector<f64>) -> f64,
    (mut a, mut b): (f64, f64),
    top: &(DVector<f64>, f64),
    width: f64,
) -> Option<Vec<(DVector<f64>, f64)>> {
    // The golden section's fraction, (3 − √5)/2.
    let golden = 0.5 * (3.0 - 5f64.sqrt());
    let tol = 0.25 * width.abs();
    let mut best = top.0.clone();
    // The best point `x`, the second best `w` and the one before `v`, with `f = −am`; `d`
    // the last step, `e` the one before.
    let (mut x, mut w, mut v) = (top.1, top.1, top.1);
    let fx0 = -am(&top.0);
    let (mut fx, mut fw, mut fv) = (fx0, fx0, fx0);
    let (mut d, mut e) = (0.0f64, 0.0f64);
    let mut out = Vec::new();
    for _ in 0..BRENT_MAX_STEPS {
        let mid = 0.5 * (a + b);
        if (x - mid).abs() <= 2.0 * tol - 0.5 * (b - a) {
            break;
        }
        let mut parabolic = false;
        if e.abs() > tol {
            let r = (x - w) * (fx - fv);
            let q = (x - v) * (fx - fw);
            let mut p = (x - v) * q - (x - w) * r;
            let mut q = 2.0 * (q - r);
            if q > 0.0 {
                p = -p;
            }
            q = q.abs();
            let before = e;
            e = d;
            if p.abs() < (0.5 * q * before).abs() && p > q * (a - x) && p < q * (b - x) {
                d = p / q;
                if x + d - a < 2.0 * tol || b - (x + d) < 2.0 * tol {
                    d = tol.copysign(mid - x);
                }
                parabolic = true;
            }
        }
        if !parabolic {
            e = if x >= mid { a - x } else { b - x };
            d = golden * e;
        }
        let u = if d.abs() >= tol {
            x + d
        } else {
            x + tol.copysign(d)
        };
        let point = solve(Some(&best), u)?;
        let fu = -am(&point.0);
        if fu <= fx {
            if u >= x {
                a = x;
            } else {
                b = x;
            }
            best = point.0.clone();
            (v, w, x) = (w, x, u);
            (fv, fw, fx) = (fw, fx, fu);
        } else {
            if u < x {
                a = u;
            } else {
                b = u;
            }
            if fu <= fw || w == x {
                (v, w) = (w, u);
                (fv, fw) = (fw, fu);
            } else if fu <= fv || v == x || v == w {
                (v, fv) = (u, fu);
            }
        }
        out.push(point);
    }
    Some(out)
}

/// The index of the largest `am` among `points` (0 when empty).
fn top_of(points: &[(DVector<f64>, f64)], am: &impl Fn(&DVector<f64>) -> f64) -> usize {
    (0..points.len())
        .max_by(|&a, &b| am(&points[a].0).total_cmp(&am(&points[b].0)))
        .unwrap_or(0)
}

/// The index of the largest `Am` of the monitored DOF; `PeakAtEdge` when it is the first or
/// last point (the window does not hold the peak).
pub(super) fn peak(
    f: &Forced,
    points: &[(DVector<f64>, f64)],
    level: f64,
) -> Result<usize, BackboneError> {
    peak_by(points, level, |q| amplitude(f.hb, q, f.monitored))
}

/// `peak` with the amplitude `am` of a point's coefficients (of a condensed form too).
pub(super) fn peak_by(
    points: &[(DVector<f64>, f64)],
    level: f64,
    am: impl Fn(&DVector<f64>) -> f64,
) -> Result<usize, BackboneError> {
    let am = |i: usize| am(&points[i].0);
    let i = (0..points.len())
        .max_by(|&a, &b| am(a).total_cmp(&am(b)))
        .ok_or(BackboneError::Start {
            level,
            why: "no point in the window".into(),
        })?;
    if i == 0 || i + 1 == points.len() {
        return Err(BackboneError::PeakAtEdge {
            level,
            omega: points[i].1,
        });
    }
    Ok(i)
}
