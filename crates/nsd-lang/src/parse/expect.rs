//! `expect` pairs → `Expect`: the analysis name, the path of keys (names or quoted) and
//! indices (from 1, negative from the end) into its summary, whether `len(…)` wraps it, the
//! expected value and the optional tolerance.

use super::{not_token, string_body, Builder, Rule};
use crate::ast::*;
use pest::iterators::Pair;

impl Builder {
    pub(super) fn expect(&self, p: Pair<Rule>) -> Expect {
        let span = self.span(&p);
        let mut inner = p
            .into_inner()
            .filter(|q| not_token(q) && q.as_rule() != Rule::kw_expect && q.as_rule() != Rule::pm);
        let mut target = inner.next().expect("grammar: expect has a path");
        let len = target.as_rule() == Rule::expect_len;
        if len {
            target = target
                .into_inner()
                .find(|q| q.as_rule() == Rule::expect_path)
                .expect("grammar: len(…) holds a path");
        }
        let mut path = target.into_inner().filter(not_token);
        let analysis = self.ident(path.next().expect("grammar: a path starts with a name"));
        let path = path
            .map(|q| match q.as_rule() {
                Rule::ident => PathStep::Key {
                    key: self.ident(q),
                    quoted: false,
                },
                Rule::string => PathStep::Key {
                    key: Ident {
                        span: self.span(&q),
                        name: string_body(q),
                    },
                    quoted: true,
                },
                // `-`? and digits (grammar); past `i64` is out of any list's range either way.
                _ => PathStep::Index {
                    n: q.as_str()
                        .parse()
                        .unwrap_or(if q.as_str().starts_with('-') {
                            i64::MIN
                        } else {
                            i64::MAX
                        }),
                    span: self.span(&q),
                },
            })
            .collect();
        let value_pair = inner.next().expect("grammar: expect has a value");
        let value_span = self.span(&value_pair);
        let value = self.expect_value(value_pair);
        let tolerance = inner.next().map(|t| {
            let span = self.span(&t);
            let mut parts = t.into_inner().filter(not_token);
            let amount = number(parts.next().expect("grammar: a tolerance has a number"));
            Tolerance {
                amount,
                relative: parts.next().is_some(),
                span,
            }
        });
        Expect {
            analysis,
            path,
            len,
            value,
            value_span,
            tolerance,
            span,
        }
    }

    fn expect_value(&self, p: Pair<Rule>) -> ExpectValue {
        let mut sign = 1.0;
        for q in p.into_inner().filter(not_token) {
            match q.as_rule() {
                Rule::string => return ExpectValue::Text(string_body(q)),
                Rule::boolean => return ExpectValue::Bool(q.as_str() == "true"),
                Rule::neg => sign = -1.0,
                _ => return ExpectValue::Number(sign * number(q)),
            }
        }
        unreachable!("grammar: an expected value has a body")
    }
}

/// The value of a `number` pair (the grammar's digits always parse as `f64`).
fn number(p: Pair<Rule>) -> f64 {
    p.as_str()
        .parse()
        .expect("grammar: a number literal parses as f64")
}
