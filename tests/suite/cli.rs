//! The CLI contract of DESIGN.md: `check --json` keys, `run --json` objects and result
//! folders, exit codes 0/1/2, `--set`, `--only`, and every shipped model passing `check`.

use crate::common::*;
use serde_json::Value;

#[test]
fn every_shipped_model_passes_check() {
    let mut files = Vec::new();
    for dir in [
        "models",
        "models/seed0",
        "models/seed1",
        "models/seed2",
        "models/seed3",
        "models/seed4",
    ] {
        for entry in std::fs::read_dir(root().join(dir)).expect("models folder") {
            let p = entry.expect("entry").path();
            if p.extension().is_some_and(|e| e == "nsd") {
                files.push(p);
            }
        }
    }
    assert!(
        files.len() >= 17,
        "expected every seed model, found {}",
        files.len()
    );
    for f in files {
        let (code, _, stderr) = nsd(&["check", f.to_str().expect("utf-8 path")]);
        assert_eq!(code, 0, "{}:\n{stderr}", f.display());
        assert!(
            stderr.is_empty(),
            "{} printed diagnostics:\n{stderr}",
            f.display()
        );
    }
}

#[test]
fn check_json_has_the_contract_keys() {
    let v = check_json("models/seed0/two_mass_freeplay.nsd", &[]);
    assert_eq!(v["model"], "two_mass_freeplay");
    assert_eq!(v["dofs"], serde_json::json!(["m1.x", "m2.x"]));
    let kinds: Vec<&str> = v["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .map(|e| e["kind"].as_str().expect("kind"))
        .collect();
    assert!(kinds.contains(&"gap") && kinds.contains(&"spring") && kinds.contains(&"damper"));
    let f = frequencies(&v);
    assert!(f.windows(2).all(|w| w[0] <= w[1]), "ascending: {f:?}");
    // Contacts open: k = 1, kd = 0.5, m = 1 gives 1 and √2 rad/s.
    assert_rel(&f, &[1.0, 2f64.sqrt()], 1e-12, "two_mass_freeplay");
}

#[test]
fn set_overrides_parameters_with_units() {
    let v = check_json("models/seed0/two_mass_freeplay.nsd", &["m=4kg", "kd=0"]);
    assert_rel(&frequencies(&v), &[0.5, 0.5], 1e-12, "m = 4, kd = 0");
    let (code, _, stderr) = nsd(&[
        "check",
        "models/seed0/two_mass_freeplay.nsd",
        "--set",
        "Omgea=1",
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("nsd::resolve::unknown_override") && stderr.contains("Omega"),
        "{stderr}"
    );
}

#[test]
fn run_writes_one_folder_per_analysis_and_json_lines() {
    let out = root().join("target/test-out/cli-run");
    let _ = std::fs::remove_dir_all(&out);
    let (code, stdout, stderr) = nsd(&[
        "run",
        "models/tour.nsd",
        "--json",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 6);
    for l in &lines {
        for key in ["name", "kind", "out", "summary"] {
            assert!(l.get(key).is_some(), "missing {key} in {l}");
        }
        let dir = std::path::PathBuf::from(l["out"].as_str().expect("out"));
        let files: &[&str] = if l["kind"] == "modes" {
            &["data.csv", "meta.json", "modes.svg", "shapes.csv"]
        } else if l["kind"] == "continue frf" {
            &["data.csv", "meta.json", "frf.svg"]
        } else if l["kind"] == "sweep regimes" {
            &["data.csv", "boundaries.csv", "meta.json", "regimes.svg"]
        } else {
            &[
                "data.csv",
                "events.csv",
                "meta.json",
                "time_history.svg",
                "phase.svg",
            ]
        };
        for file in files {
            assert!(dir.join(file).is_file(), "{} lacks {file}", dir.display());
            // Every SVG plot has its PNG twin: a real 800 × 500 PNG.
            if let Some(stem) = file.strip_suffix(".svg") {
                let png = std::fs::read(dir.join(format!("{stem}.png"))).expect("PNG twin");
                assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{stem}.png signature");
                let be =
                    |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
                assert_eq!((be(16), be(20)), (800, 500), "{stem}.png size");
            }
        }
        let meta: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).expect("meta"))
                .expect("JSON");
        for key in [
            "kind",
            "model",
            "parameters",
            "settings",
            "wall_s",
            "warnings",
            "nsd_version",
            "source_hash",
        ] {
            assert!(meta.get(key).is_some(), "meta.json lacks {key}");
        }
    }
    assert_eq!(
        lines[0]["summary"]["natural_frequencies"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let csv = std::fs::read_to_string(out.join("impact_chain/data.csv")).expect("csv");
    assert_eq!(csv.lines().next(), Some("mode,omega [rad/s],f [Hz]"));
    assert_eq!(csv.lines().count(), 5, "header + 4 modes");
    // No temporary folders are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .expect("out")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn only_selects_one_analysis() {
    let out = root().join("target/test-out/cli-only");
    let (code, stdout, _) = nsd(&[
        "run",
        "models/tour.nsd",
        "--json",
        "--only",
        "impact_chain",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().count(), 1);
    let (code, _, stderr) = nsd(&[
        "run",
        "models/tour.nsd",
        "--only",
        "nope",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("impact_chain"), "lists the names: {stderr}");
}

#[test]
fn exit_codes() {
    let dir = root().join("target/test-out/exit-codes");
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.nsd");
    std::fs::write(&bad, "model m { mass a = -1 }\n").expect("write");
    assert_eq!(
        nsd(&["check", bad.to_str().expect("utf-8")]).0,
        1,
        "model error"
    );
    assert_eq!(nsd(&["check", "no/such/file.nsd"]).0, 1, "missing file");
    assert_eq!(nsd(&["frobnicate"]).0, 1, "unknown command");
    let unforced = dir.join("unforced.nsd");
    std::fs::write(
        &unforced,
        "model m { mass a = 1\n spring a -- ground { k = 1 } }\ncontinue periodic m\n",
    )
    .expect("write");
    let (code, _, stderr) = nsd(&[
        "run",
        unforced.to_str().expect("utf-8"),
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("nsd::analysis::bad_option"), "{stderr}");
    // A singular mass matrix is a numerical failure: exit code 2.
    let singular = dir.join("singular.nsd");
    std::fs::write(
        &singular,
        "model m {\n  matrices fe { M = \"m.mtx\", K = \"k.mtx\" }\n}\nmodes m\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("m.mtx"),
        "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 1 1.0\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("k.mtx"),
        "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 2.0\n2 2 1.0\n",
    )
    .expect("write");
    let (code, _, stderr) = nsd(&[
        "run",
        singular.to_str().expect("utf-8"),
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("nsd::analysis::numerical_failure"),
        "{stderr}"
    );
}

#[test]
fn check_of_a_large_chain_uses_the_sparse_path() {
    let v = check_json("models/seed4/serial_impact.nsd", &["n=10000"]);
    assert_eq!(v["dofs"].as_array().map(Vec::len), Some(10000));
    assert_eq!(frequencies(&v).len(), 10);
}

#[test]
fn check_reports_the_radius_of_influence_of_smoothed_gaps() {
    let (code, stdout, _) = nsd(&[
        "check",
        "--json",
        "models/seed0/two_mass_freeplay.nsd",
        "--model",
        "two_mass_freeplay_sigmoid",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(stdout.lines().next().expect("a line")).expect("JSON");
    let r = v["smoothing"][0]["radius_of_influence"]
        .as_f64()
        .expect("R_i");
    // Paper 000, Sect. 3.3: k_p = 10, a = 0.05, δ = 1500 → R_i = 0.0017.
    assert!((r - 0.0017).abs() < 5e-5, "R_i = {r}");
    assert_eq!(v["smoothing"][0]["element"], "freeplay");
}

#[test]
fn a_numerical_failure_exits_2_and_keeps_the_partial_results() {
    let dir = root().join("target/test-out/partial");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("blowup.nsd");
    // The force is singular at t = 1: the step size underflows there.
    std::fs::write(&file, "model m {\n  mass a = 1\n  spring a -- ground { k = 1 }\n  force a = 1 / (1 - t)\n}\nsimulate m as run { t = 0..2 }\n").expect("write");
    let (code, _, stderr) = nsd(&[
        "run",
        file.to_str().expect("utf-8"),
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("nsd::analysis::numerical_failure") && stderr.contains("partial results"),
        "{stderr}"
    );
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("run/meta.json")).expect("meta.json"),
    )
    .expect("JSON");
    assert!(
        meta["summary"]["failed"]
            .as_str()
            .is_some_and(|m| m.contains("t = 0.99")),
        "{}",
        meta["summary"]
    );
    let csv = std::fs::read_to_string(dir.join("run/data.csv")).expect("data.csv");
    let last_t: f64 = csv
        .lines()
        .last()
        .and_then(|l| l.split(',').next())
        .and_then(|t| t.parse().ok())
        .expect("a row");
    assert!(last_t > 0.9 && last_t < 1.0, "last t = {last_t}");
}

/// The seed's rigid clearance pendulum (rigid inelastic journal) runs by the default `events`
/// backend (it was refused before its impacts were built): exit 0, impacts and Zeno times
/// in the summary, the contact held without penetration.
#[test]
fn simulate_integrates_rigid_clearance_by_events() {
    let dir = root().join("target/test-out/rigid_events");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("mb.nsd");
    std::fs::write(
        &file,
        format!(
            "import \"{}\"\nsimulate pendulum_clearance_rigid {{ t = 0..1 }}\n",
            root().join("models/seed2/pendulum_clearance.nsd").display()
        ),
    )
    .expect("write");
    let (code, stdout, stderr) = nsd(&[
        "run",
        file.to_str().expect("utf-8"),
        "--out",
        dir.to_str().expect("utf-8"),
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let summary: Value = serde_json::from_str::<Value>(&stdout).expect("JSON")["summary"].clone();
    let number = |k: &str| summary[k].as_f64().unwrap_or(f64::NAN);
    let zeno = summary["zeno"].as_array().map_or(0, Vec::len);
    assert!(number("impacts") > 0.0 && zeno > 0, "{summary}");
    assert!(number("max_penetration") <= 1e-12, "{summary}");
}

/// `cmd.output()` of a freshly copied binary, retried while it is "busy": a test running in
/// parallel may fork while the copy's file is still open for writing, and the child holds it
/// until its own exec (ETXTBSY on Linux).
fn output_of(cmd: &mut std::process::Command) -> std::process::Output {
    for _ in 0..100 {
        match cmd.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other.expect("the copied binary runs"),
        }
    }
    panic!("the copied binary stayed busy for 2 s")
}

/// An installed `nsd` (a copy of the binary, as `cargo install` makes) run from a folder
/// outside the source tree still imports the stdlib, which travels inside the binary;
/// `$NSD_STDLIB` replaces it with a folder of the user's.
#[test]
fn installed_binary_imports_the_stdlib_from_any_directory() {
    let dir = std::env::temp_dir().join(format!("nsd-installed-{}", std::process::id()));
    let stdlib = dir.join("my_stdlib");
    std::fs::create_dir_all(&stdlib).expect("temp folder");
    let exe = dir.join("nsd");
    std::fs::copy(env!("CARGO_BIN_EXE_nsd"), &exe).expect("copy the binary");
    let model = "import \"chain.nsd\"\nmodel m { use chain as c(n = 3) }\n";
    std::fs::write(dir.join("m.nsd"), model).expect("model file");
    // A replacement stdlib whose `chain` has one mass only.
    let one_mass = "component chain(n) { mass x[1..1] = 1\n spring ground -- x[1] { k = 1 } }\n";
    std::fs::write(stdlib.join("chain.nsd"), one_mass).expect("replacement stdlib");
    let run = |env: Option<&std::path::Path>| {
        let mut cmd = std::process::Command::new(&exe);
        cmd.args(["check", "--json", "m.nsd"])
            .current_dir(&dir)
            .env_remove("NSD_STDLIB");
        if let Some(d) = env {
            cmd.env("NSD_STDLIB", d);
        }
        let out = output_of(&mut cmd);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v["dofs"].as_array().expect("dofs").len()
    };
    assert_eq!(run(None), 3, "the built-in chain of three masses");
    // A mistake inside the imported component is shown in the built-in text, not in a file
    // of the source tree the binary was built from.
    std::fs::write(dir.join("bad.nsd"), model.replace("n = 3", "n = 0")).expect("model file");
    let out = output_of(
        std::process::Command::new(&exe)
            .args(["check", "bad.nsd"])
            .current_dir(&dir)
            .env_remove("NSD_STDLIB"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("<stdlib>/chain.nsd"), "{stderr}");
    assert_eq!(run(Some(&stdlib)), 1, "the chain of `$NSD_STDLIB`");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 21, item 13: `--set` on a file with several models applies to the models that
/// declare the parameter and fails only when none does, for `check` and `run`.
#[test]
fn set_applies_to_the_models_that_declare_it() {
    let file = "tests/models/two_models.nsd";
    let (code, stdout, stderr) = nsd(&["check", "--json", file, "--set", "k=4", "--set", "m=4"]);
    assert_eq!(code, 0, "{stderr}");
    let models: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    // stiff: √(4/1) = 2 rad/s; heavy: √(1/4) = 0.5 rad/s.
    assert_rel(&frequencies(&models[0]), &[2.0], 1e-12, "stiff, k = 4");
    assert_rel(&frequencies(&models[1]), &[0.5], 1e-12, "heavy, m = 4");
    let out = root().join("target/test-out/cli-set-several");
    let out = out.to_str().expect("utf-8");
    let (code, stdout, stderr) = nsd(&["run", "--json", file, "--set", "k=4", "--out", out]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    // Selecting only the analysis of a model without `k`: no model run has it.
    let (code, _, stderr) = nsd(&[
        "run",
        file,
        "--set",
        "k=4",
        "--only",
        "heavy_modes",
        "--out",
        out,
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("nsd::resolve::unknown_override"),
        "{stderr}"
    );
    for cmd in ["check", "run"] {
        let (code, _, stderr) =
            nsd(&[cmd, file, "--set", "kk=4", "--out", out][..if cmd == "check" { 4 } else { 6 }]);
        assert_eq!(code, 1, "{cmd}");
        assert!(
            stderr.contains("nsd::resolve::unknown_override") && stderr.contains("`k`"),
            "{cmd}: {stderr}"
        );
    }
}

/// Issue 21, item 14: `run --json` prints an object for an analysis that fails, with the
/// partial summary, `"failed": true` and the error; the other analyses keep theirs.
#[test]
fn run_json_prints_failed_analyses() {
    let dir = root().join("target/test-out/json-failed");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("blowup.nsd");
    // The force is singular at t = 1: the step size underflows there (exit 2).
    std::fs::write(&file, "model m {\n  mass a = 1\n  spring a -- ground { k = 1 }\n  force a = 1 / (1 - t)\n}\nsimulate m as run { t = 0..2 }\nmodes m\n").expect("write");
    let (code, stdout, stderr) = nsd(&[
        "run",
        "--json",
        file.to_str().expect("utf-8"),
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 2, "{stderr}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    let run = &lines[0];
    assert_eq!(run["name"], "run");
    assert_eq!(run["kind"], "simulate");
    assert_eq!(run["failed"], true);
    assert_eq!(run["exit_code"], 2);
    assert_eq!(run["code"], "nsd::analysis::numerical_failure");
    assert!(
        run["error"]
            .as_str()
            .is_some_and(|e| e.contains("t = 0.99")),
        "{run}"
    );
    assert!(
        run["summary"]["steps"].as_u64().is_some_and(|n| n > 0),
        "{run}"
    );
    assert!(
        run["out"].as_str().is_some_and(|o| o.ends_with("run")),
        "{run}"
    );
    assert_eq!(lines[1]["kind"], "modes");
    assert!(lines[1].get("failed").is_none());
}

/// `KIND MODEL(param = value)` sets the model's parameters for that analysis only (units
/// allowed); `--set` has the last word over them.
#[test]
fn analysis_arguments_set_model_parameters_and_set_has_the_last_word() {
    let text = "model osc(k = 1) {\n  param m = 1\n  mass x = m\n  spring ground -- x { k = k }\n}\n\
                modes osc as plain\nmodes osc(k = 4) as stiff\nmodes osc(k = 4, m = 4 kg) as both\n";
    let omega = |runs: &[Value]| -> Vec<f64> {
        runs.iter()
            .map(|r| r["summary"]["natural_frequencies"][0].as_f64().expect("ω₁"))
            .collect()
    };
    let runs = run_json(text, "cli/analysis_arguments", &[]);
    assert_eq!(omega(&runs), vec![1.0, 2.0, 1.0]);
    let runs = run_json(text, "cli/analysis_arguments_set", &["--set", "k=9"]);
    assert_eq!(omega(&runs), vec![3.0, 3.0, 1.5]);
}

/// A Duffing oscillator (m = k = 1, c = 0.05, k3 = 0.5), forced on its one DOF.
const DUFFING: &str = "model duffing(Omega = 1, F = 0.1) {
  mass m1 = 1
  spring ground -- m1 { k = 1, k3 = 0.5 }
  damper ground -- m1 { c = 0.05 }
  force m1 = F * cos(Omega * t)
}
";

/// Issue 43, item 1.5: a continuation that runs out of `max_points` inside its range says
/// so — `stopped` in the summary, a warning in `meta.json`, exit 2 with the points kept —
/// instead of reporting a peak at the cut as if the range were done (exit 0 before).
#[test]
fn continuations_cut_short_by_max_points_exit_2() {
    let cases = [
        (
            "frf",
            "continue frf duffing as cut { param = Omega in 0.8..1.5, harmonics = 3, max_points = 3 }\n",
        ),
        (
            "periodic",
            "continue periodic duffing as cut { param = Omega in 0.8..1.5, x0 = { m1 = 0.1 }, transient = 200, max_points = 3 }\n",
        ),
    ];
    for (tag, analysis) in cases {
        let text = DUFFING.to_string() + analysis;
        let (code, stdout, stderr, dir) =
            run_text(&text, &format!("cli/max_points_{tag}"), &["--json"]);
        assert_eq!(code, 2, "{tag}: {stderr}");
        let run: Value =
            serde_json::from_str(stdout.lines().next().expect("a record")).expect("JSON");
        let stopped = run["summary"]["stopped"].as_str().unwrap_or_default();
        assert!(stopped.contains("max_points"), "{tag}: {run}");
        let meta: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("cut/meta.json")).expect("meta.json"),
        )
        .expect("JSON");
        let warnings = meta["warnings"].to_string();
        assert!(warnings.contains("max_points"), "{tag}: {warnings}");
        let rows = read_csv(&dir.join("cut/data.csv")).1;
        assert_eq!(rows.len(), 3, "{tag}: the points before the cut are kept");
    }
    // A range the points cover ends with exit 0 and no `stopped`.
    let text = DUFFING.to_string()
        + "continue frf duffing as whole { param = Omega in 0.8..1.5, harmonics = 3 }\n";
    let runs = run_json(&text, "cli/max_points_whole", &[]);
    assert!(runs[0]["summary"].get("stopped").is_none(), "{}", runs[0]);
}

/// Runs shard `i/2` of `text` (written to `dir/map.nsd`) into `dir/out`.
fn shard_of(dir: &std::path::Path, text: &str, i: usize) {
    let file = dir.join("map.nsd");
    std::fs::write(&file, text).expect("write");
    let shard = format!("{i}/2");
    let (code, _, stderr) = nsd(&[
        "run",
        file.to_str().expect("utf-8"),
        "--shard",
        &shard,
        "--out",
        dir.join("out").to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "shard {shard}: {stderr}");
}

/// `nsd merge` of `dir/out/b.shards` into `dir/merged`: (exit code, stderr).
fn merged(dir: &std::path::Path) -> (i32, String) {
    let (code, _, stderr) = nsd(&[
        "merge",
        dir.join("out/b.shards").to_str().expect("utf-8"),
        "--out",
        dir.join("merged").to_str().expect("utf-8"),
    ]);
    (code, stderr)
}

/// Shards of one source merge into the single run's map; shards computed before and after
/// an edit of the model's source (a spring's `k3`: the parameters and the settings are the
/// same) would join into a map of neither model, so merge refuses them with
/// `nsd::merge::inconsistent`, naming both files and what differs.
#[test]
fn merge_joins_shards_of_one_source_and_refuses_stale_ones() {
    let dir = root().join("target/test-out/cli-merge");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    shard_of(&dir, SHARDED_MAP, 0);
    shard_of(&dir, SHARDED_MAP, 1);
    let (code, stderr) = merged(&dir);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = nsd(&[
        "run",
        dir.join("map.nsd").to_str().expect("utf-8"),
        "--out",
        dir.join("single").to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let read = |d: &str| std::fs::read(dir.join(d).join("b/data.csv")).expect("data.csv");
    assert!(
        read("merged") == read("single"),
        "the merged map is the single run's"
    );

    let _ = std::fs::remove_dir_all(dir.join("merged"));
    shard_of(&dir, &SHARDED_MAP.replace("k3 = 0.1", "k3 = 0.3"), 1);
    let (code, stderr) = merged(&dir);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("nsd::merge::inconsistent"), "{stderr}");
    // miette wraps long lines (also after a hyphen): compare without whitespace.
    let squeezed = |t: &str| t.split_whitespace().collect::<String>();
    for said in [
        "shard-0-of-2.json",
        "shard-1-of-2.json",
        "the model's source differs",
        "rerun the stale shards",
    ] {
        assert!(
            squeezed(&stderr).contains(&squeezed(said)),
            "`{said}` not in: {stderr}"
        );
    }
    assert!(!dir.join("merged/b").exists(), "nothing written");
    // A setting that differs is named too.
    shard_of(
        &dir,
        &SHARDED_MAP.replace("block = 13", "block = 13, tol = 1e-5"),
        1,
    );
    let (code, stderr) = merged(&dir);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        squeezed(&stderr).contains(&squeezed("settings `tol`")),
        "{stderr}"
    );
}
