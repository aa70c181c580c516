//! foulds2016 Figures 3 and 7: HMM state assignments per region over time — the
//! modal state over the post-burn-in sweeps, the last sample, and the planted truth.

use super::{month_label, validate_run, Run};
use crate::config::ParamError;
use crate::experiments::foulds2016::hmm::sweep::record;
use crate::experiments::{Deferred, Figure, Plan};
use crate::hmm::gibbs::modal;
use crate::privacy::ledger::Ledger;
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use rand_chacha::ChaCha8Rng;

/// State assignments over time for each region: modal over the post-burn-in sweeps,
/// the last sample, and the planted truth when known. Figure 3 (Laplace, iraq) and
/// Figure 7 (OPS, afghanistan: modal of the last 100 samples vs the last sample) are
/// this table from different configs.
pub struct Fig3 {
    run: Run,
}

/// Figures 3 and 7 (Figure 7 is the same table drawn as modal vs last-sample strips).
pub fn validate_fig3(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let plan = validate_run(params, seed)?;
    Ok(Box::new(Deferred {
        description: plan.describe("state assignments"),
        config: plan,
        prepare: |p| Ok(Box::new(Fig3 { run: p.prepare()? })),
    }))
}

/// A row of `data.csv` (and `summary.csv`): one region-month cell's state
/// assignments — the modal state over the post-burn-in samples and its share, the
/// last sample's state, and the planted truth (empty for data read from a CSV).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StateRow {
    pub region: u64,
    pub region_name: String,
    pub month: u64,
    pub date: String,
    pub events: u64,
    pub modal_state: u64,
    pub modal_share: f64,
    pub last_state: u64,
    pub true_state: Option<u64>,
}

impl Figure for Fig3 {
    fn parameters(&self) -> Vec<(String, String)> {
        self.run.parameters()
    }

    fn task_count(&self) -> usize {
        1
    }

    fn grid_description(&self) -> String {
        format!(
            "one {}-state Gibbs run ({} sweeps, {} burn-in) on {} ({} cells), {}",
            self.run.c.states,
            self.run.c.sweeps,
            self.run.c.burn_in,
            self.run.dataset.name,
            self.run.dataset.data.cells(),
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
        let kept = self.run.c.sweeps - self.run.c.burn_in;
        let ds = &self.run.dataset;
        let mut rows = Vec::new();
        for (r, (region, cells)) in ds.data.regions.iter().enumerate() {
            for (i, cell) in cells.iter().enumerate() {
                let t = &out.tallies[r][i];
                let m = modal(t);
                rows.push(to_row(&StateRow {
                    region: *region as u64,
                    region_name: ds.region_names[*region].clone(),
                    month: cell.month as u64,
                    date: month_label(&ds.first_month, cell.month),
                    events: cell.events as u64,
                    modal_state: m as u64,
                    modal_share: t[m] as f64 / kept as f64,
                    last_state: out.last.z[r][i] as u64,
                    true_state: ds
                        .truth
                        .as_ref()
                        .map(|tr| tr.states[*region][cell.month] as u64),
                }));
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
