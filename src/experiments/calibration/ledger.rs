//! The Beta-Bernoulli calibration's ledger: one entry per method and ε, Geumlek's mechanisms' entries at their coefficients.

use super::{
    Algorithm, BetaDist, Derivation, Entry, Event, GeumlekProblem, Guarantee, Ledger, Method,
    ReleaseKind, Releases, Verified,
};

/// The ledger: per ε, each release a method reads, once per method; a
/// noise-aware or naive posterior is post-processing of its release (the same
/// event, the same ε), so methods that read the same release claim the same.
pub(super) fn ledger(
    prior: &BetaDist,
    n_values: &[u64],
    (order, hellinger_delta): (f64, f64),
    releases: &[Releases],
    methods: &[Method],
) -> Ledger {
    let mut out = Vec::new();
    for rel in releases {
        for &m in methods {
            let series = format!("method={}, epsilon={}", m.as_str(), rel.epsilon);
            let note = "one release per simulated dataset (each replication draws fresh data)";
            match m.release() {
                Some(ReleaseKind::Rdp) => {
                    out.extend(geumlek_entries(prior, n_values, order, rel, m));
                }
                Some(ReleaseKind::Hellinger) => out.push(
                    Entry::new(
                        series,
                        crate::hellinger::privacy_event(rel.epsilon, hellinger_delta),
                        Guarantee::ApproxDp {
                            epsilon: rel.epsilon,
                            delta: hellinger_delta,
                            conversion: Derivation::theorem("smooth-sensitivity exponential mechanism"),
                            order: None,
                        },
                    )
                    .when("the released posterior is checked; its candidate is drawn exactly from the n + 1 output probabilities"),
                ),
                None => out.push(
                    Entry::new(series, Event::NonPrivate, Guarantee::None)
                        .when("the non-private control"),
                ),
                Some(ReleaseKind::FouldsCounts) => out.push(
                    Entry::new(series, rel.counts.event(), Guarantee::PureDp { epsilon: rel.epsilon })
                        .when(note)
                        .when("the posterior is post-processing of the clamped noisy counts (Foulds eq. 16): no cost beyond the release"),
                ),
                Some(ReleaseKind::OneCount) => out.push(
                    Entry::new(series, rel.one.event(), Guarantee::PureDp { epsilon: rel.epsilon })
                        .when(note)
                        .when("the posterior is post-processing of the noisy count (Bernstein & Sheldon): no cost beyond the release"),
                ),
                Some(ReleaseKind::Ops) => out.push(
                    Entry::new(
                        series,
                        rel.ops.event(),
                        Guarantee::PureDp {
                            epsilon: rel.ops.epsilon_spent(),
                        },
                    )
                    .when(note)
                    .when("checks the law one OPS draw comes from; the release is one draw"),
                ),
            }
        }
    }
    out
}

/// A Geumlek method's entries at one ε, one per n: the coefficient, hence the
/// event, depends on n, and the claim is the ε the coefficient meets (below the
/// target where even c = 1, the plain posterior, is private enough).
pub(super) fn geumlek_entries(
    prior: &BetaDist,
    n_values: &[u64],
    order: f64,
    rel: &Releases,
    m: Method,
) -> Vec<Entry> {
    let algorithm = m.geumlek().unwrap_or(Algorithm::Diffused);
    let k = usize::from(m == Method::ConcentratedBeta);
    n_values
        .iter()
        .enumerate()
        .map(|(ni, &n)| {
            let Verified {
                coefficient: c,
                epsilon,
                ..
            } = rel.geumlek[ni][k];
            Entry::new(
                format!("method={}, epsilon={}, n={n}", m.as_str(), rel.epsilon),
                GeumlekProblem::new(*prior, n).rdp_event(algorithm, c, &[order]),
                Guarantee::Rdp { order, epsilon },
            )
            .when(
                "checks the law one draw comes from; the release is one draw (exact Beta sampling)",
            )
        })
        .collect()
}
