//! The standard library of components, built into the binary so that `import "chain.nsd"`
//! works from an installed `nsd` in any directory; `$NSD_STDLIB` names a folder that is
//! searched instead.

use std::path::PathBuf;

/// Every file of `stdlib/` as (name, text); a test checks the list against the folder.
const FILES: [(&str, &str); 4] = [
    ("beam.nsd", include_str!("../../../stdlib/beam.nsd")),
    (
        "blade_damper.nsd",
        include_str!("../../../stdlib/blade_damper.nsd"),
    ),
    ("chain.nsd", include_str!("../../../stdlib/chain.nsd")),
    (
        "underplatform_damper.nsd",
        include_str!("../../../stdlib/underplatform_damper.nsd"),
    ),
];

/// Where the stdlib is read from, as named in diagnostics.
pub(crate) const WHERE: &str = "built into nsd; `$NSD_STDLIB` names a folder to use instead";

/// The folder that replaces the built-in stdlib, from `$NSD_STDLIB`.
pub(crate) fn override_dir() -> Option<PathBuf> {
    std::env::var_os("NSD_STDLIB").map(PathBuf::from)
}

/// The built-in file named `rel` (`chain.nsd`, `./chain.nsd`), when there is no override.
pub(crate) fn builtin(rel: &str) -> Option<(&'static str, &'static str)> {
    if override_dir().is_some() {
        return None;
    }
    let rel = rel.trim_start_matches("./");
    FILES.iter().copied().find(|(name, _)| *name == rel)
}

/// The path under which a built-in file is known (its identity for import cycles and
/// repeated imports, and its name in diagnostics).
pub(crate) fn builtin_path(name: &str) -> PathBuf {
    PathBuf::from(format!("<stdlib>/{name}"))
}

#[cfg(test)]
mod tests {
    use super::FILES;

    #[test]
    fn the_built_in_stdlib_is_the_stdlib_folder() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../stdlib");
        let mut on_disk: Vec<(String, String)> = std::fs::read_dir(&dir)
            .expect("stdlib folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "nsd"))
            .map(|p| {
                let name = p
                    .file_name()
                    .expect("a file")
                    .to_string_lossy()
                    .into_owned();
                (name, std::fs::read_to_string(&p).expect("utf-8"))
            })
            .collect();
        on_disk.sort();
        let built_in: Vec<(String, String)> = FILES
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        assert_eq!(
            built_in, on_disk,
            "add the new stdlib file to `stdlib::FILES`"
        );
    }
}
