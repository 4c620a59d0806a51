//! Numerical backends. Each consumes an assembled `System` (never the AST) and a config.

pub mod backbone;
pub mod cont;
pub mod hb;
mod linalg;
pub mod modes;
pub mod multibody;
pub mod nsmodes;
pub mod ode;
pub mod periodic;
pub mod poincare;
pub mod reduce;
pub mod regimes;

/// Largest memory a request may be estimated to need before it is refused (bytes): 4 GiB,
/// what a laptop can give one run without swapping. Above it the run would abort in an
/// allocation (e.g. `harmonics = 100000` asked for 1.7 TB) or thrash; the refusal names the
/// estimate and the option to change.
pub const MAX_REQUEST_BYTES: f64 = 4.0 * 1024.0 * 1024.0 * 1024.0;

/// Most rows an analysis may be asked to write to one table (rows): 1e8 rows of a one-DOF
/// `simulate` are already ~5 GB of CSV; above it a run would write for hours or forever
/// (`t = 0..1e9, output = every(1e-6)` asks for 1e15).
pub const MAX_OUTPUT_ROWS: f64 = 1e8;

/// A byte count for messages: `1.5 TiB`, `4.0 GiB` (binary units).
pub fn bytes_text(b: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = b;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.1} {}", units[i])
}
