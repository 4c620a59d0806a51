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

/// The assembled system of `model` in `file` (relative to the root) at `Omega = omega`.
pub fn system_at(file: &str, model: &str, omega: f64) -> nsd::model::System {
    let prog = nsd::lang::Program::load(&root().join(file)).expect("loads");
    let set = nsd::lang::parse_override(&format!("Omega={omega:e}")).expect("override");
    nsd::model::assemble(&nsd::lang::resolve(&prog, model, &[set]).expect("resolves"))
}

/// The state `[x…, v…]` at time `t` of the periodic motion with harmonic-balance
/// coefficients `q` (harmonic-major, `n` DOFs, `h` harmonics) at frequency `omega`.
pub fn periodic_state(
    q: &nalgebra::DVector<f64>,
    n: usize,
    h: usize,
    omega: f64,
    t: f64,
) -> Vec<f64> {
    let mut y = vec![0.0; 2 * n];
    for i in 0..n {
        y[i] = q[i];
        for k in 1..=h {
            let (kf, (s, c)) = (k as f64, (k as f64 * omega * t).sin_cos());
            let (ck, sk) = (q[(2 * k - 1) * n + i], q[2 * k * n + i]);
            y[i] += ck * c + sk * s;
            y[n + i] += kf * omega * (sk * c - ck * s);
        }
    }
    y
}

/// Runs `simulate` of `model` (from `file`) at `Omega = omega` for each initial state in
/// `starts` (`[x…, v…]` over the masses `masses`) from 0 to `t1` at rtol = atol = 1e-12;
/// returns each final state. One `nsd run` for all of them, in `target/test-out/<tag>`.
pub fn simulate_to(
    file: &str,
    model: &str,
    masses: &[&str],
    omega: f64,
    starts: &[Vec<f64>],
    t1: f64,
    tag: &str,
) -> Vec<Vec<f64>> {
    let n = masses.len();
    let mut text = std::fs::read_to_string(root().join(file)).expect("model");
    for (j, y) in starts.iter().enumerate() {
        let list = |part: &[f64]| -> String {
            masses
                .iter()
                .zip(part)
                .map(|(m, v)| format!("{m} = {v:e}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        text += &format!(
            "\nsimulate {model} as run{j} {{ t = 0..{t1:e}, x0 = {{ {} }}, v0 = {{ {} }}, rtol = 1e-12, atol = 1e-12, output = at({t1:e}) }}\n",
            list(&y[..n]),
            list(&y[n..])
        );
    }
    let dir = root().join("target/test-out").join(tag);
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("runs.nsd");
    std::fs::write(&path, text).expect("write");
    let (code, _, stderr) = nsd(&[
        "run",
        path.to_str().expect("utf-8"),
        "--set",
        &format!("Omega={omega:e}"),
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    (0..starts.len())
        .map(|j| {
            let csv = std::fs::read_to_string(dir.join(format!("run{j}/data.csv"))).expect("data");
            let last = csv.lines().last().expect("a row");
            last.split(',')
                .skip(1)
                .map(|v| v.parse().expect("number"))
                .collect()
        })
        .collect()
}

/// Runs `analysis` (named `frf`) appended to a model file; returns the exit code, stdout,
/// stderr and the output folder.
pub fn frf_run(model: &str, analysis: &str, tag: &str) -> (i32, String, String, PathBuf) {
    let text = std::fs::read_to_string(root().join(model)).expect("model") + "\n" + analysis + "\n";
    run_text(&text, tag, &["--only", "frf", "--json"])
}

/// Writes `text` to `target/test-out/<tag>/case.nsd` and runs it with `args` and `--out`
/// that folder; returns the exit code, stdout, stderr and the folder.
pub fn run_text(text: &str, tag: &str, args: &[&str]) -> (i32, String, String, PathBuf) {
    let dir = root().join("target/test-out").join(tag);
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("case.nsd");
    std::fs::write(&file, text).expect("write");
    let mut all = vec!["run", file.to_str().expect("utf-8")];
    all.extend_from_slice(args);
    all.extend(["--out", dir.to_str().expect("utf-8")]);
    let (code, stdout, stderr) = nsd(&all);
    (code, stdout, stderr, dir)
}

/// The header and the rows of a CSV file, as numbers (a text or empty cell is NaN).
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("header")
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| {
            l.split(',')
                .map(|x| x.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    (header, rows)
}

/// `run_text` with `--json` (and `args`), exit code 0 asserted: the JSON object of each
/// analysis run.
pub fn run_json(text: &str, tag: &str, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let (code, stdout, stderr, _) = run_text(text, tag, &all);
    assert_eq!(code, 0, "{stderr}");
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

/// The harmonic balance of `model` in `file` (relative to the root) at `h` harmonics, with
/// `set` overrides (`name=value`) and the default samples (the power of two ≥ 8h + 8).
pub fn balance_of(file: &str, model: &str, h: usize, set: &[&str]) -> nsd::solve::hb::Balance {
    let prog = nsd::lang::Program::load(&root().join(file)).expect("loads");
    let sets: Vec<_> = set
        .iter()
        .map(|s| nsd::lang::parse_override(s).expect("override"))
        .collect();
    let sys = nsd::model::assemble(&nsd::lang::resolve(&prog, model, &sets).expect("resolves"));
    nsd::solve::hb::Balance::new(&sys, h, (8 * h + 8).next_power_of_two()).expect("balance")
}

/// A deterministic pseudo-random sequence in [−1, 1] (no test dependency on a RNG crate).
pub fn noise(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// The header and numeric rows of `file` in an analysis's folder (`out` of its JSON).
pub fn table(v: &Value, file: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    read_csv(&PathBuf::from(v["out"].as_str().expect("out")).join(file))
}

/// The column named `name` of a table.
pub fn column(t: &(Vec<String>, Vec<Vec<f64>>), name: &str) -> Vec<f64> {
    let i =
        t.0.iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", t.0));
    t.1.iter().map(|r| r[i]).collect()
}

/// The number at `summary.key` of an analysis's JSON.
pub fn number(v: &Value, key: &str) -> f64 {
    v["summary"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("summary.{key} in {v}"))
}

/// A one-DOF free-play map of 5 × 5 cells in two blocks of 13, for the shard tests (0.1 s).
pub const SHARDED_MAP: &str = "model duo {
  param Omega = 1.2
  mass m1 = 1
  spring ground -- m1 { k = 1, k3 = 0.1 }
  damper ground -- m1 { c = 0.02 }
  gap m1 -- ground { clearance = 0.05, sides = both, law = linear(10) }
  force m1 = 0.1 * cos(Omega * t)
}
basins duo as b { grid = { m1 = -1..1 by 0.5, v.m1 = -1..1 by 0.5 }, block = 13 }
";
