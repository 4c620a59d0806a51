//! The largest penetration and normal force of the clearance contacts over the motion (the
//! summary's `max_penetration`, `max_normal_force`), whatever the output samples: taken at
//! the initial state and at every accepted step's end (after its contact events and the
//! projection, so at every located event too), and in the `events` backend also between
//! the ends, on the step's 7th-order dense output, wherever a contact is closed.
//!
//! # Between step ends
//! Each closed compliant contact's penetration `δ = −g` and normal force `F`, and each held
//! rigid contact's normal force (its multiplier `λ_n`, one index-1 solve per reading), are
//! read at the step's `GAP_CHECKS_PER_STEP` interior check points (the event search's) and
//! its two ends. A step is short against a contact's duration (its error control resolves the
//! force pulse), so between two neighbouring check points each quantity has at most one
//! extremum; then the largest value lies next to a sampled local maximum: an interior one
//! brackets it with its two neighbours, and an end that is the larger of its sub-interval
//! is the maximum there unless the quantity rises from it into the sub-interval (one probe
//! `SLOPE_PROBE` of the sub-interval inside). Each bracket is narrowed by golden-section
//! search (`GOLDEN_ITERATIONS`), but only where it can raise the largest value so far: a
//! parabola through three equally spaced check points rises above its highest one, within
//! their span, by at most an eighth of their second difference `|Δ²q|` (its vertex is at
//! most half a spacing from that point), so a bracket whose sampled maximum plus
//! `PEAK_BOUND |Δ²q|` (twice that bound, for a quantity not quite quadratic) stays below
//! the largest value is skipped, and so is a rise below `NEGLIGIBLE_RISE` of it (round-off
//! of a flat maximum, e.g. a body resting on its contact). Without this gate every step of
//! a steady contact searched its round-off wiggles: the `push` run of
//! `models/seed2/prismatic_slider.nsd` took 2.7 times the CPU time of the maxima over the
//! samples; with it, 1.2 times (the dense output filled on every step in contact, three
//! more evaluations of the equations per step). The dense output is not projected: a value between step
//! ends carries the step's drift off the joints, of the order of the integration error.
//!
//! # References
//! J. Kiefer, "Sequential minimax search for a maximum", Proc. AMS 4 (1953) 502–506
//! (golden-section search).

use super::contact::{Load, Modes};
use super::dynamics::Mechanism;
use super::tolerances::{
    GAP_CHECKS_PER_STEP, GOLDEN_ITERATIONS, NEGLIGIBLE_RISE, PEAK_BOUND, SLOPE_PROBE,
};
use crate::ode::dense::DenseStep;

// `largest` reads second differences: a step needs three check points.
const _: () = assert!(GAP_CHECKS_PER_STEP >= 1);

/// The largest penetration `−g` (m; 0 while no gap is negative) and normal force (N) met
/// so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Extremes {
    pub penetration: f64,
    pub normal: f64,
}

impl Extremes {
    /// Takes in the loads of one state.
    pub(super) fn observe(&mut self, loads: &[Load]) {
        for l in loads {
            self.penetration = self.penetration.max(-l.gap);
            self.normal = self.normal.max(l.normal);
        }
    }

    /// Takes in the state `(t, y)` in `modes` (a held rigid contact's force its
    /// multiplier, `Mechanism::loads_held`).
    pub(super) fn observe_state(&mut self, mech: &Mechanism, t: f64, y: &[f64], modes: &Modes) {
        self.observe(&mech.loads_held(t, y, modes));
    }

    /// Takes in the largest penetration and normal force of the contacts closed in `modes`
    /// on the dense step `dense` up to `t_end` (module doc).
    pub(super) fn observe_step(
        &mut self,
        mech: &Mechanism,
        modes: &Modes,
        dense: &DenseStep,
        t_end: f64,
    ) {
        let (compliant, held) = (compliant_closed(mech, modes), mech.held(modes));
        if compliant.is_empty() && held.is_empty() {
            return;
        }
        let n = GAP_CHECKS_PER_STEP + 1;
        let ts: Vec<f64> = (0..=n)
            .map(|j| dense.t0 + (t_end - dense.t0) * j as f64 / n as f64)
            .collect();
        let states: Vec<Vec<f64>> = ts.iter().map(|&t| dense.eval(t)).collect();
        if !held.is_empty() {
            // A degenerate pose has no multipliers (the run reports it): no force there.
            let forces = |t: f64, y: &[f64]| {
                mech.holding_forces(t, y, modes)
                    .unwrap_or_else(|_| vec![0.0; modes.closed.len()])
            };
            let sampled: Vec<Vec<f64>> =
                ts.iter().zip(&states).map(|(t, y)| forces(*t, y)).collect();
            for k in held {
                let qs: Vec<f64> = sampled.iter().map(|f| f[k]).collect();
                self.normal = largest(&ts, &qs, self.normal, |t| forces(t, &dense.eval(t))[k]);
            }
        }
        for k in compliant {
            let load = |t: f64| mech.load(&dense.eval(t), Some(modes), k);
            let sampled: Vec<Load> = states
                .iter()
                .map(|y| mech.load(y, Some(modes), k))
                .collect();
            let depths: Vec<f64> = sampled.iter().map(|l| -l.gap).collect();
            let forces: Vec<f64> = sampled.iter().map(|l| l.normal).collect();
            self.penetration = largest(&ts, &depths, self.penetration, |t| -load(t).gap);
            self.normal = largest(&ts, &forces, self.normal, |t| load(t).normal);
        }
    }
}

/// Whether a step in `modes` has a closed contact, whose force between the step's ends
/// `Extremes::observe_step` reads on the dense output.
pub(super) fn any_closed(modes: &Modes) -> bool {
    modes.closed.iter().any(|c| *c)
}

/// The compliant contacts closed in `modes`.
fn compliant_closed(mech: &Mechanism, modes: &Modes) -> Vec<usize> {
    (0..mech.contacts().len())
        .filter(|&k| modes.closed[k] && !mech.contacts()[k].rigid())
        .collect()
}

/// The larger of `floor` (the largest value so far) and the largest value over `[ts[0],
/// ts[last]]` of the quantity `q`, sampled as `qs` at the check points `ts` (module doc:
/// at most one extremum between neighbours; a bracket searched only where its bound can
/// beat the largest value by more than round-off).
fn largest(ts: &[f64], qs: &[f64], floor: f64, q: impl Fn(f64) -> f64) -> f64 {
    let last = qs.len() - 1;
    let mut best = qs.iter().copied().fold(floor, f64::max);
    let beats = |v: f64, best: f64| v > best + NEGLIGIBLE_RISE * best.abs();
    for j in 0..=last {
        let above = |i: Option<usize>| i.and_then(|i| qs.get(i)).is_none_or(|&v| qs[j] >= v);
        if !(above(j.checked_sub(1)) && above(Some(j + 1))) {
            continue;
        }
        // The second difference at the three check points nearest `j`.
        let m = j.clamp(1, last - 1);
        let second = (qs[m - 1] - 2.0 * qs[m] + qs[m + 1]).abs();
        if !beats(qs[j] + PEAK_BOUND * second, best) {
            continue;
        }
        let rises = |at: f64, to: f64| beats(q(at + SLOPE_PROBE * (to - at)), qs[j]);
        let bracket = match j {
            0 => rises(ts[0], ts[1]).then_some((ts[0], ts[1])),
            _ if j == last => rises(ts[last], ts[last - 1]).then_some((ts[last - 1], ts[last])),
            _ => Some((ts[j - 1], ts[j + 1])),
        };
        if let Some((a, b)) = bracket {
            best = best.max(golden(a, b, &q));
        }
    }
    best
}

/// The maximum of the unimodal `q` on `[a, b]` by golden-section search (Kiefer 1953):
/// each iteration keeps the part of the bracket holding the larger of two interior
/// points, shrinking it by `1/φ`.
fn golden(mut a: f64, mut b: f64, q: impl Fn(f64) -> f64) -> f64 {
    let r = (5.0_f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - r * (b - a), a + r * (b - a));
    let (mut qc, mut qd) = (q(c), q(d));
    for _ in 0..GOLDEN_ITERATIONS {
        if qc >= qd {
            (b, d, qd) = (d, c, qc);
            c = b - r * (b - a);
            qc = q(c);
        } else {
            (a, c, qc) = (c, d, qd);
            d = a + r * (b - a);
            qd = q(d);
        }
    }
    qc.max(qd)
}

#[cfg(test)]
mod tests {
    use super::{golden, largest};

    /// A peak inside a sub-interval next to an end: the end alone would miss it.
    #[test]
    fn peak_next_to_an_end() {
        let q = |t: f64| 1.0 - (t - 0.05).powi(2);
        let ts = [0.0, 0.25, 0.5, 0.75, 1.0];
        let qs = ts.map(q);
        assert!((largest(&ts, &qs, f64::NEG_INFINITY, q) - 1.0).abs() < 1e-14);
        let q = |t: f64| 1.0 - (t - 0.97).powi(2);
        assert!((largest(&ts, &ts.map(q), f64::NEG_INFINITY, q) - 1.0).abs() < 1e-14);
    }

    /// A monotone quantity's maximum is its end value; an interior peak is found to the
    /// search's resolution.
    #[test]
    fn monotone_and_interior() {
        let ts = [0.0, 0.25, 0.5, 0.75, 1.0];
        let q = |t: f64| t * t;
        assert_eq!(largest(&ts, &ts.map(q), f64::NEG_INFINITY, q), 1.0);
        let q = |t: f64| (3.0 * t).sin();
        let peak = std::f64::consts::FRAC_PI_6;
        assert!((largest(&ts, &ts.map(q), f64::NEG_INFINITY, q) - 1.0).abs() < 1e-14);
        assert!((golden(0.0, 1.0, q) - q(peak)).abs() < 1e-14);
    }
}
