//! Tidiness of the source tree (after rust-analyzer's `tidy.rs`): every `src` file opens with
//! a `//!` line saying what it is, and no stage imports a later one.

#[path = "tidy/graph.rs"]
mod graph;

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

/// Longest source file, in lines: past this a file holds more than one concept.
const MAX_FILE_LINES: usize = 600;

/// Longest function, in lines from `fn` to its closing brace (rustfmt layout).
const MAX_FN_LINES: usize = 120;

/// Files allowed past `MAX_FILE_LINES`, each with its reason (none today).
const LONG_FILES: &[(&str, &str)] = &[];

/// Functions (`path::name`) allowed past `MAX_FN_LINES`, each with its reason (none today).
const LONG_FUNCTIONS: &[(&str, &str)] = &[];

#[test]
fn no_file_is_over_the_size_limit() {
    let long: Vec<String> = sources()
        .into_iter()
        .filter(|(path, text)| {
            text.lines().count() > MAX_FILE_LINES && !LONG_FILES.iter().any(|(p, _)| p == path)
        })
        .map(|(path, text)| format!("{path}: {} lines", text.lines().count()))
        .collect();
    assert!(
        long.is_empty(),
        "split these files (> {MAX_FILE_LINES} lines) by concept, or list them with a reason \
         in LONG_FILES:\n{}",
        long.join("\n")
    );
}

/// Every function as (name, first line, length in lines): from a line whose code starts with
/// `fn` (after visibility and qualifiers) to the first line that is the same indentation
/// followed by `}`.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let mut rest = code;
        for prefix in [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "const ",
            "async ",
            "unsafe ",
        ] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        let Some(sig) = rest.strip_prefix("fn ") else {
            continue;
        };
        let name: String = sig
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        if let Some(end) = (i..lines.len()).find(|&j| lines[j] == close) {
            out.push((name, i + 1, end - i + 1));
        }
    }
    out
}

#[test]
fn no_function_is_over_the_size_limit() {
    let mut long = Vec::new();
    for (path, text) in sources() {
        for (name, line, len) in functions(&text) {
            let id = format!("{path}::{name}");
            if len > MAX_FN_LINES && !LONG_FUNCTIONS.iter().any(|(f, _)| *f == id) {
                long.push(format!("{path}:{line} `{name}`: {len} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "split these functions (> {MAX_FN_LINES} lines) along their steps, or list them with \
         a reason in LONG_FUNCTIONS:\n{}",
        long.join("\n")
    );
}

#[test]
fn function_lengths_are_measured() {
    let text = "fn a() {\n    x();\n}\n\nimpl B {\n    pub(crate) fn c(&self) {\n        y();\n        z();\n    }\n}\n";
    assert_eq!(
        functions(text),
        vec![("a".to_string(), 1, 3), ("c".to_string(), 6, 4)]
    );
}

/// The three back-edges the layout once had, each asserted absent: the model layer borrowing
/// the language's spans, the REPL borrowing the CLI's rendering, and the language's error
/// types depending on the parser.
#[test]
fn the_removed_back_edges_stay_removed() {
    for (path, text) in sources() {
        let code: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        let uses = |needle: &str| code.iter().any(|l| l.contains(needle));
        if path.starts_with("src/model/") {
            assert!(
                !uses("crate::lang"),
                "{path}: the model layer must not use `lang` (spans live in `crate::span`)"
            );
        }
        if path == "src/repl.rs" {
            assert!(
                !uses("crate::cli") && !uses("cli::"),
                "{path}: the REPL must not reach into the CLI (share `analysis::check`)"
            );
        }
        if path == "src/cli.rs" {
            assert!(
                code.iter()
                    .filter(|l| l.contains("repl::"))
                    .all(|l| l.contains("repl::main")),
                "{path}: the CLI may only start the REPL, not borrow from it"
            );
        }
        if path == "src/lang/diagnostics.rs" {
            assert!(
                !uses("super::parse") && !uses("lang::parse") && !uses("pest::"),
                "{path}: the error types must not depend on the parser (pest errors are \
                 converted in `parse`)"
            );
        }
    }
}

/// Issue 44, item 2: no two sibling modules import each other, directly or round a loop
/// (`graph.rs`); there were 10 such loops.
#[test]
fn the_module_graph_has_no_loops() {
    let sources: Vec<_> = sources()
        .into_iter()
        .map(|(path, text)| (graph::module_of(path.trim_start_matches("src/")), text))
        .collect();
    let arrows = graph::sibling_arrows(&sources);
    assert!(
        arrows.len() > 100,
        "the graph was read: {} arrows",
        arrows.len()
    );
    let loops = graph::loops(&arrows);
    assert!(
        loops.is_empty(),
        "import loops among sibling modules:\n{loops:#?}"
    );
}

/// The graph reader on a small tree: `use` trees with groups, `self` and renames, inline
/// paths, a child naming its parent (no arrow), and a path in a comment or a string (none).
#[test]
fn the_module_graph_reader_finds_a_loop_and_only_real_arrows() {
    let m = graph::module_of;
    let sources = vec![
        (m("a/mod.rs"), "mod x; mod y; pub use x::X;".to_string()),
        (m("a/x.rs"), "use super::{self, y::{Y as Why}};\n// crate::b::B\nfn f() { super::super::b::g(\"crate::c\"); }".to_string()),
        (m("a/y.rs"), "pub struct Y; fn h() -> crate::a::x::X { todo!() }".to_string()),
        (m("b.rs"), "pub fn g() {}".to_string()),
        (m("c.rs"), "use crate::a::X;".to_string()),
    ];
    let arrows = graph::sibling_arrows(&sources);
    let names: Vec<String> = arrows
        .keys()
        .map(|(a, b)| format!("{} → {}", a.join("::"), b.join("::")))
        .collect();
    assert_eq!(names, ["a → b", "a::x → a::y", "a::y → a::x", "c → a"]);
    let loops = graph::loops(&arrows);
    assert_eq!(loops.len(), 1, "{loops:?}");
    assert_eq!(loops[0].len(), 2, "{loops:?}");
}
