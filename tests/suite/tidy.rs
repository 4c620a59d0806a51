//! Tidiness of the source tree (after rust-analyzer's `tidy.rs`): every source file opens with
//! a `//!` line saying what it is, the crates depend on earlier stages only, and no modules
//! of a crate import each other round a loop.

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

/// The workspace's crates in pipeline order, each with its source folder: a crate may depend
/// on earlier ones only.
const STAGES: [(&str, &str); 7] = [
    ("nsd-lang", "crates/nsd-lang"),
    ("nsd-model", "crates/nsd-model"),
    ("nsd-solve", "crates/nsd-solve"),
    ("nsd-analysis", "crates/nsd-analysis"),
    ("nsd-io", "crates/nsd-io"),
    ("nsd-lsp", "crates/nsd-lsp"),
    ("nsd", "."),
];

/// Every source file of every crate, as (path from the repository root, text).
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for (_, dir) in STAGES {
        rust_files(&root.join(dir).join("src"), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(root)
                .expect("inside the repo")
                .to_string_lossy()
                .replace('\\', "/");
            let rel = rel.trim_start_matches("./").to_string();
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

/// A dependency a crate's manifest names: its table (`[dependencies]`,
/// `[dev-dependencies]`, …), its name, and whether it is a workspace crate (`path = …`).
#[derive(Debug, PartialEq)]
struct Dependency {
    table: String,
    name: String,
    workspace: bool,
}

/// Every dependency of every dependency table of a manifest, in order.
fn manifest_dependencies(manifest: &str) -> Vec<Dependency> {
    let mut out = Vec::new();
    let mut table = "";
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            table = line;
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        let name = name.trim().trim_end_matches(".workspace");
        if table.ends_with("dependencies]") && !name.starts_with('#') {
            out.push(Dependency {
                table: table.into(),
                name: name.into(),
                workspace: value.contains("path"),
            });
        }
    }
    out
}

/// Issue 44: each crate depends on earlier stages only (Cargo refuses a cycle; this refuses
/// an arrow that points up the pipeline), the language knows no linear algebra, and the
/// backends see the model only.
#[test]
fn crates_depend_on_earlier_stages_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let order = |name: &str| STAGES.iter().position(|(n, _)| *n == name);
    for (stage, (name, dir)) in STAGES.iter().enumerate() {
        let manifest = std::fs::read_to_string(root.join(dir).join("Cargo.toml"))
            .expect("every stage has a manifest");
        let deps = manifest_dependencies(&manifest);
        for dep in deps.iter().filter(|d| d.workspace) {
            let Some(at) = order(&dep.name) else {
                panic!(
                    "{name} depends on {}, which is not a stage of STAGES",
                    dep.name
                );
            };
            assert!(at < stage, "{name} depends on the later stage {}", dep.name);
        }
        if *name == "nsd-lang" {
            for la in ["nalgebra", "sprs", "sprs-ldl"] {
                assert!(!deps.iter().any(|d| d.name == la), "nsd-lang uses {la}");
            }
        }
        if *name == "nsd-solve" {
            let runtime: Vec<&str> = deps
                .iter()
                .filter(|d| d.workspace && d.table == "[dependencies]")
                .map(|d| d.name.as_str())
                .collect();
            assert_eq!(
                runtime,
                ["nsd-model"],
                "the backends consume the model only"
            );
        }
    }
}

#[test]
fn the_manifest_reader_tells_workspace_from_external_dependencies() {
    let manifest = "[package]\nname = \"x\"\n\n[dependencies]\nnsd-lang = { path = \"../nsd-lang\" }\n\
                    sprs.workspace = true\n\n[dev-dependencies]\nnsd-model = { path = \"../nsd-model\" }\n\
                    proptest = \"1\"\n";
    let dep = |table: &str, name: &str, workspace| Dependency {
        table: table.into(),
        name: name.into(),
        workspace,
    };
    assert_eq!(
        manifest_dependencies(manifest),
        [
            dep("[dependencies]", "nsd-lang", true),
            dep("[dependencies]", "sprs", false),
            dep("[dev-dependencies]", "nsd-model", true),
            dep("[dev-dependencies]", "proptest", false),
        ]
    );
}

#[test]
fn backends_never_see_the_ast() {
    for (path, text) in sources() {
        if path.starts_with("crates/nsd-solve/") || path.starts_with("crates/nsd-model/") {
            assert!(
                !text.contains("lang::ast"),
                "{path} uses the AST; backends consume `System`/`Model` only"
            );
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

/// The back-edges the layout once had, each asserted absent: the model layer borrowing the
/// language's front end (it takes the flat model and spans only), the REPL borrowing the
/// CLI's rendering, and the language's error types depending on the parser.
#[test]
fn the_removed_back_edges_stay_removed() {
    for (path, text) in sources() {
        let code: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        let uses = |needle: &str| code.iter().any(|l| l.contains(needle));
        if path.starts_with("crates/nsd-model/") {
            let front_end = code.iter().any(|l| {
                l.split("nsd_lang::").skip(1).any(|rest| {
                    !["flat", "time_fn", "span", "Model", "{flat, time_fn, Model}"]
                        .iter()
                        .any(|data| rest.starts_with(data))
                })
            });
            assert!(
                !front_end,
                "{path}: the model layer takes the flat model and spans from `nsd_lang`, \
                 nothing of its front end"
            );
        }
        if path == "src/shell/repl.rs" {
            assert!(
                !uses("crate::cli") && !uses("cli::"),
                "{path}: the REPL must not reach into the CLI (share `analysis::check`)"
            );
        }
        if path == "src/shell/cli.rs" {
            assert!(
                code.iter()
                    .filter(|l| l.contains("repl::"))
                    .all(|l| l.contains("repl::main")),
                "{path}: the CLI may only start the REPL, not borrow from it"
            );
        }
        if path == "crates/nsd-lang/src/diagnostics.rs" {
            assert!(
                !uses("super::parse") && !uses("lang::parse") && !uses("pest::"),
                "{path}: the error types must not depend on the parser (pest errors are \
                 converted in `parse`)"
            );
        }
    }
}

/// The source files of the crate in `dir` (as in `STAGES`) as modules of that crate, each
/// with its text.
fn modules_of(all: &[(String, String)], dir: &str) -> Vec<(Vec<String>, String)> {
    let src = format!("{dir}/src/").trim_start_matches("./").to_string();
    all.iter()
        .filter_map(|(path, text)| Some((graph::module_of(path.strip_prefix(&src)?), text.clone())))
        .collect()
}

/// Issue 44, item 2: in no crate do two sibling modules import each other, directly or round
/// a loop (`graph.rs`); there were 10 such loops in the one crate there was.
#[test]
fn the_module_graph_has_no_loops() {
    let all = sources();
    let mut loops = Vec::new();
    let mut arrow_count = 0;
    for (name, dir) in STAGES {
        let crate_sources = modules_of(&all, dir);
        let arrows = graph::sibling_arrows(&crate_sources);
        arrow_count += arrows.len();
        loops.extend(graph::loops(&arrows).into_iter().map(|l| (name, l)));
    }
    assert!(
        arrow_count > 100,
        "the graph was read: {arrow_count} arrows"
    );
    assert!(
        loops.is_empty(),
        "import loops among sibling modules:\n{loops:#?}"
    );
}

/// The analysis statements' modules in nsd-analysis: each reads its options, calls a
/// backend and builds its results, sharing readers through `options/` and drawing through
/// `branch_plot.rs`, never through another statement.
const STATEMENTS: [&str; 9] = [
    "basins",
    "continue_backbone",
    "continue_frf",
    "continue_periodic",
    "modes",
    "nsmodes",
    "simulate",
    "sweep_bifurcation",
    "sweep_regimes",
];

/// Issue 44, item 3: no analysis statement imports another (continue backbone once took its
/// balance from continue frf, basins its engine from sweep bifurcation, continue periodic its
/// plot and harmonic-balance curve from continue frf).
#[test]
fn no_analysis_statement_imports_another() {
    let crate_sources = modules_of(&sources(), "crates/nsd-analysis");
    for statement in STATEMENTS {
        assert!(
            crate_sources
                .iter()
                .any(|(m, _)| m.first().map(String::as_str) == Some(statement)),
            "the statement module {statement} exists (STATEMENTS is up to date)"
        );
    }
    let between: Vec<String> = graph::sibling_arrows(&crate_sources)
        .into_iter()
        .filter(|((from, to), _)| {
            from.len() == 1
                && to.len() == 1
                && STATEMENTS.contains(&from[0].as_str())
                && STATEMENTS.contains(&to[0].as_str())
        })
        .map(|((from, to), paths)| format!("{} → {}: {paths:?}", from[0], to[0]))
        .collect();
    assert!(
        between.is_empty(),
        "statements importing statements:\n{between:#?}"
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
