//! Golden diagnostics: every file in `tests/diagnostics/` holds one user mistake and names
//! the code it must produce (`# expect: error[CODE]`). The rendered report (no colour,
//! width 80) is snapshotted; the code, a label and a help line are also asserted directly,
//! so a blindly accepted snapshot cannot hide a regression.

use nsd::lang::{resolve, Failure, Program};
use std::path::Path;

/// Everything a user would see for this file: load, resolve each model, run each analysis.
fn diagnose(path: &Path) -> String {
    let prog = match Program::load(path) {
        Ok(p) => p,
        Err(f) => return f.render_plain(),
    };
    let mut out = String::new();
    if let Err(f) = nsd::analysis::check_names(&prog) {
        out.push_str(&f.render_plain());
    }
    for name in &prog.model_order {
        if let Err(f) = resolve(&prog, name, &[]) {
            out.push_str(&f.render_plain());
        }
    }
    if out.is_empty() {
        for a in &prog.analyses {
            if let Err(e) = nsd::analysis::run(&prog, a, &[]) {
                out.push_str(&e.failure.render_plain());
            }
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
    insta::glob!("diagnostics/*.nsd", |path| {
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
        insta::assert_snapshot!(report);
        count += 1;
    });
    assert!(count >= 30, "only {count} diagnostic cases");
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
