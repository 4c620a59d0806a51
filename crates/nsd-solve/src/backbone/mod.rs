//! Backbone curves of forced responses (paper 003): the locus of the resonance peak as the
//! excitation level grows, by three routes —
//!
//! - `ridge.rs`: the ridge of the forced-response surface `R(Q, ω, α) = 0` (eq. 19), the
//!   maxima of the amplitude `Am` (eq. 20) over ω, traced by the Lagrange-multiplier system
//!   (eqs. 21–23, 64–65) with the paper's three-stage continuation (Sect. 3.2), on the
//!   full balance or condensed onto the nonlinear and monitored DOFs in receptance form
//!   (`reduced.rs`) where the damping is proportional;
//! - `phase.rs`: phase resonance, the monitored harmonic in quadrature with the force
//!   (eqs. 13–15);
//! - `dnnm.rs`: damped nonlinear modes (eqs. 6–12, the extended periodic motion concept)
//!   with the equivalent level from the energy balance.
//!
//! This module holds what they share: the forced balance with the level as a parameter
//! (`Forced`), the amplitude `Am` and its derivatives (`amplitude.rs`), the frequency
//! response at one level the ridge and phase resonance start from (`start.rs`), settings
//! and results. The level is continued as `p = ln α` (log-spaced steps) or `p = α`.

mod amplitude;
mod blocks;
mod dnnm;
mod form;
mod kept_mode;
mod memo;
mod phase;
mod reduced;
mod ridge;
mod start;
mod tolerances;

pub use amplitude::{amplitude, max_displacement};
pub use dnnm::dnnm;
pub use phase::phase_resonance;
pub use reduced::MAX_KEPT_FRACTION;
pub use ridge::{ridge, ridge_by, Route};
pub use start::frequency_response;

use crate::hb::{Balance, Operator};
use nalgebra::{DMatrix, DVector};

/// How the level is stepped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spacing {
    /// `p = ln α`: steps are ratios, as the paper's logarithmic level axes.
    Log,
    /// `p = α`.
    Linear,
}

/// What a backbone needs beyond the balance.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The excitation levels `(from, to)` (factors on the model's harmonic loads).
    pub levels: (f64, f64),
    /// The frequency window (rad/s) of the response at the first level, which must hold its
    /// peak (the ridge's and phase resonance's start; the dNNM starts from the stuck-system
    /// mode nearest that peak).
    pub window: (f64, f64),
    pub spacing: Spacing,
    /// The dNNM's modal amplitudes `(from, to)` (`Q = a ψ`, ψ mass-normalised), in place
    /// of the levels (an undamped mode has no equivalent level).
    pub amplitudes: Option<(f64, f64)>,
    /// Steps along the backbone as fractions of the continued parameter's range (of
    /// `ln α`, or `α`; for the dNNM of the modal amplitude's): first, smallest, largest.
    pub step: f64,
    pub min_step: f64,
    pub max_step: f64,
    pub max_points: usize,
    /// Newton tolerance on the equilibrated residual (dimensionless).
    pub tol: f64,
    /// Restarts past a singular point (paper Sect. 3.2, step 4), at most.
    pub restarts: usize,
}

/// One point of a backbone (or of a stage before it).
#[derive(Debug, Clone)]
pub struct Point {
    /// Every DOF's harmonic coefficients (harmonic-major, as the balance).
    pub q: DVector<f64>,
    pub omega: f64,
    pub level: f64,
    /// 1: the response at a fixed level the ridge starts from; 2: the peak with its
    /// multipliers (the paper's second stage, solved directly); 3: the backbone.
    pub stage: u8,
    /// How many restarts past singular points preceded the point.
    pub segment: usize,
    /// The damped nonlinear mode's damping term ξ (`dnnm` only, 1/s).
    pub xi: Option<f64>,
}

/// A traced backbone.
#[derive(Debug, Clone)]
pub struct Curve {
    pub points: Vec<Point>,
    /// Why the last segment stopped short of the last level, if it did.
    pub stopped: Option<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BackboneError {
    #[error("the model has no harmonic load to scale")]
    NoLoad,
    #[error("the response at level {level:e} did not start: {why}")]
    Start { level: f64, why: String },
    #[error("the response at level {level:e} peaks at the edge of the window ({omega} rad/s): widen or move `param`'s range")]
    PeakAtEdge { level: f64, omega: f64 },
    #[error("{0}")]
    Newton(String),
}

/// The forced balance with the level as a parameter: `R(Q, ω, α) = D(ω)Q + F_nl(Q) − F_c −
/// α F_h` (eq. 19), `F_c` the constant loads and `F_h` the harmonic ones at level 1.
pub struct Forced<'a> {
    pub hb: &'a Balance,
    load: DVector<f64>,
    fixed: DVector<f64>,
    /// The DOF whose amplitude `Am` is watched (eq. 20).
    pub monitored: usize,
    /// The DOF carrying the largest harmonic load (eq. 14's k).
    pub excited: usize,
    spacing: Spacing,
}

impl<'a> Forced<'a> {
    /// The balance's loads split into their constant and harmonic parts; `NoLoad` without
    /// a harmonic load.
    pub fn new(hb: &'a Balance, monitored: usize, spacing: Spacing) -> Result<Self, BackboneError> {
        let excited = hb.excited_dof().ok_or(BackboneError::NoLoad)?;
        let load = hb.harmonic_excitation();
        let fixed = hb.excitation() - hb.level * &load;
        Ok(Forced {
            hb,
            load,
            fixed,
            monitored,
            excited,
            spacing,
        })
    }

    pub fn dim(&self) -> usize {
        self.hb.dim()
    }

    /// `F_h`, the harmonic loads at level 1.
    pub fn load(&self) -> &DVector<f64> {
        &self.load
    }

    /// The level at parameter `p`.
    fn level(&self, p: f64) -> f64 {
        match self.spacing {
            Spacing::Log => p.exp(),
            Spacing::Linear => p,
        }
    }

    /// The parameter of level `α`.
    fn param(&self, level: f64) -> f64 {
        match self.spacing {
            Spacing::Log => level.ln(),
            Spacing::Linear => level,
        }
    }

    /// `(dα/dp) / α`: 1 for log spacing, `1/α` for linear.
    fn rate(&self, p: f64) -> f64 {
        match self.spacing {
            Spacing::Log => 1.0,
            Spacing::Linear => 1.0 / p,
        }
    }

    /// `R(Q, ω, α)` (eq. 19).
    fn residual(&self, q: &DVector<f64>, omega: f64, level: f64) -> DVector<f64> {
        self.unforced(q, omega) - level * &self.load
    }

    /// `D(ω)Q + F_nl(Q) − F_c`: the residual without the harmonic loads.
    fn unforced(&self, q: &DVector<f64>, omega: f64) -> DVector<f64> {
        self.hb.apply(Operator::Dynamic, q, omega) + self.hb.nonlinear(q, omega, false).0
            - &self.fixed
    }

    /// `∂R/∂Q = D(ω) + ∂F_nl/∂Q` (eq. 23).
    fn jacobian(&self, q: &DVector<f64>, omega: f64) -> DMatrix<f64> {
        self.hb.jacobian(q, omega)
    }
}

/// The points of a continued branch within `[from, to]` of the parameter, unscaled, with a
/// last one solved at `to` itself when the branch stepped over it (the continuation's steps
/// need not land on the range's end).
fn within<P: crate::cont::Problem>(
    pr: &crate::cont::Weighted<P>,
    branch: &crate::cont::Branch,
    (from, to): (f64, f64),
    tol: f64,
) -> Vec<(DVector<f64>, f64)> {
    let inside = |p: f64| p >= from.min(to) && p <= from.max(to);
    let mut out: Vec<(DVector<f64>, f64)> = Vec::new();
    for w in branch.points.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if !inside(a.p) {
            break;
        }
        if out.is_empty() {
            out.push((pr.unscaled(&a.x), a.p));
        }
        if inside(b.p) {
            out.push((pr.unscaled(&b.x), b.p));
            continue;
        }
        let t = (to - a.p) / (b.p - a.p);
        let guess = &a.x + (&b.x - &a.x) * t;
        if let Some((x, _)) = crate::cont::newton(pr, guess, to, tol) {
            out.push((pr.unscaled(&x), to));
        }
        break;
    }
    if out.is_empty() {
        out.extend(branch.points.first().map(|pt| (pr.unscaled(&pt.x), pt.p)));
    }
    out
}

/// The continuation settings over `range` of the parameter (steps scaled to its width).
fn along(s: &Settings, range: (f64, f64)) -> crate::cont::Settings {
    let width = (range.1 - range.0).abs();
    crate::cont::Settings {
        range,
        step: s.step * width,
        min_step: s.min_step * width,
        max_step: s.max_step * width,
        max_points: s.max_points,
        tol: s.tol,
        scale: crate::cont::Scale::UNIT,
    }
}

/// What the backends' unit tests share: paper 003's cantilever with pad and the backbone
/// settings they trace it with.
#[cfg(test)]
mod fixtures {
    use super::{Forced, Settings, Spacing};
    use crate::hb::Balance;

    /// The cantilever with pad of paper 003 (pad at node 4), H = 3.
    pub(super) fn cantilever() -> Balance {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let prog = nsd_lang::Program::load(&root.join("../../models/seed3/cantilever_pad.nsd"))
            .expect("the seed model loads");
        let set = nsd_lang::parse_override("pad=4").expect("override");
        let model = nsd_lang::resolve(&prog, "cantilever_pad", &[set]).expect("resolves");
        Balance::new(&nsd_model::assemble(&model), 3, 32).expect("balance")
    }

    /// The cantilever's forced balance, monitored and excited at the tip, levels in ln α.
    pub(super) fn forced(hb: &Balance) -> Forced<'_> {
        Forced::new(hb, hb.excited_dof().expect("loaded"), Spacing::Log).expect("forced")
    }

    /// The cantilever's backbone settings from level 1e-4 to `top` over 1700..1900 rad/s.
    pub(super) fn settings(top: f64) -> Settings {
        Settings {
            levels: (1e-4, top),
            window: (1700.0, 1900.0),
            spacing: Spacing::Log,
            amplitudes: None,
            step: 0.01,
            min_step: 1e-5,
            max_step: 0.05,
            max_points: 2000,
            tol: 1e-10,
            restarts: 10,
        }
    }
}
