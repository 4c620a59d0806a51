//! Completion: inside an option block `{ … }`, the option names of its statement; elsewhere
//! the keywords, the names declared in the enclosing template, the file's templates and
//! the unit symbols.

use super::document::Document;
use super::names::{declarations, Kind};
use super::position::LineIndex;
use lsp_types::{CompletionItem, CompletionItemKind, Position};

/// Statement keywords of the grammar (`grammar/nsd.pest`).
const KEYWORDS: [&str; 30] = [
    "model",
    "component",
    "import",
    "param",
    "mass",
    "spring",
    "damper",
    "gap",
    "friction",
    "force",
    "base",
    "gravity",
    "damping",
    "beam",
    "matrices",
    "body",
    "joint",
    "use",
    "for",
    "in",
    "as",
    "by",
    "expect",
    "modes",
    "simulate",
    "sweep",
    "basins",
    "continue",
    "nsmodes",
    "ground",
];

/// Option names by statement, as the resolver and the analyses check them
/// (`lang::options::check_keys`, `analysis::options::OptionReader::new`).
const OPTIONS: [(&str, &[&str]); 16] = [
    ("spring", &["k", "k2", "k3"]),
    ("damper", &["c"]),
    ("gap", &["clearance", "sides", "law", "smooth", "tension"]),
    (
        "friction",
        &[
            "law",
            "force",
            "mu",
            "normal",
            "kt",
            "kn",
            "N0",
            "angle",
            "directions",
        ],
    ),
    ("mass", &["dofs"]),
    ("damping", &["alpha", "beta"]),
    ("matrices", &["M", "K", "C"]),
    (
        "beam",
        &[
            "E", "rho", "area", "I", "section", "length", "elements", "ends", "plane", "axial",
        ],
    ),
    (
        "body",
        &[
            "mass",
            "inertia",
            "at",
            "orientation",
            "velocity",
            "angular_velocity",
            "force",
            "force_at",
        ],
    ),
    (
        "joint",
        &[
            "at",
            "axis",
            "radius",
            "length",
            "clearance",
            "axial_clearance",
            "law",
            "mu",
        ],
    ),
    ("modes", &["count", "contacts"]),
    ("nsmodes", &["impacts", "period", "points", "show"]),
    (
        "simulate",
        &[
            "t", "x0", "v0", "rtol", "atol", "max_step", "method", "events", "output", "section",
            "reduce",
        ],
    ),
    (
        "basins",
        &[
            "grid",
            "fixed",
            "section",
            "transient",
            "keep",
            "max_period",
            "tol",
            "cell",
            "plot",
            "rtol",
            "atol",
            "events",
            "block",
        ],
    ),
    (
        "sweep",
        &[
            "param",
            "direction",
            "starts",
            "section",
            "transient",
            "settle",
            "keep",
            "max_period",
            "tol",
            "plot",
            "rtol",
            "atol",
            "events",
            "x",
            "y",
            "method",
            "cycles",
            "S",
            "engine",
            "missing",
        ],
    ),
    (
        "continue",
        &[
            "param",
            "harmonics",
            "samples",
            "excitation",
            "step",
            "min_step",
            "max_step",
            "max_points",
            "reduce",
        ],
    ),
];

/// Unit symbols (`lang::units::atom`).
const UNITS: [&str; 25] = [
    "kg", "g", "N", "kN", "MN", "mN", "Pa", "kPa", "MPa", "GPa", "m", "km", "cm", "mm", "um", "s",
    "ms", "us", "Hz", "kHz", "rpm", "rad", "deg", "J", "W",
];

/// The completions at `pos`.
pub fn complete(doc: &Document, pos: Position) -> Vec<CompletionItem> {
    let offset = LineIndex::new(&doc.text).offset(pos);
    if let Some(keys) = block_owner(&doc.text[..offset]).and_then(options_of) {
        return keys
            .iter()
            .map(|k| item(k, CompletionItemKind::PROPERTY))
            .collect();
    }
    let mut out: Vec<CompletionItem> = KEYWORDS
        .iter()
        .map(|k| item(k, CompletionItemKind::KEYWORD))
        .collect();
    if let Some(items) = doc.program.as_ref().and_then(|p| p.files.first()) {
        let decls = declarations(&items.items);
        let enclosing = decls.iter().position(|d| {
            d.parent.is_none() && (d.whole.start as usize..d.whole.end as usize).contains(&offset)
        });
        for d in decls
            .iter()
            .filter(|d| d.parent.is_none() || d.parent == enclosing)
        {
            let kind = match d.kind {
                Kind::Model | Kind::Component => CompletionItemKind::CLASS,
                Kind::Param => CompletionItemKind::CONSTANT,
                Kind::Analysis => continue,
                _ => CompletionItemKind::VARIABLE,
            };
            out.push(item(&d.name, kind));
        }
    }
    out.extend(UNITS.iter().map(|u| item(u, CompletionItemKind::UNIT)));
    out
}

fn item(label: &str, kind: CompletionItemKind) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        ..CompletionItem::default()
    }
}

/// The first word of the statement whose `{` is still open at the end of `before`.
fn block_owner(before: &str) -> Option<&str> {
    let mut depth = 0usize;
    for (i, c) in before.char_indices().rev() {
        match c {
            '}' => depth += 1,
            '{' if depth == 0 => {
                let line_start = before[..i].rfind('\n').map_or(0, |n| n + 1);
                return before[line_start..i].split_whitespace().next();
            }
            '{' => depth -= 1,
            _ => {}
        }
    }
    None
}

fn options_of(keyword: &str) -> Option<&'static [&'static str]> {
    OPTIONS.iter().find(|(k, _)| *k == keyword).map(|(_, o)| *o)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit list holds only symbols the unit parser knows.
    #[test]
    fn units_are_known() {
        for u in UNITS {
            assert!(crate::lang::units::atom(u).is_some(), "{u}");
        }
    }

    /// The keys a statement's unknown-option help lists (`the options of … are `a`, `b``).
    fn listed(statement: &str) -> Option<Vec<String>> {
        let text =
            format!("model m {{\n  mass m1 = 1\n  spring m1 -- ground {{ k = 1 }}\n{statement}");
        let prog = crate::lang::Program::from_source("<test>", &text, None).ok()?;
        let failure = match crate::lang::resolve(&prog, "m", &[]) {
            Err(f) => f,
            Ok(_) => {
                crate::analysis::run(&prog, prog.analyses.first()?, &[])
                    .err()?
                    .failure
            }
        };
        let help = failure.reports.first()?.help()?.to_string();
        let list = help.split(" are ").nth(1)?;
        Some(
            list.split(", ")
                .map(|k| k.trim_matches('`').to_string())
                .collect(),
        )
    }

    /// Every option the resolver or an analysis lists for a statement is offered by
    /// completion (the lists are read back from the unknown-option help; statements with
    /// more than a dozen options are not listed there and are skipped).
    #[test]
    fn every_listed_option_is_offered() {
        let statements = [
            ("spring", "  spring m1 -- ground { zzzz = 1 }\n}"),
            ("damper", "  damper m1 -- ground { zzzz = 1 }\n}"),
            ("gap", "  gap m1 -- ground { zzzz = 1 }\n}"),
            ("friction", "  friction m1 -- ground { zzzz = 1 }\n}"),
            ("mass", "  mass m2 = 1 { zzzz = 1 }\n}"),
            ("damping", "  damping rayleigh { zzzz = 1 }\n}"),
            ("matrices", "  matrices s { zzzz = 1 }\n}"),
            ("beam", "  beam b { zzzz = 1 }\n}"),
            ("body", "  body b { zzzz = 1 }\n}"),
            ("modes", "}\nmodes m { zzzz = 1 }"),
            ("nsmodes", "}\nnsmodes m { zzzz = 1 }"),
            ("simulate", "}\nsimulate m { zzzz = 1 }"),
            ("basins", "}\nbasins m { zzzz = 1 }"),
            ("sweep", "}\nsweep regimes m { zzzz = 1 }"),
            ("sweep", "}\nsweep bifurcation m { zzzz = 1 }"),
            ("continue", "}\ncontinue frf m { zzzz = 1 }"),
        ];
        let mut checked = 0;
        for (keyword, statement) in statements {
            let Some(keys) = listed(statement) else {
                continue;
            };
            let offered = options_of(keyword).unwrap_or_default();
            for k in &keys {
                assert!(
                    offered.contains(&k.as_str()),
                    "`{k}` of {keyword} is not offered"
                );
            }
            checked += 1;
        }
        assert!(
            checked >= 8,
            "only {checked} statements listed their options"
        );
    }

    #[test]
    fn option_block_owner() {
        assert_eq!(
            block_owner("model a {\n  spring m -- ground { k = 1, "),
            Some("spring")
        );
        assert_eq!(
            block_owner("model a {\n  spring m -- ground { k = 1 }\n  "),
            Some("model")
        );
        assert_eq!(
            block_owner("simulate a { t = 0..1, x0 = "),
            Some("simulate")
        );
    }
}
