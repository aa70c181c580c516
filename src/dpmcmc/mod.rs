//! DP-MCMC with the Barker acceptance test (heikkila2019-dp-mcmc). So far: the
//! correction distribution V_cor of the Barker decomposition (paper eq. 8, 16).

pub mod barker;
pub mod dpvi;
pub mod gmm;
pub mod sgld;
pub mod vcor;
mod vcor_table;
