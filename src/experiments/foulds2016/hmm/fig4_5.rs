//! foulds2016 Figures 4–5: per-state emission distributions of the same run.

use super::{validate_run, Run};
use crate::config::ParamError;
use crate::experiments::foulds2016::hmm::sweep::record;
use crate::experiments::{Deferred, Figure, Plan};
use crate::hmm::FEATURES;
use crate::privacy::ledger::Ledger;
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use rand_chacha::ChaCha8Rng;

/// Per-state emission distributions (the released estimate, see `Output::phi_hat`).
pub struct Fig45 {
    run: Run,
}

pub fn validate_fig4_5(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let plan = validate_run(params, seed)?;
    Ok(Box::new(Deferred {
        description: plan.describe("emission distributions"),
        config: plan,
        prepare: |p| Ok(Box::new(Fig45 { run: p.prepare()? })),
    }))
}

impl Figure for Fig45 {
    fn parameters(&self) -> Vec<(String, String)> {
        self.run.parameters()
    }

    fn task_count(&self) -> usize {
        1
    }

    fn grid_description(&self) -> String {
        format!(
            "emission distributions of one {}-state run on {}, {}",
            self.run.c.states,
            self.run.dataset.name,
            self.run.c.mechanism.as_str()
        )
    }

    fn task_cost(&self, _index: usize) -> f64 {
        super::sweep::gibbs_cost(
            self.run.dataset.data.cells(),
            self.run.c.states,
            self.run.c.sweeps,
        )
    }

    fn run_task(&self, _index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let out = self.run.execute(rng)?;
        let labels = &self.run.dataset.value_labels;
        let mut rows = Vec::new();
        for (k, pk) in out.phi_hat.iter().enumerate() {
            let cells: usize = out.last.z.iter().flatten().filter(|&&z| z == k).count();
            for (d, p) in pk.iter().enumerate() {
                for (v, &x) in p.iter().enumerate() {
                    rows.push(to_row(&Fig45Row {
                        state: k as u64,
                        feature: FEATURES[d].into(),
                        value: v as u64,
                        label: labels[d][v].clone(),
                        probability: x,
                        cells_in_state: cells as u64,
                    }));
                }
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(data.clone())
    }

    fn manifest_details(&self) -> serde_json::Value {
        self.run.details()
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        self.run.ledger()
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        let d = &self.run.dataset;
        vec![record(&d.name, &d.data, &d.provenance)]
    }
}

/// A row of Figs 4–5's `data.csv` (= `summary.csv`): a state's emission
/// probability of one value of one feature, and how many cells the state holds.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig45Row {
    pub state: u64,
    pub feature: String,
    pub value: u64,
    pub label: String,
    pub probability: f64,
    pub cells_in_state: u64,
}
