//! Shared helpers for the integration tests: run the `nsd` binary and read its JSON.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (tests run with it as the working directory anyway).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `nsd ARGS…`, returning (exit code, stdout, stderr).
pub fn nsd(args: &[&str]) -> (i32, String, String) {
    nsd_with_env(args, &[])
}

/// `nsd ARGS…` with extra environment variables (e.g. `RAYON_NUM_THREADS`).
pub fn nsd_with_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nsd"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root())
        .output()
        .expect("the nsd binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `nsd check --json FILE --set …`, the object of the first (or only) model.
pub fn check_json(file: &str, sets: &[&str]) -> Value {
    let mut args = vec!["check", "--json", file];
    for s in sets {
        args.push("--set");
        args.push(s);
    }
    let (code, stdout, stderr) = nsd(&args);
    assert_eq!(code, 0, "nsd check {file} failed:\n{stderr}");
    serde_json::from_str(stdout.lines().next().expect("one JSON line")).expect("valid JSON")
}

/// The `natural_frequencies` array as numbers.
pub fn frequencies(v: &Value) -> Vec<f64> {
    v["natural_frequencies"]
        .as_array()
        .expect("natural_frequencies")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// Asserts `|a − b| ≤ tol · |b|` elementwise.
pub fn assert_rel(actual: &[f64], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(
        actual.len(),
        expected.len(),
        "{what}: {actual:?} vs {expected:?}"
    );
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= tol * e.abs(),
            "{what}[{i}]: {a} vs {e} (rel. tol {tol})"
        );
    }
}

pub fn exists(p: &Path) -> bool {
    p.exists()
}
