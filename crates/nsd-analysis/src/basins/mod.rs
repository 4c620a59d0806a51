//! The `basins` analysis: a grid over two state coordinates (the others fixed), each cell
//! labelled by the attractor its motion reaches (paper 000, Sect. 5.2, Figs. 13–16).
//!
//! Each cell is integrated from its state at `t = 0`, one forcing period at a time, until it
//! is recognised by recurrence or settles on a cycle (`nsd_solve::poincare::run_cells`);
//! settled cycles are matched against the attractors found so far or polished and added
//! (`nsd_solve::poincare::Attractor`). Options in `options.rs`; tables, plot and summary in
//! `report.rs`.
//!
//! Determinism: the cells run in chunks of a fixed schedule (`CHUNK_FIRST` doubling up to
//! `CHUNK_MAX`, whatever the thread count). Within a chunk the cells run in parallel (rayon;
//! each thread takes the next cell as one of its lanes frees up, `poincare::run_cells`) against
//! what was known when the chunk began; then, in cell-index order, each outcome is settled:
//! a cycle is matched or becomes the next attractor (ids in order of first finding), and the
//! boxes the motion visited are labelled with its attractor (a box visited by motions that
//! led to different attractors is marked mixed and labels nothing). A cell's motion depends
//! on its start only, not on the cells beside it in the lanes; so the labels, the attractor
//! table and every file but the timings are the same for any number of threads.
//!
//! The grid is cut into blocks of `block` consecutive cells, each mapped on its own as above
//! and joined in order (`shard.rs`): the unit of `nsd run --shard i/n` and `nsd merge`, whose
//! joined files are the single run's.

mod options;
mod report;
mod shard;

pub(super) use options::OPTIONS;

use super::diagnostics::AnalysisError;
use super::results::Results;
use nsd_lang::ast::Analysis;
use nsd_model::{Model, System};
use nsd_solve::poincare::{run_cells, same_cycle, Attractor, CellRun, Fate, Known, MapSettings};
use options::Options;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Cells of the first chunk: few, so the first attractors are known early.
const CHUNK_FIRST: usize = 16;
/// Cells of the largest chunk (each chunk doubles the last): large enough to keep the
/// threads busy, small enough that what is learnt is soon used.
const CHUNK_MAX: usize = 1024;

/// How a cell's label was reached (the `exit` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) enum Exit {
    Recurrence,
    Settled,
    Unresolved,
    Failed,
}

/// One cell's row: attractor id (0: none), periods integrated, how it ended.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(super) struct Label {
    id: u32,
    periods: usize,
    exit: Exit,
}

pub(crate) fn run(a: &Analysis, model: &Model, sys: &System) -> Result<Results, AnalysisError> {
    let start = std::time::Instant::now();
    let opts = prepare(a, model, sys)?;
    let blocks = (0..opts.blocks()).collect::<Vec<_>>();
    let outcomes = run_blocks(&opts, sys, &blocks, &model.name);
    let ctx = report::Context::new(&opts, model, sys);
    let (labels, attractors) = shard::join(outcomes, opts.map.cell);
    Ok(report::results(
        &ctx,
        &labels,
        &attractors,
        start.elapsed().as_secs_f64(),
    ))
}

/// `--shard index/count`: the blocks `b` with `b mod count = index`, as the shard's JSON
/// (`shard.rs`), for `merge` to join.
pub(crate) fn run_shard(
    a: &Analysis,
    model: &Model,
    sys: &System,
    (index, count): (usize, usize),
) -> Result<serde_json::Value, AnalysisError> {
    let opts = prepare(a, model, sys)?;
    let blocks: Vec<usize> = (0..opts.blocks()).filter(|b| b % count == index).collect();
    let outcomes = run_blocks(&opts, sys, &blocks, &model.name);
    let ctx = report::Context::new(&opts, model, sys);
    Ok(shard::payload(ctx, (index, count), blocks, outcomes))
}

pub(crate) use shard::merge;

/// The options, checked to run: an integrable model under harmonic forcing (its period is
/// `MapSettings::forcing`).
fn prepare(a: &Analysis, model: &Model, sys: &System) -> Result<Options, AnalysisError> {
    let opts = Options::read(a, model, sys)?;
    if let Err(e) = nsd_solve::ode::Hybrid::new(sys, opts.map.smooth_only) {
        return Err(AnalysisError::Unsupported {
            message: format!("basins of `{}`: {e}", model.name),
            at: a.span,
            help: "the map integrates the model as `simulate` does; see `simulate` for the elements it supports".into(),
        });
    }
    Ok(opts)
}

/// One block's cells labelled with the block's own attractors (ids from 1).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Block {
    labels: Vec<Label>,
    attractors: Vec<Attractor>,
}

/// Runs the blocks `blocks` (indices), each on its own, in order.
fn run_blocks(opts: &Options, sys: &System, blocks: &[usize], model: &str) -> Vec<Block> {
    let cells = |b: usize| opts.block_range(b);
    let total = blocks.iter().map(|b| cells(*b).len()).sum();
    let bar = super::progress::bar(total, "basins", "cells", model);
    let out = blocks
        .iter()
        .map(|b| run_block(opts, sys, cells(*b), &bar))
        .collect();
    bar.finish_and_clear();
    out
}

/// The cells `range` in chunks (see the module header), against what this block learns.
fn run_block(
    opts: &Options,
    sys: &System,
    range: std::ops::Range<usize>,
    bar: &indicatif::ProgressBar,
) -> Block {
    let nx = opts.x.values.len();
    let state = |k: usize| {
        let mut y = opts.fixed.clone();
        y[opts.x.index] = opts.x.values[k % nx];
        y[opts.y.index] = opts.y.values[k / nx];
        y
    };
    let mut map = Map::default();
    let mut labels = Vec::with_capacity(range.len());
    let (mut next, mut chunk) = (range.start, CHUNK_FIRST);
    while next < range.end {
        let end = (next + chunk).min(range.end);
        // Each thread takes the chunk's cells one by one as its lanes free up.
        let queue = AtomicUsize::new(next);
        let mut runs: Vec<(usize, CellRun)> = (0..rayon::current_num_threads())
            .into_par_iter()
            .flat_map_iter(|_| {
                let mut take = || {
                    let k = queue.fetch_add(1, Ordering::Relaxed);
                    (k < end).then(|| (k, state(k)))
                };
                let mut out = Vec::new();
                let mut done = |k: usize, run: CellRun| {
                    bar.inc(1);
                    out.push((k, run));
                };
                run_cells(&opts.map, sys, &map.known, &mut take, &mut done);
                out
            })
            .collect();
        runs.sort_unstable_by_key(|(k, _)| *k);
        for (_, run) in runs {
            labels.push(map.settle(&opts.map, sys, run));
        }
        (next, chunk) = (end, (2 * chunk).min(CHUNK_MAX));
    }
    Block {
        labels,
        attractors: map.attractors,
    }
}

/// The attractors and labelled boxes so far.
#[derive(Default)]
struct Map {
    attractors: Vec<Attractor>,
    known: Known,
}

impl Map {
    /// Settles one cell's outcome (in cell-index order): its label, and what it teaches.
    fn settle(&mut self, settings: &MapSettings, sys: &System, run: CellRun) -> Label {
        let (id, exit) = match run.fate {
            Fate::Recurred(id) => (id, Exit::Recurrence),
            Fate::Settled(cycle) => match self.matching(&cycle, settings.cell) {
                Some(id) => (id, Exit::Settled),
                None => {
                    let id = self.attractors.len() as u32 + 1;
                    match Attractor::new(settings, sys, &cycle, id) {
                        // Polished, it may show its own period and be a known one.
                        Ok(a) => match self.matching(&a.cycle, settings.cell) {
                            Some(known) => (known, Exit::Settled),
                            None => {
                                self.known.cycles.push(a.cycle.clone());
                                self.attractors.push(a);
                                (id, Exit::Settled)
                            }
                        },
                        Err(_) => (0, Exit::Failed),
                    }
                }
            },
            Fate::Unresolved => (0, Exit::Unresolved),
            Fate::Failed(_) => (0, Exit::Failed),
        };
        if id > 0 {
            self.known.label(run.visited, id);
        }
        Label {
            id,
            periods: run.periods,
            exit,
        }
    }

    /// The known attractor that `cycle` is (`None`: a new one).
    fn matching(&self, cycle: &[Vec<f64>], cell: f64) -> Option<u32> {
        self.attractors
            .iter()
            .find(|a| same_cycle(cycle, &a.cycle, cell))
            .map(|a| a.id)
    }
}
