//! `audit-tradeoff.csv`: the statistical audits' threshold tests as points on
//! their claimed trade-off curves, one row per point, and the audits read back
//! from it (for `privpost audit`'s report and `audit-tradeoff.png`).

use super::mechanisms::Claim;
use crate::privacy::curve_audit::TradeoffPoint;
use crate::results::table::Table;

/// A row of `audit-tradeoff.csv`: one threshold test of a statistical audit as a
/// point on the trade-off curve ([`crate::privacy::curve_audit`]), with its claim.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TradeoffRow {
    pub audit: String,
    pub method: String,
    pub variant: String,
    pub claim: String,
    pub claim_epsilon: f64,
    pub claim_delta: f64,
    pub order: f64,
    pub test: String,
    pub fpr: f64,
    pub fpr_upper: f64,
    pub tpr: f64,
    pub tpr_lower: f64,
    pub claimed_tpr: f64,
    pub below_claim: bool,
    pub mu_lower: f64,
    /// The confidence level of each Clopper–Pearson bound.
    pub level_each: f64,
}

impl TradeoffRow {
    /// The claim the row's point was set against.
    pub fn claim(&self) -> Claim {
        match self.claim.as_str() {
            "approx" => Claim::Approx {
                epsilon: self.claim_epsilon,
                delta: self.claim_delta,
            },
            "rdp" => Claim::Rdp {
                order: self.order,
                epsilon: self.claim_epsilon,
            },
            _ => Claim::Pure {
                epsilon: self.claim_epsilon,
            },
        }
    }
}

/// The trade-off points file of the statistical audits.
pub const TRADEOFF_FILE: &str = "audit-tradeoff.csv";

/// One statistical audit's rows of [`TRADEOFF_FILE`]: its claim and its points.
pub struct AuditCurve {
    pub audit: String,
    pub variant: String,
    pub claim: Claim,
    pub points: Vec<TradeoffPoint>,
}

impl AuditCurve {
    /// How many points lie below the claimed curve.
    pub fn below(&self) -> usize {
        self.points.iter().filter(|p| p.below_claim).count()
    }

    /// The empirical μ-GDP lower bound: the largest of the points'.
    pub fn mu_lower(&self) -> f64 {
        self.points.iter().map(|p| p.mu_lower).fold(0.0, f64::max)
    }
}

/// The audits of a [`TRADEOFF_FILE`] table, in its order.
pub fn audit_curves(t: &Table) -> anyhow::Result<Vec<AuditCurve>> {
    let mut curves: Vec<AuditCurve> = Vec::new();
    for row in t.record_iter::<TradeoffRow>()? {
        let r = row.map_err(|e| anyhow::anyhow!("{TRADEOFF_FILE}: {e}"))?;
        let point = TradeoffPoint {
            test: r.test.clone(),
            fpr: r.fpr,
            fpr_upper: r.fpr_upper,
            tpr: r.tpr,
            tpr_lower: r.tpr_lower,
            claimed_tpr: r.claimed_tpr,
            below_claim: r.below_claim,
            mu_lower: r.mu_lower,
        };
        match curves.last_mut() {
            Some(c) if c.audit == r.audit && c.variant == r.variant => c.points.push(point),
            _ => curves.push(AuditCurve {
                claim: r.claim(),
                audit: r.audit,
                variant: r.variant,
                points: vec![point],
            }),
        }
    }
    Ok(curves)
}
