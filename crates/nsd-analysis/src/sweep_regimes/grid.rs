//! The swept model at one grid point: the analysis's model resolved with the two swept
//! parameters overridden, assembled, and set up as a one-contact regime problem.

use nsd_lang::{resolve, Override, Program};
use nsd_model::{assemble, System};
use nsd_solve::regimes::contact::{setup, Setup};

/// Resolves and assembles the model at one grid point.
pub(super) struct Grid<'a> {
    pub prog: &'a Program,
    pub model: &'a str,
    /// The command line's overrides; the swept parameters replace theirs.
    pub overrides: &'a [Override],
    pub x_name: String,
    pub y_name: String,
}

impl Grid<'_> {
    /// The system and its regime set-up at `x`, `y`; a model that does not resolve or is no
    /// regime problem there is a plain-text reason.
    pub fn at(&self, x: f64, y: f64) -> Result<(System, Setup), String> {
        let mut ov = self.overrides.to_vec();
        ov.retain(|o| o.name != self.x_name && o.name != self.y_name);
        ov.push(Override {
            name: self.x_name.clone(),
            value: x,
        });
        ov.push(Override {
            name: self.y_name.clone(),
            value: y,
        });
        let model = resolve(self.prog, self.model, &ov).map_err(|f| f.render_plain())?;
        let sys = assemble(&model);
        let s = setup(&sys).map_err(|e| e.to_string())?;
        Ok((sys, s))
    }
}
