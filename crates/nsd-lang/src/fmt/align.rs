//! Aligned families: consecutive one-line statements of one kind get their corresponding
//! columns aligned, as gofmt aligns runs of assignments and their trailing comments.
//!
//! Rules (documented for users in `docs/tooling.md`):
//! - a *family* is a run of two or more consecutive lines, with no blank line and no
//!   comment-only line between them, each holding one whole statement that starts with the
//!   same keyword at the same indentation: not a continuation line, not continued on the next
//!   line, every bracket it opens closed on it, not inside a broken option block;
//! - a line's *anchors*, left to right: the first `=` or `--` outside brackets (if it comes
//!   before any `{`), the first `{` outside brackets, a trailing comment;
//! - each kind of anchor, in that order, moves right to the column of the rightmost anchor of
//!   that kind among the family's lines having it (spaces added before it, so a later anchor's
//!   column counts the padding before it);
//! - a line that alignment would push past `WIDTH` columns is left unaligned, and the rest of
//!   its family aligned without it.
//!
//! Alignment only widens a blank the layout already puts before the anchor, so the tokens and
//! the parse are untouched (`super::format` checks both), and it is a fixed point: the padding
//! depends only on the tokens and the line breaks, which formatting keeps.

use super::layout::{columns, gap, is, Facts, Line, WIDTH};
use super::lex::{Kind, Token};

/// The anchor kinds, in the order they are aligned (and appear on a line).
const KINDS: [&str; 4] = ["=", "--", "{", "#"];

/// One line of a family: its unpadded token columns, width and anchors (token index per kind).
struct Member {
    start: usize,
    cols: Vec<usize>,
    width: usize,
    anchors: [Option<usize>; 4],
}

/// Extra spaces before each token (indexed like `toks`) that align every family.
pub(super) fn pads(toks: &[Token], lines: &[Line], f: &Facts) -> Vec<usize> {
    let mut pad = vec![0; toks.len()];
    let mut i = 0;
    while i < lines.len() {
        let Some(key) = family_key(toks, lines, i, f) else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < lines.len()
            && toks[lines[j].start].breaks == 1
            && family_key(toks, lines, j, f) == Some(key)
        {
            j += 1;
        }
        if j - i >= 2 {
            let members: Vec<Member> = lines[i..j].iter().map(|l| member(toks, l, f)).collect();
            align_family(&members, &mut pad);
        }
        i = j;
    }
    pad
}

/// The keyword and indentation of line `n` if it may belong to a family.
fn family_key<'a>(
    toks: &'a [Token],
    lines: &[Line],
    n: usize,
    f: &Facts,
) -> Option<(&'a str, usize)> {
    let line = &lines[n];
    let first = &toks[line.start];
    let next_continues = lines.get(n + 1).is_some_and(|l| l.continued);
    if first.kind != Kind::Word || line.continued || next_continues || !f.open[line.start].1 {
        return None;
    }
    let mut depth = 0usize;
    for t in &toks[line.start..line.end] {
        if is(t, "{") || is(t, "(") || is(t, "[") {
            depth += 1;
        } else if is(t, "}") || is(t, ")") || is(t, "]") {
            depth = depth.checked_sub(1)?;
        }
    }
    (depth == 0).then_some((first.text.as_str(), line.level))
}

/// A family line with its anchors: tokens outside brackets, each widening a blank.
fn member(toks: &[Token], line: &Line, f: &Facts) -> Member {
    let (cols, width) = columns(toks, line, f);
    let mut anchors = [None; 4];
    let mut depth = 0usize;
    for i in line.start + 1..line.end {
        let t = &toks[i];
        let spaced = !gap(toks, i, f).is_empty();
        if t.kind == Kind::Comment {
            anchors[3] = Some(i);
        } else if depth == 0 && spaced && t.kind == Kind::Punct {
            let brace_seen = anchors[2].is_some();
            match t.text.as_str() {
                "=" | "--" if !brace_seen && anchors[0].is_none() && anchors[1].is_none() => {
                    anchors[usize::from(t.text == "--")] = Some(i);
                }
                "{" if !brace_seen => anchors[2] = Some(i),
                _ => {}
            }
        }
        if is(t, "{") || is(t, "(") || is(t, "[") {
            depth += 1;
        } else if is(t, "}") || is(t, ")") || is(t, "]") {
            depth = depth.saturating_sub(1);
        }
    }
    Member {
        start: line.start,
        cols,
        width,
        anchors,
    }
}

/// Pads the family's anchors; lines pushed past `WIDTH` are dropped and the rest redone.
fn align_family(members: &[Member], pad: &mut [usize]) {
    let mut active = vec![true; members.len()];
    loop {
        // Padding per member, by token offset from its line start.
        let mut extra: Vec<Vec<usize>> = members.iter().map(|m| vec![0; m.cols.len()]).collect();
        for k in 0..KINDS.len() {
            let column = |m: &Member, e: &[usize], at: usize| {
                m.cols[at - m.start] + e[..=at - m.start].iter().sum::<usize>()
            };
            let target = members
                .iter()
                .zip(&extra)
                .zip(&active)
                .filter_map(|((m, e), &on)| Some(column(m, e, m.anchors[k].filter(|_| on)?)))
                .max();
            let Some(target) = target else { continue };
            for ((m, e), &on) in members.iter().zip(&mut extra).zip(&active) {
                if let Some(at) = m.anchors[k].filter(|_| on) {
                    e[at - m.start] += target - column(m, e, at);
                }
            }
        }
        let too_wide: Vec<usize> = (0..members.len())
            .filter(|&n| {
                let added: usize = extra[n].iter().sum();
                active[n] && added > 0 && members[n].width + added > WIDTH
            })
            .collect();
        if too_wide.is_empty() {
            for (m, e) in members.iter().zip(&extra) {
                for (off, x) in e.iter().enumerate() {
                    pad[m.start + off] += x;
                }
            }
            return;
        }
        for n in too_wide {
            active[n] = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fmt::format;

    fn fmt(s: &str) -> String {
        format(s).expect("formats")
    }

    #[test]
    fn runs_align_their_anchors_and_comments() {
        assert_eq!(
            fmt("model m {\nmass a = 1 # one\nmass bbb[1..2] = 2\nspring a -- ground { k = 1 } # x\nspring bbb[1] -- a { k = 2 }\n}\n"),
            "model m {\n  mass a         = 1 # one\n  mass bbb[1..2] = 2\n  spring a      -- ground { k = 1 } # x\n  spring bbb[1] -- a      { k = 2 }\n}\n"
        );
    }

    #[test]
    fn blank_lines_comments_and_continuations_break_runs() {
        let text = "model m {\n  param a = 1\n\n  param bb = 2\n  # c\n  param ccc = 3\n  param d = 4,\n    e = 5\n}\n";
        assert_eq!(fmt(text), text);
    }

    #[test]
    fn a_line_pushed_past_the_width_is_left_alone() {
        // 99 columns: one more space before its `=` would make 101.
        let long = format!("  param a = {}1", "1 + ".repeat(21));
        let long = format!("{long}{}", "0".repeat(99 - long.len()));
        let text = format!("model m {{\n  param bbb = 1\n{long}\n  param cc = 2\n}}\n");
        assert_eq!(
            fmt(&text),
            format!("model m {{\n  param bbb = 1\n{long}\n  param cc  = 2\n}}\n")
        );
    }
}
