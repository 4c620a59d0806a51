//! The module import graph of one crate's `src/` (issue 44): each file a module (`a/b.rs` and
//! `a/b/mod.rs` are `a::b`), each path it names outside its tests, comments and strings (the
//! `use` trees and every `crate::`, `super::`, `self::` path) an arrow to the deepest module
//! the path reaches. An arrow counts at the level where the two modules' paths part
//! (`solve::hb::friction` → `solve::hb::cycles` is `friction → cycles` under `solve::hb`);
//! naming one's own ancestors or descendants adds none. A loop among siblings means neither
//! can be understood, tested or moved without the other.

use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;
use std::collections::{BTreeMap, BTreeSet};

/// A module's path from the crate root (`["solve", "hb", "friction"]`).
type Module = Vec<String>;

/// The module of a source file path relative to `src/` (`solve/hb/mod.rs` → `solve::hb`).
pub fn module_of(rel: &str) -> Module {
    let mut parts: Module = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text with comments, string and character literals blanked, cut before the first
/// `#[cfg(test)]` (the tests at a file's end may name anything).
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1).copied()) {
            ('/', Some('/')) => {
                while i < b.len() && b[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            ('"', _) => {
                i += 1;
                while i < b.len() && b[i] != '"' {
                    i += if b[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            ('r', Some('"' | '#')) if i == 0 || !is_ident(b[i - 1]) => {
                let hashes = b[i + 1..].iter().take_while(|c| **c == '#').count();
                let close: String = std::iter::once('"')
                    .chain("#".repeat(hashes).chars())
                    .collect();
                let rest: String = b[i + 2 + hashes..].iter().collect();
                let len = rest.find(&close).map_or(rest.len(), |k| k + close.len());
                i += 2 + hashes + rest[..len].chars().count();
                out.push_str("\"\"");
            }
            ('\'', Some('\\')) => {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            ('\'', Some(_)) if b.get(i + 2) == Some(&'\'') => i += 3,
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of a `use` tree (`a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`).
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap_or(tree).trim().to_string()];
    };
    let prefix = tree[..open].trim_end_matches("::").trim();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (k, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| match (prefix.is_empty(), p.as_str()) {
            (true, _) => p,
            (false, "self") => prefix.to_string(),
            (false, _) => format!("{prefix}::{p}"),
        })
        .collect()
}

/// Every path a module's code names that starts at `crate`, `super` or `self`.
fn named_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(k) = rest.find("use ") {
        let before = rest[..k].chars().next_back();
        let tail = &rest[k + 4..];
        if before.is_none_or(|c| !is_ident(c)) {
            if let Some(end) = tail.find(';') {
                out.extend(expand(&tail[..end]));
            }
        }
        rest = tail;
    }
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(k) = code[from..].find(start).map(|k| k + from) {
            let prev = code[..k].chars().next_back();
            from = k + start.len();
            if prev.is_some_and(|c| is_ident(c) || c == ':') {
                continue;
            }
            let path: String = code[k..]
                .chars()
                .take_while(|c| is_ident(*c) || *c == ':')
                .collect();
            out.push(path.trim_end_matches(':').to_string());
        }
    }
    out
}

/// The deepest module of `modules` that `path`, named in `current`, reaches.
fn resolve(current: &Module, path: &str, modules: &BTreeSet<Module>) -> Option<Module> {
    let mut segs = path.split("::").filter(|s| !s.is_empty()).peekable();
    let mut base: Module = match segs.peek().copied() {
        Some("crate") => {
            segs.next();
            Vec::new()
        }
        Some("super") => {
            let mut b = current.clone();
            while segs.peek() == Some(&"super") {
                segs.next();
                b.pop();
            }
            b
        }
        Some("self") => {
            segs.next();
            current.clone()
        }
        _ => return None,
    };
    base.extend(segs.map(|s| s.trim().to_string()));
    (0..=base.len())
        .rev()
        .map(|k| base[..k].to_vec())
        .find(|m| modules.contains(m))
}

/// The arrows between sibling modules, each with the file-level arrows behind it.
pub fn sibling_arrows(sources: &[(Module, String)]) -> BTreeMap<(Module, Module), Vec<String>> {
    let modules: BTreeSet<Module> = sources.iter().map(|(m, _)| m.clone()).collect();
    let mut arrows: BTreeMap<(Module, Module), Vec<String>> = BTreeMap::new();
    for (m, text) in sources {
        for path in named_paths(&code_of(text)) {
            let Some(t) = resolve(m, &path, &modules) else {
                continue;
            };
            let k = m.iter().zip(&t).take_while(|(a, b)| a == b).count();
            if k == m.len() || k == t.len() {
                continue;
            }
            let why = format!("{} → {}", m.join("::"), t.join("::"));
            let e = arrows
                .entry((m[..=k].to_vec(), t[..=k].to_vec()))
                .or_default();
            if !e.contains(&why) {
                e.push(why);
            }
        }
    }
    arrows
}

/// The loops of the sibling arrows: each strongly connected set of more than one module,
/// with the arrows inside it.
pub fn loops(arrows: &BTreeMap<(Module, Module), Vec<String>>) -> Vec<Vec<String>> {
    let names: BTreeMap<&Module, String> = arrows
        .keys()
        .flat_map(|(a, b)| [a, b])
        .map(|m| (m, m.join("::")))
        .collect();
    let mut g = DiGraphMap::<&str, ()>::new();
    for (a, b) in arrows.keys() {
        g.add_edge(names[a].as_str(), names[b].as_str(), ());
    }
    tarjan_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            arrows
                .iter()
                .filter(|((a, b), _)| {
                    c.contains(&names[a].as_str()) && c.contains(&names[b].as_str())
                })
                .flat_map(|(_, why)| why.clone())
                .collect()
        })
        .collect()
}
