//! Blocks of a basin map joined into one map, on one machine or from shards.
//!
//! A map is cut into blocks of `block` consecutive cells, each mapped on its own (`mod.rs`).
//! `join` takes the blocks in index order and numbers their attractors globally: a block's
//! attractor that matches one already numbered (`same_cycle`, capture radius `cell`) takes its
//! id, else it is the next one, with the block's representative. So the joined map depends on
//! the blocks only, never on which process or thread computed them: `nsd run --shard i/n`
//! writes blocks `b ≡ i (mod n)` as JSON (`payload`, floats written to round-trip exactly) and
//! `merge` joins every block of the shards into the result a single run writes.

use super::attractor::Attractor;
use super::options::{Axis, Options};
use super::{report, Block, Label};
use crate::analysis::results::Results;
use crate::model::{Model, System};
use crate::solve::poincare::same_cycle;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The format tag of a shard file.
const FORMAT: &str = "nsd-basins-shard-1";

/// What the report needs besides the blocks: the same in every shard of one map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Context {
    pub model: String,
    pub params: Vec<(String, f64)>,
    pub settings: Map<String, Value>,
    pub x: Axis,
    pub y: Axis,
    /// The DOF names.
    pub names: Vec<String>,
    /// The model's warnings.
    pub warnings: Vec<String>,
    /// The capture radius by which blocks' attractors are matched.
    pub cell: f64,
    pub blocks: usize,
}

impl Context {
    pub fn new(opts: &Options, model: &Model, sys: &System) -> Context {
        Context {
            model: model.name.clone(),
            params: model.params.clone(),
            settings: report::settings(opts),
            x: opts.x.clone(),
            y: opts.y.clone(),
            names: sys.dofs.iter().map(|d| d.name.clone()).collect(),
            warnings: sys.warnings.iter().map(|w| w.message.clone()).collect(),
            cell: opts.cell,
            blocks: opts.blocks(),
        }
    }
}

/// The blocks in index order joined: every cell's global attractor id, the attractors.
pub(super) fn join(blocks: Vec<Block>, cell: f64) -> (Vec<Label>, Vec<Attractor>) {
    let mut attractors: Vec<Attractor> = Vec::new();
    let mut labels = Vec::new();
    for block in blocks {
        let ids: Vec<u32> = block
            .attractors
            .into_iter()
            .map(|mut a| {
                match attractors
                    .iter()
                    .find(|g| same_cycle(&a.cycle, &g.cycle, cell))
                {
                    Some(g) => g.id,
                    None => {
                        a.id = attractors.len() as u32 + 1;
                        attractors.push(a);
                        attractors.len() as u32
                    }
                }
            })
            .collect();
        labels.extend(block.labels.into_iter().map(|l| Label {
            id: match l.id {
                0 => 0,
                id => ids[id as usize - 1],
            },
            ..l
        }));
    }
    (labels, attractors)
}

/// One shard's JSON: the format, the context, `[index, count]` and its blocks by index.
pub(super) fn payload(
    ctx: Context,
    shard: (usize, usize),
    indices: Vec<usize>,
    blocks: Vec<Block>,
) -> Value {
    let blocks: Vec<Value> = indices
        .into_iter()
        .zip(blocks)
        .map(|(i, b)| json!({ "index": i, "block": b }))
        .collect();
    json!({ "format": FORMAT, "context": ctx, "shard": [shard.0, shard.1], "blocks": blocks })
}

/// Joins the shards of one map (any order, each block exactly once) into its results; the
/// error says what is missing or inconsistent.
pub fn merge(shards: &[Value]) -> Result<Results, String> {
    let mut ctx: Option<Context> = None;
    let mut blocks: Vec<Option<Block>> = Vec::new();
    for s in shards {
        if s["format"] != FORMAT {
            return Err(format!("not a basins shard (format {})", s["format"]));
        }
        let c: Context = serde_json::from_value(s["context"].clone()).map_err(|e| e.to_string())?;
        match &ctx {
            Some(known) if *known != c => {
                return Err("the shards are of different maps (their settings differ)".into())
            }
            Some(_) => {}
            None => {
                blocks = vec![None; c.blocks];
                ctx = Some(c);
            }
        }
        let list = s["blocks"].as_array().ok_or("a shard without blocks")?;
        for b in list {
            let index = b["index"].as_u64().ok_or("a block without index")? as usize;
            let block: Block =
                serde_json::from_value(b["block"].clone()).map_err(|e| e.to_string())?;
            match blocks.get_mut(index) {
                Some(slot @ None) => *slot = Some(block),
                Some(Some(_)) => return Err(format!("block {index} is in two shards")),
                None => return Err(format!("block {index} is out of range")),
            }
        }
    }
    let ctx = ctx.ok_or("no shard given")?;
    let missing: Vec<String> = (0..blocks.len())
        .filter(|i| blocks[*i].is_none())
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "blocks {} of {} are missing (a shard not run or not given)",
            missing.join(", "),
            blocks.len()
        ));
    }
    let (labels, attractors) = join(blocks.into_iter().flatten().collect(), ctx.cell);
    Ok(report::results(&ctx, &labels, &attractors, 0.0))
}
