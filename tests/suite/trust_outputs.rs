//! Output a user reads without knowing Rust (issue 43, section 3): `meta.json` holds plain
//! JSON values, never a Rust `Debug` string (`section` was `"Stroboscopic { origin: 0.0,
//! period: 5.23 }"` in `basins` and `sweep bifurcation`); integer columns — counts, ids,
//! indices, 0/1 flags — are written `1`, not `1.0`, while floats keep their shortest
//! round-trip form (`1.0` stays `1.0` in a float column).
//!
//! One run of every analysis kind on the seed models, each made small (3 to 5 s in all),
//! is shared by the tests.

use crate::common::{nsd, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Every analysis kind on the seed models of `models/`, imported; grids and ranges cut
/// down, transients kept long enough that the basins find their two attractors.
fn seed_file() -> String {
    let import = |f: &str| format!("import \"{}\"\n", root().join("models").join(f).display());
    [
        "seed0/two_mass_freeplay.nsd",
        "seed1/ground_lower.nsd",
        "seed2/cylindrical_slider.nsd",
        "seed3/blade_damper_blade.nsd",
        "seed4/serial_impact.nsd",
    ]
    .map(import)
    .concat()
        + r#"
modes two_mass_freeplay
simulate two_mass_freeplay as sim { t = 0..20, section = stroboscopic }
sweep bifurcation two_mass_freeplay as bif_strobe { param = Omega in 1.2..1.3 by 0.1, section = stroboscopic(1), transient = 300, keep = 8 }
sweep bifurcation two_mass_freeplay as bif_cross { param = Omega in 1.2..1.3 by 0.1, section = crossing("v(m1)", 0, falling), transient = 300, keep = 8 }
basins two_mass_freeplay(Omega = 1.2) as basins { grid = { m1 = -1..1 by 1, v.m1 = -1..1 by 1 }, transient = 300 }
basins two_mass_freeplay(Omega = 1.2) as basins_cross { grid = { m1 = -1..1 by 1, v.m1 = -1..1 by 1 }, transient = 300, section = crossing("v(m1)", 0, falling) }
continue periodic two_mass_freeplay as periodic { param = Omega in 1.1..1.15, start = harmonic_balance, compare = (two_mass_freeplay_sigmoid, harmonic_balance) }
continue frf two_mass_freeplay as frf { param = Omega in 0.8..1.0, harmonics = 3 }
continue backbone blade_damper_blade(beta = 3e-6) as backbone { param = Omega in 1240..1380, level = 0.01..1, harmonics = 1 }
sweep regimes ground_lower as regimes { x = r1 in 0.5..1 by 0.5, y = beta in 0.2..0.4 by 0.2 }
simulate cylindrical_slider as push_ts { t = 0..1, method = timestepping, h_min = 1e-3, h_max = 1e-2, output = every(0.01) }
nsmodes serial_impact as one_impact { impacts = 1, period = 3.70..3.85, points = 400, show = at(3.79) }
nsmodes serial_impact as two_impacts { impacts = 2, period = 2.70..2.90, points = 400 }
"#
}

/// The number of analyses in `seed_file`.
const ANALYSES: usize = 13;

/// The results folder of one `nsd run` of `seed_file`.
fn outputs() -> &'static Path {
    static OUT: OnceLock<PathBuf> = OnceLock::new();
    OUT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("nsd-trust-outputs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temp folder");
        let file = dir.join("seeds.nsd");
        std::fs::write(&file, seed_file()).expect("written");
        let out = dir.join("out");
        let (code, stdout, stderr) = nsd(&[
            "run",
            &file.display().to_string(),
            "--out",
            &out.display().to_string(),
        ]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        out
    })
}

/// A string as Rust's `{:?}` writes a struct or an enum: `Name { field: … }`, `Some(…)`,
/// a capitalised name right before ` {` or `(`.
fn looks_like_debug(s: &str) -> bool {
    let braces = s
        .find("{ ")
        .and_then(|a| s[a..].find(" }").map(|b| &s[a..a + b]))
        .is_some_and(|inside| inside.contains(':'));
    let type_name = s.match_indices([' ', '(']).any(|(at, sep)| {
        let rest = &s[at..];
        if sep == " " && !rest.starts_with(" {") {
            return false;
        }
        let word: String = s[..at]
            .chars()
            .rev()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        word.starts_with(|c: char| c.is_ascii_uppercase())
            && word.chars().any(|c| c.is_ascii_lowercase())
    });
    braces || type_name
}

/// Every string value inside `v`, with its JSON path.
fn strings<'a>(v: &'a Value, path: String, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::String(s) => out.push((path, s)),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                strings(x, format!("{path}[{i}]"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                strings(x, format!("{path}.{k}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn the_debug_detector_catches_what_meta_json_held() {
    assert!(looks_like_debug(
        "Stroboscopic { origin: 0.0, period: 5.235987755982989 }"
    ));
    assert!(looks_like_debug(
        "Crossing { w: [(2, 1.0)], level: 0.0, direction: Falling }"
    ));
    assert!(looks_like_debug("Some(3)"));
    // What meta.json does hold: method descriptions, names, warnings.
    for fine in [
        "auto: DOP853 (7th-order dense output), RODAS on segments Hairer's stiffness test finds stiff; events by Bernstein root isolation",
        "exact",
        "v(m1.x)",
        "joint `rod`: `method = timestepping` treats its compliant law as a rigid, inelastic contact (the paper's)",
    ] {
        assert!(!looks_like_debug(fine), "{fine}");
    }
}

#[test]
fn no_meta_json_holds_a_rust_debug_string() {
    let mut metas = Vec::new();
    for entry in std::fs::read_dir(outputs()).expect("the results folder") {
        let meta = entry.expect("an entry").path().join("meta.json");
        let text = std::fs::read_to_string(&meta).expect("every analysis writes meta.json");
        let v: Value = serde_json::from_str(&text).expect("valid JSON");
        let mut found = Vec::new();
        strings(&v, String::new(), &mut found);
        for (path, s) in found {
            assert!(!looks_like_debug(s), "{}: {path} = {s:?}", meta.display());
        }
        metas.push((meta, v));
    }
    assert_eq!(metas.len(), ANALYSES);
    // The section as a user reads it: its kind and the coordinate named as in the option.
    let section = |name: &str| {
        metas
            .iter()
            .find(|(p, _)| p.parent().and_then(Path::file_name) == Some(name.as_ref()))
            .map(|(_, v)| v["settings"]["section"].clone())
            .unwrap_or_else(|| panic!("no meta.json for {name}"))
    };
    let strobe = section("bif_strobe");
    assert_eq!(strobe["kind"], "stroboscopic", "{strobe}");
    // `stroboscopic(1)`: φ = 1 rad back from the section's origin, to round-off.
    let phase = strobe["phase"].as_f64().expect("a number");
    assert!((phase - 1.0).abs() <= 4.0 * f64::EPSILON, "{strobe}");
    for name in ["bif_cross", "basins_cross"] {
        let crossing = section(name);
        assert_eq!(crossing["kind"], "crossing", "{crossing}");
        assert_eq!(crossing["coordinate"], "v(m1.x)", "{crossing}");
        assert_eq!(crossing["direction"], "falling", "{crossing}");
        assert_eq!(crossing["level"], 0.0, "{crossing}");
    }
    assert_eq!(section("basins")["kind"], "stroboscopic");
    assert_eq!(section("basins")["phase"], 0.0);
}

/// The cells of a CSV line (quoted cells may hold commas).
fn cells(line: &str) -> Vec<String> {
    let (mut out, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    out.push(cell);
    out
}

#[test]
fn integer_columns_are_written_as_integers() {
    // Each column holds counts, ids, indices or 0/1 flags; a cell may also be empty (no
    // value: an aperiodic cycle, a failed cell), `NaN` (stability not judged) or a word of
    // the `period` column.
    let columns: [(&str, &[&str]); 17] = [
        ("modes/data.csv", &["mode"]),
        ("one_impact/data.csv", &["branch", "admissible"]),
        ("one_impact/orbits.csv", &["branch"]),
        ("two_impacts/data.csv", &["branch", "admissible"]),
        (
            "bif_strobe/values.csv",
            &["period", "section points", "transient periods"],
        ),
        (
            "bif_cross/values.csv",
            &["period", "section points", "transient periods"],
        ),
        ("basins/data.csv", &["attractor", "periods"]),
        ("basins/attractors.csv", &["id", "period", "cells"]),
        ("basins/section.csv", &["attractor"]),
        ("basins_cross/attractors.csv", &["id", "period", "cells"]),
        ("basins_cross/section.csv", &["attractor"]),
        (
            "periodic/data.csv",
            &["branch", "stable", "unstable", "switches"],
        ),
        ("periodic/compare.csv", &["stable"]),
        ("frf/data.csv", &["converged", "stable", "fold"]),
        ("backbone/data.csv", &["stage", "segment", "stable"]),
        ("regimes/data.csv", &["transient"]),
        ("push_ts/steps.csv", &["closed contacts", "trials"]),
    ];
    let words = ["", "NaN", "aperiodic", "failed"];
    for (file, names) in columns {
        let text = std::fs::read_to_string(outputs().join(file)).expect(file);
        let mut lines = text.lines();
        let header = cells(lines.next().expect("a header"));
        let rows: Vec<Vec<String>> = lines.map(cells).collect();
        for name in names {
            let i = header
                .iter()
                .position(|h| h == name)
                .unwrap_or_else(|| panic!("{file}: no column `{name}` in {header:?}"));
            let mut integers = 0;
            for row in &rows {
                let cell = row[i].as_str();
                if cell.parse::<u64>().is_ok() {
                    integers += 1;
                } else {
                    assert!(words.contains(&cell), "{file}: `{name}` holds {cell:?}");
                }
            }
            assert!(integers > 0, "{file}: `{name}` holds no integer");
        }
    }
    // A float column keeps `{:?}`'s form: ω₁ = 1 rad/s of the unit oscillator is `1.0`.
    let modes = std::fs::read_to_string(outputs().join("modes/data.csv")).expect("modes");
    assert_eq!(modes.lines().nth(1), Some("1,1.0,0.15915494309189535"));
}
