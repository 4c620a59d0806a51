//! Writing an analysis's `Results` to `DIR/<name>/`: every table as CSV, every plot as SVG
//! and PNG, `meta.json` (with a warning for each plot that could not be drawn). The folder is
//! written under a temporary name and renamed into place, so a reader never sees half a
//! result.

use super::{csv, plot};
use crate::analysis::{Plot, Results};
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

/// The content of `meta.json`: the analysis's own warnings, then `report_warnings` (plots
/// that could not be drawn).
pub fn meta(r: &Results, source_hash: &str, report_warnings: &[String]) -> Value {
    let params: Map<String, Value> = r
        .params
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let warnings: Vec<&String> = r.warnings.iter().chain(report_warnings).collect();
    json!({
        "analysis": r.name,
        "kind": r.kind,
        "model": r.model,
        "parameters": params,
        "settings": r.settings,
        "summary": r.summary,
        "wall_s": r.wall_s,
        "warnings": warnings,
        "nsd_version": env!("CARGO_PKG_VERSION"),
        "source_hash": source_hash,
    })
}

/// A results folder in place.
#[derive(Debug)]
pub struct Written {
    pub dir: PathBuf,
    /// What went wrong short of failing (plots that could not be drawn); also in `meta.json`.
    pub warnings: Vec<String>,
}

/// Writes the results folder atomically.
pub fn write(out: &Path, r: &Results, source_hash: &str) -> std::io::Result<Written> {
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
    let warnings = write_plots(&tmp, &r.plots)?;
    let meta = serde_json::to_string_pretty(&meta(r, source_hash, &warnings))
        .map_err(std::io::Error::other)?;
    std::fs::write(tmp.join("meta.json"), meta + "\n")?;
    if target.exists() {
        std::fs::remove_dir_all(&target)?;
    }
    std::fs::rename(&tmp, &target)?;
    Ok(Written {
        dir: target,
        warnings,
    })
}

/// Writes `v` as pretty JSON to `path` atomically (a temporary file renamed into place), its
/// folder created.
pub fn write_json(path: &Path, v: &Value) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let text = serde_json::to_string(v).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, text + "\n")?;
    std::fs::rename(&tmp, path)
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> std::io::Result<Value> {
    let text = std::fs::read_to_string(path)?;
    serde_json::from_str(&text).map_err(std::io::Error::other)
}

/// The shard files (`shard-*.json`) in `dir` and in its `*.shards` subfolders, sorted.
pub fn shard_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let is_shard = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("shard-") && n.ends_with(".json"))
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let p = entry?.path();
        if p.is_dir() && p.extension().is_some_and(|e| e == "shards") {
            for inner in std::fs::read_dir(&p)? {
                let q = inner?.path();
                if is_shard(&q) {
                    out.push(q);
                }
            }
        } else if is_shard(&p) {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// Writes every plot into `dir` as SVG and PNG. A plot that cannot be drawn (e.g. no finite
/// axis range) is left out and named in the returned warnings: the data are in the CSV, and
/// the reader learns why the picture is missing.
fn write_plots(dir: &Path, plots: &[Plot]) -> std::io::Result<Vec<String>> {
    let mut warnings = Vec::new();
    for p in plots {
        let svg = match plot::render_svg(p) {
            Ok(svg) => svg,
            Err(e) => {
                warnings.push(format!("plot `{}` was not drawn: {e}", p.file));
                continue;
            }
        };
        std::fs::write(dir.join(&p.file), svg)?;
        let png = dir.join(&p.file).with_extension("png");
        if let Err(e) = plot::render_png(p, &png) {
            let name = png
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            warnings.push(format!("plot `{name}` was not drawn: {e}"));
        }
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::CellMap;

    #[test]
    fn a_plot_that_cannot_be_drawn_is_a_warning_in_meta_json() {
        // A cell grid with a NaN coordinate has no axis range: plotters would assert on it.
        let broken = Plot {
            file: "map.svg".into(),
            title: "map".into(),
            cells: Some(CellMap {
                x: vec![f64::NAN, 1.0],
                y: vec![0.0, 1.0],
                class: vec![Some(0); 4],
                legend: vec![("a".into(), [1, 2, 3])],
            }),
            ..crate::io::plot::line_plot(vec![0.0, 1.0], vec![0.0, 1.0])
        };
        let results = Results {
            name: "broken".into(),
            kind: "test".into(),
            model: "m".into(),
            tables: vec![],
            plots: vec![broken],
            summary: Map::new(),
            settings: Map::new(),
            params: vec![],
            warnings: vec!["from the analysis".into()],
            wall_s: 0.0,
        };
        let out = std::env::temp_dir().join(format!("nsd-report-test-{}", std::process::id()));
        let written = write(&out, &results, "0").expect("written");
        let meta: Value = serde_json::from_str(
            &std::fs::read_to_string(written.dir.join("meta.json")).expect("meta.json"),
        )
        .expect("JSON");
        let warnings = meta["warnings"].as_array().expect("warnings");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(warnings[0], "from the analysis");
        let said = warnings[1].as_str().expect("text");
        assert!(said.starts_with("plot `map.svg` was not drawn"), "{said}");
        assert_eq!(written.warnings, vec![said.to_string()]);
        assert!(!written.dir.join("map.svg").exists());
        std::fs::remove_dir_all(&out).expect("cleaned up");
    }
}
