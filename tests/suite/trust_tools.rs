//! The tools that must not die (issue 43, sections 3 and 4), through the binary: results
//! written atomically with no temporary folder left on any way out (a file in the way, an
//! interrupt), one `--json` record for every outcome, imports and files that are no model
//! source refused for what they are without being read, and folder walks that follow a
//! symbolic-link loop once. The language server's part is in `tests/suite/lsp.rs`.

use crate::common;

use crate::common::{nsd, root, run_text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh folder `target/test-out/trust_tools/<tag>`.
fn fresh(tag: &str) -> PathBuf {
    let dir = root().join("target/test-out/trust_tools").join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a test folder");
    dir
}

/// The entries of `dir` that are temporary results (`.NAME.tmp-PID`, `shard-….tmp-PID`).
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".tmp-"))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `text` says `said`, however miette wrapped its lines (`│` marks a continued one).
fn says(text: &str, said: &str) -> bool {
    let squeezed = |t: &str| {
        t.chars()
            .filter(|c| !c.is_whitespace() && *c != '│')
            .collect::<String>()
    };
    squeezed(text).contains(&squeezed(said))
}

/// Every line of `stdout`, each of which must be one JSON object.
fn records(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Waits for `child` at most `limit`; its exit code, or `None` when it had to be killed.
fn wait_within(mut child: Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child is waited for") {
            return Some(status.code().unwrap_or(-1));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `nsd ARGS` in `dir`, killed after 20 s (a read of a FIFO blocks for ever): the exit code
/// (`None` when killed) and stderr.
fn nsd_in(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nsd"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nsd starts");
    let mut pipe = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut pipe, &mut text);
        text
    });
    let code = wait_within(child, Duration::from_secs(20));
    (code, reader.join().unwrap_or_default())
}

const ONE_MASS: &str = "model m {\n  mass a = 1\n  spring a -- ground { k = 1 }\n}\n";

/// A regular file where the results folder `OUT/x` must go: "`OUT/x` is a file" with its
/// code, exit 1, and no temporary folder left (the old code wrote the whole temporary folder,
/// then failed to remove the file with "Not a directory" and left the folder behind).
#[test]
fn a_file_in_the_way_of_a_results_folder_is_named_and_nothing_is_left() {
    let dir = fresh("file-in-the-way");
    let text = format!("{ONE_MASS}modes m as x\n");
    std::fs::write(dir.join("x"), "not a folder").expect("the file in the way");
    let (code, stdout, stderr, _) = run_text(&text, "trust_tools/file-in-the-way", &["--json"]);
    assert_eq!(code, 1, "{stderr}");
    let shown = dir.join("x").display().to_string();
    assert!(stderr.contains("nsd::io::is_a_file"), "{stderr}");
    assert!(says(&stderr, &format!("`{shown}` is a file")), "{stderr}");
    assert_eq!(temporaries(&dir), Vec::<String>::new());
    assert_eq!(
        std::fs::read_to_string(dir.join("x")).expect("the file"),
        "not a folder"
    );
    let rec = &records(&stdout)[..];
    assert_eq!(rec.len(), 1, "{stdout}");
    assert_eq!(rec[0]["name"], "x");
    assert_eq!(rec[0]["failed"], true);
    assert_eq!(rec[0]["code"], "nsd::io::is_a_file");
    assert_eq!(rec[0]["exit_code"], 1);
    assert!(
        rec[0]["summary"]["natural_frequencies"].is_array(),
        "{}",
        rec[0]
    );

    // `--out` itself a file: the same error on that path, nothing created.
    let out = dir.join("out-file");
    std::fs::write(&out, "").expect("a file");
    let file = dir.join("case.nsd");
    let (code, _, stderr) = nsd(&[
        "run",
        file.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        says(&stderr, &format!("`{}` is a file", out.display())),
        "{stderr}"
    );
}

/// A `simulate` whose `data.csv` is a million rows (~20 MB): writing it takes a few tenths of
/// a second, long enough to interrupt.
const LONG_WRITE: &str = "model m {\n  mass a = 1\n  spring a -- ground { k = 1 }\n}\nsimulate m as long { t = 0..50, x0 = { a = 1 }, output = every(5e-5) }\n";

/// Starts `nsd run` of `LONG_WRITE` into `dir` (through `sh -c PREFIX exec …` when a prefix
/// is given) and sends SIGINT as soon as the temporary results folder appears; the exit code
/// and whether the folder was seen.
fn interrupted_while_writing(dir: &Path, prefix: &str) -> (Option<i32>, bool) {
    let file = dir.join("long.nsd");
    std::fs::write(&file, LONG_WRITE).expect("the model");
    let (exe, file, out) = (
        env!("CARGO_BIN_EXE_nsd"),
        file.display().to_string(),
        dir.display().to_string(),
    );
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("{prefix} exec '{exe}' run '{file}' --out '{out}'"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nsd starts");
    let pid = child.id().to_string();
    let start = Instant::now();
    let mut seen = false;
    while start.elapsed() < Duration::from_secs(60) {
        if !temporaries(dir).is_empty() {
            seen = true;
            let sent = Command::new("kill").args(["-INT", &pid]).status();
            assert!(sent.is_ok_and(|s| s.success()), "kill -INT {pid}");
            break;
        }
        if dir.join("long").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    (wait_within(child, Duration::from_secs(60)), seen)
}

/// SIGINT while a result is being written: the temporary folder is removed and the exit code
/// is 130; the old code died with the signal and left the folder (145 MB seen).
#[test]
fn an_interrupt_while_writing_leaves_no_temporary_folder() {
    let dir = fresh("sigint");
    let (code, seen) = interrupted_while_writing(&dir, "");
    assert!(seen, "the temporary folder never appeared");
    assert_eq!(code, Some(130));
    assert_eq!(temporaries(&dir), Vec::<String>::new());
    assert!(
        !dir.join("long").exists(),
        "an interrupted result is not put in place"
    );
}

/// A SIGINT ignored from the start (`trap '' INT`, as a script's `nsd run … &` has it) stays
/// ignored: the run writes its whole result.
#[test]
fn an_ignored_interrupt_stays_ignored() {
    let dir = fresh("sigint-ignored");
    let (code, seen) = interrupted_while_writing(&dir, "trap '' INT;");
    assert!(seen, "the temporary folder never appeared");
    assert_eq!(code, Some(0));
    assert_eq!(temporaries(&dir), Vec::<String>::new());
    let meta = std::fs::read_to_string(dir.join("long/meta.json")).expect("the whole result");
    assert!(meta.contains("\"analysis\": \"long\""), "{meta}");
}

/// `run --json`: every outcome is one JSON record on stdout, and stdout holds nothing else —
/// before (a missing file, a syntax error, a bad `--set`, an unknown `--only`, a duplicate
/// analysis name) and after the analyses ran (done, failed). The old code printed nothing on
/// stdout for the failures before the run.
#[test]
fn every_run_outcome_is_one_json_record() {
    let dir = fresh("json-run");
    let cases: [(&str, &str, &[&str], &str); 5] = [
        ("missing", "", &[], "nsd::resolve::missing_file"),
        ("syntax", "model m {\n", &[], "nsd::parse::syntax"),
        ("set", ONE_MASS, &["--set", "k"], "nsd::resolve::bad_override"),
        ("only", ONE_MASS, &["--only", "nope"], "nsd::analysis::unknown_name"),
        (
            "names",
            "model m {\n  mass a = 1\n  spring a -- ground { k = 1 }\n}\nmodes m as x\nmodes m as x\n",
            &[],
            "nsd::analysis::duplicate_name",
        ),
    ];
    for (tag, text, args, code) in cases {
        let file = dir.join(format!("{tag}.nsd"));
        if !text.is_empty() {
            std::fs::write(&file, text).expect("the model");
        }
        let file = file.to_str().expect("utf-8");
        let out = dir.to_str().expect("utf-8");
        let mut all = vec!["run", file, "--json", "--out", out];
        all.extend_from_slice(args);
        let (exit, stdout, stderr) = nsd(&all);
        assert_eq!(exit, 1, "{tag}: {stderr}");
        let rec = records(&stdout);
        assert_eq!(rec.len(), 1, "{tag}: {stdout}");
        let r = &rec[0];
        assert_eq!(r["file"], file, "{tag}: {r}");
        assert_eq!(r["failed"], true, "{tag}: {r}");
        assert_eq!(r["code"], code, "{tag}: {r}");
        assert_eq!(r["exit_code"], 1, "{tag}: {r}");
        assert!(
            r["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{tag}: {r}"
        );
        let first = &r["diagnostics"][0];
        assert_eq!(first["code"], code, "{tag}: {r}");
        assert!(first["message"].is_string(), "{tag}: {r}");
    }

    // After the run: one done, one failed (a singular start of a free mass), in order.
    let text = "model m {\n  mass a = 1\n  spring a -- ground { k = 1 }\n  force a = 1 / (1 - t)\n}\nmodes m as fine\nsimulate m as blows { t = 0..2 }\n";
    let (exit, stdout, stderr, _) = run_text(text, "trust_tools/json-run/after", &["--json"]);
    assert_eq!(exit, 2, "{stderr}");
    let rec = records(&stdout);
    assert_eq!(rec.len(), 2, "{stdout}");
    assert_eq!(rec[0]["name"], "fine");
    assert!(rec[0].get("failed").is_none(), "{}", rec[0]);
    assert_eq!(rec[1]["name"], "blows");
    assert_eq!(rec[1]["failed"], true);
    assert_eq!(rec[1]["exit_code"], 2);
    assert!(rec[1]["diagnostics"]
        .as_array()
        .is_some_and(|d| !d.is_empty()));
}

/// `run --shard --json`: a record for a shard written, one skipped (`--resume`) and one
/// that cannot be written; the old code printed the first as a line of prose. `merge --json`
/// and `check --json`: a record for their failures too.
#[test]
fn shards_merges_and_checks_answer_in_json() {
    let dir = fresh("json-shard");
    let file = dir.join("map.nsd");
    std::fs::write(&file, common::SHARDED_MAP).expect("the map");
    let (file, out) = (file.to_str().expect("utf-8"), dir.join("out"));
    let out = out.to_str().expect("utf-8");
    let shard = |extra: &[&str]| {
        let mut args = vec!["run", file, "--json", "--shard", "0/2", "--out", out];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = nsd(&args);
        let rec = records(&stdout);
        assert_eq!(rec.len(), 1, "{stdout} {stderr}");
        (code, rec[0].clone())
    };
    let (code, r) = shard(&[]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(
        (&r["name"], &r["kind"], &r["shard"]),
        (&"b".into(), &"basins".into(), &"0/2".into()),
        "{r}"
    );
    assert_eq!(r["skipped"], false);
    let written = r["out"].as_str().expect("the shard file").to_string();
    assert!(written.ends_with("b.shards/shard-0-of-2.json"), "{r}");
    let (code, r) = shard(&["--resume"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["skipped"], true, "{r}");
    assert_eq!(r["out"], written.as_str());
    // The shard's folder taken by a file.
    std::fs::remove_dir_all(dir.join("out/b.shards")).expect("removed");
    std::fs::write(dir.join("out/b.shards"), "").expect("a file in the way");
    let (code, r) = shard(&[]);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["failed"], true, "{r}");
    assert_eq!(r["code"], "nsd::io::is_a_file", "{r}");
    assert_eq!(r["shard"], "0/2", "{r}");
    assert_eq!(temporaries(&dir.join("out")), Vec::<String>::new());

    // merge: a folder that does not exist, a folder without shards.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("a folder");
    for (folder, code) in [
        (dir.join("nowhere"), "nsd::io::read"),
        (empty, "nsd::merge::empty"),
    ] {
        let folder = folder.to_str().expect("utf-8");
        let (exit, stdout, stderr) = nsd(&["merge", folder, "--json", "--out", out]);
        assert_eq!(exit, 1, "{stderr}");
        let rec = records(&stdout);
        assert_eq!(rec.len(), 1, "{stdout}");
        assert_eq!(rec[0]["code"], code, "{}", rec[0]);
        assert_eq!(rec[0]["file"], folder, "{}", rec[0]);
    }

    // check: a model that does not resolve is its record; a file that does not load, the file's.
    let two = dir.join("two.nsd");
    std::fs::write(
        &two,
        "model good { mass a = 1 }\nmodel bad { mass b = -1 }\n",
    )
    .expect("write");
    let two = two.to_str().expect("utf-8");
    let (exit, stdout, _) = nsd(&["check", two, "--json"]);
    assert_eq!(exit, 1);
    let rec = records(&stdout);
    assert_eq!(rec.len(), 2, "{stdout}");
    assert_eq!(rec[0]["model"], "good");
    assert!(rec[0].get("failed").is_none(), "{}", rec[0]);
    assert_eq!(rec[1]["model"], "bad");
    assert_eq!(rec[1]["failed"], true);
    assert!(
        rec[1]["code"]
            .as_str()
            .is_some_and(|c| c.starts_with("nsd::")),
        "{}",
        rec[1]
    );
    let (exit, stdout, _) = nsd(&["check", "no/such/file.nsd", "--json"]);
    assert_eq!(exit, 1);
    let rec = records(&stdout);
    assert_eq!(rec.len(), 1, "{stdout}");
    assert_eq!(rec[0]["code"], "nsd::resolve::missing_file");
}

/// Paths that are no model source, refused for what they are and never read: a FIFO as the
/// root file (the old code blocked for ever on opening it) or as an import (the old code said
/// "no such file"), a directory as the root file.
#[test]
fn fifos_and_folders_are_refused_for_what_they_are() {
    let dir = fresh("fifo");
    let fifo = dir.join("pipe.nsd");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let (code, stderr) = nsd_in(&dir, &["check", "pipe.nsd"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("nsd::resolve::not_a_file"), "{stderr}");
    assert!(stderr.contains("it is a FIFO"), "{stderr}");

    std::fs::write(
        dir.join("main.nsd"),
        "import \"pipe.nsd\"\nmodel m { mass a = 1 }\n",
    )
    .expect("write");
    let (code, stderr) = nsd_in(&dir, &["check", "main.nsd"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        says(&stderr, "cannot read `pipe.nsd`: it is a FIFO"),
        "{stderr}"
    );
    assert!(stderr.contains("imported here"), "{stderr}");

    std::fs::create_dir_all(dir.join("models.nsd")).expect("a folder");
    let (code, stderr) = nsd_in(&dir, &["run", "models.nsd"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        says(&stderr, "cannot read `models.nsd`: it is a directory"),
        "{stderr}"
    );
}

/// A symbolic link back up the tree (`sub/up -> ..`): `nsd fmt` and `nsd test` see each file
/// once (the old walk followed the loop to the system's limit: each file 41 times).
#[test]
fn a_symlink_loop_is_walked_once() {
    let dir = fresh("symlink-loop");
    std::fs::create_dir_all(dir.join("sub")).expect("a folder");
    std::os::unix::fs::symlink("..", dir.join("sub/up")).expect("the loop");
    // Not formatted, and with an analysis that `nsd test` counts.
    std::fs::write(
        dir.join("a.nsd"),
        "model m {\nmass a = 1\n  spring a -- ground { k = 1 }\n}\nmodes m\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("sub/b.nsd"),
        "model n { mass b = 1\n spring b -- ground { k = 1 } }\n",
    )
    .expect("write");
    let d = dir.to_str().expect("utf-8");
    let (code, stdout, stderr) = nsd(&["fmt", "--check", d]);
    assert_eq!(code, 1, "{stderr}");
    let headers: Vec<&str> = stdout.lines().filter(|l| l.starts_with("--- ")).collect();
    assert_eq!(headers.len(), 2, "{stdout}");
    let (code, stdout, stderr) = nsd(&["test", d]);
    assert_eq!(code, 0, "{stderr}");
    let files: Vec<&str> = stdout.lines().filter(|l| l.contains(".nsd: ")).collect();
    assert_eq!(files.len(), 1, "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("1 passed, 0 failed"),
        "{stdout}"
    );
}

/// An import of a file that is no model source is refused before it is read: the report
/// names the file and echoes none of it (the old one quoted its first line).
#[test]
fn an_import_of_another_file_echoes_none_of_it() {
    let (code, _, stderr) = nsd(&["check", "tests/diagnostics/import_not_nsd.nsd"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("nsd::resolve::not_nsd"), "{stderr}");
    assert!(stderr.contains("support/not_a_model.txt"), "{stderr}");
    assert!(!stderr.contains("do-not-echo"), "{stderr}");
}
