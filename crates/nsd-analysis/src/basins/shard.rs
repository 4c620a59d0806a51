//! Blocks of a basin map joined into one map, on one machine or from shards.
//!
//! A map is cut into blocks of `block` consecutive cells, each mapped on its own (`mod.rs`).
//! `join` takes the blocks in index order and numbers their attractors globally: a block's
//! attractor that matches one already numbered (`same_cycle`, capture radius `cell`) takes its
//! id, else it is the next one, with the block's representative. So the joined map depends on
//! the blocks only, never on which process or thread computed them: `nsd run --shard i/n`
//! writes blocks `b ≡ i (mod n)` as JSON (`payload`, floats written to round-trip exactly) and
//! `merge` joins every block of the shards into the result a single run writes — only shards
//! of one run: the same source (`source_hash`), nsd version and context, else
//! `nsd::merge::inconsistent` names the two files and what differs.

use super::report::{self, Context};
use super::{Block, Label};
use crate::diagnostics::MergeError;
use crate::results::Results;
use nsd_solve::poincare::{same_cycle, Attractor};
use serde_json::{json, Value};

/// The format tag of a shard file.
const FORMAT: &str = "nsd-basins-shard-1";

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
    json!({
        "format": FORMAT,
        "nsd_version": env!("CARGO_PKG_VERSION"),
        "context": ctx,
        "shard": [shard.0, shard.1],
        "blocks": blocks,
    })
}

/// Joins the shards of one map (any order, each block exactly once) into its results. Each
/// shard comes with the file it was read from, for the messages. Every shard must agree with
/// the first on its source (`source_hash`, which the shell stores), the nsd version and the
/// context (model, parameters, settings, grid, DOFs, capture radius, block count): shards
/// computed before and after an edit of the model would join into a map of neither.
pub(crate) fn merge(shards: &[(String, Value)]) -> Result<Results, MergeError> {
    let malformed = |file: &str, reason: String| MergeError::Malformed {
        file: file.into(),
        reason,
    };
    let mut first: Option<(&str, &Value, Context)> = None;
    let mut blocks: Vec<Option<(&str, Block)>> = Vec::new();
    for (file, s) in shards {
        if s["format"] != FORMAT {
            return Err(malformed(file, format!("its format is {}", s["format"])));
        }
        let c: Context = serde_json::from_value(s["context"].clone())
            .map_err(|e| malformed(file, e.to_string()))?;
        match &first {
            Some((known_file, known, known_ctx)) => {
                let what = differences(known, known_ctx, s, &c);
                if !what.is_empty() {
                    return Err(MergeError::Different {
                        first: (*known_file).into(),
                        second: file.clone(),
                        what: what.join("; "),
                    });
                }
            }
            None => {
                blocks = (0..c.blocks).map(|_| None).collect();
                first = Some((file.as_str(), s, c));
            }
        }
        let list = s["blocks"]
            .as_array()
            .ok_or_else(|| malformed(file, "it has no blocks".into()))?;
        for b in list {
            let index = b["index"]
                .as_u64()
                .ok_or_else(|| malformed(file, "a block without index".into()))?
                as usize;
            let block: Block = serde_json::from_value(b["block"].clone())
                .map_err(|e| malformed(file, e.to_string()))?;
            match blocks.get_mut(index) {
                Some(slot @ None) => *slot = Some((file.as_str(), block)),
                Some(Some((earlier, _))) => {
                    return Err(MergeError::Duplicate {
                        index,
                        first: (*earlier).into(),
                        second: file.clone(),
                    })
                }
                None => {
                    return Err(malformed(
                        file,
                        format!("block {index} is out of range (0..{})", blocks.len()),
                    ))
                }
            }
        }
    }
    let Some((_, _, ctx)) = first else {
        return Err(MergeError::Empty);
    };
    let missing: Vec<String> = (0..blocks.len())
        .filter(|i| blocks[*i].is_none())
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing {
            missing: missing.join(", "),
            total: blocks.len(),
        });
    }
    let blocks = blocks.into_iter().flatten().map(|(_, b)| b).collect();
    let (labels, attractors) = join(blocks, ctx.cell);
    Ok(report::results(&ctx, &labels, &attractors, 0.0))
}

/// What differs between two shards (`a` with context `ca`, `b` with `cb`), in words; empty
/// when they are shards of one run.
fn differences(a: &Value, ca: &Context, b: &Value, cb: &Context) -> Vec<String> {
    let text = |v: &Value| v.as_str().unwrap_or("none").to_string();
    let mut what = Vec::new();
    if a["source_hash"] != b["source_hash"] {
        what.push(format!(
            "the model's source differs (source_hash {} vs {}): the file was edited between them",
            text(&a["source_hash"]),
            text(&b["source_hash"])
        ));
    }
    if a["nsd_version"] != b["nsd_version"] {
        what.push(format!(
            "nsd versions {} and {}",
            text(&a["nsd_version"]),
            text(&b["nsd_version"])
        ));
    }
    if ca.model != cb.model {
        what.push(format!("models `{}` and `{}`", ca.model, cb.model));
    }
    if ca.params != cb.params {
        let changed: Vec<String> = ca
            .params
            .iter()
            .filter(|p| !cb.params.contains(p))
            .map(|(n, v)| {
                let other = cb.params.iter().find(|(m, _)| m == n);
                match other {
                    Some((_, w)) => format!("`{n}` = {v} vs {w}"),
                    None => format!("`{n}` only in the first"),
                }
            })
            .collect();
        let listed = if changed.is_empty() {
            "parameters declared apart".to_string()
        } else {
            format!("parameters {}", changed.join(", "))
        };
        what.push(listed);
    }
    let keys: Vec<&String> = ca
        .settings
        .iter()
        .filter(|(k, v)| cb.settings.get(*k) != Some(*v))
        .map(|(k, _)| k)
        .chain(cb.settings.keys().filter(|k| !ca.settings.contains_key(*k)))
        .collect();
    if !keys.is_empty() {
        let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
        what.push(format!("settings {}", keys.join(", ")));
    }
    if ca.x != cb.x || ca.y != cb.y {
        what.push("the grid".into());
    }
    if ca.names != cb.names {
        what.push("the DOFs".into());
    }
    if ca.warnings != cb.warnings {
        what.push("the model's warnings".into());
    }
    // The capture radius `cell` is among the settings.
    if ca.blocks != cb.blocks {
        what.push(format!("{} vs {} blocks", ca.blocks, cb.blocks));
    }
    what
}
