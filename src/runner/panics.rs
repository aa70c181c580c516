//! A panic inside a task becomes that task's error, with the panic's message and
//! place, instead of killing a rayon worker (which had left the run waiting forever
//! at "0/16 tasks"). The panic hook stays quiet for a task's panic (the run reports
//! it once, as an error with exit 1) and is the default everywhere else.

use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    static IN_TASK: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The marker of an error made from a panic (see [`was_panic`]).
#[derive(Debug, thiserror::Error)]
#[error("panicked at {0} — an input outside the range this computation handles, or a bug; please report it with the config and seed")]
pub struct TaskPanic(pub String);

fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_TASK.with(Cell::get) {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".into());
                let place = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()))
                    .unwrap_or_else(|| "an unknown place".into());
                // with RUST_BACKTRACE set, the trace goes with the message
                let trace = match std::backtrace::Backtrace::capture() {
                    b if b.status() == std::backtrace::BacktraceStatus::Captured => {
                        format!("\n{b}")
                    }
                    _ => String::new(),
                };
                LAST.with(|l| *l.borrow_mut() = Some(format!("{place}: {message}{trace}")));
            } else {
                default(info);
            }
        }));
    });
}

/// Runs `task`, turning a panic into an error holding the panic's message.
pub fn catching<T>(task: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    install_hook();
    let was = IN_TASK.with(|f| f.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
    IN_TASK.with(|f| f.set(was));
    match result {
        Ok(r) => r,
        Err(_) => {
            let what = LAST
                .with(|l| l.borrow_mut().take())
                .unwrap_or_else(|| "an unknown place: a panic without a message".into());
            Err(TaskPanic(what).into())
        }
    }
}

/// Whether `result` is an error made by [`catching`] from a panic.
pub fn was_panic<T>(result: &anyhow::Result<T>) -> bool {
    matches!(result, Err(e) if e.is::<TaskPanic>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_with_its_message_and_place() {
        let r: anyhow::Result<()> = catching(|| panic!("BNotGreaterThanZero"));
        assert!(was_panic(&r));
        let e = r.unwrap_err().to_string();
        assert!(e.contains("BNotGreaterThanZero"), "{e}");
        assert!(e.contains("panics.rs:"), "{e}");
        let r = catching(|| Ok(3));
        assert!(!was_panic(&r));
        assert_eq!(r.unwrap(), 3);
        let r: anyhow::Result<()> = catching(|| Err(anyhow::anyhow!("plain")));
        assert!(!was_panic(&r));
    }
}
