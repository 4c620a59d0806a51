//! The progress bar of the long analyses (sweeps over cells or values) on stderr; indicatif
//! hides it when stderr is not a terminal.

/// A bar over `count` units of work for `what` (e.g. `sweep regimes`), counting `unit`s.
pub(crate) fn bar(count: usize, what: &str, unit: &str, model: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(count as u64);
    let template =
        format!("{{spinner}} {what} {{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{elapsed}})");
    bar.set_style(
        indicatif::ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(model.to_string());
    bar
}
