//! Units on literals and the dimensions they carry (kg, m, s exponents).
//!
//! Literals with units are converted to SI at resolve time. A bare number has no stated
//! dimension and is accepted wherever a quantity is expected; a number with a unit is
//! checked against the dimension its position requires (`k = 2 kg` is an error).

/// Exponents of kilogram, metre and second. Angles (rad, deg) are dimensionless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim(pub [i8; 3]);

impl Dim {
    pub const NONE: Dim = Dim([0, 0, 0]);
    pub(crate) const MASS: Dim = Dim([1, 0, 0]);
    pub const LENGTH: Dim = Dim([0, 1, 0]);
    pub const TIME: Dim = Dim([0, 0, 1]);
    pub(crate) const FREQUENCY: Dim = Dim([0, 0, -1]);
    pub(crate) const FORCE: Dim = Dim([1, 1, -2]);
    /// N/m.
    pub(crate) const STIFFNESS: Dim = Dim([1, 0, -2]);
    /// N/m², the quadratic spring coefficient.
    pub(crate) const STIFFNESS2: Dim = Dim([1, -1, -2]);
    /// N/m³, the cubic spring coefficient.
    pub(crate) const STIFFNESS3: Dim = Dim([1, -2, -2]);
    /// N·s/m.
    pub(crate) const DAMPING: Dim = Dim([1, 0, -1]);
    pub(crate) const PRESSURE: Dim = Dim([1, -1, -2]);
    pub(crate) const DENSITY: Dim = Dim([1, -3, 0]);
    pub(crate) const AREA: Dim = Dim([0, 2, 0]);
    pub(crate) const SECOND_MOMENT: Dim = Dim([0, 4, 0]);
    pub(crate) const INERTIA: Dim = Dim([1, 2, 0]);
    pub(crate) const ACCELERATION: Dim = Dim([0, 1, -2]);

    pub(crate) fn pow(self, n: i8) -> Dim {
        Dim([self.0[0] * n, self.0[1] * n, self.0[2] * n])
    }
}

impl std::ops::Mul for Dim {
    type Output = Dim;

    fn mul(self, o: Dim) -> Dim {
        Dim([self.0[0] + o.0[0], self.0[1] + o.0[1], self.0[2] + o.0[2]])
    }
}

impl std::ops::Div for Dim {
    type Output = Dim;

    fn div(self, o: Dim) -> Dim {
        Dim([self.0[0] - o.0[0], self.0[1] - o.0[1], self.0[2] - o.0[2]])
    }
}

impl std::fmt::Display for Dim {
    /// SI base units, e.g. `kg·s^-2`; a named unit where one is common.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let named = [
            (Dim::NONE, "1 (dimensionless)"),
            (Dim::FORCE, "N"),
            (Dim::STIFFNESS, "N/m"),
            (Dim::STIFFNESS2, "N/m^2"),
            (Dim::STIFFNESS3, "N/m^3"),
            (Dim::DAMPING, "N*s/m"),
            (Dim::PRESSURE, "Pa"),
            (Dim::FREQUENCY, "1/s"),
        ];
        if let Some((_, n)) = named.iter().find(|(d, _)| d == self) {
            return f.write_str(n);
        }
        let parts: Vec<String> = ["kg", "m", "s"]
            .iter()
            .zip(self.0)
            .filter(|(_, e)| *e != 0)
            .map(|(u, e)| {
                if e == 1 {
                    u.to_string()
                } else {
                    format!("{u}^{e}")
                }
            })
            .collect();
        f.write_str(&parts.join("*"))
    }
}

/// Scale to SI and dimension of a unit symbol of the grammar's `unit_atom`.
pub fn atom(symbol: &str) -> Option<(f64, Dim)> {
    use std::f64::consts::PI;
    let (scale, dim) = match symbol {
        "kg" => (1.0, Dim::MASS),
        "g" => (1e-3, Dim::MASS),
        "N" => (1.0, Dim::FORCE),
        "kN" => (1e3, Dim::FORCE),
        "MN" => (1e6, Dim::FORCE),
        "mN" => (1e-3, Dim::FORCE),
        "Pa" => (1.0, Dim::PRESSURE),
        "kPa" => (1e3, Dim::PRESSURE),
        "MPa" => (1e6, Dim::PRESSURE),
        "GPa" => (1e9, Dim::PRESSURE),
        "m" => (1.0, Dim::LENGTH),
        "km" => (1e3, Dim::LENGTH),
        "cm" => (1e-2, Dim::LENGTH),
        "mm" => (1e-3, Dim::LENGTH),
        "um" => (1e-6, Dim::LENGTH),
        "s" => (1.0, Dim::TIME),
        "ms" => (1e-3, Dim::TIME),
        "us" => (1e-6, Dim::TIME),
        "Hz" => (1.0, Dim::FREQUENCY),
        "kHz" => (1e3, Dim::FREQUENCY),
        "rpm" => (2.0 * PI / 60.0, Dim::FREQUENCY),
        "rad" => (1.0, Dim::NONE),
        "deg" => (PI / 180.0, Dim::NONE),
        "J" => (1.0, Dim([1, 2, -2])),
        "W" => (1.0, Dim([1, 2, -3])),
        _ => return None,
    };
    Some((scale, dim))
}

/// Scale and dimension of a whole unit, `[(symbol, power)]`.
pub(crate) fn unit(factors: &[(String, i32)]) -> Option<(f64, Dim)> {
    let mut scale = 1.0;
    let mut dim = Dim::NONE;
    for (sym, p) in factors {
        let (s, d) = atom(sym)?;
        scale *= s.powi(*p);
        dim = dim * d.pow(*p as i8);
    }
    Some((scale, dim))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compound_units_convert_to_si() {
        let (s, d) = unit(&[("N".into(), 1), ("mm".into(), -1)]).expect("known units");
        assert_eq!(s, 1e3);
        assert_eq!(d, Dim::STIFFNESS);
        let (s, d) = unit(&[("kg".into(), 1), ("m".into(), -3)]).expect("known units");
        assert_eq!((s, d), (1.0, Dim::DENSITY));
    }
}
