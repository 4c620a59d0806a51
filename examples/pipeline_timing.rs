//! Times each pipeline stage (parse, resolve, assemble, modes) on one model file:
//! `cargo run --release --example pipeline_timing -- FILE [NAME=VALUE ...]`.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: pipeline_timing FILE [NAME=VALUE ...]");
        std::process::exit(1);
    };
    let overrides: Vec<nsd::lang::Override> = args[1..]
        .iter()
        .filter_map(|s| nsd::lang::parse_override(s).ok())
        .collect();
    let t0 = Instant::now();
    let prog = match nsd::lang::Program::load(std::path::Path::new(path)) {
        Ok(p) => p,
        Err(f) => {
            eprintln!("{}", f.render_plain());
            std::process::exit(1);
        }
    };
    let t1 = Instant::now();
    for name in &prog.model_order {
        let t2 = Instant::now();
        let model = match nsd::lang::resolve(&prog, name, &overrides) {
            Ok(m) => m,
            Err(f) => {
                eprintln!("{}", f.render_plain());
                continue;
            }
        };
        let t3 = Instant::now();
        let sys = nsd::model::assemble(&model);
        let t4 = Instant::now();
        let modes = if std::env::var_os("NO_MODES").is_some() {
            Err(nsd::solve::modes::ModesError::NotConverged { steps: 0 })
        } else {
            nsd::solve::modes::modes(&sys, nsd::solve::modes::Contacts::Open, None)
        };
        let t5 = Instant::now();
        println!(
            "{name}: {} DOFs | parse {:.3} s, resolve {:.3} s, assemble {:.3} s (parse+resolve+assemble {:.3} s), modes {:.3} s ({} frequencies)",
            sys.n(),
            (t1 - t0).as_secs_f64(),
            (t3 - t2).as_secs_f64(),
            (t4 - t3).as_secs_f64(),
            ((t1 - t0) + (t4 - t2)).as_secs_f64(),
            (t5 - t4).as_secs_f64(),
            modes.map(|m| m.omega.len()).unwrap_or(0)
        );
    }
}
