//! Text → AST: runs the pest grammar (`grammar/nsd.pest`) and builds the typed tree.
//!
//! Naming: `Builder::x` turns a pest pair of rule `x` into its AST node. Every node gets the
//! span of its pair, so later stages can point at exactly what the user wrote.
//!
//! This module holds the entry points and the items, options and values; statements are
//! built in `stmt.rs`, expressions in `expr.rs`, pest's errors become `ParseError`s in
//! `syntax_error.rs`, and `limits.rs` bounds the nesting (brackets before pest runs,
//! expression depth while the builder runs), so nothing downstream recurses past a stack.

mod expect;
mod expr;
mod limits;
mod scan;
mod stmt;
mod syntax_error;

use super::ast::*;
use super::diagnostics::ParseError;
use crate::span::{FileId, Span};
use pest::iterators::Pair;
use pest::Parser;
use scan::CodeEnds;
use syntax_error::syntax_error;

#[derive(pest_derive::Parser)]
#[grammar = "../../../grammar/nsd.pest"]
struct NsdParser;

/// What a builder returns: the node, or the one error it can meet (`ParseError::TooDeep`,
/// an expression past `limits::MAX_DEPTH`); every other shape is the grammar's guarantee.
type Built<T> = Result<T, ParseError>;

/// Parses one file. The first syntax error stops the parse (pest reports one position).
pub fn parse_file(text: &str, file: FileId) -> Result<File, ParseError> {
    limits::brackets(text, file)?;
    let mut pairs = NsdParser::parse(Rule::file, text).map_err(|e| syntax_error(e, file, text))?;
    let p = Builder::new(file, text);
    let root = pairs
        .next()
        .expect("grammar: `file` always yields one pair");
    let items = root
        .into_inner()
        .filter(not_token)
        .filter(|i| i.as_rule() != Rule::EOI)
        .map(|i| p.item(i))
        .collect::<Built<_>>()?;
    Ok(File { items })
}

/// Parses a single expression (used for `--set NAME=VALUE` and the REPL's `:set`).
pub(crate) fn parse_expr(text: &str, file: FileId) -> Result<Expr, ParseError> {
    limits::brackets(text, file)?;
    let mut pairs = NsdParser::parse(Rule::expr, text).map_err(|e| syntax_error(e, file, text))?;
    let pair = pairs.next().expect("grammar: `expr` yields one pair");
    if pair.as_span().end() != text.trim_end().len() {
        let at = Span::new(file, pair.as_span().end(), text.len());
        return Err(ParseError::Trailing { at });
    }
    Builder::new(file, text).expr(pair)
}

/// Converts pairs; carries the file id into every span.
struct Builder {
    file: FileId,
    /// pest skips the implicit `WHITESPACE` (comments included) before trying an optional
    /// part, and keeps what it skipped when the part is absent, so a rule ending in one
    /// (`… for_clause?`) would span the blank lines and comments after it: a span ends after
    /// its last token instead, looked up here (walking down to a pair's last token instead
    /// cost time quadratic in the nesting).
    code_ends: CodeEnds,
}

impl Builder {
    fn new(file: FileId, text: &str) -> Builder {
        Builder {
            file,
            code_ends: CodeEnds::of(text),
        }
    }

    fn span(&self, p: &Pair<Rule>) -> Span {
        let (start, end) = (p.as_span().start(), p.as_span().end());
        Span::new(self.file, start, self.code_ends.token_end(start, end))
    }

    fn ident(&self, p: Pair<Rule>) -> Ident {
        Ident {
            name: p.as_str().to_string(),
            span: self.span(&p),
        }
    }

    fn item(&self, p: Pair<Rule>) -> Built<Item> {
        let span = self.span(&p);
        Ok(match p.as_rule() {
            Rule::import => {
                let s = p
                    .into_inner()
                    .find(not_token)
                    .expect("grammar: import has a string");
                Item::Import {
                    path: string_body(s),
                    span,
                }
            }
            Rule::model => Item::Model(self.template(p)?),
            Rule::component => Item::Component(self.template(p)?),
            Rule::analysis => Item::Analysis(self.analysis(p)?),
            Rule::expect => Item::Expect(self.expect(p)),
            r => unreachable!("grammar: unexpected item {r:?}"),
        })
    }

    fn template(&self, p: Pair<Rule>) -> Built<Template> {
        let span = self.span(&p);
        let mut inner = p.into_inner().filter(not_token);
        let name = self.ident(inner.next().expect("grammar: template name"));
        let mut params = Vec::new();
        let mut body = Vec::new();
        for q in inner {
            match q.as_rule() {
                Rule::param_list => {
                    params = q
                        .into_inner()
                        .filter(not_token)
                        .map(|d| self.param_decl(d))
                        .collect::<Built<_>>()?
                }
                _ => body.push(self.stmt(q)?),
            }
        }
        Ok(Template {
            name,
            params,
            body,
            span,
        })
    }

    fn param_decl(&self, p: Pair<Rule>) -> Built<ParamDecl> {
        let mut inner = p.into_inner().filter(not_token);
        let name = self.ident(inner.next().expect("grammar: param name"));
        let default = inner.next().map(|e| self.expr(e)).transpose()?;
        Ok(ParamDecl { name, default })
    }

    fn index(&self, p: Pair<Rule>) -> Built<Expr> {
        self.expr(p.into_inner().find(not_token).expect("grammar: index expr"))
    }

    fn node_ref(&self, p: Pair<Rule>) -> Built<NodeRef> {
        let segments: Vec<Segment> = p
            .into_inner()
            .filter(not_token)
            .map(|seg| {
                let mut inner = seg.into_inner().filter(not_token);
                let name = self.ident(inner.next().expect("grammar: segment name"));
                let index = inner.next().map(|i| self.index(i)).transpose()?;
                Ok(Segment { name, index })
            })
            .collect::<Built<_>>()?;
        // The pair's own span can include trailing blanks; the segments' cannot.
        let first = segments
            .first()
            .expect("grammar: a path has a segment")
            .name
            .span;
        let last = segments.last().map_or(first, |s| {
            s.index
                .as_ref()
                .map_or(s.name.span, |i| s.name.span.join(i.span))
        });
        let end = if segments.last().is_some_and(|s| s.index.is_some()) {
            last.end + 1
        } else {
            last.end
        };
        Ok(NodeRef {
            segments,
            span: Span {
                end,
                ..first.join(last)
            },
        })
    }

    fn options(&self, p: Pair<Rule>) -> Built<Options> {
        let span = self.span(&p);
        let entries = p
            .into_inner()
            .filter(not_token)
            .map(|o| {
                let mut inner = o.into_inner().filter(not_token);
                let key = self.node_ref(inner.next().expect("grammar: option key"))?;
                let value = self.value(inner.next().expect("grammar: option value"))?;
                Ok(OptionEntry { key, value })
            })
            .collect::<Built<_>>()?;
        Ok(Options { entries, span })
    }

    fn value(&self, p: Pair<Rule>) -> Built<Value> {
        let mut inner = p.into_inner().filter(not_token);
        let q = inner.next().expect("grammar: value body");
        Ok(match q.as_rule() {
            Rule::sweep => {
                let span = self.span(&q);
                let mut parts = q.into_inner().filter(not_token);
                let param = self.ident(parts.next().expect("grammar: sweep param"));
                let from = parts.next().expect("grammar: sweep from");
                let tail = parts.next().expect("grammar: sweep range");
                let range = self.range(from, tail)?;
                Value::Sweep { param, range, span }
            }
            Rule::options => Value::Block(self.options(q)?),
            _ => match inner.next() {
                Some(tail) => Value::Range(self.range(q, tail)?),
                None => Value::Expr(self.expr(q)?),
            },
        })
    }

    /// A range from its first expression and its `range_tail`.
    fn range(&self, from: Pair<Rule>, tail: Pair<Rule>) -> Built<Range> {
        let span = self.span(&from).join(self.span(&tail));
        let from = self.expr(from)?;
        let mut inner = tail.into_inner().filter(not_token);
        let to = self.expr(inner.next().expect("grammar: range to"))?;
        let step = inner.next().map(|s| self.expr(s)).transpose()?;
        Ok(Range {
            from,
            to,
            step,
            span,
        })
    }

    fn analysis(&self, p: Pair<Rule>) -> Built<Analysis> {
        let span = self.span(&p);
        let mut inner = p.into_inner().filter(not_token);
        let kind_pair = inner.next().expect("grammar: analysis kind");
        let kind = match kind_pair.into_inner().find(not_token).map(|k| k.as_rule()) {
            Some(Rule::kw_modes) => AnalysisKind::Modes,
            Some(Rule::kw_simulate) => AnalysisKind::Simulate,
            Some(Rule::kw_sweep_regimes) => AnalysisKind::SweepRegimes,
            Some(Rule::kw_sweep_bifurcation) => AnalysisKind::SweepBifurcation,
            Some(Rule::kw_basins) => AnalysisKind::Basins,
            Some(Rule::kw_continue_frf) => AnalysisKind::ContinueFrf,
            Some(Rule::kw_continue_periodic) => AnalysisKind::ContinuePeriodic,
            Some(Rule::kw_continue_backbone) => AnalysisKind::ContinueBackbone,
            _ => AnalysisKind::NsModes,
        };
        let model = self.ident(inner.next().expect("grammar: analysis model"));
        let mut name = None;
        let mut options = None;
        let mut args = Vec::new();
        for q in inner {
            match q.as_rule() {
                Rule::ident => name = Some(self.ident(q)),
                Rule::call_args => {
                    args = self.args(q.into_inner().find(not_token).expect("grammar: args"))?;
                }
                _ => options = Some(self.options(q)?),
            }
        }
        Ok(Analysis {
            kind,
            model,
            args,
            name,
            options,
            span,
        })
    }

    fn args(&self, p: Pair<Rule>) -> Built<Vec<Arg>> {
        Ok(self.sized_args(p)?.into_iter().map(|(a, _)| a).collect())
    }
}

/// Punctuation pairs (`--`, `=`, `{`, `}`) exist only for error messages.
fn not_token(p: &Pair<Rule>) -> bool {
    !matches!(
        p.as_rule(),
        Rule::link | Rule::assign | Rule::open_brace | Rule::close_brace
    )
}

/// The text between the quotes of a `string` pair.
fn string_body(p: Pair<Rule>) -> String {
    p.into_inner()
        .find(not_token)
        .map(|b| b.as_str().to_string())
        .unwrap_or_default()
}
