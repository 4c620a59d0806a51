//! One cell of a basin map: the motion from the cell's state, integrated one forcing period
//! at a time (its stroboscopic map), until it is recognised (recurrence) or settles.
//!
//! Recognition follows Attractors.jl's `AttractorsViaRecurrences` (Datseris and Wagemakers
//! 2022): the stroboscopic state space is cut into boxes of side `cell`; a motion whose
//! stroboscopic points stay within `cell` (∞-norm) of a known attractor's points for
//! `ATTRACTOR_HITS` periods in a row, or in boxes already visited by motions that led to one
//! attractor for `BASIN_HITS` periods in a row, is labelled with that attractor and stops.
//! Otherwise it runs until the period of its last `keep` stroboscopic points is detected
//! (`solve::poincare::period_of`): a candidate attractor, matched or added by the caller.
//! What is known is read only here and frozen while a chunk of cells runs, so a cell's
//! outcome does not depend on which thread ran it or when.
//!
//! # References
//! G. Datseris and A. Wagemakers, "Effortless estimation of basins of attraction", Chaos 32,
//! 023104 (2022), Sect. II (the recurrence algorithm and its consecutive-visit thresholds).

use super::options::Options;
use crate::model::System;
use crate::solve::ode::driver::SectionPoint;
use crate::solve::ode::Hybrid;
use crate::solve::poincare::{distance, period_of, run_span, Periodicity};
use std::collections::{HashMap, VecDeque};

/// Periods in a row within the capture radius of one attractor's points before a motion is
/// labelled with it (Datseris and Wagemakers: 2 consecutive attractor-box visits).
const ATTRACTOR_HITS: usize = 2;

/// Periods in a row in boxes leading to one attractor before a motion is labelled with it
/// (Datseris and Wagemakers' default of 10 consecutive basin-box visits: one box near a
/// basin boundary may hold starts of both basins, ten in a row rarely do).
const BASIN_HITS: usize = 10;

/// A box of the stroboscopic state space: `⌊yᵢ / cell⌋` per coordinate.
pub(super) type BoxKey = Vec<i64>;

/// What the map knows while a chunk runs: the attractors' stroboscopic cycles (by id,
/// from 1) and the boxes visited by motions that led to each.
#[derive(Default)]
pub(super) struct Known {
    pub cycles: Vec<Vec<Vec<f64>>>,
    pub boxes: HashMap<BoxKey, u32>,
}

/// How a cell's motion ended.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Fate {
    /// Recognised as the motion toward attractor `id` (recurrence exit).
    Recurred(u32),
    /// Settled on a cycle of `period` forcing periods (its stroboscopic states in order).
    Settled(Vec<Vec<f64>>),
    /// Neither within `transient` periods: aperiodic, or slower to settle.
    Unresolved,
    /// The integration failed (its message).
    Failed(String),
}

/// One cell's outcome: its fate, the forcing periods integrated and the boxes visited.
pub(super) struct CellRun {
    pub fate: Fate,
    pub periods: usize,
    pub visited: Vec<BoxKey>,
}

/// The box holding `y`.
pub(super) fn box_of(y: &[f64], cell: f64) -> BoxKey {
    y.iter().map(|v| (v / cell).floor() as i64).collect()
}

/// What a stroboscopic point hits: an attractor's capture radius, else a labelled box.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Hit {
    Attractor(u32),
    Basin(u32),
}

impl Known {
    fn hit(&self, y: &[f64], key: &BoxKey, cell: f64) -> Option<Hit> {
        let near = |cycle: &Vec<Vec<f64>>| cycle.iter().any(|q| distance(y, q) <= cell);
        match self.cycles.iter().position(near) {
            Some(k) => Some(Hit::Attractor(k as u32 + 1)),
            None => self.boxes.get(key).map(|id| Hit::Basin(*id)),
        }
    }
}

/// Runs the cell starting from `y0` at `t = 0` (forcing phase 0) against what is `known`.
pub(super) fn run_cell(
    opts: &Options,
    sys: &System,
    forcing: f64,
    known: &Known,
    y0: Vec<f64>,
) -> CellRun {
    let mut out = CellRun {
        fate: Fate::Unresolved,
        periods: 0,
        visited: Vec::new(),
    };
    let mut hybrid = match Hybrid::new(sys, opts.smooth_only) {
        Ok(h) => h,
        Err(e) => {
            out.fate = Fate::Failed(e.to_string());
            return out;
        }
    };
    let mut y = y0;
    let mut recent: VecDeque<SectionPoint> = VecDeque::with_capacity(opts.keep + 1);
    let mut streak: Option<(Hit, usize)> = None;
    for k in 1..=opts.transient {
        let span = ((k - 1) as f64 * forcing, forcing);
        let tol = (opts.rtol, opts.atol);
        match run_span(&mut hybrid, tol, span, y, None, vec![], opts.engine) {
            Ok(traj) => y = traj.final_state,
            Err(e) => {
                out.fate = Fate::Failed(e);
                return out;
            }
        }
        out.periods = k;
        let key = box_of(&y, opts.cell);
        let hit = known.hit(&y, &key, opts.cell);
        out.visited.push(key);
        streak = match (streak, hit) {
            (Some((last, n)), Some(h)) if last == h => Some((h, n + 1)),
            (_, h) => h.map(|h| (h, 1)),
        };
        match streak {
            Some((Hit::Attractor(id), n)) if n >= ATTRACTOR_HITS => {
                out.fate = Fate::Recurred(id);
                return out;
            }
            Some((Hit::Basin(id), n)) if n >= BASIN_HITS => {
                out.fate = Fate::Recurred(id);
                return out;
            }
            _ => {}
        }
        recent.push_back(SectionPoint {
            t: k as f64 * forcing,
            y: y.clone(),
        });
        if recent.len() > opts.keep {
            recent.pop_front();
        }
        if recent.len() == opts.keep {
            let points = recent.make_contiguous();
            if let Periodicity::Periodic { points: p, .. } =
                period_of(points, forcing, opts.max_period, opts.tol)
            {
                out.fate = Fate::Settled(
                    points[points.len() - p..]
                        .iter()
                        .map(|s| s.y.clone())
                        .collect(),
                );
                return out;
            }
        }
    }
    out
}
