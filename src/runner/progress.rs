//! What a run shows while it works: the progress line or heartbeats (tasks done, elapsed, the estimate left), and log lines that do not tear the bar.

use super::{
    mpsc, rfc3339, AtomicUsize, Duration, Instant, Mutex, Options, Ordering, Progress, ProgressBar,
    ProgressDrawTarget, ProgressStyle, SystemTime,
};

/// `12 s`, `3 min 05 s`, `1 h 02 min`.
pub fn human_duration(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return "?".into();
    }
    let s = seconds.round() as u64;
    if s < 60 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
    }
}

/// The ETA when work `done` of `total` (in [`crate::experiments::Figure::task_cost`] units) has
/// finished after `elapsed` seconds: elapsed × remaining / done (unknown before
/// the first task ends). Weighting by cost, not by count, matters because the
/// costliest tasks run first: counting tasks overestimated Geumlek Fig. 3's ETA
/// severalfold.
pub fn eta_seconds(done: f64, total: f64, elapsed: f64) -> Option<f64> {
    (done > 0.0).then(|| elapsed * (total - done).max(0.0) / done)
}

pub(super) fn status_text(done: usize, total: usize, elapsed: f64, eta: Option<f64>) -> String {
    let eta = eta.map_or("unknown".into(), human_duration);
    format!(
        "{done}/{total} tasks, {} elapsed, ETA {eta}",
        human_duration(elapsed)
    )
}

/// A log line: the wall-clock time (UTC, RFC 3339) first.
pub fn log_line(text: impl std::fmt::Display) {
    errln!("{} {text}", rfc3339(SystemTime::now()));
}

/// The cost-weighted ETA at the last finished task: (work done, when, ETA then).
#[derive(Default)]
pub(super) struct Estimate {
    pub(super) done_cost: f64,
    pub(super) at: Option<Instant>,
    pub(super) eta: Option<f64>,
}

/// Progress of the tasks being computed: a bar redrawn every second with an
/// ETA from elapsed time and the cost of the tasks done, or heartbeat lines in
/// a log. Between two finished tasks the ETA counts down from the last
/// estimate: it never rises while nothing finishes.
pub(super) struct Monitor {
    pub(super) done: AtomicUsize,
    pub(super) total: usize,
    pub(super) total_cost: f64,
    pub(super) estimate: Mutex<Estimate>,
    pub(super) started: Instant,
    pub(super) bar: Option<ProgressBar>,
}

impl Monitor {
    pub(super) fn new(progress: Progress, total: usize, total_cost: f64, name: &str) -> Self {
        let bar = (progress == Progress::Bar && total > 0).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{prefix} [{bar:30}] {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_prefix(name.to_string());
            bar
        });
        let m = Self {
            done: AtomicUsize::new(0),
            total,
            total_cost,
            estimate: Mutex::new(Estimate::default()),
            started: Instant::now(),
            bar,
        };
        m.redraw();
        m
    }

    pub(super) fn status(&self) -> String {
        let eta = {
            let e = self.estimate.lock().unwrap_or_else(|e| e.into_inner());
            match (e.eta, e.at) {
                (Some(eta), Some(at)) => Some((eta - at.elapsed().as_secs_f64()).max(0.0)),
                _ => None,
            }
        };
        status_text(
            self.done.load(Ordering::Relaxed),
            self.total,
            self.started.elapsed().as_secs_f64(),
            eta,
        )
    }

    pub(super) fn redraw(&self) {
        if let Some(bar) = &self.bar {
            bar.set_position(self.done.load(Ordering::Relaxed) as u64);
            bar.set_message(self.status());
        }
    }

    pub(super) fn task_done(&self, cost: f64) {
        self.done.fetch_add(1, Ordering::Relaxed);
        {
            let mut e = self.estimate.lock().unwrap_or_else(|e| e.into_inner());
            e.done_cost += cost;
            let now = Instant::now();
            e.eta = eta_seconds(
                e.done_cost,
                self.total_cost,
                now.duration_since(self.started).as_secs_f64(),
            );
            e.at = Some(now);
        }
        self.redraw();
    }

    /// Ticks every second until `stop` fires: redraws the bar, and in a log
    /// prints a heartbeat line every `heartbeat`.
    pub(super) fn watch(
        &self,
        stop: mpsc::Receiver<()>,
        options: &Options,
        name: &str,
        cached: bool,
    ) {
        let (progress, heartbeat) = (options.progress, options.heartbeat);
        let mut last_beat = Instant::now();
        let tick = Duration::from_millis(200).min(heartbeat);
        loop {
            match stop.recv_timeout(tick) {
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => return,
            }
            if options.stopped() {
                self.finish();
                if options.stop.is_none() {
                    errln!(
                        "{name}: interrupted: letting the tasks running now finish{} (Ctrl-C again stops at once)",
                        if cached { ", to keep them in the task cache" } else { "" }
                    );
                }
                return;
            }
            self.redraw();
            if progress == Progress::Lines && last_beat.elapsed() >= heartbeat {
                log_line(format_args!("{name}: {}", self.status()));
                last_beat = Instant::now();
            }
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
