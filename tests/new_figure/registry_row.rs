    figure! {
        id: "foulds2016/scratch",
        title: "A scratch figure: sample means",
        validate: foulds2016::scratch::validate,
        schema: foulds2016::scratch::SCHEMA,
        plot: foulds2016::scratch::plot,
        data_columns: Columns::Record(columns::<foulds2016::scratch::ScratchRow>),
        summary_columns: Columns::Record(columns::<foulds2016::scratch::ScratchSummary>),
        overlay: Overlay {
            x: "repeats",
            y: "mean",
            series: &[],
            x_label: "repeats",
            y_label: "mean",
        },
        rate: Some(Rate {
            per_unit: 1e-8,
            fixed: 0.01,
            paper: Cost {
                total: 2e3,
                max: 1e2,
            },
        }),
    },
