//! The watched DOF's peak along the branch, refined between the points.

/// The largest response: the vertex of the parabola through the largest point and its two
/// neighbours on the branch when it is a maximum there (the points are as sparse as the step
/// control allows on a smooth peak), else the largest point itself.
pub(super) fn refined_peak(curve: &[(f64, f64)]) -> (f64, f64) {
    let Some(i) = (0..curve.len()).max_by(|&a, &b| curve[a].1.total_cmp(&curve[b].1)) else {
        return (f64::NAN, f64::NAN);
    };
    if i == 0 || i + 1 == curve.len() {
        return curve[i];
    }
    let [(x0, y0), (x1, y1), (x2, y2)] = [curve[i - 1], curve[i], curve[i + 1]];
    // Newton's divided differences: y = y1 + d1 (x − x1) + d2 (x − x1)(x − x0)…
    let (a, b) = ((y1 - y0) / (x1 - x0), (y2 - y1) / (x2 - x1));
    let curvature = (b - a) / (x2 - x0);
    let concave = curvature < 0.0 && x0 < x1 && x1 < x2;
    if !concave {
        return curve[i];
    }
    // Vertex of y = y1 + s (x − x1) + curvature (x − x1)², s the slope at x1.
    let slope = a + curvature * (x1 - x0);
    let x = x1 - slope / (2.0 * curvature);
    if x <= x0 || x >= x2 {
        return curve[i];
    }
    (x, y1 - slope * slope / (4.0 * curvature))
}
