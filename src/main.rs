//! privpost command line: the library's [`privpost::cli::main`], its exit code the process's.

fn main() {
    let code = privpost::cli::main(std::env::args_os().collect());
    if code != 0 {
        std::process::exit(code);
    }
}
