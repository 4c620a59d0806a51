//! Completion: inside an option block `{ … }`, the option names of its statement; elsewhere
//! the keywords, the names declared in the enclosing template, the file's templates and
//! the unit symbols.

use super::document::Document;
use super::names::{declarations, Kind};
use super::position::LineIndex;
use lsp_types::{CompletionItem, CompletionItemKind, Position};
use nsd_lang::ast::AnalysisKind;

/// Option names of the element and node statements, as the resolver checks them
/// (`lang::options::check_keys`); the analyses' come from `analysis::option_names`.
const ELEMENT_OPTIONS: [(&str, &[&str]); 10] = [
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
    ("body", &nsd_lang::resolve::BODY_OPTIONS),
    ("joint", &nsd_lang::resolve::JOINT_OPTIONS),
];

/// Unit symbols (`lang::units::atom`).
const UNITS: [&str; 25] = [
    "kg", "g", "N", "kN", "MN", "mN", "Pa", "kPa", "MPa", "GPa", "m", "km", "cm", "mm", "um", "s",
    "ms", "us", "Hz", "kHz", "rpm", "rad", "deg", "J", "W",
];

/// The completions at `pos`.
pub(crate) fn complete(doc: &Document, pos: Position) -> Vec<CompletionItem> {
    let offset = LineIndex::new(&doc.text).offset(pos);
    if let Some(keys) = block_head(&doc.text[..offset]).and_then(options_of) {
        return keys
            .iter()
            .map(|k| item(k, CompletionItemKind::PROPERTY))
            .collect();
    }
    // The statement keywords and each analysis kind's first word (`sweep`, `continue`, …).
    let mut words: Vec<&str> = nsd_lang::STATEMENT_KEYWORDS.to_vec();
    for kind in AnalysisKind::ALL {
        let first = kind.keyword().split(' ').next().unwrap_or_default();
        if !words.contains(&first) {
            words.push(first);
        }
    }
    let mut out: Vec<CompletionItem> = words
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

/// The words of the statement whose `{` is still open at the end of `before`, up to that
/// `{`, one space apart.
fn block_head(before: &str) -> Option<String> {
    let mut depth = 0usize;
    for (i, c) in before.char_indices().rev() {
        match c {
            '}' => depth += 1,
            '{' if depth == 0 => {
                let line_start = before[..i].rfind('\n').map_or(0, |n| n + 1);
                let words: Vec<&str> = before[line_start..i].split_whitespace().collect();
                return (!words.is_empty()).then(|| words.join(" "));
            }
            '{' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The option names of the statement that starts with `head`: an element's, or an
/// analysis's own list.
fn options_of(head: String) -> Option<&'static [&'static str]> {
    let first = head.split(' ').next()?;
    if let Some((_, keys)) = ELEMENT_OPTIONS.iter().find(|(k, _)| *k == first) {
        return Some(keys);
    }
    AnalysisKind::ALL
        .into_iter()
        .find(|k| head == k.keyword() || head.starts_with(&format!("{} ", k.keyword())))
        .map(nsd_analysis::option_names)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit list holds only symbols the unit parser knows.
    #[test]
    fn units_are_known() {
        for u in UNITS {
            assert!(nsd_lang::units::atom(u).is_some(), "{u}");
        }
    }

    /// The keys a statement's unknown-option help lists (`the options of … are `a`, `b``).
    fn listed(statement: &str) -> Option<Vec<String>> {
        let text =
            format!("model m {{\n  mass m1 = 1\n  spring m1 -- ground {{ k = 1 }}\n{statement}");
        let prog = nsd_lang::Program::from_source("<test>", &text, None).ok()?;
        let failure = match nsd_lang::resolve(&prog, "m", &[]) {
            Err(f) => f,
            Ok(_) => {
                nsd_analysis::run(&prog, prog.analyses.first()?, &[])
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
    /// completion (the lists are read back from the unknown-option help, which lists every
    /// option of the statement).
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
            ("continue", "}\ncontinue periodic m { zzzz = 1 }"),
            ("continue", "}\ncontinue backbone m { zzzz = 1 }"),
        ];
        let mut checked = 0;
        for (keyword, statement) in statements {
            let Some(keys) = listed(statement) else {
                continue;
            };
            let head = statement
                .lines()
                .find(|l| l.contains('{'))
                .and_then(|l| l.split('{').next())
                .map(|h| h.split_whitespace().collect::<Vec<_>>().join(" "))
                .unwrap_or_default();
            let offered = options_of(head).unwrap_or_default();
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
            block_head("model a {\n  spring m -- ground { k = 1, ").as_deref(),
            Some("spring m -- ground")
        );
        assert_eq!(
            block_head("model a {\n  spring m -- ground { k = 1 }\n  ").as_deref(),
            Some("model a")
        );
        assert_eq!(
            block_head("sweep  regimes a { x = r in 0..1, ").as_deref(),
            Some("sweep regimes a")
        );
        let offered = options_of("continue frf m".into()).expect("an analysis");
        assert!(offered.contains(&"reduce") && offered.contains(&"stability"));
    }
}
