//! `nsd run --shard i/n` (one slice of a `basins` map into `OUT/NAME.shards/`) and
//! `nsd merge` (the slices joined into a single run's results).

use super::record::{emit, failed, file_failed, ShellError};
use super::{written, MergeArgs, RunArgs};
use nsd_analysis as analysis;
use nsd_lang::{ast::Analysis, Failure, Override, Program};
use serde_json::{json, Value};
use std::path::Path;

/// `run --shard i/n`: the slice written to `OUT/NAME.shards/shard-i-of-n.json` (atomically;
/// with `--resume`, a slice already written is kept). With `--json`, its record
/// `{"name", "kind", "shard", "out", "skipped"}` (a failure's with `"failed": true`). The
/// exit code.
pub fn run_shard(
    prog: &Program,
    a: &Analysis,
    ov: &[Override],
    (i, n): (usize, usize),
    args: &RunArgs,
    hash: &str,
) -> i32 {
    let name = analysis::name_of(a);
    let dir = args.out.join(format!("{name}.shards"));
    let file = dir.join(format!("shard-{i}-of-{n}.json"));
    let record = |out: Option<&Path>, skipped: bool| {
        json!({
            "name": name,
            "kind": a.kind.keyword(),
            "shard": format!("{i}/{n}"),
            "out": out.map(|p| p.display().to_string()),
            "skipped": skipped,
        })
    };
    if args.resume && nsd_io::report::read_json(&file).is_ok() {
        eprintln!("{} exists: skipped (--resume)", file.display());
        if args.json {
            emit(&record(Some(&file), true).to_string());
        }
        return 0;
    }
    let (failure, code) = match analysis::run_shard(prog, a, ov, (i, n)) {
        Ok(mut v) => {
            v["source_hash"] = Value::String(hash.into());
            match nsd_io::report::write_json(&file, &v) {
                Ok(()) if args.json => {
                    emit(&record(Some(&file), false).to_string());
                    return 0;
                }
                Ok(()) => {
                    emit(&format!("shard {i}/{n} of `{name}` → {}", file.display()));
                    return 0;
                }
                Err(e) => (Failure::one(miette::Report::new(e)), 1),
            }
        }
        Err(f) => (f.failure, f.exit_code),
    };
    failure.eprint();
    if args.json {
        emit(&failed(record(None, false), &failure, code).to_string());
    }
    code
}

/// `merge DIR…`: every `shard-*.json` in the folders (or in their `*.shards` subfolders),
/// grouped by analysis, joined and written as a single run's results. The exit code.
pub fn merge(args: &MergeArgs) -> i32 {
    let mut groups: std::collections::BTreeMap<String, Vec<(String, Value)>> = Default::default();
    let unreadable = |path: &Path, reason: String| {
        let e = ShellError::Read {
            path: path.display().to_string(),
            reason,
        };
        file_failed(path, &Failure::one(miette::Report::new(e)), args.json)
    };
    for dir in &args.dirs {
        let files = match nsd_io::report::shard_files(dir) {
            Ok(f) => f,
            Err(e) => return unreadable(dir, e.to_string()),
        };
        for f in files {
            match nsd_io::report::read_json(&f) {
                Ok(v) => {
                    let name = v["name"].as_str().unwrap_or_default().to_string();
                    groups
                        .entry(name)
                        .or_default()
                        .push((f.display().to_string(), v));
                }
                Err(e) => return unreadable(&f, e.to_string()),
            }
        }
    }
    if groups.is_empty() {
        let empty = Failure::one(miette::Report::new(analysis::MergeError::Empty));
        let dirs: Vec<String> = args.dirs.iter().map(|d| d.display().to_string()).collect();
        return file_failed(Path::new(&dirs.join(" ")), &empty, args.json);
    }
    let mut code = 0;
    for (name, shards) in groups {
        // `merge_shards` checks that every shard has the first one's hash.
        let hash = shards[0].1["source_hash"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match analysis::merge_shards(&shards) {
            Ok(r) => code = code.max(written(&r, &args.out, &hash, args.json)),
            Err(e) => {
                let report = miette::Report::new(e).wrap_err(format!("cannot merge `{name}`"));
                let failure = Failure::one(report);
                failure.eprint();
                if args.json {
                    // Shards are slices of `basins` maps only.
                    let record =
                        json!({ "name": name, "kind": "basins", "out": null, "summary": {} });
                    emit(&failed(record, &failure, 1).to_string());
                }
                code = 1;
            }
        }
    }
    code
}
