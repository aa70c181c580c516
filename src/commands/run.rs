//! `privpost run`: validate every config, prepare (fetch missing datasets,
//! generate data, fit initialisations), run the tasks (reusing finished ones
//! from the task cache), write the outputs — all in `batch`, which `audit`
//! shares.

use super::batch::{run_folders, RunArgs};
use super::CommandError;

pub fn run(args: RunArgs) -> Result<(), CommandError> {
    run_folders(args).map(drop)
}
