//! Numerical backends. Each consumes an assembled `System` (never the AST) and a config.

pub mod backbone;
pub mod cont;
pub mod hb;
pub mod modes;
pub mod multibody;
pub mod nsmodes;
pub mod ode;
pub mod periodic;
pub mod poincare;
pub mod reduce;
pub mod regimes;
