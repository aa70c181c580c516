//! heikkila2019 Figure 2: a private DP-MCMC chain (C = 2) beside the non-private
//! reference chain (C = 1) on the GMM problem.

use super::{
    account_error, check_alpha_max, check_proposal, check_start, gmm_record, private_test,
    resolve_start, start_json, Start, StartSpec,
};
use crate::config::{check, deserialize, ParamError};
use crate::dpmcmc::barker::{nonprivate_step, private_step, PrivateTest, Stats, SubsetSampler};
use crate::dpmcmc::gmm::generate;
use crate::dpmcmc::gmm::Gmm;
use crate::dpmcmc::vcor::VCor;
use crate::experiments::{Deferred, Figure, Plan};
use crate::privacy::accountant::BarkerAccount;
use crate::privacy::event::Conversion;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::draws::KeptDraws;
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::rng::{setup_rng, Purpose};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig2Config {
    n_data: u64,
    batch: u64,
    n0: f64,
    clip_factor: f64,
    proposal_variance: f64,
    private_iterations: u64,
    nonprivate_iterations: u64,
    burn_in: u64,
    start: StartSpec,
    delta: f64,
    alpha_max: u32,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG2_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig2Config>;

/// A private chain (C = 2) beside the non-private reference chain (C = 1) on the
/// GMM problem (Figure 2).
pub struct Fig2 {
    data: crate::numeric::pages::HugePageSlice,
    test: PrivateTest,
    proposal_sd: f64,
    iterations: [u64; 2],
    burn_in: u64,
    start: Start,
    account: BarkerAccount,
}

pub fn validate_fig2(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Fig2Config = deserialize(params)?;
    check::positive("n0", c.n0)?;
    check_proposal("proposal_variance", c.proposal_variance)?;
    check::at_least("private_iterations", c.private_iterations, 1)?;
    check::at_least("nonprivate_iterations", c.nonprivate_iterations, 1)?;
    if c.burn_in >= c.private_iterations.min(c.nonprivate_iterations) {
        return Err(ParamError::new(
            "burn_in",
            format!("{}", c.burn_in),
            "fewer than the iterations of either chain",
        ));
    }
    let test = private_test(["batch", "n_data"], c.n_data, c.batch, c.n0, c.clip_factor)?;
    let account = BarkerAccount {
        n_data: c.n_data,
        batch: c.batch,
        iterations: c.private_iterations,
        delta: c.delta,
        alpha_max: c.alpha_max,
    };
    check_alpha_max("alpha_max", c.alpha_max, 4)?;
    account
        .spent(Conversion::Classic)
        .map_err(|e| account_error(e, ""))?;
    check_start(&c.start)?;
    let description = format!(
        "a private chain of {} and a non-private chain of {} iterations on N = {} GMM data (start {}; data and start made at run time); 2 tasks",
        c.private_iterations,
        c.nonprivate_iterations,
        c.n_data,
        match &c.start {
            StartSpec::Method(m) => m.clone(),
            StartSpec::Point(p) => format!("{p:?}"),
        }
    );
    Ok(Box::new(Deferred {
        description,
        config: (c, seed, test, account),
        prepare: |(c, seed, test, account)| {
            let data = crate::numeric::pages::HugePageSlice::new(&generate(
                c.n_data as usize,
                &mut setup_rng(seed, Purpose::SharedData),
            ));
            let start = resolve_start(&c.start, &data, seed)?;
            Ok(Box::new(Fig2 {
                data,
                test,
                proposal_sd: c.proposal_variance.sqrt(),
                iterations: [c.nonprivate_iterations, c.private_iterations],
                burn_in: c.burn_in,
                start,
                account,
            }))
        },
    }))
}

/// A row of Fig. 2's `data.csv` (= `summary.csv`): one kept draw of a chain.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
pub struct Fig2Row {
    /// `nonprivate` or `private`
    pub chain: String,
    pub iteration: u64,
    pub theta1: f64,
    pub theta2: f64,
}

const CHAINS: [&str; 2] = ["nonprivate", "private"];

impl Figure for Fig2 {
    fn parameters(&self) -> Vec<(String, String)> {
        use crate::experiments::parameter;
        let mut p = vec![
            parameter("synthetic GMM data, N", self.account.n_data),
            parameter("batch b", self.test.batch),
            parameter("N₀", self.test.n0),
            parameter("proposal sd", crate::plot::tick(&self.proposal_sd)),
        ];
        // the private chain's claim (composed with its start), from the ledger:
        // the classic conversion as the paper states it, the improved one beside
        if let Ok(ledger) = self.ledger() {
            let claim = |c: Conversion| {
                let key = format!("conversion={}", c.as_str());
                ledger
                    .iter()
                    .find(|e| e.series.contains(&key))
                    .map(|e| e.guarantee.epsilon_delta())
                    .filter(|(eps, _)| eps.is_finite())
            };
            if let Some((eps, delta)) = claim(Conversion::Classic) {
                let improved = claim(Conversion::Improved)
                    .map(|(e, _)| format!("; {} by the improved conversion", crate::plot::tick(&e)))
                    .unwrap_or_default();
                p.push(parameter(
                    "(b) ε",
                    format!(
                        "{} at δ = {delta:e} (classic RDP conversion, as the paper{improved})",
                        crate::plot::tick(&eps)
                    ),
                ));
            }
        }
        p
    }

    fn task_count(&self) -> usize {
        2
    }

    fn grid_description(&self) -> String {
        format!(
            "non-private chain ({} iterations, C = 1) and private chain ({} iterations, C = 2), burn-in {}",
            self.iterations[0], self.iterations[1], self.burn_in
        )
    }

    /// One chain: per iteration a minibatch of clipped log-likelihood ratios
    /// (two exp and a ln_1p per point, ≈ 80 flops; batches can grow in the
    /// non-private sequential test, so counted at twice the batch).
    fn task_cost(&self, index: usize) -> f64 {
        self.iterations[index] as f64 * 2.0 * self.test.batch as f64 * 80.0
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let c = if index == 0 { 1.0 } else { 2.0 };
        let vcor = VCor::stored(c)
            .ok_or("no V_cor table")
            .map_err(anyhow::Error::msg)?;
        let mut subsets = SubsetSampler::new(self.data.len());
        let model = Gmm::untempered(&self.data);
        let (mut theta, mut stats) = (self.start.theta, Stats::default());
        let mut rows = Vec::new();
        for t in 0..self.iterations[index] {
            if index == 0 {
                nonprivate_step(
                    &model,
                    &mut subsets,
                    &mut theta,
                    self.proposal_sd,
                    self.test.batch,
                    self.test.n0,
                    &vcor,
                    &mut stats,
                    rng,
                )
            } else {
                private_step(
                    &model,
                    &mut subsets,
                    &mut theta,
                    self.proposal_sd,
                    &self.test,
                    &vcor,
                    &mut stats,
                    rng,
                )
            }?;
            if t >= self.burn_in {
                rows.push(to_row(&Fig2Row {
                    chain: CHAINS[index].into(),
                    iteration: t,
                    theta1: theta[0],
                    theta2: theta[1],
                }));
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(data.clone())
    }

    /// The two chains as two runs of `draws.csv` (run column `sampler`, one
    /// chain each), so ArviZ reads either; `data.csv` keeps the paper's columns.
    fn kept_draws(&self, data: &Table, _draw_rows: Vec<Row>) -> anyhow::Result<Option<KeptDraws>> {
        let mut kept = KeptDraws::new(&["sampler"], vec!["theta1".into(), "theta2".into()]);
        let rows = data.records::<Fig2Row>()?;
        for sampler in CHAINS {
            let chain: Vec<[f64; 2]> = rows
                .iter()
                .filter(|r| r.chain == sampler)
                .map(|r| [r.theta1, r.theta2])
                .collect();
            kept.push_chain(&[sampler.into()], 1, chain.iter().map(|d| d.as_slice()));
        }
        Ok(Some(kept))
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        vec![gmm_record(&self.data)]
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        let mut out = Vec::new();
        for conversion in [Conversion::Classic, Conversion::Improved] {
            let chain = self.account.entry("DP-MCMC chain", conversion)?;
            let series = format!("chain=private, conversion={}", conversion.as_str());
            out.push(self.start.compose(series, chain)?);
        }
        out.push(Entry::new(
            "chain=non_private",
            Event::NonPrivate,
            Guarantee::None,
        ));
        Ok(out)
    }

    fn manifest_details(&self) -> serde_json::Value {
        let exact = crate::dpmcmc::gmm::exact_posterior(&self.data, self.test.n0, 0.01, 161);
        serde_json::json!({
            "private_chain": {
                "batch": self.test.batch, "n0": self.test.n0, "clip": self.test.clip, "C": 2.0,
                "privacy": "see the ledger (`privacy`): the chain composed with the DPVI initialisation",
            },
            "nonprivate_chain": { "C": 1.0, "clip": "none", "batch": "grown by 100 while s² ≥ C" },
            "start": start_json(&self.start),
            "exact_tempered_posterior": { "mean": exact.mean, "var": exact.var, "corr": exact.corr },
        })
    }
}
