//! Expression pairs → `Expr`: operands (numbers with units, names, calls, vectors,
//! parenthesised expressions, strings) and precedence climbing over the operators; unit
//! text → symbols with powers. Each tree is built with its depth, refused past
//! `limits::MAX_DEPTH` before the climb recurses further (`Climb`).

use super::limits::within;
use super::{not_token, string_body, Builder, Built, Rule};
use crate::ast::*;
use crate::span::Span;
use pest::iterators::Pair;

/// An expression and the depth of its tree: the operations on its longest path from the
/// root down to a number or name (0 for a number or a name).
struct Tree {
    expr: Expr,
    depth: usize,
}

impl Builder {
    pub(super) fn expr(&self, p: Pair<Rule>) -> Built<Expr> {
        self.tree(p).map(|t| t.expr)
    }

    /// An `expr` pair: its operands (built first, with their depths), then the climb.
    fn tree(&self, p: Pair<Rule>) -> Built<Tree> {
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
                    Token::Op(op, span)
                }
                _ => Token::Operand(self.primary(q)?),
            });
        }
        let mut climb = Climb {
            tokens: tokens.into_iter().peekable(),
        };
        climb.binary(0, 0)
    }

    fn primary(&self, p: Pair<Rule>) -> Built<Tree> {
        let span = self.span(&p);
        // Every operand kind but a number, a plain name and a string adds one level.
        let (kind, depth) = match p.as_rule() {
            Rule::quantity => {
                let mut inner = p.into_inner().filter(not_token);
                let num = inner.next().expect("grammar: number");
                // The grammar admits only digit strings that `f64::from_str` accepts.
                let value = num.as_str().parse::<f64>().unwrap_or(f64::NAN);
                let unit = inner.next().map(|u| self.unit(u));
                (ExprKind::Number { value, unit }, 0)
            }
            Rule::named => {
                let mut inner = p.into_inner().filter(not_token);
                let name = self.ident(inner.next().expect("grammar: a name"));
                match inner.next() {
                    Some(q) if q.as_rule() == Rule::call_args => {
                        let args = match q.into_inner().find(not_token) {
                            Some(a) => self.sized_args(a)?,
                            None => Vec::new(),
                        };
                        let deepest = args.iter().map(|(_, d)| *d).max().unwrap_or(0);
                        let args = args.into_iter().map(|(a, _)| a).collect();
                        (ExprKind::Call { name, args }, within(deepest + 1, span)?)
                    }
                    Some(q) => {
                        let index = self
                            .tree(q.into_inner().find(not_token).expect("grammar: index expr"))?;
                        let depth = within(index.depth + 1, span)?;
                        let kind = ExprKind::Var {
                            name,
                            index: Some(Box::new(index.expr)),
                        };
                        (kind, depth)
                    }
                    None => (ExprKind::Var { name, index: None }, 0),
                }
            }
            Rule::parens => {
                let mut items = p
                    .into_inner()
                    .filter(not_token)
                    .map(|e| self.tree(e))
                    .collect::<Built<Vec<_>>>()?;
                if items.len() == 1 {
                    // `(a + b)`: the parentheses only group; the tree is the inner one.
                    return Ok(items.pop().expect("one item"));
                }
                let deepest = items.iter().map(|t| t.depth).max().unwrap_or(0);
                let items = items.into_iter().map(|t| t.expr).collect();
                (ExprKind::Tuple(items), within(deepest + 1, span)?)
            }
            Rule::string => (ExprKind::Str(string_body(p)), 0),
            r => unreachable!("grammar: unexpected primary {r:?}"),
        };
        Ok(Tree {
            expr: Expr { kind, span },
            depth,
        })
    }

    /// Call arguments with the depth of each value (a call is one level above its deepest).
    pub(super) fn sized_args(&self, p: Pair<Rule>) -> Built<Vec<(Arg, usize)>> {
        p.into_inner()
            .filter(not_token)
            .map(|a| {
                let mut inner = a.into_inner().filter(not_token).collect::<Vec<_>>();
                let value = self.tree(inner.pop().expect("grammar: arg value"))?;
                let name = inner.pop().map(|n| self.ident(n));
                let arg = Arg {
                    name,
                    value: value.expr,
                };
                Ok((arg, value.depth))
            })
            .collect()
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
    Op(BinOp, Span),
    Operand(Tree),
}

/// Precedence climbing over the tokens of an `expr` pair: `+ -` (1) < `* /` (2) < unary
/// `-` (3) < `^` (4, right-associative), so `-2^2 = -4` and `2^-1 = 0.5`.
///
/// `level` counts the operations that will enclose what a call builds; each recursion adds
/// one, so refusing a level past `MAX_DEPTH` bounds the recursion (100,000 unary `-` in a
/// row would otherwise recurse 200,000 frames deep before building a node) and refuses only
/// trees that would be too deep anyway.
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

    fn binary(&mut self, min: u8, level: usize) -> Built<Tree> {
        let mut lhs = self.unary(level)?;
        while let Some(&Token::Op(op, at)) = self.tokens.peek() {
            let prec = Self::precedence(op);
            if prec < min {
                break;
            }
            self.tokens.next();
            let next_min = if op == BinOp::Pow { prec } else { prec + 1 };
            let rhs = self.binary(next_min, within(level + 1, at)?)?;
            // A left-associative chain deepens here, in the loop, not by recursion.
            let depth = within(1 + lhs.depth.max(rhs.depth), at)?;
            let span = lhs.expr.span.join(rhs.expr.span);
            lhs = Tree {
                expr: Expr {
                    kind: ExprKind::Binary(op, Box::new(lhs.expr), Box::new(rhs.expr)),
                    span,
                },
                depth,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self, level: usize) -> Built<Tree> {
        match self.tokens.next() {
            Some(Token::Neg(at)) => {
                // Unary minus binds looser than `^` only.
                let operand = self.binary(4, within(level + 1, at)?)?;
                let depth = within(1 + operand.depth, at)?;
                let span = at.join(operand.expr.span);
                Ok(Tree {
                    expr: Expr {
                        kind: ExprKind::Neg(Box::new(operand.expr)),
                        span,
                    },
                    depth,
                })
            }
            Some(Token::Operand(t)) => Ok(t),
            // The grammar puts an operand after every operator and sign.
            _ => unreachable!("grammar: an operator is followed by an operand"),
        }
    }
}
