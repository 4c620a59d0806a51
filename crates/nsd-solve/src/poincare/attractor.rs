//! The attractors of a basin map: a cycle found by a cell is matched against the known ones
//! by the caller (`same_cycle`: the same number of stroboscopic points, each within the
//! capture radius `cell` of one of theirs, so the same orbit entered at another phase is the
//! same attractor), or polished here (`Attractor::new`) and added.
//!
//! Polishing iterates the `p`-period stroboscopic map `P^p` from the cycle's first point
//! until `|P^p(y) − y|∞` falls to `POLISH_FACTOR` times the integrator's error per step
//! (`rtol·S + atol` at `ATTRACTOR_TIGHTENING` times the map's tolerances, `S` the largest
//! |coordinate|) or `POLISH_MAX_PERIODS` have passed: a stable orbit contracts toward
//! itself, so the representative state returns to itself to the integration's accuracy, not
//! only to the period detection's `tol`.

use super::{distance, run_span, MapSettings};
use crate::ode::driver::{FlowError, Section};
use crate::ode::Hybrid;
use nsd_model::System;

/// Return error, in units of the integrator's error per step, at which polishing stops.
const POLISH_FACTOR: f64 = 10.0;

/// Factor on the map's tolerances at which an attractor is polished and tabled (its cycle,
/// points and return error): once per attractor, so its representative state returns to
/// itself to ~1e-10 at the map's default 1e-9 (1.5e-8 at the map's own tolerances).
const ATTRACTOR_TIGHTENING: f64 = 1e-2;
/// Tightest tolerance the tightening goes to: near the rounding of the states, below which
/// the steps stall.
const TIGHTEST: f64 = 1e-13;

/// Most forcing periods spent polishing one attractor (a slowly contracting orbit stops
/// here with its return error in the table).
const POLISH_MAX_PERIODS: usize = 3000;

/// One attractor of the map.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Attractor {
    /// From 1, in the order found (cells in index order).
    pub id: u32,
    /// In forcing periods.
    pub period: usize,
    /// The stroboscopic states (forcing phase 0), in time order from `rep`.
    pub cycle: Vec<Vec<f64>>,
    /// The representative state at `t = 0` (forcing phase 0): the cycle's first point.
    pub rep: Vec<f64>,
    /// Its points `(t, state)` on `MapSettings::section` over one period from `rep`.
    pub points: Vec<(f64, Vec<f64>)>,
    /// The largest |x| of the plotted DOF over one period.
    pub amplitude: f64,
    /// `|P^p(rep) − rep|∞` after polishing.
    pub return_error: f64,
}

impl Attractor {
    /// Polishes `cycle` (stroboscopic states of a settled motion) into attractor `id`.
    pub fn new(
        map: &MapSettings,
        sys: &System,
        cycle: &[Vec<f64>],
        id: u32,
    ) -> Result<Attractor, FlowError> {
        let forcing = map.forcing;
        let mut hybrid = Hybrid::new(sys, map.smooth_only).map_err(FlowError::Unsupported)?;
        let period = cycle.len();
        let tol = tightened(map);
        let span = (0.0, period as f64 * forcing);
        let mut y = cycle
            .first()
            .expect("a settled cycle holds one point per period, at least one")
            .clone();
        let mut periods = 0;
        loop {
            let next =
                run_span(&mut hybrid, tol, span, y.clone(), None, vec![], map.engine)?.final_state;
            let scale = y.iter().fold(0.0_f64, |s, v| s.max(v.abs()));
            let error = distance(&next, &y);
            y = next;
            periods += period;
            if error <= POLISH_FACTOR * (tol.0 * scale + tol.1) || periods >= POLISH_MAX_PERIODS {
                break;
            }
        }
        // A slowly contracting spiral can pass the period test at a multiple of the period
        // (its points p apart closer than `tol`); polished, the cycle shows its own period.
        let period = least_period(cycle_of(&mut hybrid, map, &y, period)?, map.tol);
        let span = (0.0, period as f64 * forcing);
        let strobe = Section::Stroboscopic {
            origin: 0.0,
            period: forcing,
        };
        hybrid.record.peak_of = Some(map.plot);
        let orbit = run_span(
            &mut hybrid,
            tol,
            span,
            y.clone(),
            Some(&strobe),
            vec![],
            map.engine,
        )?;
        hybrid.record.peak_of = None;
        let amplitude = orbit.peak;
        let return_error = distance(&orbit.final_state, &y);
        // The stroboscopic points from t = 0 on, `rep` first.
        let cycle = orbit
            .section
            .iter()
            .take(period)
            .map(|p| p.y.clone())
            .collect();
        let section = Some(&map.section);
        let points = run_span(
            &mut hybrid,
            tol,
            span,
            y.clone(),
            section,
            vec![],
            map.engine,
        )?
        .section
        .into_iter()
        .map(|p| (p.t, p.y))
        .collect();
        Ok(Attractor {
            id,
            period,
            cycle,
            rep: y,
            points,
            amplitude,
            return_error,
        })
    }
}

/// The map's `(rtol, atol)` times `ATTRACTOR_TIGHTENING`, not below `TIGHTEST` (nor above
/// the map's own).
fn tightened(map: &MapSettings) -> (f64, f64) {
    let tighten = |t: f64| (t * ATTRACTOR_TIGHTENING).max(TIGHTEST).min(t);
    (tighten(map.rtol), tighten(map.atol))
}

/// The `period` stroboscopic states from `y` (at forcing phase 0), `y` first.
fn cycle_of(
    hybrid: &mut Hybrid,
    map: &MapSettings,
    y: &[f64],
    period: usize,
) -> Result<Vec<Vec<f64>>, FlowError> {
    let forcing = map.forcing;
    let strobe = Section::Stroboscopic {
        origin: 0.0,
        period: forcing,
    };
    let span = (0.0, period as f64 * forcing);
    let orbit = run_span(
        hybrid,
        tightened(map),
        span,
        y.to_vec(),
        Some(&strobe),
        vec![],
        map.engine,
    )?;
    Ok(orbit
        .section
        .into_iter()
        .take(period)
        .map(|p| p.y)
        .collect())
}

/// The least `d` dividing the cycle's length with `cycle[i + d] = cycle[i]` (cyclically) to
/// `tol` relative to the largest coordinate.
fn least_period(cycle: Vec<Vec<f64>>, tol: f64) -> usize {
    let p = cycle.len();
    let scale = cycle
        .iter()
        .flatten()
        .fold(f64::MIN_POSITIVE, |s, v| s.max(v.abs()));
    (1..p)
        .filter(|d| p.is_multiple_of(*d))
        .find(|d| (0..p).all(|i| distance(&cycle[i], &cycle[(i + d) % p]) <= tol * scale))
        .unwrap_or(p.max(1))
}

#[cfg(test)]
mod tests {
    use super::least_period;

    #[test]
    fn a_cycle_of_repeated_points_has_its_own_least_period() {
        let (a, b) = (vec![0.1, -0.2], vec![0.3, 0.05]);
        // Eight points of a period-1 orbit (a spiral's multiple, polished) are period 1.
        assert_eq!(least_period(vec![a.clone(); 8], 1e-6), 1);
        // a, b, a, b is period 2; a, b, a, a is its own length.
        let abab = vec![a.clone(), b.clone(), a.clone(), b.clone()];
        assert_eq!(least_period(abab, 1e-6), 2);
        let abaa = vec![a.clone(), b, a.clone(), a];
        assert_eq!(least_period(abaa, 1e-6), 4);
    }
}
