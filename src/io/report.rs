//! Writing an analysis's `Results` to `DIR/<name>/`: every table as CSV, `meta.json`, every
//! plot as SVG. The folder is written under a temporary name and renamed into place, so a
//! reader never sees half a result.

use super::{csv, plot};
use crate::analysis::Results;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bit: a stable fingerprint of the model sources for `meta.json`.
pub fn source_hash<'a>(texts: impl IntoIterator<Item = &'a str>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for t in texts {
        for b in t.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The content of `meta.json`.
pub fn meta(r: &Results, source_hash: &str) -> Value {
    let params: Map<String, Value> = r
        .params
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    json!({
        "analysis": r.name,
        "kind": r.kind,
        "model": r.model,
        "parameters": params,
        "settings": r.settings,
        "summary": r.summary,
        "wall_s": r.wall_s,
        "warnings": r.warnings,
        "nsd_version": env!("CARGO_PKG_VERSION"),
        "source_hash": source_hash,
    })
}

/// Writes the results folder atomically; returns its path.
pub fn write(out: &Path, r: &Results, source_hash: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(out)?;
    let target = out.join(&r.name);
    let tmp = out.join(format!(".{}.tmp-{}", r.name, std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp)?;
    }
    std::fs::create_dir_all(&tmp)?;
    for t in &r.tables {
        std::fs::write(tmp.join(&t.file), csv::render(t))?;
    }
    let meta =
        serde_json::to_string_pretty(&meta(r, source_hash)).map_err(std::io::Error::other)?;
    std::fs::write(tmp.join("meta.json"), meta + "\n")?;
    for p in &r.plots {
        // A plot that cannot be drawn (e.g. no finite data) is skipped, the data are kept.
        if let Ok(svg) = plot::render_svg(p) {
            std::fs::write(tmp.join(&p.file), svg)?;
            let _ = plot::render_png(p, &tmp.join(&p.file).with_extension("png"));
        }
    }
    if target.exists() {
        std::fs::remove_dir_all(&target)?;
    }
    std::fs::rename(&tmp, &target)?;
    Ok(target)
}
