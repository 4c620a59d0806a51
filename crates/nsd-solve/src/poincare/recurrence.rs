//! The cells of a basin map by recurrence: the motion from each cell's state, integrated one
//! forcing period at a time (its stroboscopic map), until it is recognised or settles.
//!
//! Recognition follows Attractors.jl's `AttractorsViaRecurrences` (Datseris and Wagemakers
//! 2022): the stroboscopic state space is cut into boxes of side `cell`; a motion whose
//! stroboscopic points stay within `cell` (∞-norm) of a known attractor's points for
//! `ATTRACTOR_HITS` periods in a row, or in boxes already visited by motions that led to one
//! attractor for `BASIN_HITS` periods in a row, is labelled with that attractor and stops.
//! Otherwise it runs until the period of its last `keep` stroboscopic points is detected
//! (`period_of`): a candidate attractor, matched or added by the caller (`basins`).
//! What is known is read only here and frozen while a chunk of cells runs, so a cell's
//! outcome does not depend on which thread ran it or when.
//!
//! # References
//! G. Datseris and A. Wagemakers, "Effortless estimation of basins of attraction", Chaos 32,
//! 023104 (2022), Sect. II (the recurrence algorithm and its consecutive-visit thresholds).

use super::{distance, period_of, run_strobes, MapSettings, Periodicity, StrobeJob};
use crate::ode::driver::{FlowError, SectionPoint};
use nsd_model::System;
use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;

/// Periods in a row within the capture radius of one attractor's points before a motion is
/// labelled with it (Datseris and Wagemakers: 2 consecutive attractor-box visits).
const ATTRACTOR_HITS: usize = 2;

/// Periods in a row in boxes leading to one attractor before a motion is labelled with it
/// (Datseris and Wagemakers' default of 10 consecutive basin-box visits: one box near a
/// basin boundary may hold starts of both basins, ten in a row rarely do).
const BASIN_HITS: usize = 10;

/// Most labelled boxes kept (about 1 GB at 64 bytes each for a 4-DOF state): past it, new
/// boxes are not labelled and cells rely on the attractors' capture radius alone.
const MAX_BOXES: usize = 16_000_000;

/// The label of a box visited by motions that led to different attractors: on intertwined
/// basins one box of side `cell` can straddle the boundary, and counting it for either
/// attractor mislabels cells (on the free-play map at Ω = 1.2, 101 × 101 cells, 41 of them
/// against the labels of motions followed to within 1e-5 of their attractor; 1 with the
/// mixed boxes left out).
const MIXED: u32 = u32::MAX;

/// A box of the stroboscopic state space: `⌊yᵢ / cell⌋` per coordinate.
pub(crate) type BoxKey = Vec<i64>;

/// What the map knows while a chunk runs: the attractors' stroboscopic cycles (by id,
/// from 1) and the boxes visited by motions that led to each.
#[derive(Default)]
pub struct Known {
    /// The attractors' stroboscopic cycles, attractor `id` at `id - 1`.
    pub cycles: Vec<Vec<Vec<f64>>>,
    boxes: HashMap<BoxKey, u32>,
}

/// How a cell's motion ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// Recognised as the motion toward attractor `id` (recurrence exit).
    Recurred(u32),
    /// Settled on a cycle of `period` forcing periods (its stroboscopic states in order).
    Settled(Vec<Vec<f64>>),
    /// Neither within `transient` periods: aperiodic, or slower to settle.
    Unresolved,
    /// The integration failed (its message).
    Failed(FlowError),
}

/// One cell's outcome: its fate, the forcing periods integrated and the boxes visited.
pub struct CellRun {
    pub fate: Fate,
    /// Forcing periods integrated (periods).
    pub periods: usize,
    /// The boxes of its stroboscopic points, in order (for `Known::label`).
    pub visited: Vec<BoxKey>,
}

/// The box holding `y`.
fn box_of(y: &[f64], cell: f64) -> BoxKey {
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
            None => self
                .boxes
                .get(key)
                .filter(|id| **id != MIXED)
                .map(|id| Hit::Basin(*id)),
        }
    }

    /// Labels the boxes `visited` by a motion that led to attractor `id`; a box already
    /// labelled with another becomes `MIXED`. Past `MAX_BOXES` no new box is labelled.
    pub fn label(&mut self, visited: Vec<BoxKey>, id: u32) {
        for key in visited {
            let full = self.boxes.len() >= MAX_BOXES;
            match self.boxes.get_mut(&key) {
                Some(label) if *label != id => *label = MIXED,
                Some(_) => {}
                None if full => {}
                None => {
                    self.boxes.insert(key, id);
                }
            }
        }
    }
}

/// Runs the cells that `next` hands out (index and state at `t = 0`, forcing phase 0)
/// against what is `known`, each outcome handed to `done` with its index as it ends (in
/// any order; `run_strobes` may run several at once).
pub fn run_cells(
    map: &MapSettings,
    sys: &System,
    known: &Known,
    next: &mut dyn FnMut() -> Option<(usize, Vec<f64>)>,
    done: &mut dyn FnMut(usize, CellRun),
) {
    let mut start = || {
        next().map(|(index, y0)| {
            let watch = Watch {
                index,
                map,
                known,
                out: CellRun {
                    fate: Fate::Unresolved,
                    periods: 0,
                    visited: Vec::new(),
                },
                recent: VecDeque::with_capacity(map.keep + 1),
                streak: None,
            };
            (watch, y0)
        })
    };
    let tol = (map.rtol, map.atol);
    let periods = (map.forcing, map.transient);
    let mut ended = |w: Watch| done(w.index, w.out);
    run_strobes(
        sys,
        map.smooth_only,
        tol,
        periods,
        map.engine,
        &mut start,
        &mut ended,
    );
}

/// One cell's stroboscopic points as they come: the recurrence streak, the last `keep`
/// points for the period, and the outcome so far.
struct Watch<'a> {
    index: usize,
    map: &'a MapSettings,
    known: &'a Known,
    out: CellRun,
    recent: VecDeque<SectionPoint>,
    streak: Option<(Hit, usize)>,
}

impl StrobeJob for Watch<'_> {
    /// Takes the state `y` after `k` forcing periods; true once the cell's fate is decided.
    fn see(&mut self, k: usize, y: &[f64]) -> bool {
        let (map, forcing) = (self.map, self.map.forcing);
        self.out.periods = k;
        let key = box_of(y, map.cell);
        let hit = self.known.hit(y, &key, map.cell);
        self.out.visited.push(key);
        self.streak = match (self.streak, hit) {
            (Some((last, n)), Some(h)) if last == h => Some((h, n + 1)),
            (_, h) => h.map(|h| (h, 1)),
        };
        match self.streak {
            Some((Hit::Attractor(id), n)) if n >= ATTRACTOR_HITS => {
                self.out.fate = Fate::Recurred(id);
                return true;
            }
            Some((Hit::Basin(id), n)) if n >= BASIN_HITS => {
                self.out.fate = Fate::Recurred(id);
                return true;
            }
            _ => {}
        }
        self.recent.push_back(SectionPoint {
            t: k as f64 * forcing,
            y: y.to_vec(),
        });
        if self.recent.len() > map.keep {
            self.recent.pop_front();
        }
        if self.recent.len() < map.keep {
            return false;
        }
        let points = self.recent.make_contiguous();
        match period_of(points, forcing, map.max_period, map.tol) {
            Periodicity::Periodic { points: p, .. } => {
                let cycle = points[points.len() - p..].iter().map(|s| s.y.clone());
                self.out.fate = Fate::Settled(cycle.collect());
                true
            }
            Periodicity::Aperiodic => false,
        }
    }

    fn fail(&mut self, error: FlowError) {
        self.out.fate = Fate::Failed(error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A box reached by motions toward two attractors counts for neither; a box of one
    /// attractor only is a basin hit.
    #[test]
    fn a_box_of_two_attractors_is_mixed() {
        let mut known = Known::default();
        let (shared, own) = (box_of(&[0.5, 0.5], 0.1), box_of(&[0.25, 0.5], 0.1));
        known.label(vec![shared.clone(), own.clone()], 1);
        known.label(vec![shared.clone()], 1);
        assert_eq!(known.hit(&[0.55, 0.55], &shared, 0.1), Some(Hit::Basin(1)));
        known.label(vec![shared.clone()], 2);
        assert_eq!(known.boxes[&shared], MIXED);
        assert_eq!(known.hit(&[0.55, 0.55], &shared, 0.1), None);
        known.label(vec![shared.clone()], 1);
        assert_eq!(
            known.hit(&[0.55, 0.55], &shared, 0.1),
            None,
            "mixed stays mixed"
        );
        assert_eq!(known.hit(&[0.25, 0.55], &own, 0.1), Some(Hit::Basin(1)));
    }
}
