//! Options that used to change silently (issue 43, section 3): a `max_period` clamped to
//! `keep/2`, a section that is never met, a forcing period taken from the lowest frequency
//! alone, a `--set` value blamed on the file's default. The refusals themselves are golden
//! diagnostics (`basins_max_period_over_keep`, `basins_fixed_grid_coordinate`,
//! `basins_cell_zero`, `basins_incommensurate_forcing`, `section_level_not_finite`).

use crate::common;

use crate::common::{read_csv, run_json, run_text};
use serde_json::Value;
use std::f64::consts::TAU;

const OSCILLATOR: &str = "
model osc(Omega = 1.2) {
  mass m1 = 1
  spring m1 -- ground { k = 1 }
  damper m1 -- ground { c = 0.05 }
  force m1 = 0.3 * cos(Omega * t)
}
";

fn meta(dir: &std::path::Path, name: &str) -> Value {
    let text = std::fs::read_to_string(dir.join(name).join("meta.json")).expect("meta.json");
    serde_json::from_str(&text).expect("JSON")
}

/// `max_period` given alone raises `keep` to what the period needs (it was cut to 16 of
/// the 100 asked); `keep` given alone lowers the default `max_period` to `keep/2`.
#[test]
fn max_period_and_keep_agree() {
    let text = format!(
        "{OSCILLATOR}
basins osc as long {{ grid = {{ m1 = -1..1 by 1, v.m1 = -1..1 by 1 }}, max_period = 100, transient = 20 }}
basins osc as short {{ grid = {{ m1 = -1..1 by 1, v.m1 = -1..1 by 1 }}, keep = 6, transient = 20 }}
sweep bifurcation osc as diagram {{ param = Omega in 1.1..1.2 by 0.1, keep = 10, transient = 20 }}
"
    );
    let (code, _, stderr, dir) = run_text(&text, "trust_options_keep", &[]);
    assert_eq!(code, 0, "{stderr}");
    let settings = |name: &str| meta(&dir, name)["settings"].clone();
    assert_eq!(settings("long")["max_period"], 100);
    assert_eq!(settings("long")["keep"], 200);
    assert_eq!(settings("short")["max_period"], 3);
    assert_eq!(settings("short")["keep"], 6);
    assert_eq!(settings("diagram")["max_period"], 5);
}

/// A section the motion never meets writes no `section.csv` and says so; a stroboscopic
/// phase of 1e308 rad (which placed the first sample past the end of time) samples as its
/// value mod 2π does.
#[test]
fn sections_never_met_are_reported() {
    let text = format!(
        "{OSCILLATOR}
simulate osc as missed {{ t = 0..20, output = at(20), section = crossing(\"m1\", 10, rising) }}
simulate osc as huge_phase {{ t = 0..20, output = at(20), section = stroboscopic(1e308) }}
simulate osc as reduced_phase {{ t = 0..20, output = at(20), section = stroboscopic({}) }}
",
        1e308_f64.rem_euclid(TAU)
    );
    let runs = run_json(&text, "trust_options_section", &[]);
    let by_name = |n: &str| {
        runs.iter()
            .find(|r| r["name"] == n)
            .unwrap_or_else(|| panic!("{n} in {runs:?}"))
    };
    let missed = by_name("missed");
    assert_eq!(missed["summary"]["section_points"], 0);
    let dir = common::root().join("target/test-out/trust_options_section");
    let warnings = meta(&dir, "missed")["warnings"].to_string();
    assert!(warnings.contains("section was not met"), "{warnings}");
    assert!(!dir.join("missed/section.csv").exists());
    let huge = read_csv(&dir.join("huge_phase/section.csv"));
    let reduced = read_csv(&dir.join("reduced_phase/section.csv"));
    assert_eq!(huge.1.len(), 3, "{huge:?}");
    assert_eq!(huge, reduced);
}

/// Drive frequencies 2 and 3 rad/s repeat after 2π s, not after the faster's π s: the
/// stroboscopic samples fall at t = 0, 2π, 4π, 6π.
#[test]
fn forcing_period_is_common_to_every_frequency() {
    let text = "
model two {
  mass m1 = 1
  spring m1 -- ground { k = 1 }
  damper m1 -- ground { c = 0.05 }
  force m1 = 0.3 * cos(2 * t) + 0.3 * cos(3 * t)
}
simulate two as strobe { t = 0..20, output = at(20), section = stroboscopic }
";
    let (code, _, stderr, dir) = run_text(text, "trust_options_forcing", &[]);
    assert_eq!(code, 0, "{stderr}");
    let (header, rows) = read_csv(&dir.join("strobe/section.csv"));
    assert_eq!(header[0], "t [s]");
    let times: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(times.len(), 4, "{times:?}");
    for (k, t) in times.iter().enumerate() {
        assert!((t - k as f64 * TAU).abs() < 1e-12, "{times:?}");
    }
}

/// `--set Omega=1/0` is refused on the value given, not on the model's default it would
/// replace.
#[test]
fn set_values_are_checked_where_given() {
    let (code, _, stderr, _) = run_text(OSCILLATOR, "trust_options_set", &["--set", "Omega=1/0"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("nsd::resolve::non_finite"), "{stderr}");
    assert!(stderr.contains("1/0"), "{stderr}");
    assert!(!stderr.contains("Omega = 1.2"), "{stderr}");
}
