//! The REPL driven programmatically through `Session` (string in, string out), plus one run
//! of the real binary with piped input.

use nsd::shell::repl::{complete, is_open, Session};
use std::io::Write;
use std::process::{Command, Stdio};

fn session_with(text: &str) -> Session {
    let mut s = Session::new();
    for line in text.lines() {
        s.eval(line);
    }
    s
}

const MODEL: &str = "model osc(k = 1) {\n  mass a = 1 kg\n  spring a -- ground { k = k }\n  gap stop: a -- ground { clearance = 0.1, law = linear(10) }\n}";

#[test]
fn multi_line_blocks_wait_for_the_closing_brace() {
    let mut s = Session::new();
    let r = s.eval("model osc(k = 1) {");
    assert!(r.more && r.text.is_empty());
    assert!(s.eval("  mass a = 1 kg").more);
    assert!(
        s.eval("  spring a -- ground { k = k }  # a comment with a { brace")
            .more
    );
    let r = s.eval("}");
    assert!(!r.more);
    assert!(r.text.contains("model osc: 1 DOFs"), "{}", r.text);
    assert_eq!(s.current_model(), Some("osc"));
}

#[test]
fn set_changes_what_show_reports() {
    let mut s = session_with(MODEL);
    assert!(s.eval(":show").text.contains("1.00000000"));
    assert_eq!(s.eval(":set k=4").text, "k = 4");
    assert!(s.eval(":show").text.contains("2.00000000"), "ω = √4");
    assert_eq!(s.eval(":show k").text, "k = 4");
    assert!(s
        .eval(":show stop")
        .text
        .starts_with("element stop: a -- ground"));
    assert!(s.eval(":unset k").text.contains("unset"));
    assert!(s.eval(":show").text.contains("1.00000000"));
}

#[test]
fn a_bad_line_reports_and_the_session_goes_on() {
    let mut s = session_with(MODEL);
    let r = s.eval("model bad { mass a = -1 }");
    assert!(r.text.contains("nsd::resolve::non_physical"), "{}", r.text);
    assert!(!r.quit);
    let r = s.eval("model worse { mass a = 1 spring a -- nowhere { k = 1 } }");
    assert!(r.text.contains("nsd::resolve::unknown_node"), "{}", r.text);
    let r = s.eval(":set Omega = =");
    assert!(r.text.contains("nsd::parse"), "{}", r.text);
    // The good model is still there.
    assert!(s.eval(":show osc").text.contains("model osc"));
    assert!(s.eval(":frobnicate").text.contains("unknown command"));
}

#[test]
fn analyses_run_when_typed_and_by_name() {
    let mut s = session_with(MODEL);
    let r = s.eval("modes osc as m1 { contacts = stuck }");
    assert!(r.text.contains("m1 (modes of osc)"), "{}", r.text);
    // Stuck: k + 10 = 11 → ω = √11.
    assert!(r.text.contains(&format!("{}", 11f64.sqrt())), "{}", r.text);
    assert!(s.eval(":run m1").text.contains("natural_frequencies"));
    assert!(s.eval(":run nope").text.contains("no analysis `nope`"));
    let r = s.eval("continue periodic osc { }");
    assert!(r.text.contains("nsd::analysis::bad_option"), "{}", r.text);
}

#[test]
fn models_can_be_redefined() {
    let mut s = session_with(MODEL);
    let r = s.eval("model osc { mass a = 4\n spring a -- ground { k = 1 } }");
    assert!(!r.text.contains("duplicate"), "{}", r.text);
    assert!(s.eval(":show").text.contains("0.50000000"));
}

#[test]
fn load_and_completion() {
    let mut s = Session::new();
    let r = s.eval(":load models/seed0/two_mass_freeplay.nsd");
    assert!(r.text.contains("two_mass_freeplay"), "{}", r.text);
    let words = s.completion_words();
    for w in [
        "freeplay",
        "Omega",
        "m1",
        "spring",
        ":show",
        "two_mass_freeplay",
        "continue frf",
    ] {
        assert!(words.iter().any(|x| x == w), "missing completion `{w}`");
    }
    let (start, c) = complete(&words, ":sh", 3);
    assert_eq!((start, c), (0, vec![":show".to_string()]));
    let (start, c) = complete(&words, "force m", 7);
    assert_eq!(start, 6);
    assert!(
        c.contains(&"m1".to_string())
            && c.contains(&"m2".to_string())
            && c.contains(&"mass".to_string())
    );
    let (_, c) = complete(&words, "x = Ome", 7);
    assert_eq!(c, vec!["Omega".to_string()]);
    assert!(s
        .eval(":load no/such.nsd")
        .text
        .contains("nsd::resolve::missing_file"));
}

#[test]
fn brace_counting_ignores_comments_and_strings() {
    assert!(is_open("model m {"));
    assert!(!is_open("model m { } # {"));
    assert!(!is_open("import \"{weird}.nsd\""));
    assert!(is_open("modes m { count = (1"));
}

#[test]
fn quit() {
    assert!(Session::new().eval(":quit").quit);
    assert!(Session::new().eval(":q").quit);
}

#[test]
fn the_binary_reads_piped_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nsd"))
        .args(["repl", "models/tour.nsd"])
        .env("NSD_HISTORY", std::env::temp_dir().join("nsd-test-history"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nsd runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b":help\n:models\n:run impact_chain\n:quit\n")
        .expect("write");
    let out = child.wait_with_output().expect("exits");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(":load FILE") && text.contains("impact_chain (modes of impact_chain)"),
        "{text}"
    );
}

#[test]
fn show_gives_the_rigid_body_warnings_of_check() {
    // A floating subsystem: the mass `extra` has no stiffness path to a support.
    let mut s = Session::new();
    s.eval(":load tests/models/substructure.nsd");
    let shown = s.eval(":show").text;
    assert!(shown.contains("warning[nsd::model::floating]"), "{shown}");
    // A mass on a purely cubic spring: the graph sees a stiffness path (k3 ≠ 0), so nothing
    // floats, but K is zero and its mode at ω = 0 is rigid. `nsd check` warns of it, and so
    // must `:show` (the same summary, `analysis::check`).
    let mut s =
        session_with("model cubic {\n  mass a = 1 kg\n  spring a -- ground { k = 0, k3 = 1 }\n}");
    let shown = s.eval(":show").text;
    assert!(
        shown.contains("warning[nsd::model::rigid_body_modes]: 1 rigid-body mode(s) at ω = 0"),
        "{shown}"
    );
}
