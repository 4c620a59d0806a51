//! `expect` statements and `nsd test`, through the binary: the seed models' expectations
//! pass; an altered expected value fails with exit 1 and a coded diagnostic on the value;
//! every analysis runs and counts by default, only the named ones with `--expects-only`;
//! `nsd run` ignores expectations; `nsd check` rejects one naming an unknown analysis.

use crate::common::{nsd, root};
use std::path::PathBuf;

/// A fresh folder under the system's temp dir holding `file` with `text`.
fn temp_file(tag: &str, file: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nsd-expect-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let path = dir.join(file);
    std::fs::write(&path, text).expect("written");
    path
}

#[test]
fn the_seed_models_meet_their_expectations() {
    // The fast path: every analysis of `models/` takes minutes (the bifurcation sweeps).
    let (code, stdout, stderr) = nsd(&["test", "--expects-only", "models"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let last = stdout.lines().last().expect("a tally line");
    let passed: usize = last
        .strip_suffix(" passed, 0 failed")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("tally: {last}"));
    // 11 seed files carry 35 expectations (paper 001 eq. 24, fixed–free chains, paper 004
    // Sect. 7.2, Euler–Bernoulli for paper 003's cantilever).
    assert!(passed >= 35, "{stdout}");
    assert!(
        stdout.contains("models/seed4/serial_impact.nsd: 9 passed, 0 failed"),
        "{stdout}"
    );
    // The 40-pad beam: the free modes against Euler–Bernoulli, the FRF peaks, both
    // backbones from the stuck to the free first mode.
    assert!(
        stdout.contains("models/seed3/beam_many_pads.nsd: 9 passed, 0 failed"),
        "{stdout}"
    );
}

#[test]
fn an_altered_value_fails_with_the_coded_diagnostic() {
    let text = std::fs::read_to_string(root().join("models/seed4/serial_impact.nsd"))
        .expect("the seed model")
        .replace("= 3.7397 ± 5e-5", "= 3.7400 ± 5e-5");
    let path = temp_file("altered", "serial_impact.nsd", &text);
    let (code, stdout, stderr) = nsd(&["test", &path.display().to_string()]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // Its three analyses ran clean; eight of its nine expectations held.
    assert!(stdout.ends_with("11 passed, 1 failed\n"), "{stdout}");
    assert!(stderr.contains("nsd::test::expect_failed"), "{stderr}");
    assert!(
        stderr.contains("`one_impact.phi_roots[1]` is 3.7396"),
        "{stderr}"
    );
    // The label sits on the value as written, the help gives the reported one.
    assert!(stderr.contains("expected 3.7400 ± 5e-5"), "{stderr}");
    assert!(stderr.contains("the analysis reported 3.7396"), "{stderr}");
    // `run` writes results and ignores expectations.
    let out = path.with_file_name("results");
    let (code, _, stderr) = nsd(&[
        "run",
        &path.display().to_string(),
        "--only",
        "modes",
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn unknown_keys_and_analyses_are_named_with_a_suggestion() {
    let text = "model m { mass a = 1 kg\n spring a -- ground { k = 4 N/m } }\nmodes m as open\n\
                expect open.natural_frequncies[1] = 2 ± 1e-12\nexpect open.dofs = 1\n";
    let path = temp_file("keys", "m.nsd", text);
    let (code, stdout, stderr) = nsd(&["test", &path.display().to_string()]);
    assert_eq!(code, 1);
    // `open` ran clean, `dofs` held, the misspelt key failed.
    assert!(stdout.ends_with("2 passed, 1 failed\n"), "{stdout}");
    assert!(stderr.contains("nsd::test::unknown_key"), "{stderr}");
    assert!(
        stderr.contains("did you mean `natural_frequencies`?"),
        "{stderr}"
    );
    let fixed = text.replace("frequncies", "frequencies");
    std::fs::write(&path, &fixed).expect("written");
    assert_eq!(nsd(&["test", &path.display().to_string()]).0, 0);
    std::fs::write(&path, fixed.replace("expect open.", "expect opn.")).expect("written");
    for cmd in ["test", "check"] {
        let (code, _, stderr) = nsd(&[cmd, &path.display().to_string()]);
        assert_eq!(code, 1, "{cmd}");
        assert!(
            stderr.contains("nsd::test::unknown_analysis"),
            "{cmd}: {stderr}"
        );
        assert!(stderr.contains("did you mean `open`?"), "{cmd}: {stderr}");
    }
}

#[test]
fn expectations_are_formatted_and_keep_their_meaning() {
    let text = "model m { mass a = 1 }\nmodes m as open\nexpect open . dofs=1\nexpect open.natural_frequencies [1]=0+-1e-9 %\n";
    let out = nsd::lang::fmt::format(text).expect("formats");
    assert_eq!(
        out,
        "model m { mass a = 1 }\nmodes m as open\nexpect open.dofs                   = 1\nexpect open.natural_frequencies[1] = 0 +- 1e-9%\n"
    );
}

#[test]
fn a_failed_analysis_or_an_unloadable_file_fails_the_run() {
    let text =
        "model m {\n  mass a = 1\n  spring a -- ground { k = 1 }\n  force a = 1 / (1 - t)\n}\n\
                simulate m as run { t = 0..2 }\nexpect run.events = 0\n";
    let path = temp_file("failed", "m.nsd", text);
    std::fs::write(path.with_file_name("broken.nsd"), "model b { mass = }\n").expect("written");
    let dir = path.parent().expect("a folder").display().to_string();
    let (code, stdout, stderr) = nsd(&["test", &dir]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.contains("nsd::test::analysis_failed"), "{stderr}");
    assert!(stderr.contains("nsd::parse::syntax"), "{stderr}");
    // The failed analysis, its unchecked expectation and the file that did not load.
    assert!(stdout.ends_with("0 passed, 3 failed\n"), "{stdout}");
    // Only the expectation and the file count on the fast path.
    let (code, stdout, _) = nsd(&["test", "--expects-only", &dir]);
    assert_eq!(code, 1);
    assert!(stdout.ends_with("0 passed, 2 failed\n"), "{stdout}");
}

#[test]
fn every_analysis_runs_and_counts_unless_expects_only() {
    // `modes` is checked by an expectation; `run` has none and fails (the force blows up at
    // t = 1), `fine` has none and passes.
    let text = "model m {\n  mass a = 1\n  spring a -- ground { k = 4 }\n}\n\
                model b {\n  mass a = 1\n  spring a -- ground { k = 1 }\n  force a = 1 / (1 - t)\n}\n\
                modes m\nsimulate m as fine { t = 0..1 }\nsimulate b as run { t = 0..2 }\n\
                expect modes.natural_frequencies[1] = 2 ± 1e-9\n";
    let path = temp_file("every", "m.nsd", text);
    let file = path.display().to_string();
    let (code, stdout, stderr) = nsd(&["test", &file]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // Two analyses ran clean, one expectation held, one analysis failed.
    assert!(
        stdout.contains("m.nsd: 3 passed, 1 failed\n"),
        "{stdout}{stderr}"
    );
    assert!(stderr.contains("nsd::analysis::"), "{stderr}");
    let (code, stdout, stderr) = nsd(&["test", "--expects-only", &file]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.ends_with("1 passed, 0 failed\n"), "{stdout}");
    // A file with analyses and no expectation is tested too, only by default.
    let bare = text.replace("expect modes.natural_frequencies[1] = 2 ± 1e-9\n", "");
    std::fs::write(&path, bare).expect("written");
    assert!(nsd(&["test", &file]).1.ends_with("2 passed, 1 failed\n"));
    assert!(nsd(&["test", "--expects-only", &file])
        .1
        .ends_with("0 passed, 0 failed\n"));
    // An expectation in a file without analyses names nothing: both modes fail.
    std::fs::write(&path, "model m { mass a = 1 }\nexpect open.dofs = 1\n").expect("written");
    for args in [vec!["test"], vec!["test", "--expects-only"]] {
        let (code, _, stderr) = nsd(&[args.clone(), vec![file.as_str()]].concat());
        assert_eq!(code, 1, "{args:?}");
        assert!(stderr.contains("nsd::test::unknown_analysis"), "{stderr}");
    }
}

/// A stop struck once in five seconds (e = 0.5): no Zeno accumulation, one event, a final
/// state keyed by DOF names that are not names of the language (`m1.x`, `v(m1.x)`).
const STRUCK_ONCE: &str = "model m {\n  mass m1 = 1\n  spring ground -- m1 { k = 1 }\n  \
    gap s: m1 -- ground { clearance = 0.1, law = impact(e = 0.5) }\n  \
    force m1 = 0.3 * cos(1.2 * t)\n}\nsimulate m as run { t = 0..5 }\nmodes m\n";

#[test]
fn lists_are_counted_and_indexed_from_either_end_and_keys_can_be_quoted() {
    // Each of these failed to parse before (`len(`, `[-1]`, `["…"]`); `run.zeno = false`,
    // the form the docs showed, is a list compared with a boolean.
    let text = format!(
        "{STRUCK_ONCE}expect len(run.zeno) = 0\nexpect len(run.final) = 2\n\
         expect run.final[\"m1.x\"] = -0.2296769 ± 1e-6\n\
         expect run.final[\"v(m1.x)\"] = 0.5833677 ± 1e-6\nexpect run[\"events\"] = 1\n\
         expect modes.natural_frequencies[-1] = 1 ± 1e-12\n"
    );
    let path = temp_file("ends", "m.nsd", &text);
    let (code, stdout, stderr) = nsd(&["test", "--expects-only", &path.display().to_string()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.ends_with("6 passed, 0 failed\n"), "{stdout}");
    // The old documented form is refused with a help that offers `len`.
    std::fs::write(&path, format!("{STRUCK_ONCE}expect run.zeno = false\n")).expect("written");
    let (code, _, stderr) = nsd(&["test", "--expects-only", &path.display().to_string()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("nsd::test::not_a_value"), "{stderr}");
    assert!(stderr.contains("`len(run.zeno)`"), "{stderr}");
    // A dotted key, and a quoted key off by a letter: the did-you-mean is the quoted form.
    std::fs::write(
        &path,
        format!("{STRUCK_ONCE}expect run.final.m1 = 0\nexpect run.final[\"v(m1.y)\"] = 0\n"),
    )
    .expect("written");
    let (code, stdout, stderr) = nsd(&["test", "--expects-only", &path.display().to_string()]);
    assert_eq!(code, 1);
    assert!(stdout.ends_with("0 passed, 2 failed\n"), "{stdout}");
    assert!(
        stderr.contains("did you mean `run.final[\"m1.x\"]`?"),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `run.final[\"v(m1.x)\"]`?"),
        "{stderr}"
    );
}

#[test]
fn a_zero_or_out_of_range_index_says_where_lists_start() {
    let text = format!(
        "{STRUCK_ONCE}expect modes.natural_frequencies[0] = 1\n\
         expect modes.natural_frequencies[-2] = 1\n"
    );
    let path = temp_file("zero", "m.nsd", &text);
    let (code, stdout, stderr) = nsd(&["test", "--expects-only", &path.display().to_string()]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.ends_with("0 passed, 2 failed\n"), "{stdout}");
    assert_eq!(
        stderr.matches("nsd::test::unknown_key").count(),
        2,
        "{stderr}"
    );
    assert!(stderr.contains("indices start at 1"), "{stderr}");
    assert!(stderr.contains("the list has 1 entry"), "{stderr}");
    // It said "expected a node name" for `[-1]`; a malformed index names what an index is.
    std::fs::write(
        &path,
        format!("{STRUCK_ONCE}expect modes.natural_frequencies[x] = 1\n"),
    )
    .expect("written");
    let (code, _, stderr) = nsd(&["check", &path.display().to_string()]);
    assert_eq!(code, 1);
    assert!(!stderr.contains("node name"), "{stderr}");
    assert!(stderr.contains("a list index"), "{stderr}");
}

#[test]
fn len_and_quoted_keys_are_formatted_in_place() {
    let text = "model m { mass a = 1 }\nmodes m as open\nexpect  len( open.natural_frequencies )=1\nexpect open [ \"dofs\" ]=1\nexpect open.natural_frequencies[ -1]=0+-1\n";
    let out = nsd::lang::fmt::format(text).expect("formats");
    assert_eq!(
        out,
        "model m { mass a = 1 }\nmodes m as open\nexpect len(open.natural_frequencies) = 1\n\
         expect open[\"dofs\"]                  = 1\nexpect open.natural_frequencies[-1]  = 0 +- 1\n"
    );
}
