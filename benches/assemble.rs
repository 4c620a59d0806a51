//! Front-end benchmarks (issue 3): parse + resolve + assemble of a generated file with
//! 10,000 masses, springs and gaps written out, of `serial_impact.nsd --set n=100000`, and
//! `check` (with the sparse eigensolver) of the chain at n = 10,000.
//!
//! `cargo bench -p nsd-benches`; compare runs with `-- --save-baseline main` / `--baseline main`.

use criterion::{criterion_group, criterion_main, Criterion};
use nsd::lang::{parse_override, resolve, Program};
use nsd::model::assemble;
use nsd::solve::modes::{modes, Contacts};
use std::path::Path;

/// 10,000 masses, each with a spring to its neighbour and a gap to ground, one line each.
fn written_out(n: usize) -> String {
    let mut s = String::from("model big {\n");
    for i in 1..=n {
        s.push_str(&format!("  mass m{i} = 1 kg\n"));
    }
    s.push_str("  spring ground -- m1 { k = 1e4 N/m }\n");
    for i in 2..=n {
        s.push_str(&format!("  spring m{} -- m{i} {{ k = 1e4 N/m }}\n", i - 1));
    }
    for i in 1..=n {
        s.push_str(&format!(
            "  gap g{i}: m{i} -- ground {{ clearance = 0.1 mm, law = linear(1e5) }}\n"
        ));
    }
    s.push_str("}\n");
    s
}

fn front_end(c: &mut Criterion) {
    let text = written_out(10_000);
    let mut g = c.benchmark_group("front_end");
    g.sample_size(10);
    g.bench_function("written_out_10k/parse+resolve+assemble", |b| {
        b.iter(|| {
            let prog = Program::from_source("big.nsd", &text, None).expect("parses");
            let model = resolve(&prog, "big", &[]).expect("resolves");
            assemble(&model)
        })
    });
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/seed4/serial_impact.nsd");
    let prog = Program::load(&path).expect("loads");
    let big = [parse_override("n=100000").expect("override")];
    g.bench_function("serial_impact_n100000/parse+resolve+assemble", |b| {
        b.iter(|| {
            let prog = Program::load(&path).expect("loads");
            let model = resolve(&prog, "serial_impact", &big).expect("resolves");
            assemble(&model)
        })
    });
    let n10k = [parse_override("n=10000").expect("override")];
    g.bench_function("serial_impact_n10000/check", |b| {
        b.iter(|| {
            let model = resolve(&prog, "serial_impact", &n10k).expect("resolves");
            let sys = assemble(&model);
            modes(&sys, Contacts::Open, None).expect("modes")
        })
    });
    g.finish();
}

criterion_group!(benches, front_end);
criterion_main!(benches);
