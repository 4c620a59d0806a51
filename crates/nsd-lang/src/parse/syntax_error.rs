//! pest errors → `ParseError`: the position of the first syntax error and the human names
//! of the rules pest expected there (`'{'`, "a statement", not `open_brace`).

use super::Rule;
use crate::diagnostics::ParseError;
use crate::span::{FileId, Span};
use pest::error::{Error, ErrorVariant, InputLocation};

/// Converts pest's error on `text` (file `file`) into a located "expected …" diagnostic.
pub(super) fn syntax_error(e: Error<Rule>, file: FileId, text: &str) -> ParseError {
    let (mut start, mut end) = match e.location {
        InputLocation::Pos(p) => (p, p),
        InputLocation::Span((a, b)) => (a, b),
    };
    // At the end of the text, point at its last visible character so the label shows.
    if start >= text.trim_end().len() && !text.trim_end().is_empty() {
        let last = text.trim_end().char_indices().last().map_or(0, |(i, _)| i);
        (start, end) = (
            last,
            last + text[last..].chars().next().map_or(1, char::len_utf8),
        );
    }
    let expected = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut names: Vec<&str> = positives
                .iter()
                .map(|r| rule_name(*r))
                .filter(|n| !n.is_empty())
                .collect();
            names.sort_unstable();
            names.dedup();
            match names.len() {
                0 => "something else".to_string(),
                1 => names[0].to_string(),
                n => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
            }
        }
        ErrorVariant::CustomError { message } => message.clone(),
    };
    let found = if end > start && start >= text.trim_end().len().saturating_sub(1) {
        "the text ends here"
    } else {
        "unexpected here"
    };
    ParseError::Syntax {
        expected,
        at: Span::new(file, start, end.max(start)),
        found: found.into(),
    }
}

/// Human names for grammar rules in "expected …" messages.
fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::file | Rule::item => "`model`, `component`, `import`, an analysis or `expect`",
        Rule::import => "`import`",
        Rule::model => "`model`",
        Rule::component => "`component`",
        Rule::analysis | Rule::analysis_kind => "an analysis (`modes`, `simulate`, ...)",
        Rule::param_list => "`(`",
        Rule::param_decl | Rule::ident | Rule::label => "a name",
        Rule::stmt
        | Rule::param_stmt
        | Rule::mass_stmt
        | Rule::element_stmt
        | Rule::force_stmt
        | Rule::base_stmt
        | Rule::gravity_stmt
        | Rule::damping_stmt
        | Rule::beam_stmt
        | Rule::matrices_stmt
        | Rule::body_stmt
        | Rule::joint_stmt
        | Rule::use_stmt
        | Rule::for_block => "a statement (`mass`, `spring`, `gap`, ...)",
        Rule::element_kind
        | Rule::kw_spring
        | Rule::kw_damper
        | Rule::kw_gap
        | Rule::kw_friction => "a statement (`mass`, `spring`, `gap`, ...)",
        Rule::family => "`[from..to]`",
        Rule::node_ref | Rule::segment | Rule::seg_number => "a node name",
        Rule::direction => "a direction (`x`, `y`, `z`, ...)",
        Rule::index => "`[`",
        Rule::for_clause => "`for`",
        Rule::options => "`{`",
        Rule::option => "an option `name = value`",
        Rule::value | Rule::sweep => "a value",
        Rule::range_tail => "`..`",
        Rule::expr | Rule::primary | Rule::neg => "an expression",
        Rule::op => "an operator",
        Rule::named => "a name or a call",
        Rule::call_args => "`(`",
        Rule::args | Rule::arg => "an argument",
        Rule::parens => "`(`",
        Rule::quantity | Rule::number => "a number",
        Rule::unit | Rule::unit_atom => "a unit",
        Rule::string | Rule::string_body => "a quoted string",
        Rule::kw_modes
        | Rule::kw_simulate
        | Rule::kw_sweep_regimes
        | Rule::kw_sweep_bifurcation
        | Rule::kw_basins
        | Rule::kw_continue_frf
        | Rule::kw_continue_periodic
        | Rule::kw_continue_backbone
        | Rule::kw_nsmodes => "an analysis keyword",
        Rule::link => "`--`",
        Rule::assign => "`=`",
        Rule::open_brace => "`{`",
        Rule::close_brace => "`}`",
        Rule::expect | Rule::kw_expect => "`expect`",
        Rule::expect_path => "a summary value (`analysis.key`)",
        Rule::expect_len => "`len(…)`",
        Rule::expect_index => "a list index (`1` the first, `-1` the last)",
        Rule::expect_value => "an expected number, `true`, `false` or a string",
        Rule::boolean => "`true` or `false`",
        Rule::pm => "`±`",
        Rule::tolerance => "a tolerance",
        Rule::percent => "`%`",
        Rule::WHITESPACE | Rule::unit_gap => "",
    }
}
