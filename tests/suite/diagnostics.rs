//! Golden diagnostics: every file in `tests/diagnostics/` holds one user mistake and names
//! the code it must produce (`# expect: error[CODE]`; a test comment, unrelated to the
//! language's `expect` statement, whose failures are checked here too). The rendered report (no colour,
//! width 80) is snapshotted; the code, a label and a help line are also asserted directly,
//! so a blindly accepted snapshot cannot hide a regression. Caret lines under a source line
//! (`#     ^^^^ error[CODE]`, after typst's and rust-analyzer's test annotations) give the
//! columns that diagnostic must label; every file whose labels fall in it carries one.

use nsd::lang::{resolve, Failure, Program};
use std::path::Path;

/// Every failure a user would meet for this file: load, resolve each model, run each analysis.
fn failures(path: &Path) -> Vec<Failure> {
    let prog = match Program::load(path) {
        Ok(p) => p,
        Err(f) => return vec![f],
    };
    let mut out = Vec::new();
    if let Err(f) = nsd::analysis::check_names(&prog) {
        out.push(f);
    }
    for name in &prog.model_order {
        if let Err(f) = resolve(&prog, name, &[]) {
            out.push(f);
        }
    }
    if out.is_empty() {
        for a in &prog.analyses {
            match nsd::analysis::run(&prog, a, &[]) {
                Ok(r) => out.extend(expectations(&prog, &r)),
                Err(e) => out.push(e.failure),
            }
        }
    }
    out
}

/// The failed `expect`s on one analysis's results, as `nsd test` reports them.
fn expectations(prog: &Program, r: &nsd::analysis::Results) -> Vec<Failure> {
    prog.expects
        .iter()
        .filter(|e| e.analysis.name == r.name)
        .filter_map(|e| {
            nsd::analysis::expect::check(prog, e, &r.summary)
                .err()
                .map(|err| (e, err))
        })
        .map(|(e, err)| Failure::one(Failure::located(&prog.sources, e.span.file, err)))
        .collect()
}

/// Everything a user would see for this file, rendered.
fn diagnose(path: &Path) -> String {
    failures(path).iter().map(Failure::render_plain).collect()
}

/// A caret annotation: `#   ^^^ error[CODE]` under a source line marks the columns the
/// diagnostic `CODE` must label (0-based line of the marked text, column, length).
#[derive(Debug, PartialEq)]
struct Caret {
    code: String,
    line: usize,
    column: usize,
    len: usize,
}

/// The caret annotations of a file; each one marks the nearest line above it that is not
/// itself an annotation.
fn carets(text: &str) -> Vec<Caret> {
    let lines: Vec<&str> = text.lines().collect();
    let is_caret = |l: &str| l.starts_with('#') && l[1..].trim_start().starts_with('^');
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !is_caret(l) {
            continue;
        }
        let column = l.find('^').expect("a caret line has a caret");
        let len = l[column..].chars().take_while(|&c| c == '^').count();
        let code = l
            .split("error[")
            .nth(1)
            .and_then(|r| r.split(']').next())
            .expect("a caret line names `error[CODE]`")
            .to_string();
        let line = (0..i)
            .rev()
            .find(|&j| !is_caret(lines[j]))
            .expect("a caret line follows the line it marks");
        out.push(Caret {
            code,
            line,
            column,
            len,
        });
    }
    out
}

/// The labelled spans that the reports put in the file `path` (whose text is `text`), as
/// carets (line and column from the report's source); a span over several lines is marked
/// to the end of its first line.
fn labelled(failures: &[Failure], path: &Path, text: &str) -> Vec<Caret> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for r in failures.iter().flat_map(|f| &f.reports) {
        let code = r.code().map(|c| c.to_string()).unwrap_or_default();
        let (Some(labels), Some(src)) = (r.labels(), r.source_code()) else {
            continue;
        };
        for label in labels {
            let at = src
                .read_span(label.inner(), 0, 0)
                .expect("a label inside its source");
            // A label on the last line is not annotated: a caret line below it would move
            // the end of the file, where an unclosed block is reported.
            if at.name().map(Path::new) != Some(path) || at.line() + 1 >= lines.len() {
                continue;
            }
            out.push(Caret {
                code: code.clone(),
                line: at.line(),
                column: at.column(),
                // A point (a parse error's position) is drawn, and annotated, as one caret.
                len: label
                    .len()
                    .min(lines[at.line()].len().saturating_sub(at.column()))
                    .max(1),
            });
        }
    }
    out
}

fn expected_code(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with("# expect: error["))
        .expect("a `# expect: error[CODE]` line");
    line.trim_start_matches("# expect: error[")
        .trim_end_matches(']')
        .to_string()
}

#[test]
fn golden_diagnostics() {
    let mut count = 0;
    insta::glob!("../diagnostics", "*.nsd", |path| {
        let rel = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .expect("inside the repo");
        let text = std::fs::read_to_string(path).expect("readable");
        let report = diagnose(rel);
        let code = expected_code(&text);
        assert!(
            report.contains(&code),
            "{}: expected {code}, got:\n{report}",
            rel.display()
        );
        assert!(
            report.contains("help:"),
            "{}: every diagnostic needs a help line:\n{report}",
            rel.display()
        );
        if !code.starts_with("nsd::resolve::unknown_override") {
            assert!(
                report.contains('╰'),
                "{}: the report must point at the source:\n{report}",
                rel.display()
            );
        }
        let labels = labelled(&failures(rel), rel, &text);
        let marked = carets(&text);
        assert!(
            !marked.is_empty() || labels.is_empty(),
            "{}: annotate the labelled span with `#   ^^^ error[CODE]` under it; labels: {labels:?}",
            rel.display()
        );
        for caret in marked {
            assert!(
                labels.contains(&caret),
                "{}: the annotation {caret:?} matches no label; labels: {labels:?}",
                rel.display()
            );
        }
        insta::assert_snapshot!(report);
        count += 1;
    });
    assert!(count >= 30, "only {count} diagnostic cases");
}

#[test]
fn caret_annotations_are_read() {
    let text =
        "model m {\n  mass m1 = 1\n  mass m1 = 2\n#      ^^ error[nsd::resolve::duplicate]\n}\n";
    let expected = Caret {
        code: "nsd::resolve::duplicate".into(),
        line: 2,
        column: 7,
        len: 2,
    };
    assert_eq!(carets(text), vec![expected]);
}

#[test]
fn unknown_override_suggests_the_parameter() {
    let prog = Program::load(Path::new("models/seed0/two_mass_freeplay.nsd")).expect("loads");
    let o = nsd::lang::Override {
        name: "Omgea".into(),
        value: 1.0,
    };
    let f: Failure = resolve(&prog, "two_mass_freeplay", &[o]).expect_err("unknown parameter");
    let text = f.render_plain();
    assert!(f
        .codes()
        .contains(&"nsd::resolve::unknown_override".to_string()));
    insta::assert_snapshot!(text);
}

#[test]
fn bad_override_syntax() {
    let f = nsd::lang::parse_override("Omega").expect_err("no `=`");
    assert_eq!(f.codes(), vec!["nsd::resolve::bad_override".to_string()]);
    let f = nsd::lang::parse_override("Omega=1.3 +").expect_err("incomplete expression");
    assert!(f.codes()[0].starts_with("nsd::parse::"), "{:?}", f.codes());
}

/// A file in a temporary folder (the cases below are not valid UTF-8, so they cannot live
/// in `tests/diagnostics/`, which the golden test reads as text).
fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("nsd-encoding-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("temp file");
    path
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let path = temp_file("bom.nsd", b"\xef\xbb\xbfmodel m { mass a = 1 }\n");
    let prog = Program::load(&path).expect("a UTF-8 file with a byte-order mark loads");
    assert!(resolve(&prog, "m", &[]).is_ok());
}

#[test]
fn a_file_that_is_not_utf8_is_named_with_the_offset() {
    // Latin-1 `é` (0xe9) in a comment on line 2.
    let latin1 = temp_file("latin1.nsd", b"model m {\n  mass a = 1 # caf\xe9\n}\n");
    let f = Program::load(&latin1).expect_err("not UTF-8");
    assert_eq!(f.codes(), vec!["nsd::resolve::not_utf8".to_string()]);
    let text = f.to_string();
    assert!(
        text.contains("byte 0xe9 at offset 28 (line 2, column 19)"),
        "{text}"
    );
    // Imported, the same error points at the import.
    let root = temp_file(
        "imports_latin1.nsd",
        b"import \"latin1.nsd\"\nmodel q { mass b = 1 }\n",
    );
    let f = Program::load(&root).expect_err("the import is not UTF-8");
    assert_eq!(f.codes(), vec!["nsd::resolve::not_utf8".to_string()]);
    assert!(f.render_plain().contains("imported here"));
}

/// Every analysis statement's `unknown_option` help lists its options. It ended "the options
/// of `X` are" and nothing for the statements with more than a dozen options (`continue
/// frf`, `continue backbone`, `continue periodic`, `basins`, `sweep bifurcation`): the
/// suggestion listed a closed vocabulary only when it was short. The statements are those
/// `docs/language.md` documents (its "### `KIND`" headings under "Analyses"), so a new one is
/// checked once documented; each comes with a real option of its own.
#[test]
fn every_analysis_lists_its_options_for_an_unknown_one() {
    let known = [
        ("modes", "count"),
        ("simulate", "rtol"),
        ("sweep bifurcation", "starts"),
        ("basins", "grid"),
        ("sweep regimes", "cycles"),
        ("continue frf", "max_points"),
        ("continue backbone", "amplitude"),
        ("continue periodic", "shooting"),
        ("nsmodes", "period"),
    ];
    let docs = std::fs::read_to_string("docs/language.md").expect("docs/language.md");
    let section = docs
        .split("\n## Analyses")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("an Analyses section");
    let mut documented: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("### `")?.strip_suffix('`'))
        .collect();
    documented.sort_unstable();
    let mut listed: Vec<&str> = known.iter().map(|k| k.0).collect();
    listed.sort_unstable();
    assert_eq!(documented, listed, "an analysis without a case here");
    let dir = std::env::temp_dir().join(format!("nsd-option-help-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    for (kind, option) in known {
        let path = dir.join(format!("{}.nsd", kind.replace(' ', "_")));
        let text = format!(
            "model m {{\n  mass m1 = 1\n  spring m1 -- ground {{ k = 1 }}\n}}\n{kind} m {{ zzzz = 1 }}\n"
        );
        std::fs::write(&path, text).expect("temp file");
        let prog = Program::load(&path).expect("loads");
        let a = prog.analyses.first().expect("one analysis");
        let Err(e) = nsd::analysis::run(&prog, a, &[]) else {
            panic!("`{kind}` accepted `zzzz`");
        };
        let report = e.failure.reports.first().expect("a report");
        assert_eq!(
            report.code().map(|c| c.to_string()).as_deref(),
            Some("nsd::analysis::unknown_option"),
            "{kind}: {report:?}"
        );
        let help = report.help().map(|h| h.to_string()).unwrap_or_default();
        assert!(
            help.contains(" are `") && help.contains(&format!("`{option}`")),
            "{kind}: the help does not list `{option}`: {help}"
        );
        assert!(
            !help.contains('…'),
            "{kind}: every option, not some: {help}"
        );
    }
    std::fs::remove_dir_all(&dir).expect("cleaned up");
}
