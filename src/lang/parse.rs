//! Text → AST: runs the pest grammar (`grammar/nsd.pest`) and builds the typed tree.
//!
//! Naming: `parse_x` turns a pest pair of rule `x` into its AST node. Every node gets the
//! span of its pair, so later stages can point at exactly what the user wrote.

use super::ast::*;
use super::diagnostics::ParseError;
use crate::span::{FileId, Span};
use pest::iterators::Pair;
use pest::Parser;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/nsd.pest"]
struct NsdParser;

/// Parses one file. The first syntax error stops the parse (pest reports one position).
pub fn parse_file(text: &str, file: FileId) -> Result<File, ParseError> {
    let mut pairs =
        NsdParser::parse(Rule::file, text).map_err(|e| ParseError::from_pest(e, file, text))?;
    let p = Builder { file };
    let root = pairs
        .next()
        .expect("grammar: `file` always yields one pair");
    let items = root
        .into_inner()
        .filter(not_token)
        .filter(|i| i.as_rule() != Rule::EOI)
        .map(|i| p.item(i))
        .collect();
    Ok(File { items })
}

/// Parses a single expression (used for `--set NAME=VALUE` and the REPL's `:set`).
pub fn parse_expr(text: &str, file: FileId) -> Result<Expr, ParseError> {
    let mut pairs =
        NsdParser::parse(Rule::expr, text).map_err(|e| ParseError::from_pest(e, file, text))?;
    let pair = pairs.next().expect("grammar: `expr` yields one pair");
    if pair.as_span().end() != text.trim_end().len() {
        let at = Span::new(file, pair.as_span().end(), text.len());
        return Err(ParseError::Trailing { at });
    }
    Ok(Builder { file }.expr(pair))
}

/// Converts pairs; carries the file id into every span.
struct Builder {
    file: FileId,
}

impl Builder {
    fn span(&self, p: &Pair<Rule>) -> Span {
        Span::new(self.file, p.as_span().start(), p.as_span().end())
    }

    fn ident(&self, p: Pair<Rule>) -> Ident {
        Ident {
            name: p.as_str().to_string(),
            span: self.span(&p),
        }
    }

    fn item(&self, p: Pair<Rule>) -> Item {
        let span = self.span(&p);
        match p.as_rule() {
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
            Rule::model => Item::Model(self.template(p)),
            Rule::component => Item::Component(self.template(p)),
            Rule::analysis => Item::Analysis(self.analysis(p)),
            r => unreachable!("grammar: unexpected item {r:?}"),
        }
    }

    fn template(&self, p: Pair<Rule>) -> Template {
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
                        .collect()
                }
                _ => body.push(self.stmt(q)),
            }
        }
        Template {
            name,
            params,
            body,
            span,
        }
    }

    fn param_decl(&self, p: Pair<Rule>) -> ParamDecl {
        let mut inner = p.into_inner().filter(not_token);
        let name = self.ident(inner.next().expect("grammar: param name"));
        let default = inner.next().map(|e| self.expr(e));
        ParamDecl { name, default }
    }

    fn stmt(&self, p: Pair<Rule>) -> Stmt {
        let span = self.span(&p);
        let rule = p.as_rule();
        let mut inner = p.into_inner().filter(not_token).peekable();
        match rule {
            Rule::param_stmt => Stmt::Param(inner.map(|d| self.param_decl(d)).collect()),
            Rule::mass_stmt => {
                let name = self.ident(inner.next().expect("grammar: mass name"));
                let mut family = None;
                let mut index = None;
                let mut value = None;
                let mut options = None;
                let mut repeat = None;
                for q in inner {
                    match q.as_rule() {
                        Rule::family => {
                            let mut r = q.into_inner().filter(not_token);
                            let a = self.expr(r.next().expect("grammar: family start"));
                            let b = self.expr(r.next().expect("grammar: family end"));
                            family = Some((a, b));
                        }
                        Rule::index => index = Some(self.index(q)),
                        Rule::expr => value = Some(self.expr(q)),
                        Rule::options => options = Some(self.options(q)),
                        Rule::for_clause => repeat = Some(self.repeat(q)),
                        r => unreachable!("grammar: mass part {r:?}"),
                    }
                }
                let value = value.expect("grammar: mass has a value");
                Stmt::Mass {
                    name,
                    family,
                    index,
                    value,
                    options,
                    repeat,
                    span,
                }
            }
            Rule::element_stmt => {
                let kind_pair = inner.next().expect("grammar: element kind");
                let kind = match kind_pair.into_inner().find(not_token).map(|k| k.as_rule()) {
                    Some(Rule::kw_spring) => ElementKind::Spring,
                    Some(Rule::kw_damper) => ElementKind::Damper,
                    Some(Rule::kw_gap) => ElementKind::Gap,
                    _ => ElementKind::Friction,
                };
                let label = self.maybe_label(&mut inner);
                let a = self.node_ref(inner.next().expect("grammar: endpoint a"));
                let b = self.node_ref(inner.next().expect("grammar: endpoint b"));
                let (options, repeat) = self.tail(inner);
                Stmt::Element {
                    kind,
                    label,
                    a,
                    b,
                    options,
                    repeat,
                    span,
                }
            }
            Rule::force_stmt => {
                let target = self.node_ref(inner.next().expect("grammar: force target"));
                let value = self.expr(inner.next().expect("grammar: force value"));
                let repeat = inner.next().map(|r| self.repeat(r));
                Stmt::Force {
                    target,
                    value,
                    repeat,
                    span,
                }
            }
            Rule::base_stmt => {
                let first = inner.next().expect("grammar: base value");
                if first.as_rule() == Rule::direction {
                    let dir = Some(self.ident(first));
                    let value = self.expr(inner.next().expect("grammar: base value"));
                    Stmt::Base { dir, value, span }
                } else {
                    Stmt::Base {
                        dir: None,
                        value: self.expr(first),
                        span,
                    }
                }
            }
            Rule::gravity_stmt => Stmt::Gravity {
                value: self.expr(inner.next().expect("grammar: gravity")),
                span,
            },
            Rule::damping_stmt | Rule::beam_stmt | Rule::matrices_stmt | Rule::body_stmt => {
                let name = self.ident(inner.next().expect("grammar: name"));
                let options = self.options(inner.next().expect("grammar: options"));
                match rule {
                    Rule::damping_stmt => Stmt::Damping {
                        kind: name,
                        options,
                        span,
                    },
                    Rule::beam_stmt => Stmt::Beam {
                        name,
                        options,
                        span,
                    },
                    Rule::matrices_stmt => Stmt::Matrices {
                        name,
                        options,
                        span,
                    },
                    _ => Stmt::Body {
                        name,
                        options,
                        span,
                    },
                }
            }
            Rule::joint_stmt => {
                let label = self.maybe_label(&mut inner);
                let kind = self.ident(inner.next().expect("grammar: joint kind"));
                let a = self.node_ref(inner.next().expect("grammar: endpoint a"));
                let b = self.node_ref(inner.next().expect("grammar: endpoint b"));
                let (options, _) = self.tail(inner);
                Stmt::Joint {
                    label,
                    kind,
                    a,
                    b,
                    options,
                    span,
                }
            }
            Rule::use_stmt => {
                let template = self.ident(inner.next().expect("grammar: use template"));
                let instance = self.ident(inner.next().expect("grammar: use instance"));
                let mut args = Vec::new();
                let mut repeat = None;
                for q in inner {
                    match q.as_rule() {
                        Rule::args => args = self.args(q),
                        _ => repeat = Some(self.repeat(q)),
                    }
                }
                Stmt::Use {
                    template,
                    instance,
                    args,
                    repeat,
                    span,
                }
            }
            Rule::for_block => {
                let var = self.ident(inner.next().expect("grammar: for var"));
                let from = self.expr(inner.next().expect("grammar: for from"));
                let to = self.expr(inner.next().expect("grammar: for to"));
                let body = inner.map(|s| self.stmt(s)).collect();
                Stmt::For {
                    repeat: Repeat { var, from, to },
                    body,
                    span,
                }
            }
            r => unreachable!("grammar: unexpected statement {r:?}"),
        }
    }

    fn maybe_label<'i>(
        &self,
        inner: &mut std::iter::Peekable<impl Iterator<Item = Pair<'i, Rule>>>,
    ) -> Option<Label> {
        if inner.peek().map(|q| q.as_rule()) == Some(Rule::label) {
            let mut l = inner.next().expect("peeked").into_inner().filter(not_token);
            let name = self.ident(l.next().expect("grammar: label name"));
            let index = l.next().map(|i| self.index(i));
            Some(Label { name, index })
        } else {
            None
        }
    }

    fn tail<'i>(
        &self,
        inner: impl Iterator<Item = Pair<'i, Rule>>,
    ) -> (Option<Options>, Option<Repeat>) {
        let mut options = None;
        let mut repeat = None;
        for q in inner {
            match q.as_rule() {
                Rule::options => options = Some(self.options(q)),
                _ => repeat = Some(self.repeat(q)),
            }
        }
        (options, repeat)
    }

    fn repeat(&self, p: Pair<Rule>) -> Repeat {
        let mut inner = p.into_inner().filter(not_token);
        let var = self.ident(inner.next().expect("grammar: for var"));
        let from = self.expr(inner.next().expect("grammar: for from"));
        let to = self.expr(inner.next().expect("grammar: for to"));
        Repeat { var, from, to }
    }

    fn index(&self, p: Pair<Rule>) -> Expr {
        self.expr(p.into_inner().find(not_token).expect("grammar: index expr"))
    }

    fn node_ref(&self, p: Pair<Rule>) -> NodeRef {
        let segments: Vec<Segment> = p
            .into_inner()
            .filter(not_token)
            .map(|seg| {
                let mut inner = seg.into_inner().filter(not_token);
                let name = self.ident(inner.next().expect("grammar: segment name"));
                let index = inner.next().map(|i| self.index(i));
                Segment { name, index }
            })
            .collect();
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
        NodeRef {
            segments,
            span: Span {
                end,
                ..first.join(last)
            },
        }
    }

    fn options(&self, p: Pair<Rule>) -> Options {
        let span = self.span(&p);
        let entries = p
            .into_inner()
            .filter(not_token)
            .map(|o| {
                let span = self.span(&o);
                let mut inner = o.into_inner().filter(not_token);
                let key = self.node_ref(inner.next().expect("grammar: option key"));
                let value = self.value(inner.next().expect("grammar: option value"));
                OptionEntry { key, value, span }
            })
            .collect();
        Options { entries, span }
    }

    fn value(&self, p: Pair<Rule>) -> Value {
        let mut inner = p.into_inner().filter(not_token);
        let q = inner.next().expect("grammar: value body");
        match q.as_rule() {
            Rule::sweep => {
                let span = self.span(&q);
                let mut parts = q.into_inner().filter(not_token);
                let param = self.ident(parts.next().expect("grammar: sweep param"));
                let from = parts.next().expect("grammar: sweep from");
                let tail = parts.next().expect("grammar: sweep range");
                let range = self.range(from, tail);
                Value::Sweep { param, range, span }
            }
            Rule::options => Value::Block(self.options(q)),
            _ => match inner.next() {
                Some(tail) => Value::Range(self.range(q, tail)),
                None => Value::Expr(self.expr(q)),
            },
        }
    }

    /// A range from its first expression and its `range_tail`.
    fn range(&self, from: Pair<Rule>, tail: Pair<Rule>) -> Range {
        let span = self.span(&from).join(self.span(&tail));
        let from = self.expr(from);
        let mut inner = tail.into_inner().filter(not_token);
        let to = self.expr(inner.next().expect("grammar: range to"));
        let step = inner.next().map(|s| self.expr(s));
        Range {
            from,
            to,
            step,
            span,
        }
    }

    fn analysis(&self, p: Pair<Rule>) -> Analysis {
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
        for q in inner {
            match q.as_rule() {
                Rule::ident => name = Some(self.ident(q)),
                _ => options = Some(self.options(q)),
            }
        }
        Analysis {
            kind,
            model,
            name,
            options,
            span,
        }
    }

    fn args(&self, p: Pair<Rule>) -> Vec<Arg> {
        p.into_inner()
            .filter(not_token)
            .map(|a| {
                let mut inner = a.into_inner().filter(not_token).collect::<Vec<_>>();
                let value = self.expr(inner.pop().expect("grammar: arg value"));
                let name = inner.pop().map(|n| self.ident(n));
                Arg { name, value }
            })
            .collect()
    }

    fn expr(&self, p: Pair<Rule>) -> Expr {
        let mut tokens = Vec::new();
        for q in p.into_inner() {
            let span = self.span(&q);
            tokens.push(match q.as_rule() {
                Rule::neg => Token::Neg(span),
                Rule::op => {
                    let op = match q.as_str() {
                        "+" => BinOp::Add,
                        "-" => BinOp::Sub,
                        "*" => BinOp::Mul,
                        "/" => BinOp::Div,
                        _ => BinOp::Pow,
                    };
                    Token::Op(op)
                }
                _ => Token::Operand(self.primary(q)),
            });
        }
        let mut climb = Climb {
            tokens: tokens.into_iter().peekable(),
        };
        climb.binary(0)
    }

    fn primary(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::expr => return self.expr(p),
            Rule::quantity => {
                let mut inner = p.into_inner().filter(not_token);
                let num = inner.next().expect("grammar: number");
                // The grammar admits only digit strings that `f64::from_str` accepts.
                let value = num.as_str().parse::<f64>().unwrap_or(f64::NAN);
                let unit = inner.next().map(|u| self.unit(u));
                ExprKind::Number { value, unit }
            }
            Rule::named => {
                let mut inner = p.into_inner().filter(not_token);
                let name = self.ident(inner.next().expect("grammar: a name"));
                match inner.next() {
                    Some(q) if q.as_rule() == Rule::call_args => {
                        let args = q
                            .into_inner()
                            .find(not_token)
                            .map(|a| self.args(a))
                            .unwrap_or_default();
                        ExprKind::Call { name, args }
                    }
                    Some(q) => ExprKind::Var {
                        name,
                        index: Some(Box::new(self.index(q))),
                    },
                    None => ExprKind::Var { name, index: None },
                }
            }
            Rule::tuple => ExprKind::Tuple(
                p.into_inner()
                    .filter(not_token)
                    .map(|e| self.expr(e))
                    .collect(),
            ),
            Rule::string => ExprKind::Str(string_body(p)),
            r => unreachable!("grammar: unexpected primary {r:?}"),
        };
        Expr { kind, span }
    }

    fn unit(&self, p: Pair<Rule>) -> Unit {
        let span = self.span(&p);
        let text = p.as_str();
        let mut factors = Vec::new();
        let mut sign = 1;
        // The grammar guarantees `atom[^n]` parts joined by `*` or `/`.
        let mut rest = text;
        loop {
            let end = rest.find(['*', '/']).unwrap_or(rest.len());
            let part = &rest[..end];
            let (atom, power) = match part.split_once('^') {
                Some((a, n)) => (a, n.parse::<i32>().unwrap_or(1)),
                None => (part, 1),
            };
            factors.push((atom.to_string(), sign * power));
            if end == rest.len() {
                break;
            }
            sign = if rest.as_bytes()[end] == b'/' { -1 } else { 1 };
            rest = &rest[end + 1..];
        }
        Unit { factors, span }
    }
}

/// The operands and operators of one expression, in source order.
enum Token {
    Neg(Span),
    Op(BinOp),
    Operand(Expr),
}

/// Precedence climbing over the tokens of an `expr` pair: `+ -` (1) < `* /` (2) < unary
/// `-` (3) < `^` (4, right-associative), so `-2^2 = -4` and `2^-1 = 0.5`.
struct Climb<I: Iterator<Item = Token>> {
    tokens: std::iter::Peekable<I>,
}

impl<I: Iterator<Item = Token>> Climb<I> {
    fn precedence(op: BinOp) -> u8 {
        match op {
            BinOp::Add | BinOp::Sub => 1,
            BinOp::Mul | BinOp::Div => 2,
            BinOp::Pow => 4,
        }
    }

    fn binary(&mut self, min: u8) -> Expr {
        let mut lhs = self.unary();
        while let Some(Token::Op(op)) = self.tokens.peek() {
            let (op, prec) = (*op, Self::precedence(*op));
            if prec < min {
                break;
            }
            self.tokens.next();
            let next_min = if op == BinOp::Pow { prec } else { prec + 1 };
            let rhs = self.binary(next_min);
            let span = lhs.span.join(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        lhs
    }

    fn unary(&mut self) -> Expr {
        match self.tokens.next() {
            Some(Token::Neg(at)) => {
                // Unary minus binds looser than `^` only.
                let operand = self.binary(4);
                let span = at.join(operand.span);
                Expr {
                    kind: ExprKind::Neg(Box::new(operand)),
                    span,
                }
            }
            Some(Token::Operand(e)) => e,
            // The grammar puts an operand after every operator and sign.
            _ => unreachable!("grammar: an operator is followed by an operand"),
        }
    }
}

/// Punctuation pairs (`--`, `=`, `{`, `}`) exist only for error messages.
fn not_token(p: &Pair<Rule>) -> bool {
    !matches!(
        p.as_rule(),
        Rule::link | Rule::assign | Rule::open_brace | Rule::close_brace
    )
}

fn string_body(p: Pair<Rule>) -> String {
    p.into_inner()
        .find(not_token)
        .map(|b| b.as_str().to_string())
        .unwrap_or_default()
}

/// Human names for grammar rules in "expected …" messages.
pub(crate) fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::file | Rule::item => "`model`, `component`, `import` or an analysis",
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
        Rule::tuple => "`(`",
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
        Rule::WHITESPACE | Rule::unit_gap => "",
    }
}
