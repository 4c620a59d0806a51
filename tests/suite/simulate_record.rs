//! `simulate`'s `record` option: `data.csv` and the plots on the named DOFs only, in the
//! order given, with the very numbers of the full run's columns (a 1000-DOF model's every-step
//! output is gigabytes; its users record the contact DOF and a few others).

use crate::common::*;

/// Three masses in a chain, a free-play stop on the last, forced on the first.
const CHAIN: &str = "model chain3 {
  mass m1 = 1
  mass m2 = 1
  mass m3 = 1
  spring ground -- m1 { k = 1 }
  spring m1 -- m2 { k = 1 }
  spring m2 -- m3 { k = 1 }
  damper m2 -- ground { c = 0.05 }
  gap stop: m3 -- ground { clearance = 0.1, sides = both, law = linear(50) }
  force m1 = 0.3 * cos(0.9 * t)
}
";

#[test]
fn recorded_columns_are_the_full_runs_columns_in_the_order_given() {
    let text = format!(
        "{CHAIN}simulate chain3 as all {{ t = 0..30 }}\n\
         simulate chain3 as some {{ t = 0..30, record = (\"m3\", \"m1\") }}\n\
         simulate chain3 as one {{ t = 0..30, output = every(0.5), record = \"m2.x\" }}\n"
    );
    let (code, _, stderr, dir) = run_text(&text, "simulate_record/columns", &[]);
    assert_eq!(code, 0, "{stderr}");
    let (full_head, full) = read_csv(&dir.join("all/data.csv"));
    let (head, rows) = read_csv(&dir.join("some/data.csv"));
    assert_eq!(
        head,
        ["t [s]", "m3.x", "m1.x", "v(m3.x)", "v(m1.x)"],
        "the recorded DOFs in the order given"
    );
    let col = |name: &str| full_head.iter().position(|c| c == name).expect(name);
    let picked = [
        col("t [s]"),
        col("m3.x"),
        col("m1.x"),
        col("v(m3.x)"),
        col("v(m1.x)"),
    ];
    assert_eq!(rows.len(), full.len(), "the same samples");
    for (row, whole) in rows.iter().zip(&full) {
        let expected: Vec<f64> = picked.iter().map(|&j| whole[j]).collect();
        assert_eq!(row, &expected, "bit for bit the full run's numbers");
    }
    let (head, rows) = read_csv(&dir.join("one/data.csv"));
    assert_eq!(head, ["t [s]", "m2.x", "v(m2.x)"]);
    assert_eq!(rows.len(), 61, "every(0.5) over 0..30");
    let phase = std::fs::read_to_string(dir.join("some/phase.svg")).expect("phase.svg");
    assert!(
        phase.contains("phase portrait of m3.x"),
        "the first recorded DOF's portrait"
    );
}

#[test]
fn an_unknown_or_repeated_record_is_refused_before_the_run() {
    for (record, message) in [
        ("(\"m3\", \"m4\")", "`m4` is not a DOF of the model"),
        ("(\"m3\", \"m3.x\")", "`m3.x` is listed twice"),
        ("(\"m3\", 2)", "expected a DOF name in quotes"),
    ] {
        let text = format!("{CHAIN}simulate chain3 as bad {{ t = 0..1, record = {record} }}\n");
        let (code, _, stderr, _) = run_text(&text, "simulate_record/refused", &[]);
        assert_eq!(code, 1, "{stderr}");
        assert!(stderr.contains(message), "{record}: {stderr}");
        assert!(stderr.contains("nsd::analysis::bad_option"), "{stderr}");
    }
}

/// A conservative model keeps whole samples (its energy check reads them): `record` only
/// picks the columns, and the drift is the full run's.
#[test]
fn a_conservative_runs_record_keeps_its_energy_check() {
    let text = "model pair {
  mass m1 = 1
  mass m2 = 2
  spring ground -- m1 { k = 1 }
  spring m1 -- m2 { k = 3 }
  gap stop: m2 -- ground { clearance = 0.2, law = linear(40) }
}
simulate pair as all { t = 0..20, v0 = { m2 = 0.5 } }
simulate pair as some { t = 0..20, v0 = { m2 = 0.5 }, record = \"m2\" }
";
    let (code, stdout, stderr, dir) = run_text(text, "simulate_record/conservative", &["--json"]);
    assert_eq!(code, 0, "{stderr}");
    let drifts: Vec<f64> = stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
            v["summary"]["energy_drift"]
                .as_f64()
                .expect("a conservative run's drift")
        })
        .collect();
    assert_eq!(
        drifts[0], drifts[1],
        "the same drift with and without record"
    );
    let (full_head, full) = read_csv(&dir.join("all/data.csv"));
    let (head, rows) = read_csv(&dir.join("some/data.csv"));
    assert_eq!(head, ["t [s]", "m2.x", "v(m2.x)"]);
    let col = |name: &str| full_head.iter().position(|c| c == name).expect(name);
    for (row, whole) in rows.iter().zip(&full) {
        assert_eq!(row, &[whole[0], whole[col("m2.x")], whole[col("v(m2.x)")]]);
    }
}
