//! Expression pairs → `Expr`: operands (numbers with units, names, calls, tuples, strings)
//! and precedence climbing over the operators; unit text → symbols with powers.

use super::{not_token, string_body, Builder, Rule};
use crate::lang::ast::*;
use crate::span::Span;
use pest::iterators::Pair;

impl Builder {
    pub(super) fn expr(&self, p: Pair<Rule>) -> Expr {
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
