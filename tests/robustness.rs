//! Property tests: random and mutated model texts go through parse → resolve → assemble →
//! modes without a panic (bounded case count; `fuzz/` has the long-running target).

use proptest::prelude::*;

const SEED: &str = r#"
model two_mass(m = 1, k = 1, a = 0.05) {
  param c = 0.02, Omega = 1.2
  mass m1 = m
  mass m2 = 2 kg { dofs = (x, y) }
  spring ground -- m1 { k = k, k3 = 0.1 }
  spring m1 -- m2.x { k = 0.5 N/m }
  damper m1 -- m2.x { c = c }
  gap g: m1 -- ground { clearance = a, sides = both, law = linear(10), smooth = sigmoid(1.5e3) }
  friction f: m2.y -- ground { mu = 0.3, normal = 1 }
  force m1 = 0.1 * cos(Omega * t)
  base = 0.01 * sin(2 * t)
}
component absorber(host, m = 0.1, k = 1) {
  mass a = m
  spring host -- a { k = k }
}
model chain(n = 4) {
  mass x[1..n] = 1 / n
  spring ground -- x[1] { k = n }
  spring x[i-1] -- x[i] { k = n } for i in 2..n
  use absorber as t(host = x[n])
  gap stop: x[n] -- ground { clearance = 1, law = impact(e = 0.8) }
  beam b { E = 210 GPa, rho = 7.8e3, section = rect(0.02, 0.01), length = 1, elements = 3 }
}
modes chain { count = 3 }
"#;

/// Texts whose integer literals stay small, so that a mutated bound cannot ask for a
/// billion masses (that is a diagnosed limit, but slow to reach in a unit test).
fn small_numbers(text: &str) -> bool {
    let mut run = 0;
    for c in text.chars() {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        if run > 3 {
            return false;
        }
    }
    true
}

const MUTATION_CHARS: [char; 22] = [
    '{', '}', '(', ')', '-', '.', '=', ',', '[', ']', 'x', '1', '0', ' ', '\n', '#', '"', '^', '/',
    '*', 'e', 't',
];

fn mutate(text: &str, edits: &[(usize, u8, char)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(pos, op, c) in edits {
        if chars.is_empty() {
            break;
        }
        let i = pos % chars.len();
        match op % 3 {
            0 => {
                chars.remove(i);
            }
            1 => chars.insert(i, c),
            _ => chars[i] = c,
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_models_never_panic(edits in proptest::collection::vec((0usize..10_000, 0u8..3, proptest::sample::select(MUTATION_CHARS.to_vec())), 1..6)) {
        let text = mutate(SEED, &edits);
        if small_numbers(&text) {
            nsd::check_text(&text);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        nsd::check_text(&text);
    }
}

#[test]
fn the_seed_text_resolves() {
    assert!(
        small_numbers(SEED),
        "the mutation test would skip every case"
    );
    assert_eq!(nsd::check_text(SEED), 2);
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let text = format!(
        "model m {{ param a = {}1{} }}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert_eq!(nsd::check_text(&text), 0);
}

/// One-DOF models (every wall kind of a Coulomb contact, every gap law, a Jenkins element)
/// and models without elements or without DOFs: each is run through every analysis kind.
const SMALL_MODELS: &[(&str, &str)] = &[
    (
        "coulomb_ground",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n friction f: m1 -- ground { force = beta }\n force m1 = cos(Omega * t)",
    ),
    (
        "coulomb_ground_base_motion",
        "mass m1 = 1\n spring base -- m1 { k = 1 }\n friction f: m1 -- ground { force = beta }\n base = cos(r1 * t)",
    ),
    (
        "coulomb_base_wall",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n friction f: m1 -- base { force = beta }\n base = cos(r1 * t)",
    ),
    (
        "jenkins",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n friction f: m1 -- ground { law = jenkins, kt = 2, force = beta }\n force m1 = cos(Omega * t)",
    ),
    (
        "gap_linear",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n gap g: m1 -- ground { clearance = 0.1, sides = both, law = linear(10) }\n force m1 = 0.3 * cos(Omega * t)",
    ),
    (
        "gap_smoothed",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n gap g: m1 -- ground { clearance = 0.1, law = linear(10), smooth = sigmoid(100) }\n force m1 = 0.3 * cos(Omega * t)",
    ),
    (
        "gap_hertz",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n gap g: m1 -- ground { clearance = 0.1, law = hertz(10) }\n force m1 = 0.3 * cos(Omega * t)",
    ),
    (
        "gap_kelvin_voigt",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n gap g: m1 -- ground { clearance = 0.1, law = kelvin_voigt(10, 0.1) }\n force m1 = 0.3 * cos(Omega * t)",
    ),
    (
        "gap_hunt_crossley",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n gap g: m1 -- ground { clearance = 0.1, law = hunt_crossley(10, 0.8) }\n force m1 = 0.3 * cos(Omega * t)",
    ),
    (
        "gap_lankarani_nikravesh",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n gap g: m1 -- ground { clearance = 0.1, law = lankarani_nikravesh(10, 0.8) }\n force m1 = 0.3 * cos(Omega * t)",
    ),
    (
        "gap_impact",
        "mass m1 = 1\n spring ground -- m1 { k = 1 }\n gap g: m1 -- ground { clearance = 0.1, law = impact(e = 0.8) }\n force m1 = 0.3 * cos(Omega * t)",
    ),
    // A Jenkins element and a Coulomb contact on one mass: while both hold, the stick-break
    // margin is identically zero over a step (the event search once subdivided it to its
    // budget at every minimal step: a hang drawn by the test below).
    (
        "jenkins_and_coulomb",
        "mass m1 = 1\n friction j: m1 -- ground { law = jenkins, kt = 3, force = beta }\n friction c: ground -- m1 { force = beta }\n force m1 = cos(Omega * t)\n base = 0.1 * cos(r1 * t)",
    ),
    // A 2-D friction contact whose normal is free: stick, slip, separation and touch-down.
    (
        "contact2d",
        "mass p = 1 { dofs = (x, y) }\n spring ground -- p.x { k = 1 }\n spring ground -- p.y { k = 1 }\n friction c: p -- ground { law = contact2d, kt = 3, kn = 5, mu = 0.3, N0 = beta, angle = 0.2 }\n force p.x = cos(Omega * t)\n force p.y = 0.5 * sin(r1 * t)",
    ),
    ("mass_only", "mass m1 = 1"),
    ("free_mass_forced", "mass m1 = 1\n force m1 = cos(Omega * t)"),
    ("nothing", ""),
];

/// Every analysis kind with small options (`M` is the model's name).
const ANALYSES: &[&str] = &[
    "modes M",
    "modes M { contacts = stuck }",
    "simulate M { t = 0..2 }",
    "sweep regimes M { x = r1 in 0.5..1.5 by 0.5, y = beta in 0.2..0.6 by 0.2, cycles = 4 }",
    "continue frf M { param = Omega in 0.5..1.5, harmonics = 3, max_points = 200 }",
    "sweep bifurcation M { param = Omega in 1..2 }",
    "sweep bifurcation M { param = Omega in 1..2 by 0.5, transient = 4, keep = 4 }",
    "basins M { }",
    "continue periodic M { }",
    "continue backbone M { }",
    "nsmodes M { }",
    "nsmodes M { period = 1..4, points = 5 }",
    "nsmodes M { impacts = 3, period = 1..4, points = 3 }",
];

/// Every analysis kind on every small model: no panic, no abort, and every refusal or
/// failure a coded diagnostic (issue 21, item 1: a one-DOF `sweep regimes` panicked).
#[test]
fn every_analysis_on_one_dof_and_empty_models_is_a_result_or_a_coded_diagnostic() {
    for (name, body) in SMALL_MODELS {
        for analysis in ANALYSES {
            let text = format!(
                "model {name}(Omega = 1.2, r1 = 1, beta = 0.3) {{\n {body}\n}}\n{}\n",
                analysis.replace('M', name)
            );
            let outcome = std::panic::catch_unwind(|| {
                let prog = nsd::lang::Program::from_source("<small>", &text, None)
                    .expect("the small models parse");
                let a = prog.analyses.first().expect("one analysis");
                match nsd::analysis::run(&prog, a, &[]) {
                    Ok(_) => Vec::new(),
                    Err(e) => e.failure.codes(),
                }
            });
            let codes = outcome.unwrap_or_else(|_| panic!("panicked on:\n{text}"));
            assert!(
                codes.iter().all(|c| c.starts_with("nsd::")),
                "an uncoded refusal {codes:?} on:\n{text}"
            );
        }
    }
}

/// Elements a drawn model may hold, between node `A` and node `B` (a mass or a support).
const DRAWN_ELEMENTS: &[&str] = &[
    "spring A -- B { k = 1 }",
    "spring A -- B { k = 0.5, k3 = 0.2 }",
    "damper A -- B { c = 0.05 }",
    "gap LABEL: A -- B { clearance = 0.1, sides = both, law = linear(5) }",
    "gap LABEL: A -- B { clearance = 0.05, law = impact(e = 0.7) }",
    "gap LABEL: A -- B { clearance = 0.1, law = kelvin_voigt(20, 0.2) }",
    "friction LABEL: A -- B { force = beta }",
    "friction LABEL: A -- B { law = jenkins, kt = 3, force = beta }",
];

/// A drawn model: `n` masses, each element of `picks` (element, first node, second node;
/// nodes `0..n` are masses, `n` is ground, `n + 1` the base) and one harmonic force on a drawn
/// mass.
fn drawn_model(n: usize, picks: &[(usize, usize, usize)], forced: usize) -> String {
    let node = |i: usize| match i % (n + 2) {
        i if i < n => format!("m{i}"),
        i if i == n => "ground".to_string(),
        _ => "base".to_string(),
    };
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&format!("  mass m{i} = 1\n"));
    }
    for (j, &(e, a, b)) in picks.iter().enumerate() {
        // Two different nodes, at least one of them a mass.
        let first = a % (n + 2);
        let mut second = (first + 1 + b % (n + 1)) % (n + 2);
        if first >= n && second >= n {
            second = b % n;
        }
        let (a, b) = (node(first), node(second));
        let element = DRAWN_ELEMENTS[e % DRAWN_ELEMENTS.len()]
            .replace("LABEL", &format!("e{j}"))
            .replace('A', &a)
            .replace('B', &b);
        body.push_str(&format!("  {element}\n"));
    }
    body.push_str(&format!("  force m{} = cos(Omega * t)\n", forced % n));
    body.push_str("  base = 0.1 * cos(r1 * t)\n");
    format!("model drawn(Omega = 1.2, r1 = 1, beta = 0.3) {{\n{body}}}\n")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Drawn models of one to three masses with drawn elements, each run through a drawn
    /// analysis with small options: a result or coded diagnostics, never a panic.
    #[test]
    fn drawn_models_give_results_or_coded_diagnostics(
        n in 1usize..4,
        picks in proptest::collection::vec((0usize..64, 0usize..64, 0usize..64), 0..5),
        forced in 0usize..3,
        analysis in 0usize..ANALYSES.len(),
    ) {
        let text = format!("{}{}\n", drawn_model(n, &picks, forced), ANALYSES[analysis].replace('M', "drawn"));
        let outcome = std::panic::catch_unwind(|| {
            let Ok(prog) = nsd::lang::Program::from_source("<drawn>", &text, None) else {
                return vec!["nsd::parse".to_string()];
            };
            let Some(a) = prog.analyses.first() else {
                return Vec::new();
            };
            match nsd::analysis::run(&prog, a, &[]) {
                Ok(_) => Vec::new(),
                Err(e) => e.failure.codes(),
            }
        });
        let codes = outcome.unwrap_or_else(|_| panic!("panicked on:\n{text}"));
        prop_assert!(codes.iter().all(|c| c.starts_with("nsd::")), "uncoded {:?} on:\n{}", codes, text);
    }
}
