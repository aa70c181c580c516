//! The error of a command: bad input (exit 2), a failure while running (exit
//! 1), an interrupt (exit 130) or a reader that closed standard output (exit 0,
//! nothing printed), with its cause chain. The planning stage (`plan`) and the
//! verbs (`commands`) return it; `cli::main` prints the chain and answers the
//! code, which `main.rs` exits with: nothing below `cli::main` exits.

use crate::config::ConfigError;

/// A command's failure: bad input (exit 2), a failure while running (exit 1),
/// an interrupt (exit 130) or a closed standard output (exit 0), with its cause
/// chain.
#[derive(Debug)]
pub enum CommandError {
    Input(anyhow::Error),
    Failed(anyhow::Error),
    /// The user stopped the work (Ctrl-C); the message says what was kept.
    Interrupted(anyhow::Error),
    /// The reader of standard output stopped reading (`privpost list | head -1`):
    /// the command ends quietly, as a Unix filter does.
    BrokenPipe(anyhow::Error),
}

impl CommandError {
    /// Bad input with a message.
    pub fn input(
        message: impl std::fmt::Display + std::fmt::Debug + Send + Sync + 'static,
    ) -> Self {
        CommandError::Input(anyhow::Error::msg(message))
    }

    /// A failure while running, with a message.
    pub fn failed(
        message: impl std::fmt::Display + std::fmt::Debug + Send + Sync + 'static,
    ) -> Self {
        CommandError::Failed(anyhow::Error::msg(message))
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            CommandError::Input(_) => 2,
            CommandError::Failed(_) => 1,
            CommandError::Interrupted(_) => 130,
            CommandError::BrokenPipe(_) => 0,
        }
    }

    /// The error and its causes, outermost first.
    pub fn error(&self) -> &anyhow::Error {
        match self {
            CommandError::Input(e)
            | CommandError::Failed(e)
            | CommandError::Interrupted(e)
            | CommandError::BrokenPipe(e) => e,
        }
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error())
    }
}

impl From<ConfigError> for CommandError {
    fn from(e: ConfigError) -> Self {
        CommandError::Input(e.into())
    }
}

impl From<crate::runner::RunError> for CommandError {
    /// A NaN the inputs produced is bad input (exit 2); anything else a failure (exit 1).
    fn from(e: crate::runner::RunError) -> Self {
        match e {
            crate::runner::RunError::NotANumber { .. } => CommandError::Input(e.into()),
            crate::runner::RunError::Interrupted { .. } => CommandError::Interrupted(e.into()),
            // the user's own command failed (external figures): bad input, exit 2
            crate::runner::RunError::Task { ref source, .. }
                if source.is::<crate::experiments::external::UserTaskError>() =>
            {
                CommandError::Input(e.into())
            }
            // the rows contradict the config's declarations (external figures)
            crate::runner::RunError::Summary { ref source, .. }
                if source.is::<crate::experiments::external::DeclarationError>() =>
            {
                CommandError::Input(e.into())
            }
            e => CommandError::Failed(e.into()),
        }
    }
}
