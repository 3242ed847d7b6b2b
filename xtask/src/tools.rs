//! Finding, and installing when missing, the tools that build the page and
//! run the browser tests. Only package registries are reachable on the
//! project's machines, so every tool comes from crates.io, npm or Debian.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::shell::{Checked, command, on_path, say};

/// Trunk 0.22 needs a newer rustc than the project's 1.95.
const TRUNK_VERSION: &str = "0.21.14";
/// Must equal the `wasm-bindgen` crate pinned in `crates/web/Cargo.toml`.
const WASM_BINDGEN_VERSION: &str = "0.2.130";
/// npm's binaryen; Debian's (108) builds a page that fails to start.
const BINARYEN_VERSION: &str = "132.0.0";
/// npm's terser, which minifies wasm-bindgen's JS (Trunk's own minifier
/// cannot read its `export default`).
const TERSER_VERSION: &str = "5.51.4";
/// Schemathesis from PyPI, which fuzzes the servers against their OpenAPI document.
const SCHEMATHESIS_VERSION: &str = "4.32.5";
/// Debian's Chromium, used by the browser tests.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// Debian's chromedriver, matching [`CHROMIUM`].
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Puts the folders our tools are installed into at the front of `PATH`,
/// so they are found even in a shell that never sourced cargo's env file.
pub fn put_tool_folders_on_path(root: &Path) {
    let mut folders = vec![cargo_bin_dir(), binaryen_bin_dir(root)];
    folders.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(folders).expect("tool folders contain no path separator");
    // SAFETY: called first thing in main, before any other thread exists.
    unsafe { std::env::set_var("PATH", path) };
}

fn cargo_bin_dir() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
        .join("bin")
}

fn binaryen_dir(root: &Path) -> PathBuf {
    root.join("target/tools/binaryen")
}

fn binaryen_bin_dir(root: &Path) -> PathBuf {
    binaryen_dir(root).join("node_modules/.bin")
}

fn terser_dir(root: &Path) -> PathBuf {
    root.join("target/tools/terser")
}

pub fn terser(root: &Path) -> PathBuf {
    terser_dir(root).join("node_modules/.bin/terser")
}

/// The wasm target, Trunk, the wasm-bindgen CLI and wasm-opt.
pub fn ensure_page_tools(root: &Path) -> Result<()> {
    let targets = command("rustup")
        .args(["target", "list", "--installed"])
        .output_text()
        .unwrap_or_default();
    if targets
        .lines()
        .any(|target| target.trim() == "wasm32-unknown-unknown")
    {
        say("wasm32-unknown-unknown target: installed");
    } else {
        say("Adding the wasm32-unknown-unknown target (a short download)");
        command("rustup")
            .args(["target", "add", "wasm32-unknown-unknown"])
            .checked()?;
    }

    if version_of("trunk").is_some_and(|v| v.contains(TRUNK_VERSION)) {
        say(&format!("trunk {TRUNK_VERSION}: installed"));
    } else {
        say(&format!(
            "Installing trunk {TRUNK_VERSION} from crates.io (about 10-15 minutes on 2 cores, once)"
        ));
        command("cargo")
            .args(["install", "trunk", "--version", TRUNK_VERSION, "--locked"])
            .checked()?;
    }

    if version_of("wasm-bindgen").is_some_and(|v| v.contains(WASM_BINDGEN_VERSION)) {
        say(&format!("wasm-bindgen {WASM_BINDGEN_VERSION}: installed"));
    } else {
        say(&format!(
            "Installing wasm-bindgen-cli {WASM_BINDGEN_VERSION} from crates.io (about 3-5 minutes, once)"
        ));
        // Not --locked: its lockfile pins a webpki-roots release the registry lacks.
        command("cargo")
            .args([
                "install",
                "wasm-bindgen-cli",
                "--version",
                WASM_BINDGEN_VERSION,
                "--force",
            ])
            .checked()?;
    }

    ensure_npm_tool(
        &terser(root),
        &format!("terser {TERSER_VERSION}"),
        &terser_dir(root),
        &format!("terser@{TERSER_VERSION}"),
    )?;

    ensure_npm_tool(
        &binaryen_bin_dir(root).join("wasm-opt"),
        "wasm-opt version 132",
        &binaryen_dir(root),
        &format!("binaryen@{BINARYEN_VERSION}"),
    )
}

/// Installs the npm package `package` into `dir` unless `program
/// --version` already says `version` (or starts with it).
pub fn ensure_npm_tool(program: &Path, version: &str, dir: &Path, package: &str) -> Result<()> {
    if command(program)
        .arg("--version")
        .output_text()
        .is_some_and(|v| v.trim().starts_with(version))
    {
        say(&format!("{version}: installed"));
        return Ok(());
    }
    if !on_path("npm") {
        say("Installing Node.js and npm from Debian (needed for the page's tools)");
        apt_install(&["nodejs", "npm"])?;
    }
    say(&format!("Installing {package} from npm into target/tools"));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    command("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(dir)
        .arg(package)
        .checked()
}

/// Debian's Chromium and chromedriver, for the browser tests.
pub fn ensure_chromium() -> Result<()> {
    if Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists() {
        say("chromium and chromedriver: installed");
        return Ok(());
    }
    say("Installing Chromium and chromedriver from Debian (a few minutes, once)");
    apt_install(&["chromium", "chromium-driver"])
}

/// Schemathesis in a virtual environment of its own under `target/tools`;
/// returns its `st` program, for the contract tests.
pub fn ensure_schemathesis(root: &Path) -> Result<PathBuf> {
    let venv = root.join("target/tools/schemathesis");
    let st = venv.join("bin/st");
    if command(&st)
        .arg("--version")
        .output_text()
        .is_some_and(|v| v.contains(SCHEMATHESIS_VERSION))
    {
        say(&format!("schemathesis {SCHEMATHESIS_VERSION}: installed"));
        return Ok(st);
    }
    if !on_path("python3") {
        say("Installing Python 3 from Debian (needed for schemathesis)");
        apt_install(&["python3", "python3-venv"])?;
    }
    say(&format!(
        "Installing schemathesis {SCHEMATHESIS_VERSION} from PyPI into target/tools/schemathesis (a minute, once)"
    ));
    let make_venv = || {
        command("python3")
            .args(["-m", "venv", "--clear"])
            .arg(&venv)
            .checked()
    };
    if make_venv().is_err() {
        // Debian's python3 keeps venv's pip bootstrap in a package of its own.
        say("Python's venv module is missing: installing python3-venv from Debian");
        apt_install(&["python3-venv"])?;
        make_venv()?;
    }
    command(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .arg(format!("schemathesis=={SCHEMATHESIS_VERSION}"))
        .checked()?;
    Ok(st)
}

/// Installs Debian packages, as root or through sudo.
pub fn apt_install(packages: &[&str]) -> Result<()> {
    let as_root = command("id")
        .arg("-u")
        .output_text()
        .is_some_and(|uid| uid.trim() == "0");
    let sudo: &[&str] = if as_root {
        &[]
    } else if on_path("sudo") {
        &["sudo"]
    } else {
        bail!(
            "installing {} needs root: run `apt-get install {}` as root, then try again",
            packages.join(", "),
            packages.join(" ")
        );
    };
    let apt = |args: &[&str]| {
        let mut line: Vec<&str> = sudo.to_vec();
        line.push("apt-get");
        line.extend_from_slice(args);
        command(line[0])
            .args(&line[1..])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .checked()
    };
    apt(&["update", "-q"])?;
    let mut install = vec!["install", "-y", "-q"];
    install.extend_from_slice(packages);
    apt(&install)
}

fn version_of(program: &str) -> Option<String> {
    command(program).arg("--version").output_text()
}
