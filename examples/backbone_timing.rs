//! Times the `continue backbone` benchmarks of issue 15, one after the other in one run:
//! the blade–damper–blade ridge (H = 5, `models/seed3/blade_damper_blade.nsd`, `backbone`),
//! the cantilever with pad (H = 3, `models/seed3/cantilever_pad.nsd`, `backbone_h3`) and
//! the 200-element beam with five pads (H = 3, `bench/beam200_backbone.nsd`).
//! `cargo run --release --example backbone_timing -- [REPEATS] [FILTER]` (3 repeats by
//! default; only the cases whose file contains FILTER, to profile one) prints, per case, the
//! median over the repeats of the ridge alone (`wall_s`, what the targets mean) and of
//! the whole analysis (with the model's `frf_levels` family and Hill stability where the file
//! asks for them), with the number of backbone points and restarts.

use std::time::Instant;

/// `(file, analysis)` relative to the crate root.
const CASES: [(&str, &str); 3] = [
    ("models/seed3/blade_damper_blade.nsd", "backbone"),
    ("models/seed3/cantilever_pad.nsd", "backbone_h3"),
    ("bench/beam200_backbone.nsd", "backbone"),
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
        .max(1);
    let filter = std::env::args().nth(2).unwrap_or_default();
    for (file, name) in CASES.into_iter().filter(|(file, _)| file.contains(&filter)) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let prog = nsd::lang::Program::load(&path).expect("the benchmark model loads");
        let analysis = prog
            .analyses
            .iter()
            .find(|a| nsd::analysis::name_of(a) == name)
            .expect("the benchmark analysis is in the file");
        let (mut ridge, mut total) = (Vec::new(), Vec::new());
        let mut summary = String::new();
        for _ in 0..repeats {
            let start = Instant::now();
            let results = match nsd::analysis::run(&prog, analysis, &[]) {
                Ok(r) => r,
                Err(f) => match f.partial {
                    Some(r) => {
                        eprintln!("{file} {name}: stopped short of its last level");
                        *r
                    }
                    None => {
                        eprintln!("{file} {name}: failed");
                        break;
                    }
                },
            };
            total.push(start.elapsed().as_secs_f64());
            ridge.push(results.wall_s);
            let get = |key: &str| {
                results
                    .summary
                    .get(key)
                    .map_or("?".to_string(), ToString::to_string)
            };
            summary = format!("points = {}, restarts = {}", get("points"), get("restarts"));
        }
        if ridge.is_empty() {
            continue;
        }
        println!(
            "{file} {name}: backbone {:.3} s, whole analysis {:.3} s (medians of {repeats}; {summary})",
            median(ridge),
            median(total)
        );
    }
}
