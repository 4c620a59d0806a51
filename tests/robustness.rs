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
