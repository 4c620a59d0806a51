//! Writing an analysis's `Results` to `DIR/<name>/`: every table as CSV, every plot as SVG
//! and PNG, `meta.json` (with a warning for each plot that could not be drawn). The folder is
//! written under a temporary name and renamed into place, so a reader never sees half a
//! result; the temporary folder is removed on every other way out (an error such as a full
//! disk, a panic, and — once a shell calls `remove_staged_on_signals` — SIGINT, SIGTERM and
//! SIGHUP), so none is left to fill the disk.

use super::{csv, plot};
use nsd_analysis::{Plot, Results};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

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
fn meta(r: &Results, source_hash: &str, report_warnings: &[String]) -> Value {
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

/// Why a result could not be written.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum WriteError {
    /// A regular file where a results folder (or one of its parents) must go: said as such,
    /// not as the rename's "Not a directory".
    #[error("`{path}` is a file")]
    #[diagnostic(
        code(nsd::io::is_a_file),
        help("a results folder goes there: move or rename the file, or write elsewhere with `--out DIR`")
    )]
    IsAFile { path: String },
    #[error("cannot write `{path}`: {reason}")]
    #[diagnostic(
        code(nsd::io::write),
        help("check the free space and the permissions of the output folder (`--out DIR`)")
    )]
    Io {
        path: String,
        reason: std::io::Error,
    },
}

/// The `Io` error of writing `path` (as the reader will look for it: in place, not in the
/// temporary folder).
fn failed_at(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |reason| WriteError::Io {
        path: path.display().to_string(),
        reason,
    }
}

/// The first of `dir` and its parents that exists and is no folder, if any.
fn file_in_the_way(dir: &Path) -> Result<(), WriteError> {
    match dir
        .ancestors()
        .find(|a| !a.as_os_str().is_empty() && a.exists() && !a.is_dir())
    {
        Some(file) => Err(WriteError::IsAFile {
            path: file.display().to_string(),
        }),
        None => Ok(()),
    }
}

/// A results folder in place.
#[derive(Debug)]
pub struct Written {
    pub dir: PathBuf,
    /// What went wrong short of failing (plots that could not be drawn); also in `meta.json`.
    pub warnings: Vec<String>,
}

/// Writes the results folder atomically: nothing is left but the complete folder, or the
/// previous one and an error.
pub fn write(out: &Path, r: &Results, source_hash: &str) -> Result<Written, WriteError> {
    let target = out.join(&r.name);
    file_in_the_way(&target)?;
    std::fs::create_dir_all(out).map_err(failed_at(out))?;
    let staged = Staged::new(out.join(format!(".{}.tmp-{}", r.name, std::process::id())));
    // A leftover of an earlier process with this id (one killed by SIGKILL).
    remove(&staged.path).map_err(failed_at(&target))?;
    std::fs::create_dir(&staged.path).map_err(failed_at(&target))?;
    for t in &r.tables {
        std::fs::write(staged.path.join(&t.file), csv::render(t))
            .map_err(failed_at(&target.join(&t.file)))?;
    }
    let warnings = write_plots(&staged.path, &target, &r.plots)?;
    let meta = serde_json::to_string_pretty(&meta(r, source_hash, &warnings))
        .map_err(|e| failed_at(&target.join("meta.json"))(std::io::Error::other(e)))?;
    std::fs::write(staged.path.join("meta.json"), meta + "\n")
        .map_err(failed_at(&target.join("meta.json")))?;
    if target.is_dir() {
        std::fs::remove_dir_all(&target).map_err(failed_at(&target))?;
    }
    staged.commit(&target).map_err(failed_at(&target))?;
    Ok(Written {
        dir: target,
        warnings,
    })
}

/// Writes `v` as JSON to `path` atomically (a temporary file renamed into place), its folder
/// created.
pub fn write_json(path: &Path, v: &Value) -> Result<(), WriteError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    file_in_the_way(dir)?;
    std::fs::create_dir_all(dir).map_err(failed_at(dir))?;
    let staged = Staged::new(path.with_extension(format!("tmp-{}", std::process::id())));
    let text = serde_json::to_string(v).map_err(|e| failed_at(path)(std::io::Error::other(e)))?;
    std::fs::write(&staged.path, text + "\n").map_err(failed_at(path))?;
    staged.commit(path).map_err(failed_at(path))
}

/// Every temporary path of this process being written, for the signal handler.
static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The staged paths; a panic elsewhere while they were held does not lose them.
fn staged_paths() -> MutexGuard<'static, Vec<PathBuf>> {
    STAGED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A temporary file or folder being written: registered in `STAGED` from before it exists
/// until it is renamed into place, and removed when dropped unrenamed (an early return on a
/// full disk, a panic).
struct Staged {
    path: PathBuf,
    renamed: bool,
}

impl Staged {
    fn new(path: PathBuf) -> Staged {
        staged_paths().push(path.clone());
        Staged {
            path,
            renamed: false,
        }
    }

    /// Renames the staged path to `target`. The registry stays locked across the rename, so
    /// a signal handler finds the path either staged or in place, never half-way (and it is
    /// released before `self` drops, on an error too).
    fn commit(mut self, target: &Path) -> std::io::Result<()> {
        let mut staged = staged_paths();
        std::fs::rename(&self.path, target)?;
        staged.retain(|p| p != &self.path);
        self.renamed = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.renamed {
            // Nothing more can be done about a path that cannot be removed on the way out.
            let _ = remove(&self.path);
            staged_paths().retain(|p| p != &self.path);
        }
    }
}

/// Removes a file or a folder and its contents; a missing one is no error.
fn remove(path: &Path) -> std::io::Result<()> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    };
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// How often the signal handler tries to remove a staged folder: the writing thread, still
/// running, may add a file between the removal's listing and its last `rmdir`, which then
/// fails; each attempt removes what the last one missed.
#[cfg(unix)]
const REMOVAL_ATTEMPTS: usize = 20;

/// On SIGINT, SIGTERM or SIGHUP, removes every staged path and exits with 128 + the
/// signal's number (130 for Ctrl-C, as a shell reports a process it interrupted). Installed
/// by the shells that write results (`run`, `merge`); without it an interrupt would leave
/// the temporary folder of a result being written (145 MB seen). A signal ignored from the
/// start stays ignored: `nohup` ignores SIGHUP, and a script's `nsd run … &` SIGINT.
#[cfg(unix)]
pub fn remove_staged_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let wanted: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
        .into_iter()
        .filter(|&s| !ignored(s))
        .collect();
    let Ok(mut signals) = signal_hook::iterator::Signals::new(wanted) else {
        eprintln!("warning: no signal handler: an interrupt may leave temporary folders");
        return;
    };
    let handler = move || {
        if let Some(signal) = signals.forever().next() {
            // Held until the exit: no rename can start after the removal.
            let staged = staged_paths();
            for path in staged.iter() {
                for _ in 0..REMOVAL_ATTEMPTS {
                    if remove(path).is_ok() {
                        break;
                    }
                }
            }
            std::process::exit(128 + signal);
        }
    };
    if std::thread::Builder::new()
        .name("nsd-signals".into())
        .spawn(handler)
        .is_err()
    {
        eprintln!("warning: no signal handler: an interrupt may leave temporary folders");
    }
}

/// Whether `signal`'s disposition is "ignore" (inherited through `exec`).
#[cfg(unix)]
fn ignored(signal: i32) -> bool {
    // SAFETY: with a null new action `sigaction` only writes the current one into `old`, a
    // plain C struct for which all-zero bytes are a valid value.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
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

/// Writes every plot into `dir` (to be renamed `target`) as SVG and PNG. A plot that cannot
/// be drawn (e.g. no finite axis range) is left out and named in the returned warnings: the
/// data are in the CSV, and the reader learns why the picture is missing.
fn write_plots(dir: &Path, target: &Path, plots: &[Plot]) -> Result<Vec<String>, WriteError> {
    let mut warnings = Vec::new();
    for p in plots {
        let svg = match plot::render_svg(p) {
            Ok(svg) => svg,
            Err(e) => {
                warnings.push(format!("plot `{}` was not drawn: {e}", p.file));
                continue;
            }
        };
        std::fs::write(dir.join(&p.file), svg).map_err(failed_at(&target.join(&p.file)))?;
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
    use nsd_analysis::{CellMap, Table};

    /// Results named `name` with one table, `file`.
    fn one_table(name: &str, file: &str) -> Results {
        Results {
            name: name.into(),
            kind: "test".into(),
            model: "m".into(),
            tables: vec![Table {
                file: file.into(),
                columns: vec!["t".into()],
                rows: vec![],
            }],
            plots: vec![],
            summary: Map::new(),
            settings: Map::new(),
            params: vec![],
            warnings: vec![],
            wall_s: 0.0,
        }
    }

    /// The entries of `dir`.
    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("the folder")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        names.sort();
        names
    }

    /// A write that fails half-way (a table whose file cannot be created, as on a full disk)
    /// leaves the previous result and no temporary folder; so does a file where the folder
    /// goes, which the error names. The old code left `.NAME.tmp-PID` behind in both.
    #[test]
    fn a_failed_write_leaves_no_temporary_folder() {
        let out = std::env::temp_dir().join(format!("nsd-report-fail-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        write(&out, &one_table("r", "data.csv"), "0").expect("the first result");
        let e = write(&out, &one_table("r", "no/such/folder.csv"), "0").expect_err("fails");
        assert!(
            matches!(&e, WriteError::Io { path, .. } if path.ends_with("r/no/such/folder.csv")),
            "{e}"
        );
        assert_eq!(entries(&out), ["r"]);
        assert_eq!(entries(&out.join("r")), ["data.csv", "meta.json"]);

        std::fs::write(out.join("f"), "a file").expect("a file");
        let e = write(&out, &one_table("f", "data.csv"), "0").expect_err("fails");
        assert_eq!(
            e.to_string(),
            format!("`{}` is a file", out.join("f").display())
        );
        let e = write(&out.join("f"), &one_table("g", "data.csv"), "0").expect_err("fails");
        assert_eq!(
            e.to_string(),
            format!("`{}` is a file", out.join("f").display())
        );
        let e = write_json(&out.join("f/shard.json"), &json!({})).expect_err("fails");
        assert_eq!(
            e.to_string(),
            format!("`{}` is a file", out.join("f").display())
        );
        assert_eq!(entries(&out), ["f", "r"]);
        assert!(staged_paths().iter().all(|p| !p.starts_with(&out)));
        std::fs::remove_dir_all(&out).expect("cleaned up");
    }

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
            ..crate::plot::line_plot(vec![0.0, 1.0], vec![0.0, 1.0])
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
