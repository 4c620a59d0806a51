//! The `nsd test [--expects-only] [FILES|DIRS]` shell: for each `.nsd` file, runs every
//! analysis (no result folders), or with `--expects-only` only those its `expect` statements
//! name; checks every expectation (`analysis::expect`), prints a coded diagnostic at each
//! analysis or expectation that fails and `N passed, M failed` per file and in total; exit 1
//! when anything failed or a file did not load.
//!
//! What is counted: each expectation is one test; in the default mode each analysis run is one
//! more (passed when it returns results, failed when it reports an error — a refused request, a
//! numerical failure, non-convergence); a file that does not load is one failure.

use nsd_analysis::{self as analysis, expect};
use nsd_lang::{Failure, Program};
use std::path::{Path, PathBuf};

/// Tests passed and failed.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
}

/// Which analyses `nsd test` runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every analysis of every file, each counted as a test.
    Every,
    /// Only the analyses that `expect` statements name; only the expectations are counted.
    ExpectsOnly,
}

/// Runs `nsd test`; returns the exit code.
pub fn run(paths: &[PathBuf], scope: Scope) -> i32 {
    let files = match crate::shell::fmt_cmd::nsd_files(paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error[nsd::test::io]: cannot list the files: {e}");
            return 1;
        }
    };
    let mut total = Tally::default();
    for file in &files {
        let t = one(file, scope);
        if t.passed + t.failed > 0 {
            println!(
                "{}: {} passed, {} failed",
                file.display(),
                t.passed,
                t.failed
            );
        }
        total.passed += t.passed;
        total.failed += t.failed;
    }
    println!("{} passed, {} failed", total.passed, total.failed);
    i32::from(total.failed > 0)
}

/// The analyses and expectations of one file.
fn one(file: &Path, scope: Scope) -> Tally {
    let failed_load = |f: Failure| {
        f.eprint();
        Tally {
            passed: 0,
            failed: 1,
        }
    };
    let prog = match Program::load(file) {
        Ok(p) => p,
        Err(f) => return failed_load(f),
    };
    let idle = match scope {
        Scope::Every => prog.analyses.is_empty() && prog.expects.is_empty(),
        Scope::ExpectsOnly => prog.expects.is_empty(),
    };
    if idle {
        return Tally::default();
    }
    if let Err(f) = analysis::check_names(&prog) {
        return failed_load(f);
    }
    let mut tally = Tally::default();
    for a in &prog.analyses {
        let name = analysis::name_of(a);
        let expects: Vec<_> = prog
            .expects
            .iter()
            .filter(|e| e.analysis.name == name)
            .collect();
        if expects.is_empty() && scope == Scope::ExpectsOnly {
            continue;
        }
        let counted = usize::from(scope == Scope::Every);
        let summary = match analysis::run(&prog, a, &[]) {
            Ok(r) => r.summary,
            Err(f) => {
                f.failure.eprint();
                for e in &expects {
                    let err = expect::ExpectError::AnalysisFailed {
                        analysis: name.clone(),
                        at: e.span,
                    };
                    report(&prog, e.span.file, err);
                }
                tally.failed += expects.len() + counted;
                continue;
            }
        };
        tally.passed += counted;
        for e in expects {
            match expect::check(&prog, e, &summary) {
                Ok(()) => tally.passed += 1,
                Err(err) => {
                    report(&prog, e.span.file, err);
                    tally.failed += 1;
                }
            }
        }
    }
    tally
}

fn report(prog: &Program, file: nsd_lang::span::FileId, err: expect::ExpectError) {
    Failure::one(Failure::located(&prog.sources, file, err)).eprint();
}
