//! The canonical layout of a token stream: indentation, spacing, blank lines, option blocks.
//!
//! Rules (documented for users in `docs/tooling.md`):
//! - two spaces per open bracket (`{`, `(`, `[`) at the line's start, one level less for a line
//!   that starts by closing one; a statement continued on the next line (the line ends in `,`,
//!   `=`, `--`, an operator, `in`, `by`, or the next starts with one, with `{` or with a
//!   trailing `for`) gets one more level;
//! - one space around `=`, `--`, `+-`, `±` and binary `+ - * /` (tight inside `[…]`), after
//!   `,` and `:`, inside `{ … }`; none around `.`, `..` and `^`, inside `( … )` and `[ … ]`,
//!   before `(`/`[` after a name, after a unary `-`; a trailing comment one space after the code;
//! - line breaks are the author's, except that blank lines collapse to one (none at the start
//!   or end of the file, after `{` or before `}`), and an option block the author broke across
//!   lines is joined onto one line when every break sits after `{` or `,` or before `}` and the
//!   joined line fits in `WIDTH` columns; otherwise its `{` ends a line and its `}` starts one.
//!   A line the author kept whole is never broken.
//! - aligned families (runs of like one-line statements) get extra spaces from `super::align`.

use super::lex::{lex, Kind, Token};

/// The line width under which a broken option block is joined, and which alignment never
/// pushes a line past (columns, indentation counted).
pub(super) const WIDTH: usize = 100;

/// Facts about each token that depend on the token sequence only, not on the line breaks.
pub(super) struct Facts {
    /// A `-` that negates (no left operand).
    unary: Vec<bool>,
    /// Inside an index `[ … ]` holding one binary operator (written tight: `x[i-1]`).
    square: Vec<bool>,
    /// For a `{`: the index of its `}`, and whether it opens a model, component or `for` body.
    brace: Vec<Option<(usize, bool)>>,
    /// Before each token: how many brackets are open, and whether the innermost is a body `{`
    /// or none (the top level), where statements, and so continuations, live.
    pub(crate) open: Vec<(usize, bool)>,
}

pub(super) fn is(t: &Token, s: &str) -> bool {
    t.kind == Kind::Punct && t.text == s
}

fn is_op(t: &Token) -> bool {
    t.kind == Kind::Punct && matches!(t.text.as_str(), "+" | "-" | "*" | "/" | "^")
}

/// Words after which an expression starts (so `-` is unary and `(` is spaced).
const EXPR_WORDS: [&str; 5] = ["in", "by", "for", "import", "expect"];

impl Facts {
    pub(super) fn of(toks: &[Token]) -> Facts {
        let n = toks.len();
        let (mut unary, mut brace) = (vec![false; n], vec![None; n]);
        let mut square: Vec<Option<bool>> = vec![None; n];
        let mut prev: Option<&Token> = None;
        let mut squares: Vec<usize> = Vec::new();
        let mut opens: Vec<(usize, bool)> = Vec::new();
        let mut line_head: Option<&Token> = None;
        for (i, t) in toks.iter().enumerate() {
            if t.kind == Kind::Comment {
                continue;
            }
            if i == 0 || t.breaks > 0 {
                line_head = Some(t);
            }
            unary[i] = is(t, "-")
                && !prev.is_some_and(|p| match p.kind {
                    Kind::Number | Kind::Str => true,
                    Kind::Word => !EXPR_WORDS.contains(&p.text.as_str()),
                    _ => is(p, ")") || is(p, "]"),
                });
            match t.text.as_str() {
                "[" if t.kind == Kind::Punct => squares.push(i),
                "]" if t.kind == Kind::Punct => {
                    if let Some(o) = squares.pop() {
                        let ops = (o..i).filter(|&j| is_op(&toks[j]) && !unary[j]).count();
                        for s in &mut square[o + 1..i] {
                            s.get_or_insert(ops <= 1);
                        }
                    }
                }
                "{" if t.kind == Kind::Punct => {
                    let body = line_head.is_some_and(|h| {
                        h.kind == Kind::Word
                            && matches!(h.text.as_str(), "model" | "component" | "for")
                    }) && opens.last().is_none_or(|o| o.1);
                    opens.push((i, body));
                }
                "}" if t.kind == Kind::Punct => {
                    if let Some((o, body)) = opens.pop() {
                        brace[o] = Some((i, body));
                    }
                }
                _ => {}
            }
            prev = Some(t);
        }
        let mut stack: Vec<bool> = Vec::new();
        let open = toks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let here = (stack.len(), stack.last().is_none_or(|&body| body));
                match t.text.as_str() {
                    _ if t.kind != Kind::Punct => {}
                    "{" => stack.push(brace[i].is_some_and(|b: (usize, bool)| b.1)),
                    "(" | "[" => stack.push(false),
                    "}" | ")" | "]" => {
                        stack.pop();
                    }
                    _ => {}
                }
                here
            })
            .collect();
        Facts {
            unary,
            square: square.into_iter().map(|s| s == Some(true)).collect(),
            brace,
            open,
        }
    }
}

/// The blanks between two tokens on one line.
pub(super) fn gap(toks: &[Token], i: usize, f: &Facts) -> &'static str {
    let (p, t) = (&toks[i - 1], &toks[i]);
    let wanted = gap_wanted(toks, i, f);
    // Two tokens written tight must lex back as the same two (`a` `b`, `-` `-`, `1` `.5`);
    // a path's `.` before a number (`fe.3`) is one by `lex`'s context rule.
    let path_number = is(p, ".") && t.text.starts_with(|c: char| c.is_ascii_digit());
    if wanted.is_empty() && !path_number && lex(&format!("{}{}", p.text, t.text)).len() != 2 {
        " "
    } else {
        wanted
    }
}

fn gap_wanted(toks: &[Token], i: usize, f: &Facts) -> &'static str {
    let (p, t) = (&toks[i - 1], &toks[i]);
    let unit_at = |j: usize| toks[j].kind == Kind::Number && toks[j].unit;
    let unit_before = unit_at(i - 1);
    if t.kind == Kind::Comment || (is(p, "{") && !is(t, "}")) || (is(t, "}") && !is(p, "{")) {
        return " ";
    }
    let closing = is(t, ")") || is(t, "]") || is(t, ",") || is(t, ":") || is(t, "%");
    if is(p, "(") || is(p, "[") || closing {
        return "";
    }
    if is(p, "{") || is(t, ".") || is(p, ".") || is(t, "..") || is(p, "..") {
        return "";
    }
    if is(t, "(") || is(t, "[") {
        let after_name = (p.kind == Kind::Word && !EXPR_WORDS.contains(&p.text.as_str()))
            || is(p, ")")
            || is(p, "]");
        return if after_name { "" } else { " " };
    }
    if f.unary[i - 1] {
        return "";
    }
    if is(t, "^") {
        return if unit_before { " " } else { "" };
    }
    if is(p, "^") {
        return if i >= 2 && unit_at(i - 2) { " " } else { "" };
    }
    if is_op(t) && !f.unary[i] && f.square[i] && !unit_before {
        return "";
    }
    if is_op(p) && !f.unary[i - 1] && f.square[i - 1] {
        return "";
    }
    " "
}

/// One output line: tokens `start..end` at `level` indentation steps.
pub(super) struct Line {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) level: usize,
    /// Whether it continues the statement of the line before (one level more).
    pub(crate) continued: bool,
}

/// Tokens that, ending a line, continue its statement on the next.
fn continues_after(t: &Token) -> bool {
    match t.kind {
        Kind::Punct => matches!(
            t.text.as_str(),
            "," | "=" | "--" | ".." | "+" | "-" | "*" | "/" | "^" | "+-" | "±" | ":"
        ),
        Kind::Word => matches!(t.text.as_str(), "in" | "by" | "as"),
        _ => false,
    }
}

/// Tokens that, starting a line, continue the statement of the line before.
fn continues_before(t: &Token, line: &[Token]) -> bool {
    match t.kind {
        Kind::Punct => matches!(
            t.text.as_str(),
            "{" | "=" | "--" | ".." | "+" | "-" | "*" | "/" | "^" | "+-" | "±"
        ),
        Kind::Word => {
            matches!(t.text.as_str(), "by" | "as")
                || (t.text == "for" && !line.iter().any(|x| is(x, "{")))
        }
        _ => false,
    }
}

/// The end (exclusive) of the line that starts at token `start`.
fn line_end(toks: &[Token], start: usize) -> usize {
    (start + 1..toks.len())
        .find(|&j| toks[j].breaks > 0)
        .unwrap_or(toks.len())
}

/// The line of tokens `start..end` with its indentation: the brackets open before it, one
/// less per bracket it starts by closing, one more if it continues a statement.
fn line(toks: &[Token], f: &Facts, start: usize, end: usize) -> Line {
    let line = &toks[start..end];
    let closers = line
        .iter()
        .take_while(|t| is(t, "}") || is(t, ")") || is(t, "]"))
        .count();
    let (depth, in_statements) = f.open[start];
    let last_code = toks[..start].iter().rev().find(|t| t.kind != Kind::Comment);
    let continued = in_statements
        && line[0].kind != Kind::Comment
        && closers == 0
        && (last_code.is_some_and(continues_after) || continues_before(&line[0], line));
    Line {
        start,
        end,
        level: depth.saturating_sub(closers) + usize::from(continued),
        continued,
    }
}

/// Splits the tokens into lines and gives each its indentation.
pub(super) fn lines(toks: &[Token], f: &Facts) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < toks.len() {
        let end = line_end(toks, start);
        out.push(line(toks, f, start, end));
        start = end;
    }
    out
}

/// Walks one line's text with its indentation, piece by piece: `emit(token, text)` with the
/// token index for the token's own text, `None` for blanks. `pad[i]` extra spaces go before
/// token `i` (alignment, `super::align`); an empty `pad` adds none.
fn walk_line(
    toks: &[Token],
    line: &Line,
    f: &Facts,
    pad: &[usize],
    mut emit: impl FnMut(Option<usize>, &str),
) {
    for _ in 0..line.level {
        emit(None, "  ");
    }
    for i in line.start..line.end {
        if i > line.start {
            emit(None, gap(toks, i, f));
            for _ in 0..pad.get(i).copied().unwrap_or(0) {
                emit(None, " ");
            }
        }
        emit(Some(i), &toks[i].text);
    }
}

/// One line's text with its indentation and alignment padding.
pub(super) fn render_line(toks: &[Token], line: &Line, f: &Facts, pad: &[usize], out: &mut String) {
    walk_line(toks, line, f, pad, |_, s| out.push_str(s));
}

/// The column (in characters) where each token of an unpadded line starts, and the line's
/// width.
pub(super) fn columns(toks: &[Token], line: &Line, f: &Facts) -> (Vec<usize>, usize) {
    let (mut cols, mut col) = (Vec::with_capacity(line.end - line.start), 0);
    walk_line(toks, line, f, &[], |tok, s| {
        if tok.is_some() {
            cols.push(col);
        }
        col += s.chars().count();
    });
    (cols, col)
}

/// Blank lines: at most one, none at the start, after `{` or before `}`.
pub(super) fn normalise_breaks(toks: &mut [Token]) {
    for i in 0..toks.len() {
        let cap = if i == 0 {
            0
        } else if is(&toks[i - 1], "{") || is(&toks[i], "}") {
            1
        } else {
            2
        };
        toks[i].breaks = toks[i].breaks.min(cap);
    }
}

/// Joins or opens each option block the author broke across lines, and opens each such body
/// (see the module doc).
pub(super) fn shape_blocks(toks: &mut [Token], f: &Facts) {
    let mut i = 0;
    while i < toks.len() {
        let Some((close, body)) = f.brace[i] else {
            i += 1;
            continue;
        };
        let inner = i + 1..=close;
        if !toks[inner.clone()].iter().any(|t| t.breaks > 0) {
            i = close + 1;
            continue;
        }
        let joinable = !body
            && !toks[i..=close].iter().any(|t| t.kind == Kind::Comment)
            && inner
                .clone()
                .all(|j| toks[j].breaks == 0 || is(&toks[j - 1], ",") || j == i + 1 || j == close);
        if joinable {
            let saved: Vec<usize> = toks[inner.clone()].iter().map(|t| t.breaks).collect();
            for t in &mut toks[inner.clone()] {
                t.breaks = 0;
            }
            if width_of_line_at(toks, f, i) <= WIDTH {
                i = close + 1;
                continue;
            }
            for (t, b) in toks[inner.clone()].iter_mut().zip(saved) {
                t.breaks = b;
            }
        }
        if toks.get(i + 1).is_some_and(|t| t.kind != Kind::Comment) {
            toks[i + 1].breaks = toks[i + 1].breaks.max(1);
        }
        toks[close].breaks = toks[close].breaks.max(1);
        i += 1;
    }
}

/// The rendered width (in characters, before alignment) of the line holding token `at`.
fn width_of_line_at(toks: &[Token], f: &Facts, at: usize) -> usize {
    let start = (1..=at).rev().find(|&j| toks[j].breaks > 0).unwrap_or(0);
    columns(toks, &line(toks, f, start, line_end(toks, start)), f).1
}
