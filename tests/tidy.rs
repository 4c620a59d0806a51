//! Tidiness of the source tree (after rust-analyzer's `tidy.rs`): every `src` file opens with
//! a `//!` line saying what it is, and no stage imports a later one.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable dir") {
        let p = entry.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(root)
                .expect("inside the repo")
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).expect("utf-8 source"))
        })
        .collect()
}

#[test]
fn every_source_file_opens_with_a_module_doc() {
    for (path, text) in sources() {
        assert!(
            text.starts_with("//!"),
            "{path} must open with a `//!` line saying what it is"
        );
    }
}

/// The pipeline order; a module may use its own stage and earlier ones only.
const STAGES: [&str; 5] = ["lang", "model", "solve", "analysis", "io"];

#[test]
fn no_stage_imports_a_later_stage() {
    for (path, text) in sources() {
        let Some(stage) = STAGES
            .iter()
            .position(|s| path.starts_with(&format!("src/{s}/")))
        else {
            continue;
        };
        for later in &STAGES[stage + 1..] {
            let needle = format!("crate::{later}::");
            for (n, line) in text.lines().enumerate() {
                // `resolve` produces the plain data types of the model layer; that is the one
                // allowed forward reference.
                let data_only = ["crate::model::flat", "crate::model::time_fn"]
                    .iter()
                    .any(|d| line.contains(d));
                if *later == "model" && data_only {
                    continue;
                }
                assert!(
                    !line.contains(&needle),
                    "{path}:{}: `{}` reaches into the later stage `{later}`",
                    n + 1,
                    line.trim()
                );
            }
        }
    }
}

#[test]
fn backends_never_see_the_ast() {
    for (path, text) in sources() {
        if path.starts_with("src/solve/") || path.starts_with("src/model/") {
            assert!(
                !text.contains("lang::ast"),
                "{path} uses the AST; backends consume `System`/`Model` only"
            );
        }
    }
}

#[test]
fn the_language_layer_knows_no_linear_algebra() {
    for (path, text) in sources() {
        if path.starts_with("src/lang/") {
            for crate_name in ["nalgebra", "sprs"] {
                assert!(
                    !text.contains(&format!("{crate_name}::")),
                    "{path} uses {crate_name}"
                );
            }
        }
    }
}
