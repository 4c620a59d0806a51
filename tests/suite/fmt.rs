//! `nsd fmt`: never changes meaning, is a fixed point, keeps the repository formatted.
//!
//! "Meaning" is checked by a second route, the whole front end through the binary: `nsd check
//! --json` of a file and of its formatted text (written beside it, so relative imports and
//! matrices still resolve) must print the same bytes, exit with the same code and report the
//! same diagnostic codes. Tolerance: none — the resolved model is compared exactly.

use crate::common::{nsd, root};
use nsd::lang::fmt::{format, FmtError};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn nsd_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("a test folder") {
        let p = e.expect("an entry").path();
        if p.is_dir() {
            nsd_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "nsd") {
            out.push(p);
        }
    }
}

/// The diagnostic codes in a stderr text, in order.
fn codes(stderr: &str) -> Vec<&str> {
    stderr
        .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
        .filter(|w| w.starts_with("nsd::"))
        .collect()
}

/// The records of `check --json` without what names the file or points into it: a failure's
/// `file` and `diagnostics` (miette's reports, with the file name and byte spans) differ
/// between a file and its formatted copy; its `error` and `code` must not.
fn meaning(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON record");
            if let Some(m) = v.as_object_mut() {
                m.remove("file");
                m.remove("diagnostics");
            }
            v
        })
        .collect()
}

/// `check --json` of `path` equals that of `formatted` written beside it; returns the exit code.
fn same_meaning(path: &Path, formatted: &str) -> i32 {
    let tmp = path.with_extension(format!("fmtcheck{}", std::process::id()));
    std::fs::write(&tmp, formatted).expect("the temporary file is written");
    let a = nsd(&["check", "--json", &path.display().to_string()]);
    let b = nsd(&["check", "--json", &tmp.display().to_string()]);
    std::fs::remove_file(&tmp).expect("the temporary file is removed");
    if a.2.contains("nsd::resolve::import_cycle") {
        // A copy beside a file in an import cycle is a different cycle.
        return a.0;
    }
    assert_eq!(a.0, b.0, "{}: exit codes differ", path.display());
    assert_eq!(
        meaning(&a.1),
        meaning(&b.1),
        "{}: check --json differs",
        path.display()
    );
    assert_eq!(
        codes(&a.2),
        codes(&b.2),
        "{}: diagnostics differ",
        path.display()
    );
    a.0
}

#[test]
fn every_repository_file_round_trips() {
    let mut files = Vec::new();
    for dir in ["models", "stdlib", "tests", "bench"] {
        nsd_files(&root().join(dir), &mut files);
    }
    let mut formatted = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a readable model");
        let out = match format(&text) {
            Ok(out) => out,
            // Deliberately malformed diagnostics files.
            Err(FmtError::Parse(_)) => continue,
            Err(FmtError::Changed) => panic!("{}: the layout changed the tokens", path.display()),
        };
        assert_eq!(
            format(&out).ok().as_deref(),
            Some(&*out),
            "{}: not a fixed point",
            path.display()
        );
        same_meaning(path, &out);
        formatted += 1;
    }
    assert!(formatted > 90, "only {formatted} files formatted");
}

/// Every file under models/, stdlib/ and tests/ is kept formatted, except the golden
/// diagnostics, whose caret lines point at columns and must keep their bytes.
#[test]
fn the_repository_is_formatted() {
    let (code, stdout, stderr) = nsd(&["fmt", "--check", "models", "stdlib", "tests/models"]);
    assert_eq!(
        code, 0,
        "run `nsd fmt models stdlib tests/models`:\n{stdout}{stderr}"
    );
}

#[test]
fn check_prints_a_diff_and_fails_then_fmt_rewrites() {
    let dir = std::env::temp_dir().join(format!("nsd-fmt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let file = dir.join("m.nsd");
    let file_s = file.display().to_string();
    std::fs::write(
        &file,
        "model m{mass a=1 kg\n\n\n\nspring ground--a{k=2*pi}   # soft\n}\n",
    )
    .expect("written");
    let (code, stdout, _) = nsd(&["fmt", "--check", &file_s]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("+  spring ground -- a { k = 2 * pi } # soft"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-spring ground--a{k=2*pi}   # soft"),
        "{stdout}"
    );
    let (code, _, stderr) = nsd(&["fmt", &file_s]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&file).expect("read back");
    assert_eq!(
        text,
        "model m {\n  mass a = 1 kg\n\n  spring ground -- a { k = 2 * pi } # soft\n}\n"
    );
    assert_eq!(nsd(&["fmt", "--check", &file_s]).0, 0);
    std::fs::write(&file, "model m { mass a = }\n").expect("written");
    let (code, _, stderr) = nsd(&["fmt", &file_s]);
    assert_eq!(code, 1);
    assert!(stderr.contains("nsd::parse::syntax"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "model m { mass a = }\n"
    );
    std::fs::remove_dir_all(&dir).expect("cleaned");
}

#[test]
fn layout_rules() {
    let cases = [
        // Option blocks broken at commas are joined when they fit…
        ("model m {\n mass a = 1\n spring a -- ground {\n k = 1,\n c = 2 }\n}\n",
         "model m {\n  mass a = 1\n  spring a -- ground { k = 1, c = 2 }\n}\n"),
        // …and left open (one `{` ending a line, `}` starting one) when not separated by commas.
        ("modes m { count = 2\n contacts = stuck }\n",
         "modes m {\n  count = 2\n  contacts = stuck\n}\n"),
        // Indices with one operator are tight, longer ones spaced; `^` and `.` tight; units
        // kept; the two springs are a family (`--` and `{` aligned).
        ("model m(n=3) { mass x [1 .. n] = 2kg\n spring x[i - 1]--x[ i ] { k = n ^ 2 * 1 N/m } for i in 2..n\n spring x[n*2/2] -- fe.3 {k=1} }\n",
         "model m(n = 3) {\n  mass x[1..n] = 2 kg\n  spring x[i-1]       -- x[i] { k = n^2 * 1 N/m } for i in 2..n\n  spring x[n * 2 / 2] -- fe.3 { k = 1 }\n}\n"),
        // Continuations get one more level; comments stay on their lines.
        ("model m {\n# first\nparam a = 1,\nb = 2 # two\nforce x = a\n* cos(t)\n}\n",
         "model m {\n  # first\n  param a = 1,\n    b = 2 # two\n  force x = a\n    * cos(t)\n}\n"),
        // A byte-order mark is dropped; an empty block is `{}`.
        ("\u{feff}model m {  }\n", "model m {}\n"),
        // Unary minus stays on its operand; a unit after a number keeps `^` spaced apart.
        ("model m { gravity = (0,-9.81 ,0)\n param q = -a - -b, r = 2 m ^ 2 }\n",
         "model m {\n  gravity = (0, -9.81, 0)\n  param q = -a - -b, r = 2 m ^ 2\n}\n"),
    ];
    for (input, want) in cases {
        assert_eq!(format(input).ok().as_deref(), Some(want), "input:\n{input}");
    }
}

/// An aligned example, as a golden: `=` of `param` and `mass` runs, `--` and `{` of element
/// runs, `=` of `expect` runs and the trailing comments of each run; a blank line, a comment
/// line, a continuation or another keyword ends a run.
const ALIGN_INPUT: &str = "# Aligned families.
model chain(n = 3, Omega = 1.2) {
param m = 1 kg # the masses
param k_long_name = 2 N/m, c = 0.01 # couplings
param f0 = 0.1 N
mass x[1..n] = m
mass tip = m / 2 # the end
spring ground -- x[1] { k = k_long_name } # clamp
spring x[i-1] -- x[i] { k = k_long_name, k3 = 0.1 N/m^3 } for i in 2..n
spring x[n] -- tip { k = k_long_name }
# the dissipation
damper ground -- x[1] { c = c }
damper x[n] -- tip { c = c / 2 } # weaker
gap stop: tip -- ground { clearance = 1 mm, law = linear(10) }
force tip = f0 * cos(Omega * t)
}

modes chain as open # contacts open
modes chain as stuck_modes { contacts = stuck }
simulate chain as run { t = 0..10, output = every(0.1) }
expect open.natural_frequencies[1] = 0.4 ± 10% # loose
expect open.dofs = 4
expect stuck_modes.dofs = 4 +- 0
";

#[test]
fn aligned_families_golden() {
    let out = format(ALIGN_INPUT).expect("formats");
    insta::assert_snapshot!(out);
    assert_eq!(
        format(&out).ok().as_deref(),
        Some(&*out),
        "not a fixed point"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Runs of statements with names of uneven widths (identifiers are ASCII: the unicode is
    /// in the trailing comments, where widths are counted in characters, not bytes), lines
    /// near and past the width limit: the output parses (checked inside `format`), is a fixed
    /// point, and no line is pushed past 100 columns by alignment.
    #[test]
    fn aligned_runs_are_fixed_points(
        rows in prop::collection::vec((1usize..30, 0usize..70, any::<bool>(), 0u8..3), 2..8),
    ) {
        let mut text = String::from("model m {\n");
        for (n, (name, extra, comment, kind)) in rows.iter().enumerate() {
            let id = format!("n{n}{}", "x".repeat(*name));
            let value = format!("1{}", " + 1".repeat(extra / 4));
            let line = match kind {
                0 => format!("param {id} = {value}"),
                1 => format!("mass {id} = {value}"),
                _ => format!("spring ground -- {id} {{ k = {value} }}"),
            };
            text.push_str(&line);
            if *comment {
                text.push_str(" # ω² ± β — note");
            }
            text.push('\n');
        }
        text.push_str("}\n");
        let out = format(&text).unwrap_or_else(|e| panic!("{e:?} on\n{text}"));
        prop_assert_eq!(format(&out).ok(), Some(out.clone()));
        for (line, orig) in out.lines().zip(std::iter::once("").chain(text.lines().skip(1))) {
            // Alignment never makes a line longer than the width unless it already was.
            let natural = orig.chars().count() + 2;
            prop_assert!(line.chars().count() <= 100.max(natural), "{}", out);
        }
    }
}

/// Fragments of a generated model: each is one or more whole tokens, so any blanks may go
/// between them.
fn generated_model(masses: usize, springs: Vec<(usize, usize, u8)>, seps: Vec<usize>) -> String {
    let mut frags: Vec<String> = vec![
        "model".into(),
        "gen".into(),
        "(".into(),
        "Omega".into(),
        "=".into(),
        "1.3".into(),
        ",".into(),
        "Q".into(),
        "=".into(),
        "0.1".into(),
        ")".into(),
        "{".into(),
        "param".into(),
        "k0".into(),
        "=".into(),
        "2 N/m".into(),
        ",".into(),
        "c0".into(),
        "=".into(),
        "(".into(),
        "0.01".into(),
        "+".into(),
        "-".into(),
        "1e-3".into(),
        ")".into(),
        "*".into(),
        "1 N*s/m".into(),
    ];
    for i in 1..=masses {
        frags.extend([
            "mass".into(),
            format!("m{i}"),
            "=".into(),
            format!("{i}.5 kg"),
        ]);
    }
    for (n, (a, b, kind)) in springs.into_iter().enumerate() {
        let (a, b) = (a % masses + 1, b % masses + 1);
        let b = if a == b {
            "ground".to_string()
        } else {
            format!("m{b}")
        };
        let mut s: Vec<String> = match kind % 3 {
            0 => vec!["spring".into(), format!("s{n}"), ":".into()],
            1 => vec!["damper".into()],
            _ => vec!["gap".into()],
        };
        s.extend([format!("m{a}"), "--".into(), b, "{".into()]);
        s.extend(match kind % 3 {
            0 => [
                "k",
                "=",
                "k0",
                "*",
                "(",
                "1",
                "+",
                "Omega",
                "^",
                "2",
                ")",
                ",",
                "k3",
                "=",
                "0.1 N/m^3",
            ]
            .map(String::from)
            .to_vec(),
            1 => ["c", "=", "c0"].map(String::from).to_vec(),
            _ => [
                "clearance",
                "=",
                "1 mm",
                ",",
                "law",
                "=",
                "linear",
                "(",
                "k0",
                ")",
            ]
            .map(String::from)
            .to_vec(),
        });
        s.push("}".into());
        frags.extend(s);
    }
    frags.extend(
        [
            "force", "m1", "=", "Q", "*", "cos", "(", "Omega", "*", "t", ")", "}",
        ]
        .map(String::from),
    );
    frags.extend(["modes", "gen", "as", "open", "{", "count", "=", "2", "}"].map(String::from));
    frags.extend(
        [
            "simulate",
            "gen",
            "as",
            "sim",
            "{",
            "t",
            "=",
            "0",
            "..",
            "10",
            "by",
            "0.5",
            ",",
            "output",
            "=",
            "every",
            "(",
            "0.5",
            ")",
            "}",
            "expect",
            "open",
            ".",
            "natural_frequencies",
            "[",
            "1",
            "]",
            "=",
            "-",
            "1.5",
            "±",
            "1e-3",
            "%",
            "expect",
            "sim",
            ".",
            "zeno",
            "=",
            "false",
            "expect",
            "open",
            ".",
            "dofs",
            "=",
            "1",
            "+-",
            "2",
        ]
        .map(String::from),
    );
    const SEPS: [&str; 8] = [
        " ",
        "  ",
        "\t",
        "\n",
        "\n\n\n",
        " # note\n",
        "\n# own line\n",
        " #\n",
    ];
    let mut text = String::new();
    for (i, f) in frags.iter().enumerate() {
        text.push_str(f);
        text.push_str(SEPS[seps.get(i).copied().unwrap_or(0) % SEPS.len()]);
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// 500 generated models with random blanks, line breaks and comments between tokens:
    /// the output parses, is a fixed point and resolves to the same model.
    #[test]
    fn generated_models_round_trip(
        masses in 1usize..4,
        springs in prop::collection::vec((0usize..4, 0usize..4, 0u8..3), 0..4),
        seps in prop::collection::vec(0usize..8, 170),
    ) {
        let text = generated_model(masses, springs, seps);
        let out = format(&text).unwrap_or_else(|e| panic!("{e:?} on\n{text}"));
        prop_assert_eq!(format(&out).ok(), Some(out.clone()));
        let dir = std::env::temp_dir().join(format!("nsd-fmt-prop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp folder");
        let path = dir.join("gen.nsd");
        std::fs::write(&path, &text).expect("written");
        // The generated models are valid: the comparison is of two resolved models.
        prop_assert_eq!(same_meaning(&path, &out), 0, "{}", text);
    }
}
