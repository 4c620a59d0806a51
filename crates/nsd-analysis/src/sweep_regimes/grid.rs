//! The swept model at one grid point: the analysis's model resolved with the two swept
//! parameters overridden, assembled, and set up as a one-contact regime problem.

use crate::family::Family;
use nsd_model::System;
use nsd_solve::regimes::contact::{setup, Setup};

/// Resolves and assembles the model at one grid point.
pub(super) struct Grid<'a> {
    pub(crate) family: Family<'a>,
    pub(crate) x_name: String,
    pub(crate) y_name: String,
}

impl Grid<'_> {
    /// The system and its regime set-up at `x`, `y`; a model that does not resolve or is no
    /// regime problem there is a plain-text reason.
    pub(crate) fn at(&self, x: f64, y: f64) -> Result<(System, Setup), String> {
        let sys = self.family.at(&[(&self.x_name, x), (&self.y_name, y)])?;
        let s = setup(&sys).map_err(|e| e.to_string())?;
        Ok((sys, s))
    }
}
