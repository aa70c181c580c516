//! The registry: one row per figure — the only list of figures in the crate.
//! A row names its id (config and notes are found from it), title, validator,
//! schema, plot, columns (typed rows' declarations), overlay and cost rate.

use super::{
    audit, bun2018, calibration, foulds2016, geumlek2017, heikkila2019, ju2022, logreg, minami2016,
    raisa2021, xiong2025, Columns, Cost, Figure, Overlay, ParamError, Plan, Rate, Ready, Spec,
};
use crate::results::record::columns;

/// Wraps a figure whose validation is its preparation.
pub(super) fn ready(f: Result<Box<dyn Figure>, ParamError>) -> Result<Box<dyn Plan>, ParamError> {
    Ok(Box::new(Ready(f?)))
}

/// A registry row of a built-in figure: its config (`configs/ID.toml`) and its
/// notes (`docs/figures/ID.toml`) are found from its id, so the id is spelled
/// once.
macro_rules! figure {
    (id: $id:expr, $($field:ident: $value:expr),+ $(,)?) => {
        Spec {
            id: $id,
            config: concat!("configs/", $id, ".toml"),
            config_text: include_str!(concat!("../../configs/", $id, ".toml")),
            notes: include_str!(concat!("../../docs/figures/", $id, ".toml")),
            $($field: $value),+
        }
    };
}

/// The id of the figure `privpost audit` runs (a macro, so that the registry row
/// can find its config and notes from it at compile time).
macro_rules! audit_figure {
    () => {
        "audit/mechanisms"
    };
}
pub const AUDIT_FIGURE: &str = audit_figure!();

/// One row per figure: the only list of figures in the crate.
pub const REGISTRY: &[Spec] = &[
    figure! {
        id: "geumlek2017/fig1",
        title: "Achievable (λ, ε)-RDP curves of the diffused and concentrated posteriors",
        validate: |p, s| ready(geumlek2017::build_fig1(p, s)),
        schema: geumlek2017::FIG1_SCHEMA,
        plot: geumlek2017::plot::fig1,
        data_columns: Columns::Record(columns::<geumlek2017::Fig1Row>),
        summary_columns: Columns::Record(columns::<geumlek2017::Fig1Row>),
        overlay: Overlay {
            x: "lambda",
            y: "epsilon",
            series: &["algorithm", "coefficient"],
            x_label: "order λ",
            y_label: "RDP ε(λ)",
        },
        rate: Some(Rate {
            per_unit: 1.1499e-08,
            fixed: 0.522,
            paper: Cost {
                total: 4.560000e+08,
                max: 1.000000e+04,
            },
        }),
    },
    figure! {
        id: "geumlek2017/fig2",
        title: "KL to the true posterior and held-out −ln p vs ln ε, Beta-Bernoulli",
        validate: |p, s| ready(geumlek2017::build_fig2(p, s)),
        schema: geumlek2017::FIG2_SCHEMA,
        plot: geumlek2017::plot::fig2,
        data_columns: Columns::Record(columns::<geumlek2017::Fig2Row>),
        summary_columns: Columns::Record(columns::<geumlek2017::Fig2Summary>),
        overlay: Overlay {
            x: "ln_epsilon",
            y: "mean",
            series: &["panel", "lambda", "algorithm"],
            x_label: "ln ε",
            y_label: "KL to the true posterior, or −ln p(X_H | θ)",
        },
        rate: Some(Rate {
            per_unit: 8.1882e-11,
            fixed: 0.0474,
            paper: Cost {
                total: 2.311140e+10,
                max: 1.500000e+07,
            },
        }),
    },
    figure! {
        id: "geumlek2017/fig3",
        title: "Test error and log-likelihood of (λ, ε)-RDP logistic-regression posteriors",
        validate: geumlek2017::validate_fig3,
        schema: geumlek2017::FIG3_SCHEMA,
        plot: logreg::plot::draw_fig3,
        data_columns: Columns::Record(columns::<geumlek2017::Fig3Row>),
        summary_columns: Columns::Record(columns::<geumlek2017::Fig3Summary>),
        overlay: Overlay {
            x: "ln_epsilon",
            y: "test_error_mean",
            series: &["dataset", "lambda", "mechanism"],
            x_label: "ln ε",
            y_label: "test error",
        },
        rate: Some(Rate {
            per_unit: 2.4829e-11,
            fixed: 0.439,
            paper: Cost {
                total: 1.864318e+13,
                max: 3.710044e+11,
            },
        }),
    },
    figure! {
        id: "geumlek2017/samplers",
        title: "Sampler validation: HMC and the paper's slice sampler vs a reference chain",
        validate: geumlek2017::samplers::validate,
        schema: geumlek2017::samplers::SCHEMA,
        plot: logreg::plot::draw_samplers,
        data_columns: Columns::Record(columns::<geumlek2017::samplers::SamplerRow>),
        summary_columns: Columns::Record(columns::<geumlek2017::samplers::SamplerSummary>),
        overlay: Overlay {
            x: "draws",
            y: "ess_min_per_1000_gradients",
            series: &["dataset", "sampler"],
            x_label: "draws",
            y_label: "min ESS per 1000 gradients",
        },
        // refitted after `logreg::SLICE_FLOP_COST` (the samplers-only run of
        // 2026-11-25, 142 s, per-task seconds from $PRIVPOST_TASK_TIMES)
        rate: Some(Rate {
            per_unit: 2.0824e-11,
            fixed: 0.47,
            paper: Cost {
                total: 1.362017e+13,
                max: 2.045476e+12,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig1",
        title: "True, OPS and Laplace-mechanism posteriors (ε = 1, N = 20)",
        validate: |p, s| ready(foulds2016::build_fig1(p, s)),
        schema: foulds2016::FIG1_SCHEMA,
        plot: foulds2016::plot::fig1,
        data_columns: Columns::Record(columns::<foulds2016::Fig1Row>),
        summary_columns: Columns::Record(columns::<foulds2016::Fig1Summary>),
        overlay: Overlay {
            x: "theta",
            y: "density",
            series: &["curve", "draw"],
            x_label: "θ",
            y_label: "density",
        },
        rate: Some(Rate {
            per_unit: 1.3361e-08,
            fixed: 0.153,
            paper: Cost {
                total: 3.200000e+05,
                max: 1.000000e+04,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig2",
        title: "L1 error of one private posterior sample vs N",
        validate: |p, s| ready(foulds2016::build_fig2(p, s)),
        schema: foulds2016::FIG2_SCHEMA,
        plot: foulds2016::plot::fig2,
        data_columns: Columns::Record(columns::<foulds2016::Fig2Row>),
        summary_columns: Columns::Record(columns::<foulds2016::Fig2Summary>),
        overlay: Overlay {
            x: "n",
            y: "mean",
            series: &["mechanism"],
            x_label: "N (data points)",
            y_label: "mean L1 error",
        },
        rate: Some(Rate {
            per_unit: 1.0086e-08,
            fixed: 0.0304,
            paper: Cost {
                total: 1.600000e+08,
                max: 1.000000e+04,
            },
        }),
    },
    figure! {
        id: "minami2016/logreg",
        title: "Logistic regression at (ε, δ = 1e-5): Gibbs posterior vs OPS, Concentrated, Diffuse",
        validate: minami2016::validate,
        schema: minami2016::SCHEMA,
        plot: logreg::plot::draw_minami,
        data_columns: Columns::Record(columns::<minami2016::LogregRow>),
        summary_columns: Columns::Record(columns::<minami2016::LogregSummary>),
        overlay: Overlay {
            x: "ln_epsilon",
            y: "test_error_mean",
            series: &["dataset", "mechanism"],
            x_label: "ln ε",
            y_label: "test error",
        },
        rate: Some(Rate {
            per_unit: 1.6545e-11,
            fixed: 0.585,
            paper: Cost {
                total: 9.070254e+12,
                max: 3.710044e+11,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig3",
        title: "HMM state assignments per region over time (Laplace, ε = 5, synthetic Iraq)",
        validate: foulds2016::hmm::validate_fig3,
        schema: foulds2016::hmm::RUN_SCHEMA,
        plot: foulds2016::hmm::plot::draw_fig3,
        data_columns: Columns::Record(columns::<foulds2016::hmm::StateRow>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::StateRow>),
        overlay: Overlay {
            x: "month",
            y: "modal_share",
            series: &["region_name"],
            x_label: "month",
            y_label: "share of regions in the modal state",
        },
        rate: Some(Rate {
            per_unit: 7.0052e-10,
            fixed: 0.0755,
            paper: Cost {
                total: 7.920000e+07,
                max: 7.920000e+07,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig4_5",
        title: "HMM per-state emission distributions (same run as foulds2016/fig3)",
        validate: foulds2016::hmm::validate_fig4_5,
        schema: foulds2016::hmm::RUN_SCHEMA,
        plot: foulds2016::hmm::plot::draw_fig4_5,
        data_columns: Columns::Record(columns::<foulds2016::hmm::Fig45Row>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::Fig45Row>),
        overlay: Overlay {
            x: "value",
            y: "probability",
            series: &["state", "feature"],
            x_label: "value",
            y_label: "probability",
        },
        rate: Some(Rate {
            per_unit: 6.8831e-10,
            fixed: 0.0737,
            paper: Cost {
                total: 7.920000e+07,
                max: 7.920000e+07,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig6",
        title: "HMM test log-likelihood vs ε: non-private, Laplace, OPS (M = 10, 100)",
        validate: foulds2016::hmm::validate_fig6,
        schema: foulds2016::hmm::FIG6_SCHEMA,
        plot: foulds2016::hmm::plot::draw_fig6,
        data_columns: Columns::Record(columns::<foulds2016::hmm::Fig6Row>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::Fig6Summary>),
        overlay: Overlay {
            x: "epsilon",
            y: "mean",
            series: &["dataset", "model", "mechanism"],
            x_label: "ε",
            y_label: "test log-likelihood per held-out event",
        },
        rate: Some(Rate {
            per_unit: 1.1306e-10,
            fixed: 0.0698,
            paper: Cost {
                total: 5.211595e+12,
                max: 5.998410e+10,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig7",
        title: "HMM state assignments under OPS (ε = 5, M = 100, synthetic Afghanistan): last 100 samples vs last sample",
        validate: foulds2016::hmm::validate_fig3,
        schema: foulds2016::hmm::RUN_SCHEMA,
        plot: foulds2016::hmm::plot::draw_fig7,
        data_columns: Columns::Record(columns::<foulds2016::hmm::StateRow>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::StateRow>),
        overlay: Overlay {
            x: "month",
            y: "modal_share",
            series: &["region_name"],
            x_label: "month",
            y_label: "share of regions in the modal state",
        },
        rate: Some(Rate {
            per_unit: 5.9798e-10,
            fixed: 0.0207,
            paper: Cost {
                total: 1.148800e+08,
                max: 1.148800e+08,
            },
        }),
    },
    figure! {
        id: "foulds2016/recovery",
        title: "HMM recovery of the planted states (ARI) and emissions (TV) vs ε, per mechanism (beyond the paper)",
        validate: foulds2016::hmm::recovery::validate,
        schema: foulds2016::hmm::recovery::SCHEMA,
        plot: foulds2016::hmm::plot::draw_recovery,
        data_columns: Columns::Record(columns::<foulds2016::hmm::recovery::RecoveryRow>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::recovery::RecoverySummary>),
        overlay: Overlay {
            x: "epsilon",
            y: "ari_modal_mean",
            series: &["dataset", "mechanism"],
            x_label: "ε",
            y_label: "ARI of the modal states (mean)",
        },
        rate: Some(Rate {
            per_unit: 6.1882e-10,
            fixed: 0.074,
            paper: Cost {
                total: 4.269760e+10,
                max: 1.148800e+08,
            },
        }),
    },
    figure! {
        id: "bun2018/fig2",
        title: "Mean Hellinger distance to the true posterior vs n (k = 2, 3, 4)",
        validate: |p, s| ready(bun2018::build_fig2(p, s)),
        schema: bun2018::FIG2_SCHEMA,
        plot: bun2018::plot::fig2,
        data_columns: Columns::Record(columns::<bun2018::Fig2Row>),
        summary_columns: Columns::Record(columns::<bun2018::Fig2Summary>),
        overlay: Overlay {
            x: "n",
            y: "mean",
            series: &["k", "mechanism"],
            x_label: "n (data size)",
            y_label: "mean Hellinger distance",
        },
        rate: Some(Rate {
            per_unit: 3.6255e-10,
            fixed: 0.025,
            paper: Cost {
                total: 9.546397e+10,
                max: 1.454644e+10,
            },
        }),
    },
    figure! {
        id: "bun2018/fig3",
        title: "Distance quartiles vs prior strength; exact output distributions",
        validate: |p, s| ready(bun2018::build_fig3(p, s)),
        schema: bun2018::FIG3_SCHEMA,
        plot: bun2018::plot::fig3,
        data_columns: Columns::Record(columns::<bun2018::Fig3Row>),
        summary_columns: Columns::Record(columns::<bun2018::Fig3Row>),
        overlay: Overlay {
            x: "prior",
            y: "mean",
            series: &["panel", "k", "mechanism"],
            x_label: "prior a",
            y_label: "mean Hellinger distance",
        },
        rate: Some(Rate {
            per_unit: 8.3040e-10,
            fixed: 0.141,
            paper: Cost {
                total: 8.729723e+08,
                max: 1.085406e+08,
            },
        }),
    },
    figure! {
        id: "heikkila2019/fig1",
        title: "DP-MCMC privacy budget vs q and T; clipped ratios vs proposal variance",
        validate: heikkila2019::validate_fig1,
        schema: heikkila2019::FIG1_SCHEMA,
        plot: heikkila2019::plot::fig1,
        data_columns: Columns::Record(columns::<heikkila2019::Fig1Row>),
        summary_columns: Columns::Record(columns::<heikkila2019::Fig1Row>),
        overlay: Overlay {
            x: "q",
            y: "epsilon",
            series: &["panel", "iterations", "conversion"],
            x_label: "sampling ratio q",
            y_label: "ε",
        },
        rate: Some(Rate {
            per_unit: 2.0898e-10,
            fixed: 0.61,
            paper: Cost {
                total: 2.799940e+10,
                max: 1.600000e+09,
            },
        }),
    },
    figure! {
        id: "heikkila2019/fig2",
        title: "Non-private vs private (DP-MCMC) tempered posterior samples, GMM",
        validate: heikkila2019::validate_fig2,
        schema: heikkila2019::FIG2_SCHEMA,
        plot: heikkila2019::plot::fig2,
        data_columns: Columns::Record(columns::<heikkila2019::Fig2Row>),
        summary_columns: Columns::Record(columns::<heikkila2019::Fig2Row>),
        overlay: Overlay {
            x: "theta1",
            y: "theta2",
            series: &["chain"],
            x_label: "θ₁",
            y_label: "θ₂",
        },
        rate: Some(Rate {
            per_unit: 1.7181e-10,
            fixed: 0.304,
            paper: Cost {
                total: 9.600000e+09,
                max: 6.400000e+09,
            },
        }),
    },
    figure! {
        id: "heikkila2019/fig3",
        title: "Running posterior mean/variance error vs ε: DP-MCMC vs DP-SGLD",
        validate: heikkila2019::validate_fig3,
        schema: heikkila2019::FIG3_SCHEMA,
        plot: heikkila2019::plot::fig3,
        data_columns: Columns::Record(columns::<heikkila2019::Fig3Row>),
        summary_columns: Columns::Record(columns::<heikkila2019::Fig3Summary>),
        overlay: Overlay {
            x: "iteration",
            y: "mean_error",
            series: &["method", "epsilon", "parameter"],
            x_label: "iteration",
            y_label: "|error of the posterior mean|",
        },
        rate: Some(Rate {
            per_unit: 2.6145e-10,
            fixed: 19.9,
            paper: Cost {
                total: 9.984000e+11,
                max: 2.400000e+10,
            },
        }),
    },
    figure! {
        id: audit_figure!(),
        title: "Privacy audit: every mechanism's claim against its exact or sampled privacy loss",
        validate: |p, s| ready(audit::build(p, s)),
        schema: audit::SCHEMA,
        plot: audit::plot::draw,
        data_columns: Columns::Record(columns::<audit::AuditRow>),
        summary_columns: Columns::Record(columns::<audit::AuditSummary>),
        overlay: Overlay {
            x: "draws",
            y: "epsilon_ratio",
            series: &["audit", "method", "variant"],
            x_label: "draws per neighbour",
            y_label: "audited ε / claimed ε",
        },
        rate: Some(Rate {
            per_unit: 2.9682e-09,
            fixed: 5.48,
            paper: Cost {
                total: 1.941540e+10,
                max: 4.000000e+09,
            },
        }),
    },
    figure! {
        id: "calibration/beta_bernoulli",
        title: "Calibration of naive, noise-aware and OPS posteriors (Beta-Bernoulli)",
        validate: |p, s| ready(calibration::build(p, s)),
        schema: calibration::SCHEMA,
        plot: calibration::plot::draw,
        data_columns: Columns::Record(columns::<calibration::PitRow>),
        summary_columns: Columns::Record(calibration::summary_columns),
        overlay: Overlay {
            x: "epsilon",
            y: "max_coverage_deviation",
            series: &["method", "n"],
            x_label: "ε",
            y_label: "largest coverage deviation",
        },
        // calibrated on a paper-scale run of 2026-11-28 with the da_mcmc arm (2 jobs,
        // 24.7 s, idle)
        rate: Some(Rate {
            per_unit: 4.8254e-10,
            fixed: 0.335,
            paper: Cost {
                total: 1.008420e+11,
                max: 2.185400e+09,
            },
        }),
    },
    figure! {
        id: "calibration/dirichlet",
        title: "Calibration of naive and noise-aware posteriors (Dirichlet-Categorical, TARP)",
        validate: |p, s| ready(calibration::dirichlet::build(p, s)),
        schema: calibration::dirichlet::SCHEMA,
        plot: calibration::plot::draw_dirichlet,
        data_columns: Columns::Record(columns::<calibration::cells::CheckRow>),
        summary_columns: Columns::Record(calibration::cells::multi_summary_columns),
        overlay: Overlay {
            x: "epsilon",
            y: "max_coverage_deviation",
            series: &["method", "n", "quantity"],
            x_label: "ε",
            y_label: "largest coverage deviation",
        },
        // calibrated on a paper-scale run of 2026-11-28 with the da_mcmc arm (2 jobs,
        // 66.5 s, idle)
        rate: Some(Rate {
            per_unit: 5.5334e-10,
            fixed: 1.06,
            paper: Cost {
                total: 2.365531e+11,
                max: 2.663823e+09,
            },
        }),
    },
    figure! {
        id: "calibration/logistic",
        title: "Calibration of the Concentrated, Diffuse, Gibbs and OPS posteriors (logistic regression, TARP)",
        validate: |p, s| ready(calibration::logistic::build(p, s)),
        schema: calibration::logistic::SCHEMA,
        plot: calibration::plot::draw_logistic,
        data_columns: Columns::Record(columns::<calibration::cells::CheckRow>),
        summary_columns: Columns::Record(calibration::cells::multi_summary_columns),
        overlay: Overlay {
            x: "epsilon",
            y: "max_coverage_deviation",
            series: &["method", "n", "quantity"],
            x_label: "ε",
            y_label: "largest coverage deviation",
        },
        // calibrated on its own paper-scale run of 2026-11-26 (2 jobs, 111.7 s, idle)
        rate: Some(Rate {
            per_unit: 1.4931e-10,
            fixed: 0.749,
            paper: Cost {
                total: 1.484514e+12,
                max: 1.671750e+10,
            },
        }),
    },
    figure! {
        id: "calibration/da_models",
        title: "Calibration of data-augmentation MCMC and naive posteriors (naive Bayes, linear regression; TARP)",
        validate: |p, s| ready(calibration::da_models::build(p, s)),
        schema: calibration::da_models::SCHEMA,
        plot: calibration::plot::draw_da_models,
        data_columns: Columns::Record(columns::<calibration::cells::CheckRow>),
        summary_columns: Columns::Record(calibration::cells::multi_summary_columns),
        overlay: Overlay {
            x: "epsilon",
            y: "max_coverage_deviation",
            series: &["method", "n", "quantity"],
            x_label: "ε",
            y_label: "largest coverage deviation",
        },
        // calibrated on its paper-scale run of 2026-11-28 (2 jobs, 18.4 s, idle)
        rate: Some(Rate {
            per_unit: 3.2519e-10,
            fixed: 0.267,
            paper: Cost {
                total: 1.114560e+11,
                max: 1.354500e+09,
            },
        }),
    },
    figure! {
        id: "raisa2021/banana",
        title: "DP-HMC vs the penalty algorithm, DP-SGLD and DP-SGNHT on the banana (MMD, errors, R̂ vs ε)",
        validate: |p, s| ready(raisa2021::build_banana(p, s)),
        schema: raisa2021::SCHEMA,
        plot: raisa2021::plot::banana,
        data_columns: Columns::Record(columns::<raisa2021::RunRow>),
        summary_columns: Columns::Record(columns::<raisa2021::SummaryRow>),
        overlay: Overlay {
            x: "epsilon",
            y: "mmd_mean",
            series: &["method"],
            x_label: "ε",
            y_label: "MMD to exact posterior draws",
        },
        // calibrated on a 2-repeat paper-scale run of 2026-11-26 with the AVX2 kernels
        // (2 jobs, 441 s, a build sharing the cores part of the time: conservative);
        // the paper's 10 repeats cost 5× the units
        rate: Some(Rate {
            per_unit: 2.3312e-09,
            fixed: 0.138,
            paper: Cost {
                total: 1.892310e+12,
                max: 3.004187e+10,
            },
        }),
    },
    figure! {
        id: "raisa2021/gauss",
        title: "DP-HMC vs the penalty algorithm, DP-SGLD and DP-SGNHT on the ill-conditioned 10-d Gaussian",
        validate: |p, s| ready(raisa2021::build_gauss(p, s)),
        schema: raisa2021::SCHEMA,
        plot: raisa2021::plot::gauss,
        data_columns: Columns::Record(columns::<raisa2021::RunRow>),
        summary_columns: Columns::Record(columns::<raisa2021::SummaryRow>),
        overlay: Overlay {
            x: "epsilon",
            y: "mmd_mean",
            series: &["method"],
            x_label: "ε",
            y_label: "MMD to exact posterior draws",
        },
        // calibrated on its paper-scale run of 2026-11-26 with the AVX2 kernels (10
        // repeats, 2 jobs, 738 s, idle)
        rate: Some(Rate {
            per_unit: 1.3040e-09,
            fixed: 0.137,
            paper: Cost {
                total: 1.131466e+12,
                max: 3.019600e+10,
            },
        }),
    },
    figure! {
        id: "raisa2021/gmm",
        title: "Heikkilä's GMM: the penalty algorithm, DP-HMC and DP-SGNHT beside DP-MCMC and DP-SGLD (running error vs ε)",
        validate: raisa2021::gmm::validate,
        schema: raisa2021::gmm::schema,
        plot: raisa2021::plot::gmm,
        data_columns: Columns::Record(columns::<heikkila2019::Fig3Row>),
        summary_columns: Columns::Record(columns::<heikkila2019::Fig3Summary>),
        overlay: Overlay {
            x: "iteration",
            y: "mean_error",
            series: &["method", "epsilon", "parameter"],
            x_label: "iteration",
            y_label: "|error of the posterior mean|",
        },
        // a paper-scale run of 2026-11-26 (2 jobs, 1354 s) shared the 2 cores with
        // another 2-job run: its DP-SGLD tasks ran at 2.1× heikkila2019/fig3's idle
        // seconds per unit, so the measured 4.617e-10 s/unit and 34.1 s are divided by 2.1
        rate: Some(Rate {
            per_unit: 2.1986e-10,
            fixed: 16.2,
            paper: Cost {
                total: 5.718400e+12,
                max: 9.600000e+10,
            },
        }),
    },
    figure! {
        id: "ju2022/loglinear",
        title: "Naive-Bayes log-linear model from Laplace-noised tables: data-augmentation MCMC (Ju et al. 2022)",
        validate: ju2022::loglinear::validate,
        schema: ju2022::loglinear::SCHEMA,
        plot: ju2022::plot::loglinear,
        data_columns: Columns::Record(columns::<ju2022::PosteriorRow>),
        summary_columns: Columns::Record(columns::<ju2022::SummaryRow>),
        overlay: Overlay {
            x: "epsilon",
            y: "mean",
            series: &["run", "parameter"],
            x_label: "ε",
            y_label: "posterior mean",
        },
        // calibrated on its paper-scale run of 2026-11-28 (2 jobs, 15 s, idle)
        rate: Some(Rate {
            per_unit: 6.9834e-10,
            fixed: 0.0127,
            paper: Cost {
                total: 4.350000e+10,
                max: 4.350000e+08,
            },
        }),
    },
    figure! {
        id: "ju2022/regression",
        title: "Linear regression from Laplace-noised sufficient statistics: data-augmentation MCMC (Ju et al. 2022)",
        validate: ju2022::regression::validate,
        schema: ju2022::regression::SCHEMA,
        plot: ju2022::plot::regression,
        data_columns: Columns::Record(columns::<ju2022::PosteriorRow>),
        summary_columns: Columns::Record(columns::<ju2022::SummaryRow>),
        overlay: Overlay {
            x: "epsilon",
            y: "mean",
            series: &["run", "parameter"],
            x_label: "ε",
            y_label: "posterior mean",
        },
        // calibrated on its paper-scale run of 2026-11-28 (2 jobs, 8 s, idle)
        rate: Some(Rate {
            per_unit: 5.0953e-10,
            fixed: 0.00864,
            paper: Cost {
                total: 3.180050e+10,
                max: 6.360000e+08,
            },
        }),
    },
    figure! {
        id: "xiong2025/coupling",
        title: "Meeting times of coupled chains on a private linear regression: SOMA against IMwG (Xiong & Ju 2025)",
        validate: xiong2025::validate,
        schema: xiong2025::SCHEMA,
        plot: xiong2025::plot,
        data_columns: Columns::Record(columns::<xiong2025::MeetingRow>),
        summary_columns: Columns::Record(columns::<xiong2025::SummaryRow>),
        overlay: Overlay {
            x: "epsilon",
            y: "median",
            series: &["kernel"],
            x_label: "ε",
            y_label: "median meeting time",
        },
        // the paper-scale run of 2026-12-04 (2 idle cores, 510 s wall); a task's
        // cost is its bound (every run to the cap), so pairs that meet early make
        // the estimate high by up to 2× at ε ≤ 3
        rate: Some(Rate {
            per_unit: 4.0014e-10,
            fixed: 0.0905,
            paper: Cost {
                total: 2.548000e+12,
                max: 3.640000e+10,
            },
        }),
    },
];
