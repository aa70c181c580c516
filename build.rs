//! Records the git commit the binary was built from (for manifest.json and --version).
use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let mut long = format!("{version} (commit unknown: built outside git)");
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=PRIVPOST_GIT_COMMIT={commit}");
        let dirty =
            git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
        println!("cargo:rustc-env=PRIVPOST_GIT_DIRTY={dirty}");
        let short = &commit[..commit.len().min(12)];
        long = format!(
            "{version} (commit {short}{})",
            if dirty {
                ", with uncommitted changes"
            } else {
                ""
            }
        );
    }
    println!("cargo:rustc-env=PRIVPOST_LONG_VERSION={long}");
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/refs/heads");
        println!("cargo:rerun-if-changed={dir}/index");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
