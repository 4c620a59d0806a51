//! The `nsd fmt [--check] FILES…` shell: formats `.nsd` files in place through
//! `lang::fmt::format`, or with `--check` prints a unified diff of each file that is not
//! formatted and exits 1 (for CI). Folders are walked for `.nsd` files (hidden ones skipped).

use nsd_lang::fmt::{format, FmtError};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The `.nsd` files named or under the folders named (hidden ones skipped), sorted within
/// each folder; shared by `nsd test`.
///
/// Symbolic links are followed, but every real folder is walked once and every real file
/// listed once (by canonical path): a link back up the tree (`sub/up -> ..`) would otherwise
/// be followed until the system's limit of 40 links, listing each file 41 times. A file or
/// folder reached by two paths is listed under the first in sorted order.
pub fn nsd_files(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut seen, &mut out)?;
        } else if first_visit(p, &mut seen) {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Whether `path` is seen for the first time (by its canonical path; a path that has none,
/// such as a missing file, counts as itself and is left to the reader to report).
fn first_visit(path: &Path, seen: &mut HashSet<PathBuf>) -> bool {
    seen.insert(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
}

/// Adds the `.nsd` files under `dir`, in sorted order, unless the folder was walked already.
fn walk(dir: &Path, seen: &mut HashSet<PathBuf>, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !first_visit(dir, seen) {
        return Ok(());
    }
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        // Hidden files and folders (`.git`, editors' and tests' scratch files) are not models.
        if !entry.file_name().to_string_lossy().starts_with('.') {
            entries.push(entry.path());
        }
    }
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, seen, out)?;
        } else if path.extension().is_some_and(|e| e == "nsd") && first_visit(&path, seen) {
            out.push(path);
        }
    }
    Ok(())
}

/// Runs `nsd fmt`; returns the exit code (1 when a file cannot be read, parsed or written,
/// or with `check` when one is not formatted).
pub fn run(paths: &[PathBuf], check: bool) -> i32 {
    let files = match nsd_files(paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error[nsd::fmt::io]: cannot list the files: {e}");
            return 1;
        }
    };
    let mut code = 0;
    for file in files {
        if let Err(()) = one(&file, check) {
            code = 1;
        }
    }
    code
}

/// Formats one file; `Err` when it fails or (with `check`) differs.
fn one(file: &Path, check: bool) -> Result<(), ()> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        eprintln!("error[nsd::fmt::io]: cannot read {}: {e}", file.display());
    })?;
    let formatted = match format(&text) {
        Ok(f) => f,
        Err(FmtError::Parse(_)) => {
            // The loader renders the syntax error with its source and file name.
            if let Err(f) = nsd_lang::Program::from_source(&file.display().to_string(), &text, None)
            {
                f.eprint();
            }
            eprintln!(
                "error[nsd::fmt::parse]: {} does not parse; not formatted",
                file.display()
            );
            return Err(());
        }
        Err(FmtError::Changed) => {
            eprintln!(
                "error[nsd::fmt::internal]: formatting {} would change its tokens; left as is (please report)",
                file.display()
            );
            return Err(());
        }
    };
    if formatted == text {
        return Ok(());
    }
    if check {
        let name = file.display().to_string();
        let diff = similar::TextDiff::from_lines(&text, &formatted);
        print!(
            "{}",
            diff.unified_diff().context_radius(3).header(&name, &name)
        );
        return Err(());
    }
    std::fs::write(file, formatted).map_err(|e| {
        eprintln!("error[nsd::fmt::io]: cannot write {}: {e}", file.display());
    })
}
