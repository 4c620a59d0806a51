//! Functions of time for excitations: compiled from the model's expressions with every
//! parameter already substituted, so backends evaluate `f(t)`, `f'(t)` and `f''(t)` cheaply.
//!
//! Harmonic forms `A cos(ω t + φ)` / `A sin(ω t + φ)` (and sums of them) are recognised so
//! that frequency-domain backends can read amplitude, frequency and phase directly.

/// An expression tree in the single variable `t`.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeFn {
    Const(f64),
    T,
    Neg(Box<TimeFn>),
    Add(Box<TimeFn>, Box<TimeFn>),
    Sub(Box<TimeFn>, Box<TimeFn>),
    Mul(Box<TimeFn>, Box<TimeFn>),
    Div(Box<TimeFn>, Box<TimeFn>),
    Pow(Box<TimeFn>, Box<TimeFn>),
    Call(Func, Vec<TimeFn>),
}

/// The elementary functions of the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Sin,
    Cos,
    Tan,
    Exp,
    Log,
    Sqrt,
    Abs,
    Min,
    Max,
}

impl Func {
    pub(crate) fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "sin" => Func::Sin,
            "cos" => Func::Cos,
            "tan" => Func::Tan,
            "exp" => Func::Exp,
            "log" => Func::Log,
            "sqrt" => Func::Sqrt,
            "abs" => Func::Abs,
            "min" => Func::Min,
            "max" => Func::Max,
            _ => return None,
        })
    }

    /// Number of arguments (`min`/`max` take two).
    pub(crate) fn arity(self) -> usize {
        match self {
            Func::Min | Func::Max => 2,
            _ => 1,
        }
    }

    pub(crate) fn apply(self, a: &[f64]) -> f64 {
        let x = a.first().copied().unwrap_or(f64::NAN);
        match self {
            Func::Sin => x.sin(),
            Func::Cos => x.cos(),
            Func::Tan => x.tan(),
            Func::Exp => x.exp(),
            Func::Log => x.ln(),
            Func::Sqrt => x.sqrt(),
            Func::Abs => x.abs(),
            Func::Min => x.min(a.get(1).copied().unwrap_or(f64::NAN)),
            Func::Max => x.max(a.get(1).copied().unwrap_or(f64::NAN)),
        }
    }
}

/// One harmonic term `amplitude · cos(omega·t + phase)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Harmonic {
    pub amplitude: f64,
    pub omega: f64,
    pub phase: f64,
}

use TimeFn::*;

fn b(f: TimeFn) -> Box<TimeFn> {
    Box::new(f)
}

impl TimeFn {
    fn eval(&self, t: f64) -> f64 {
        match self {
            Const(c) => *c,
            T => t,
            Neg(a) => -a.eval(t),
            Add(a, c) => a.eval(t) + c.eval(t),
            Sub(a, c) => a.eval(t) - c.eval(t),
            Mul(a, c) => a.eval(t) * c.eval(t),
            Div(a, c) => a.eval(t) / c.eval(t),
            Pow(a, c) => a.eval(t).powf(c.eval(t)),
            Call(f, args) => {
                let v: Vec<f64> = args.iter().map(|a| a.eval(t)).collect();
                f.apply(&v)
            }
        }
    }

    /// True when the function does not depend on `t`.
    fn is_const(&self) -> bool {
        match self {
            Const(_) => true,
            T => false,
            Neg(a) => a.is_const(),
            Add(a, c) | Sub(a, c) | Mul(a, c) | Div(a, c) | Pow(a, c) => {
                a.is_const() && c.is_const()
            }
            Call(_, args) => args.iter().all(TimeFn::is_const),
        }
    }

    /// Symbolic derivative d/dt, simplified where a factor is constant.
    /// `abs`, `min` and `max` differentiate piecewise (derivative of the active branch).
    pub fn derivative(&self) -> TimeFn {
        if self.is_const() {
            return Const(0.0);
        }
        match self {
            Const(_) => Const(0.0),
            T => Const(1.0),
            Neg(a) => neg(a.derivative()),
            Add(a, c) => add(a.derivative(), c.derivative()),
            Sub(a, c) => sub(a.derivative(), c.derivative()),
            Mul(a, c) => add(
                mul(a.derivative(), (**c).clone()),
                mul((**a).clone(), c.derivative()),
            ),
            Div(a, c) => {
                let num = sub(
                    mul(a.derivative(), (**c).clone()),
                    mul((**a).clone(), c.derivative()),
                );
                div(num, mul((**c).clone(), (**c).clone()))
            }
            Pow(a, c) if c.is_const() => {
                let n = c.eval(0.0);
                mul(
                    mul(Const(n), Pow(a.clone(), b(Const(n - 1.0)))),
                    a.derivative(),
                )
            }
            Pow(a, c) => {
                // d(a^c) = a^c (c' ln a + c a'/a)
                let ln_a = Call(Func::Log, vec![(**a).clone()]);
                let inner = add(
                    mul(c.derivative(), ln_a),
                    div(mul((**c).clone(), a.derivative()), (**a).clone()),
                );
                mul(self.clone(), inner)
            }
            Call(f, args) => {
                let x = args.first().cloned().unwrap_or(Const(0.0));
                let dx = x.derivative();
                let outer = match f {
                    Func::Sin => Call(Func::Cos, vec![x]),
                    Func::Cos => neg(Call(Func::Sin, vec![x])),
                    Func::Tan => {
                        let c = Call(Func::Cos, vec![x]);
                        div(Const(1.0), mul(c.clone(), c))
                    }
                    Func::Exp => self.clone(),
                    Func::Log => div(Const(1.0), x),
                    Func::Sqrt => div(Const(0.5), self.clone()),
                    Func::Abs => div(x, self.clone()),
                    Func::Min | Func::Max => {
                        // Derivative of whichever argument is active: d = a' if pick(a,b)==a.
                        let y = args.get(1).cloned().unwrap_or(Const(0.0));
                        let dy = y.derivative();
                        // (a' + b')/2 + (a' - b')/2 · sign, sign = (a-b)/|a-b| for max, negated for min.
                        let diff = sub(x.clone(), y);
                        let mut sign = div(diff.clone(), Call(Func::Abs, vec![diff]));
                        if *f == Func::Min {
                            sign = neg(sign);
                        }
                        let half = |e| mul(Const(0.5), e);
                        return add(
                            half(add(dx.clone(), dy.clone())),
                            mul(half(sub(dx, dy)), sign),
                        );
                    }
                };
                mul(outer, dx)
            }
        }
    }

    /// Recognises `Σ A cos(ω t + φ)` (with `sin` read as a phase of −π/2) plus a constant.
    /// Returns the constant part and the terms, or `None` for any other form.
    pub fn harmonics(&self) -> Option<(f64, Vec<Harmonic>)> {
        if self.is_const() {
            return Some((self.eval(0.0), vec![]));
        }
        match self {
            Add(a, c) | Sub(a, c) => {
                let (ca, mut ha) = a.harmonics()?;
                let (cc, hc) = c.harmonics()?;
                let s = if matches!(self, Sub(..)) { -1.0 } else { 1.0 };
                ha.extend(hc.into_iter().map(|h| Harmonic {
                    amplitude: s * h.amplitude,
                    ..h
                }));
                Some((ca + s * cc, ha))
            }
            Neg(a) => {
                let (c, h) = a.harmonics()?;
                Some((
                    -c,
                    h.into_iter()
                        .map(|h| Harmonic {
                            amplitude: -h.amplitude,
                            ..h
                        })
                        .collect(),
                ))
            }
            Mul(a, c) | Div(a, c) if c.is_const() => {
                let k = if matches!(self, Div(..)) {
                    1.0 / c.eval(0.0)
                } else {
                    c.eval(0.0)
                };
                let (c0, h) = a.harmonics()?;
                Some((
                    k * c0,
                    h.into_iter()
                        .map(|h| Harmonic {
                            amplitude: k * h.amplitude,
                            ..h
                        })
                        .collect(),
                ))
            }
            Mul(a, c) if a.is_const() => Mul(c.clone(), a.clone()).harmonics(),
            Call(f @ (Func::Cos | Func::Sin), args) => {
                let (omega, phase) = args.first()?.affine()?;
                let shift = if *f == Func::Sin {
                    -std::f64::consts::FRAC_PI_2
                } else {
                    0.0
                };
                Some((
                    0.0,
                    vec![Harmonic {
                        amplitude: 1.0,
                        omega,
                        phase: phase + shift,
                    }],
                ))
            }
            _ => None,
        }
    }

    /// Reads `ω t + φ` as `(ω, φ)`.
    fn affine(&self) -> Option<(f64, f64)> {
        if self.is_const() {
            return Some((0.0, self.eval(0.0)));
        }
        match self {
            T => Some((1.0, 0.0)),
            Neg(a) => a.affine().map(|(w, p)| (-w, -p)),
            Add(a, c) => {
                let (w1, p1) = a.affine()?;
                let (w2, p2) = c.affine()?;
                Some((w1 + w2, p1 + p2))
            }
            Sub(a, c) => {
                let (w1, p1) = a.affine()?;
                let (w2, p2) = c.affine()?;
                Some((w1 - w2, p1 - p2))
            }
            Mul(a, c) if a.is_const() => {
                c.affine().map(|(w, p)| (a.eval(0.0) * w, a.eval(0.0) * p))
            }
            Mul(a, c) if c.is_const() => {
                a.affine().map(|(w, p)| (c.eval(0.0) * w, c.eval(0.0) * p))
            }
            Div(a, c) if c.is_const() => {
                a.affine().map(|(w, p)| (w / c.eval(0.0), p / c.eval(0.0)))
            }
            _ => None,
        }
    }
}

/// Builds the node with constant folding and the identities of 0 and 1.
pub(crate) fn neg(a: TimeFn) -> TimeFn {
    match a {
        Const(c) => Const(-c),
        a => Neg(b(a)),
    }
}

/// Builds the node with constant folding and the identities of 0 and 1.
pub(crate) fn add(a: TimeFn, c: TimeFn) -> TimeFn {
    match (a, c) {
        (Const(x), Const(y)) => Const(x + y),
        (Const(0.0), e) | (e, Const(0.0)) => e,
        (a, c) => Add(b(a), b(c)),
    }
}

/// Builds the node with constant folding and the identities of 0 and 1.
pub(crate) fn sub(a: TimeFn, c: TimeFn) -> TimeFn {
    match (a, c) {
        (Const(x), Const(y)) => Const(x - y),
        (e, Const(0.0)) => e,
        (Const(0.0), e) => neg(e),
        (a, c) => Sub(b(a), b(c)),
    }
}

/// Builds the node with constant folding and the identities of 0 and 1.
pub(crate) fn mul(a: TimeFn, c: TimeFn) -> TimeFn {
    match (a, c) {
        (Const(x), Const(y)) => Const(x * y),
        (Const(0.0), _) | (_, Const(0.0)) => Const(0.0),
        (Const(1.0), e) | (e, Const(1.0)) => e,
        (a, c) => Mul(b(a), b(c)),
    }
}

/// Builds the node with constant folding and the identities of 0 and 1.
pub(crate) fn div(a: TimeFn, c: TimeFn) -> TimeFn {
    match (a, c) {
        (Const(x), Const(y)) => Const(x / y),
        (Const(0.0), _) => Const(0.0),
        (e, Const(1.0)) => e,
        (a, c) => Div(b(a), b(c)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cos_wt(a: f64, w: f64) -> TimeFn {
        Mul(
            b(Const(a)),
            b(Call(Func::Cos, vec![Mul(b(Const(w)), b(T))])),
        )
    }

    #[test]
    fn derivative_matches_central_difference() {
        let f = Add(
            b(cos_wt(0.3, 1.7)),
            b(Call(Func::Exp, vec![Mul(b(Const(-0.5)), b(T))])),
        );
        let df = f.derivative();
        let ddf = df.derivative();
        for &t in &[0.0, 0.4, 2.3] {
            let h = 1e-5;
            let fd = (f.eval(t + h) - f.eval(t - h)) / (2.0 * h);
            assert!((df.eval(t) - fd).abs() < 1e-8, "first derivative at {t}");
            let fdd = (df.eval(t + h) - df.eval(t - h)) / (2.0 * h);
            assert!((ddf.eval(t) - fdd).abs() < 1e-8, "second derivative at {t}");
        }
    }

    #[test]
    fn harmonic_forms_are_recognised() {
        let (c, h) = cos_wt(0.1, 1.3).harmonics().expect("harmonic");
        assert_eq!(c, 0.0);
        assert_eq!(
            h,
            vec![Harmonic {
                amplitude: 0.1,
                omega: 1.3,
                phase: 0.0
            }]
        );
        let s = Call(Func::Sin, vec![Mul(b(Const(2.0)), b(T))]);
        let (_, h) = s.harmonics().expect("harmonic");
        assert!((h[0].phase + std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        assert!(Call(Func::Exp, vec![T]).harmonics().is_none());
    }
}

/// A time function prepared for evaluation in an integrator's inner loop: a constant plus
/// harmonics in closed form where it is one (no walk of the expression tree), else the tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Prepared {
    Harmonics(f64, Vec<Harmonic>),
    Tree(TimeFn),
}

impl Prepared {
    pub fn new(f: &TimeFn) -> Prepared {
        match f.harmonics() {
            // A zero amplitude (a load switched off by its parameter) costs no cosine.
            Some((c0, hs)) => {
                Prepared::Harmonics(c0, hs.into_iter().filter(|h| h.amplitude != 0.0).collect())
            }
            None => Prepared::Tree(f.clone()),
        }
    }

    pub fn eval(&self, t: f64) -> f64 {
        match self {
            Prepared::Harmonics(c0, hs) => {
                c0 + hs
                    .iter()
                    .map(|h| h.amplitude * (h.omega * t + h.phase).cos())
                    .sum::<f64>()
            }
            Prepared::Tree(f) => f.eval(t),
        }
    }
}
