//! Poincaré sections on the dense output: stroboscopic samples `t = origin + k T` and the
//! crossings of a linear function of the state in one direction, each located on the
//! accepted steps' dense output as the events are (`roots/`), so the section points are
//! exact to the dense output's accuracy and round-off. Sections never change the modes: they
//! are recorded, not acted on.
//!
//! # References
//! Parker and Chua, *Practical Numerical Algorithms for Chaotic Systems*, Springer 1989,
//! Sect. 6.2 (Poincaré maps located on the interpolant of a variable-step integrator).

use super::super::dense::DenseStep;
use super::super::roots::{first_crossing, Direction, Search};
use super::super::tolerances::{MIN_STEP, RESTART_SKIP};

/// A Poincaré section of the flow.
#[derive(Debug, Clone, PartialEq)]
pub enum Section {
    /// The states at `t = origin + k·period`, `k = 0, 1, …` (a forced system's stroboscopic
    /// map; `period` = 2π/Ω of the forcing, in s).
    Stroboscopic { origin: f64, period: f64 },
    /// The states where `Σ wᵢ yᵢ = level` is crossed in `direction` (rising: from below).
    Crossing {
        w: Vec<(usize, f64)>,
        level: f64,
        direction: Direction,
    },
}

/// One section point: the time and the full state `(x, v)`.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionPoint {
    pub t: f64,
    pub y: Vec<f64>,
}

/// What a section reads of one step of any method: its span, the state inside it, and the
/// monomial coefficients in the normalised step time of a linear function of the state
/// (DOP853's dense output, a Taylor step's series).
pub(crate) trait StepCurve {
    /// The step's start time and size.
    fn span(&self) -> (f64, f64);
    /// The state at time `t` inside the step.
    fn state(&self, t: f64) -> Vec<f64>;
    /// `Σ wᵢ yᵢ + c` as a polynomial in `x = (t − t0)/h`.
    fn linear(&self, w: &[(usize, f64)], c: f64) -> Vec<f64>;
}

impl StepCurve for DenseStep {
    fn span(&self) -> (f64, f64) {
        (self.t0, self.h)
    }
    fn state(&self, t: f64) -> Vec<f64> {
        self.eval(t)
    }
    fn linear(&self, w: &[(usize, f64)], c: f64) -> Vec<f64> {
        self.linear_poly(w, c).to_vec()
    }
}

/// The section points still to be found.
pub(crate) struct SectionSampler {
    section: Section,
    /// The next stroboscopic index `k`.
    next: u64,
}

impl SectionSampler {
    pub(crate) fn new(section: &Section) -> SectionSampler {
        SectionSampler {
            section: section.clone(),
            next: 0,
        }
    }

    /// The stroboscopic time of index `k`.
    fn strobe(origin: f64, period: f64, k: u64) -> f64 {
        origin + k as f64 * period
    }

    /// At the initial state `(t, y)`: the stroboscopic indices before `t` are skipped and a
    /// sample due at `t` itself is taken.
    pub(crate) fn record_initial(&mut self, out: &mut Vec<SectionPoint>, t: f64, y: &[f64]) {
        if let Section::Stroboscopic { origin, period } = self.section {
            let first = ((t - origin) / period).ceil().max(0.0) as u64;
            self.next = first;
            self.record_end(out, t, y);
        }
    }

    /// The stroboscopic samples due by `t` taken from the state `y` at `t` (the run's end,
    /// reached without a step).
    pub(crate) fn record_end(&mut self, out: &mut Vec<SectionPoint>, t: f64, y: &[f64]) {
        if let Section::Stroboscopic { origin, period } = self.section {
            while Self::strobe(origin, period, self.next) <= t + MIN_STEP * t.abs().max(1.0) {
                let tk = Self::strobe(origin, period, self.next);
                out.push(SectionPoint {
                    t: tk,
                    y: y.to_vec(),
                });
                self.next += 1;
            }
        }
    }

    /// The section points of the step `d` in `(d.t0, until]`.
    pub(crate) fn record_until(
        &mut self,
        out: &mut Vec<SectionPoint>,
        d: &impl StepCurve,
        until: f64,
    ) {
        let (t0, h) = d.span();
        match &self.section {
            Section::Stroboscopic { origin, period } => loop {
                let tk = Self::strobe(*origin, *period, self.next);
                if tk > until {
                    break;
                }
                out.push(SectionPoint {
                    t: tk,
                    y: d.state(tk),
                });
                self.next += 1;
            },
            Section::Crossing {
                w,
                level,
                direction,
            } => {
                let p = d.linear(w, -level);
                let x_end = (until - t0) / h;
                // Crossings alternate in direction: after a wanted one, the next wanted one
                // follows a crossing back, so each root is found once.
                let back = match direction {
                    Direction::Rising => Direction::Falling,
                    Direction::Falling => Direction::Rising,
                };
                let mut x0 = 0.0;
                while let Search::At(x) = first_crossing(&p, *direction, x0) {
                    if x > x_end {
                        break;
                    }
                    let t = t0 + x * h;
                    let repeated = out
                        .last()
                        .is_some_and(|q| (q.t - t).abs() <= MIN_STEP * t.abs().max(1.0));
                    if !repeated {
                        out.push(SectionPoint { t, y: d.state(t) });
                    }
                    match first_crossing(&p, back, x + RESTART_SKIP) {
                        Search::At(xb) if xb < x_end => x0 = xb + RESTART_SKIP,
                        _ => break,
                    }
                }
            }
        }
    }
}
