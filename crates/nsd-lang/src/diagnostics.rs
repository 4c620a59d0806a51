//! The language layer's errors: `nsd::parse::…` and `nsd::resolve::…`, each with a stable
//! code, a labelled span and a help line, plus the `Failure` bundle that carries them (with
//! their source text) to the shells.

use super::source::SourceMap;
use crate::span::{FileId, Span};
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, Report};
use thiserror::Error;

/// Syntax errors.
#[derive(Debug, Error, Diagnostic)]
pub enum ParseError {
    #[error("syntax error: expected {expected}")]
    #[diagnostic(
        code(nsd::parse::syntax),
        help("check the statement against docs/language.md; every statement starts with a keyword such as `mass`, `spring` or `param`")
    )]
    Syntax {
        expected: String,
        #[label("{found}")]
        at: Span,
        found: String,
    },
    #[error("unexpected text after the expression")]
    #[diagnostic(
        code(nsd::parse::trailing),
        help("a value is one expression, e.g. `--set Omega=1.3` or `--set k=2*pi`")
    )]
    Trailing {
        #[label("not part of the expression")]
        at: Span,
    },
    /// Nesting past `parse::limits`' bounds, refused before anything recursed that deep.
    #[error("{what} nested deeper than {limit} levels")]
    #[diagnostic(code(nsd::parse::too_deep), help("{help}"))]
    TooDeep {
        what: &'static str,
        limit: usize,
        #[label("{here}")]
        at: Span,
        here: String,
        help: String,
    },
}

/// One or more errors (and the source they point into), ready to render.
#[derive(Debug)]
pub struct Failure {
    pub reports: Vec<Report>,
}

impl Failure {
    pub fn one(report: Report) -> Self {
        Failure {
            reports: vec![report],
        }
    }

    /// Attaches the text of `file` to a diagnostic.
    pub fn located<E: Diagnostic + Send + Sync + 'static>(
        sources: &SourceMap,
        file: FileId,
        e: E,
    ) -> Report {
        Report::new(e).with_source_code(sources.named(file))
    }

    /// Prints every report to stderr (the shells' way of reporting a failure).
    pub fn eprint(&self) {
        for r in &self.reports {
            eprintln!("{r:?}");
        }
    }

    /// Renders every report without colour at width 80 (goldens, REPL, non-terminals).
    pub fn render_plain(&self) -> String {
        let handler =
            GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor()).with_width(80);
        let mut out = String::new();
        for r in &self.reports {
            // Writing into a String cannot fail.
            let _ = handler.render_report(&mut out, r.as_ref());
        }
        out
    }

    /// The stable codes of all reports, in order.
    pub fn codes(&self) -> Vec<String> {
        self.reports
            .iter()
            .map(|r| r.code().map(|c| c.to_string()).unwrap_or_default())
            .collect()
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for r in &self.reports {
            writeln!(f, "{r}")?;
        }
        Ok(())
    }
}

/// Name, option, unit and value errors found while resolving a model.
#[derive(Debug, Error, Diagnostic)]
pub enum ResolveError {
    #[error("unknown name `{name}`")]
    #[diagnostic(code(nsd::resolve::unknown_name), help("{help}"))]
    UnknownName {
        name: String,
        #[label("not a parameter, loop variable or constant here")]
        at: Span,
        help: String,
    },
    #[error("unknown node `{name}`")]
    #[diagnostic(code(nsd::resolve::unknown_node), help("{help}"))]
    UnknownNode {
        name: String,
        #[label("no mass, beam node or body of this name")]
        at: Span,
        help: String,
    },
    #[error("`{name}` is defined twice")]
    #[diagnostic(
        code(nsd::resolve::duplicate),
        help(
            "rename one of them; names of nodes, elements and parameters must be unique in a model"
        )
    )]
    Duplicate {
        name: String,
        #[label("second definition")]
        at: Span,
        #[label("first defined here")]
        first: Option<Span>,
    },
    #[error("unknown model or component `{name}`")]
    #[diagnostic(code(nsd::resolve::unknown_model), help("{help}"))]
    UnknownModel {
        name: String,
        #[label("not defined in this file or its imports")]
        at: Span,
        help: String,
    },
    #[error("`{name}` is not an option of {owner}")]
    #[diagnostic(code(nsd::resolve::unknown_option), help("{help}"))]
    UnknownOption {
        name: String,
        owner: String,
        #[label("unknown option")]
        at: Span,
        help: String,
    },
    #[error("{owner} needs the option `{name}`")]
    #[diagnostic(
        code(nsd::resolve::missing_option),
        help("add `{name} = …` to the options block; {hint}")
    )]
    MissingOption {
        name: String,
        owner: String,
        hint: String,
        #[label("declared here")]
        at: Span,
    },
    #[error("expected {expected}, found {found}")]
    #[diagnostic(code(nsd::resolve::wrong_type), help("{help}"))]
    WrongType {
        expected: String,
        found: String,
        #[label("this is {found}")]
        at: Span,
        help: String,
    },
    #[error("unit mismatch: {what} must be in {expected}, this is {found}")]
    #[diagnostic(code(nsd::resolve::unit_mismatch), help("write the value in {expected} (or a multiple such as k/M/G prefixes), or drop the unit"))]
    UnitMismatch {
        what: String,
        expected: String,
        found: String,
        #[label("has unit {found}")]
        at: Span,
    },
    #[error("{what}")]
    #[diagnostic(code(nsd::resolve::non_physical), help("{help}"))]
    NonPhysical {
        what: String,
        #[label("evaluates to {value}")]
        at: Span,
        value: f64,
        help: String,
    },
    #[error("{kind} connects `{node}` to itself")]
    #[diagnostic(
        code(nsd::resolve::self_loop),
        help("an element needs two different nodes (or one node and `ground`/`base`)")
    )]
    SelfLoop {
        kind: String,
        node: String,
        #[label("both ends are `{node}`")]
        at: Span,
    },
    #[error("`{node}` has no direction `{dir}`")]
    #[diagnostic(code(nsd::resolve::missing_direction), help("`{node}` moves along {dirs}; declare more with `mass {node} = … {{ dofs = (x, y) }}` or use one of those"))]
    MissingDirection {
        node: String,
        dir: String,
        dirs: String,
        #[label("not a DOF of `{node}`")]
        at: Span,
    },
    #[error("`{dir}` is not a direction")]
    #[diagnostic(
        code(nsd::resolve::unknown_direction),
        help("directions are x, y, z, rx, ry, rz, or 1, 2, … for imported matrices")
    )]
    UnknownDirection {
        dir: String,
        #[label("unknown direction")]
        at: Span,
    },
    #[error("{kind} between `{a}` and `{b}` could act along {dirs}")]
    #[diagnostic(
        code(nsd::resolve::ambiguous_direction),
        help("name the direction on an endpoint, e.g. `{a}.x -- {b}`")
    )]
    AmbiguousDirection {
        kind: String,
        a: String,
        b: String,
        dirs: String,
        #[label("which direction?")]
        at: Span,
    },
    #[error("import cycle: {chain}")]
    #[diagnostic(
        code(nsd::resolve::import_cycle),
        help(
            "remove one of the imports; a file may not import itself, directly or through others"
        )
    )]
    ImportCycle {
        chain: String,
        #[label("this import closes the cycle")]
        at: Span,
    },
    #[error("cannot read `{path}`: {reason}")]
    #[diagnostic(code(nsd::resolve::missing_file), help("paths are relative to the importing file; standard components live in stdlib/ ({stdlib})"))]
    MissingFile {
        path: String,
        reason: String,
        stdlib: String,
        #[label("file not found")]
        at: Span,
    },
    #[error("`{path}` is not UTF-8 text: byte 0x{byte:02x} at offset {offset} (line {line}, column {column})")]
    #[diagnostic(
        code(nsd::resolve::not_utf8),
        help("save the file as UTF-8 (most editors offer it under \"encoding\"); nsd reads UTF-8 only")
    )]
    NotUtf8 {
        path: String,
        byte: u8,
        offset: usize,
        line: usize,
        column: usize,
        #[label("imported here")]
        at: Option<Span>,
    },
    #[error("unknown function `{name}`")]
    #[diagnostic(code(nsd::resolve::unknown_function), help("{help}"))]
    UnknownFunction {
        name: String,
        #[label("not a function")]
        at: Span,
        help: String,
    },
    #[error("`{name}` takes {expected} argument(s), found {found}")]
    #[diagnostic(code(nsd::resolve::arity), help("call it as {usage}"))]
    Arity {
        name: String,
        expected: usize,
        found: usize,
        usage: String,
        #[label("wrong number of arguments")]
        at: Span,
    },
    #[error("time `t` is not defined here")]
    #[diagnostic(
        code(nsd::resolve::time_not_allowed),
        help(
            "`t` may appear only in `force` and `base` expressions; element values are constants"
        )
    )]
    TimeNotAllowed {
        #[label("`t` used in a constant")]
        at: Span,
    },
    #[error("expected an integer, found {value}")]
    #[diagnostic(
        code(nsd::resolve::not_integer),
        help("loop bounds, family ranges, indices and counts must evaluate to whole numbers")
    )]
    NotInteger {
        value: f64,
        #[label("not a whole number")]
        at: Span,
    },
    #[error("unknown {owner} `{name}`")]
    #[diagnostic(code(nsd::resolve::unknown_law), help("{help}"))]
    UnknownLaw {
        name: String,
        owner: String,
        #[label("unknown {owner}")]
        at: Span,
        help: String,
    },
    #[error("component parameter `{name}` has no value")]
    #[diagnostic(
        code(nsd::resolve::missing_argument),
        help("pass it at the `use` statement: `use {template} as … ({name} = …)`")
    )]
    MissingArgument {
        name: String,
        template: String,
        #[label("`{name}` not given")]
        at: Span,
    },
    #[error("`{name}` is not a parameter of `{template}`")]
    #[diagnostic(code(nsd::resolve::unknown_argument), help("{help}"))]
    UnknownArgument {
        name: String,
        template: String,
        #[label("unknown argument")]
        at: Span,
        help: String,
    },
    #[error("`{name}` is a {found}, not a {expected}")]
    #[diagnostic(code(nsd::resolve::wrong_template), help("{help}"))]
    WrongTemplate {
        name: String,
        found: String,
        expected: String,
        #[label("used as a {expected}")]
        at: Span,
        help: String,
    },
    #[error("`--set {name}`: the model has no parameter `{name}`")]
    #[diagnostic(code(nsd::resolve::unknown_override), help("{help}"))]
    UnknownOverride { name: String, help: String },
    /// A use of a mass or body whose declaration was refused: never reported (the refusal
    /// is the cause), it only stops the statement.
    #[error("follows from an earlier error")]
    #[diagnostic(code(nsd::resolve::follow_on))]
    FollowOn,
    #[error("value is not a finite number")]
    #[diagnostic(
        code(nsd::resolve::non_finite),
        help("check for division by zero, log or sqrt of a negative number, or overflow")
    )]
    NonFinite {
        #[label("evaluates to {value}")]
        at: Span,
        value: f64,
    },
    #[error("{what} cannot act on a support")]
    #[diagnostic(code(nsd::resolve::support_target), help("`ground` and `base` have no unknowns; apply it to a mass, or use `base = …` for base motion"))]
    SupportTarget {
        what: String,
        #[label("`{node}` is a support")]
        at: Span,
        node: String,
    },
    #[error("`{name}` is a built-in name")]
    #[diagnostic(
        code(nsd::resolve::reserved),
        help("`t` (time), `pi`, `ground` and `base` have fixed meanings; pick another name")
    )]
    Reserved {
        name: String,
        #[label("reserved")]
        at: Span,
    },
    #[error("the range {from}..{to} is empty")]
    #[diagnostic(
        code(nsd::resolve::empty_range),
        help("ranges are inclusive and count upwards: `1..n` needs n ≥ 1")
    )]
    EmptyRange {
        from: i64,
        to: i64,
        #[label("no values")]
        at: Span,
    },
    #[error("bad matrix file `{path}`: {reason}")]
    #[diagnostic(code(nsd::resolve::bad_matrix), help("give a MatrixMarket `coordinate real` file (general or symmetric) of the same size as the other matrices"))]
    BadMatrix {
        path: String,
        reason: String,
        #[label("loaded here")]
        at: Span,
    },
    #[error("a prismatic joint's `section` must be a convex polygon")]
    #[diagnostic(code(nsd::resolve::bad_geometry), help("list the slider's cross-section vertices in order round its boundary (either way), each a corner: no repeated vertex, no vertex on the line through its neighbours, no edges crossing; a concave section is not modelled (its vertex–face gaps hold for a convex one)"))]
    BadGeometry {
        what: String,
        #[label("{what}")]
        at: Span,
    },
    #[error("{what}")]
    #[diagnostic(code(nsd::resolve::invalid), help("{help}"))]
    Invalid {
        what: String,
        #[label("here")]
        at: Span,
        help: String,
    },
}

/// Most candidates `suggest` lists after its lead: a model may have thousands of DOFs or
/// parameters, and a help line is one line.
const LISTED_MAX: usize = 12;

/// "did you mean `x`?" from the closest candidate (Jaro–Winkler ≥ 0.8); otherwise the lead
/// followed by the candidates ("sides are `positive`, …"): all of them when there are at most
/// a dozen, else the dozen closest to `name` and how many there are, so that the lead never
/// ends the line on its own. A lead that does not end in "are" gets the list in parentheses.
pub fn suggest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    lead: &str,
) -> String {
    suggest_listing(name, candidates, lead, LISTED_MAX)
}

/// `suggest` listing every candidate: for a closed vocabulary such as a statement's option
/// names, whose whole list is the help (an analysis has up to 17 options).
pub(crate) fn suggest_every<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    lead: &str,
) -> String {
    suggest_listing(name, candidates, lead, usize::MAX)
}

/// `suggest` with at most `max` candidates listed.
fn suggest_listing<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    lead: &str,
    max: usize,
) -> String {
    let mut best: Option<(&str, f64)> = None;
    let mut all: Vec<(&str, f64)> = Vec::new();
    for c in candidates {
        let score = strsim::jaro_winkler(name, c);
        if score >= 0.8 && best.is_none_or(|(_, s)| score > s) {
            best = Some((c, score));
        }
        all.push((c, score));
    }
    if let Some((c, _)) = best {
        return format!("did you mean `{c}`?");
    }
    if all.is_empty() {
        return lead.to_string();
    }
    let total = all.len();
    if total > max {
        // The closest first; ties keep the candidates' order.
        all.sort_by(|a, b| b.1.total_cmp(&a.1));
        all.truncate(max);
    }
    let mut shown: Vec<&str> = all.into_iter().map(|(c, _)| c).collect();
    shown.sort_unstable();
    let mut list = shown
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if total > shown.len() {
        list.push_str(&format!(", … ({total} in all)"));
    }
    if lead.ends_with(" are") {
        format!("{lead} {list}")
    } else {
        format!("{lead} (known: {list})")
    }
}
