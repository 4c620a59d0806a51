//! A branch's plot, solid where the response is stable and dashed where it is not: the
//! `frf.svg` of `continue frf` and the branches of `continue periodic`.

use crate::results::{Plot, Series};

/// `file`: the branch as one line, solid where stable and dashed where unstable (each part
/// NaN elsewhere; the segments across a change of stability are drawn solid).
pub(crate) fn stability_plot(
    file: &str,
    title: String,
    x_label: String,
    y_label: String,
    curve: &[(f64, f64)],
    stable: &[bool],
) -> Plot {
    Plot {
        file: file.into(),
        title,
        x_label,
        y_label,
        series: [("stable", true), ("unstable", false)]
            .into_iter()
            .map(|(label, wanted)| {
                let y = curve
                    .iter()
                    .enumerate()
                    .map(|(i, &(_, a))| {
                        let here = stable[i] == wanted;
                        let next_to =
                            |j: Option<usize>| j.and_then(|j| stable.get(j)) == Some(&true);
                        let joins = wanted && (next_to(i.checked_sub(1)) || next_to(Some(i + 1)));
                        if here || joins {
                            a
                        } else {
                            f64::NAN
                        }
                    })
                    .collect();
                Series {
                    label: label.into(),
                    x: curve.iter().map(|c| c.0).collect(),
                    y,
                    points: false,
                    dashed: !wanted,
                }
            })
            .collect(),
        cells: None,
    }
}
