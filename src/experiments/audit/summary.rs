//! `summary.csv` of `audit/mechanisms`: the audit table's row.

/// A row of `summary.csv`: an audit's claim, what was measured, and the verdict
/// (the statistical audits add their confidence, seed, stream and scores file).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuditSummary {
    pub audit: String,
    pub method: String,
    pub variant: String,
    pub expected: String,
    pub verdict: String,
    pub as_expected: String,
    pub paper: String,
    pub mechanism: String,
    pub claim: String,
    pub claim_epsilon: f64,
    pub claim_delta: f64,
    pub order: f64,
    pub audited_epsilon: f64,
    pub estimate_epsilon: f64,
    pub ci_low_epsilon: f64,
    pub ci_high_epsilon: Option<f64>,
    pub epsilon_ratio: f64,
    pub draws: u64,
    pub confidence: Option<f64>,
    pub seed: Option<u64>,
    pub stream: Option<u64>,
    pub tolerance: f64,
    pub witness: String,
    pub scores_file: Option<String>,
}
