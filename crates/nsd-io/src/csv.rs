//! `Table` → CSV text: one header row, numbers in shortest round-trip form, integers
//! (counts, ids, flags) without a decimal point, text quoted only when it needs to be.

use nsd_analysis::{Cell, Table};
use std::fmt::Write;

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Renders a table; `{:?}` of f64 round-trips exactly.
pub(crate) fn render(t: &Table) -> String {
    let mut out = String::new();
    let header: Vec<String> = t.columns.iter().map(|c| quote(c)).collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for row in &t.rows {
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match cell {
                Cell::Num(v) => {
                    let _ = write!(out, "{v:?}");
                }
                Cell::Int(n) => {
                    let _ = write!(out, "{n}");
                }
                Cell::Text(s) => out.push_str(&quote(s)),
            }
        }
        out.push('\n');
    }
    out
}
