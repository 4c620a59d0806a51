//! The integration tests, one binary (issue 44, item 5): each module was a test binary of
//! its own, each linking the whole library; one binary links it once. The modules run the
//! `nsd` binary (`common::nsd`) or call the library crates through `nsd`'s re-exports.

mod common;

mod backbone;
mod bounded_work;
mod cli;
mod contact_laws;
mod continuation_corners;
mod diagnostics;
mod expect;
mod fmt;
mod frf_scale;
mod hill_scale;
mod lsp;
mod many_pads;
mod models;
mod modes_sparse;
mod p000_basins;
mod p000_bifurcation;
mod p000_frf;
mod p000_multiple_shooting;
mod p000_periodic;
mod p000_sections;
mod p000_simulate;
mod p001_modes;
mod p001_regimes;
mod p001_sweep;
mod p002_friction;
mod p002_impacts;
mod p002_multibody;
mod p002_timestepping;
mod p003_backbone;
mod p003_friction;
mod p003_hb;
mod p003_hessian;
mod p003_modes;
mod p003_stability;
mod p004_modes;
mod p004_nsmodes;
mod reduce;
mod repl;
mod robustness;
mod simulate_edges;
mod simulate_forces;
mod simulate_friction2d;
mod simulate_record;
mod simultaneous_events;
mod stiff_scale;
mod taylor_flow;
mod tidy;
mod trust_multibody;
mod trust_options;
mod trust_outputs;
mod trust_tools;
