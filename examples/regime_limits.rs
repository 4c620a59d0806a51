//! Prints the analytic regime boundaries of a model with one rigid Coulomb contact:
//! `cargo run --release --example regime_limits -- FILE MODEL [NAME=VALUE ...]`.

use nsd::solve::regimes::{continuous_limit, holding_force, setup, StopFactor};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(model)) = (args.first(), args.get(1)) else {
        eprintln!("usage: regime_limits FILE MODEL [NAME=VALUE ...]");
        std::process::exit(1);
    };
    let ov: Vec<_> = args[2..]
        .iter()
        .filter_map(|s| nsd::lang::parse_override(s).ok())
        .collect();
    let prog = nsd::lang::Program::load(std::path::Path::new(file)).unwrap_or_else(|f| {
        eprintln!("{}", f.render_plain());
        std::process::exit(1)
    });
    let m = nsd::lang::resolve(&prog, model, &ov).unwrap_or_else(|f| {
        eprintln!("{}", f.render_plain());
        std::process::exit(1)
    });
    let sys = nsd::model::assemble(&m);
    let s = setup(&sys).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    for (name, factor) in [("S = 1", StopFactor::Unit), ("exact S", StopFactor::Exact)] {
        let f = continuous_limit(&sys, &s, factor);
        println!(
            "{} wall, continuous/stick-slip slip force ({name}) = {f}",
            s.wall.name()
        );
    }
    let nm = holding_force(&sys, &s).abs();
    println!("motion/no-motion slip force = {nm}");
}
