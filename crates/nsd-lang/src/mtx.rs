//! MatrixMarket `coordinate real` text → `(row, col, value)` triplets (0-based, both
//! triangles), for the `matrices` statement's M, K, C imports.

/// `(row, col, value)` entries, 0-based.
pub(crate) type Triplets = Vec<(usize, usize, f64)>;

/// Parses a MatrixMarket coordinate file; returns `(rows, triplets)`.
pub(crate) fn parse(text: &str) -> Result<(usize, Triplets), String> {
    let mut lines = text.lines();
    let header = lines
        .next()
        .ok_or("the file is empty")?
        .to_ascii_lowercase();
    let words: Vec<&str> = header.split_whitespace().collect();
    if words.first() != Some(&"%%matrixmarket") || words.get(1) != Some(&"matrix") {
        return Err(
            "the first line must be `%%MatrixMarket matrix coordinate real general|symmetric`"
                .into(),
        );
    }
    if words.get(2) != Some(&"coordinate") {
        return Err("only the `coordinate` format is supported".into());
    }
    if !matches!(words.get(3), Some(&"real") | Some(&"integer")) {
        return Err("entries must be `real`".into());
    }
    let symmetric = match words.get(4) {
        Some(&"general") => false,
        Some(&"symmetric") => true,
        other => return Err(format!("unsupported symmetry `{}`", other.unwrap_or(&""))),
    };
    let mut data = lines
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('%'));
    let size_line = data
        .next()
        .ok_or("missing the size line `rows cols entries`")?;
    let size: Vec<usize> = size_line
        .split_whitespace()
        .map(|w| {
            w.parse::<usize>()
                .map_err(|_| format!("bad size line `{size_line}`"))
        })
        .collect::<Result<_, _>>()?;
    let [rows, cols, nnz] = size[..] else {
        return Err(format!("bad size line `{size_line}`"));
    };
    if rows != cols {
        return Err(format!("the matrix is {rows}×{cols}; it must be square"));
    }
    let mut triplets = Vec::with_capacity(if symmetric { 2 * nnz } else { nnz });
    for (n, line) in data.enumerate() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let parse_err = || format!("bad entry {} `{line}`", n + 1);
        let (i, j, v) = match w[..] {
            [i, j, v] => (
                i.parse::<usize>().map_err(|_| parse_err())?,
                j.parse::<usize>().map_err(|_| parse_err())?,
                v.parse::<f64>().map_err(|_| parse_err())?,
            ),
            _ => return Err(parse_err()),
        };
        if i == 0 || j == 0 || i > rows || j > cols {
            return Err(format!(
                "entry {} `{line}` is outside the {rows}×{cols} matrix",
                n + 1
            ));
        }
        triplets.push((i - 1, j - 1, v));
        if symmetric && i != j {
            triplets.push((j - 1, i - 1, v));
        }
    }
    Ok((rows, triplets))
}

#[cfg(test)]
mod tests {
    #[test]
    fn symmetric_files_expand_both_triangles() {
        let text =
            "%%MatrixMarket matrix coordinate real symmetric\n% c\n2 2 2\n1 1 2.0\n2 1 -1.0\n";
        let (n, t) = super::parse(text).expect("valid file");
        assert_eq!(n, 2);
        assert_eq!(t, vec![(0, 0, 2.0), (1, 0, -1.0), (0, 1, -1.0)]);
    }
}
