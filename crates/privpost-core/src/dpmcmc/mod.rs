//! DP-MCMC with the Barker acceptance test (heikkila2019-dp-mcmc): the
//! correction distribution V_cor of the Barker decomposition (paper eq. 8, 16), the
//! Barker chains, DP-SGLD and DPVI; and the exact private MH samplers
//! (the penalty algorithm, DP-HMC: `exact_mh`) with Räisä et al.'s targets
//! (`raisa_models`).

pub mod barker;
pub mod dpvi;
pub mod exact_mh;
pub mod gmm;
pub mod model;
pub mod raisa_models;
pub mod sg_mcmc;
pub mod sgld;
pub mod vcor;
mod vcor_table;
