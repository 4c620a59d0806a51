//! Prints the analytic regime boundaries of a model with one ground-fixed Coulomb contact:
//! `cargo run --release --example regime_limits -- FILE MODEL [NAME=VALUE ...]`.

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
    let s = nsd::solve::regimes::no_motion::setup(&sys).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let cont = nsd::solve::regimes::stick_slip::continuous_limit(&sys, &s).unwrap_or(f64::NAN);
    let nm = nsd::solve::regimes::no_motion::holding_force(&sys, &s);
    println!("continuous/stick-slip beta = {cont}\nmotion/no-motion beta = {nm}");
}
