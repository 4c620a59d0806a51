//! A model as a family over its parameters: resolved and assembled with some parameters set
//! over the command line's values. The one builder of the analyses that sweep or continue
//! parameters (`sweep bifurcation`, `continue periodic`, `sweep regimes`' grid).

use nsd_lang::{resolve, Override, Program};
use nsd_model::{assemble, System};

/// The model `model` of `prog` with the command line's `overrides`.
#[derive(Clone, Copy)]
pub(crate) struct Family<'a> {
    pub(crate) prog: &'a Program,
    pub(crate) model: &'a str,
    pub(crate) overrides: &'a [Override],
}

impl Family<'_> {
    /// The system with each `(parameter, value)` of `values` set (replacing the command
    /// line's value of the same parameter); a model that does not resolve there is a
    /// plain-text reason.
    pub(crate) fn at(&self, values: &[(&str, f64)]) -> Result<System, String> {
        let mut ov: Vec<Override> = self
            .overrides
            .iter()
            .filter(|o| values.iter().all(|(name, _)| o.name != *name))
            .cloned()
            .collect();
        ov.extend(values.iter().map(|&(name, value)| Override {
            name: name.into(),
            value,
        }));
        let model = resolve(self.prog, self.model, &ov).map_err(|f| f.render_plain())?;
        Ok(assemble(&model))
    }
}
