//! Each nonlinear element's state along a branch (`hb::ElementState`): its columns in a
//! table (a friction contact's fractions of the period stuck, slipping and separated, a gap's
//! fraction in contact) and its regime — which of those occur over the period — whose
//! changes between neighbouring points mark the transitions (stick → stick–slip, slip →
//! separation and back) in `continue frf` and `continue backbone`.

use crate::results::Cell;
use nsd_model::System;
use nsd_solve::hb::ElementState;

/// A fraction of the period at most this is absent from the regime (dimensionless): the
/// exact friction cycles' fractions are sums of event-time differences, exact to round-off
/// of the period (~1e-15); a sampled gap's resolution is 1/2048.
const ABSENT: f64 = 1e-12;

/// The columns of the elements of `sys` whose states are `states` (one point's, for their
/// kinds), in the system's order.
pub(crate) fn columns(sys: &System, states: &[ElementState]) -> Vec<String> {
    let mut c = Vec::new();
    for (e, state) in sys.nonlinear.iter().zip(states) {
        match state {
            ElementState::Friction(_) => {
                c.extend(["stuck", "slipping", "separated"].map(|s| format!("{} {s}", e.name)))
            }
            ElementState::Gap(_) => c.push(format!("{} contact", e.name)),
            ElementState::Smooth => {}
        }
    }
    c
}

/// One point's cells in the order of `columns`.
pub(crate) fn cells(states: &[ElementState]) -> Vec<Cell> {
    let mut row = Vec::new();
    for state in states {
        match state {
            ElementState::Friction(f) => row.extend(f.map(Cell::Num)),
            ElementState::Gap(g) => row.push(Cell::Num(*g)),
            ElementState::Smooth => {}
        }
    }
    row
}

/// What happens over the period: the phases present, joined by `-` (`stuck`,
/// `stuck-slipping`, `slipping-separated`, …; a gap is `open`, `impacting` or `closed`);
/// `None` for a smooth element.
fn regime(state: &ElementState) -> Option<String> {
    match state {
        ElementState::Friction(f) => {
            let present: Vec<&str> = ["stuck", "slipping", "separated"]
                .into_iter()
                .zip(f)
                .filter(|(_, share)| **share > ABSENT)
                .map(|(name, _)| name)
                .collect();
            Some(present.join("-"))
        }
        ElementState::Gap(g) if *g <= ABSENT => Some("open".into()),
        ElementState::Gap(g) if *g >= 1.0 - ABSENT => Some("closed".into()),
        ElementState::Gap(_) => Some("impacting".into()),
        ElementState::Smooth => None,
    }
}

/// The elements of `sys` whose regime differs between `before` and `after`, as
/// `name: old→new`.
pub(crate) fn transitions(
    sys: &System,
    before: &[ElementState],
    after: &[ElementState],
) -> Vec<String> {
    sys.nonlinear
        .iter()
        .zip(before.iter().zip(after))
        .filter_map(|(e, (a, b))| match (regime(a), regime(b)) {
            (Some(a), Some(b)) if a != b => Some(format!("{}: {a}→{b}", e.name)),
            _ => None,
        })
        .collect()
}
