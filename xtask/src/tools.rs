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

    let wasm_opt = binaryen_bin_dir(root).join("wasm-opt");
    if command(&wasm_opt)
        .arg("--version")
        .output_text()
        .is_some_and(|v| v.contains("version 132"))
    {
        say("wasm-opt 132 (npm binaryen): installed");
    } else {
        if !on_path("npm") {
            say("Installing Node.js and npm from Debian (needed for wasm-opt)");
            apt_install(&["nodejs", "npm"])?;
        }
        say(&format!(
            "Installing wasm-opt from npm binaryen@{BINARYEN_VERSION} into target/tools"
        ));
        let dir = binaryen_dir(root);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        command("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg(format!("binaryen@{BINARYEN_VERSION}"))
            .checked()?;
    }
    Ok(())
}

/// Builds the learner's page into `dist/` and the viewer (saved runs and
/// the teacher's view) into `dist/viewer/`, and prints what each weighs.
pub fn build_page(root: &Path) -> Result<()> {
    // Trunk runs cargo offline (see Trunk.toml), so fetch the crates first.
    command("cargo").args(["fetch", "--quiet"]).checked()?;
    // The page first: Trunk empties its dist folder, which holds the viewer's.
    command("trunk")
        .args(["build", "--release"])
        .env("TRUNK_SKIP_VERSION_CHECK", "true")
        .checked()?;
    command("trunk")
        .args([
            "build",
            "--release",
            "--dist",
            "dist/viewer",
            "--public-url",
            "/viewer/",
        ])
        .arg("crates/web/viewer.html")
        .env("TRUNK_SKIP_VERSION_CHECK", "true")
        .checked()?;
    report_bundle_size(&root.join("dist"))?;
    report_viewer_size(&root.join("dist/viewer"))
}

/// What the page may weigh, gzipped: its wasm, JS glue and CSS together.
const BUNDLE_BUDGET_KB: f64 = 250.0;

/// Each kind of file in `dist` (not its subfolders): raw and gzipped bytes.
fn sizes_in(dist: &Path) -> Result<impl Fn(&str) -> Result<(u64, u64)>> {
    let files: Vec<PathBuf> = std::fs::read_dir(dist)
        .with_context(|| format!("cannot read {}", dist.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    Ok(move |ext: &str| -> Result<(u64, u64)> {
        let mut sizes = (0, 0);
        for path in files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == ext))
        {
            let bytes = std::fs::read(path)?;
            sizes.0 += bytes.len() as u64;
            sizes.1 += gzipped_size(&bytes)?;
        }
        Ok(sizes)
    })
}

/// Prints what the viewer weighs (it has no budget of its own: only the
/// teacher and readers of a permalink load it).
fn report_viewer_size(dist: &Path) -> Result<()> {
    let part = sizes_in(dist)?;
    let (wasm, wasm_gz) = part("wasm")?;
    let total = wasm_gz + part("js")?.1 + part("css")?.1;
    say(&format!(
        "Viewer bundle (saved runs, the teacher's view): {:.1} KB wasm, {:.1} KB gzipped with JS and CSS",
        kb(wasm),
        kb(total)
    ));
    Ok(())
}

/// Prints what the page weighs, each part and in all, against the budget.
/// A number to read, not a test: it never fails the build.
fn report_bundle_size(dist: &Path) -> Result<()> {
    let part = sizes_in(dist)?;
    let (wasm, wasm_gz) = part("wasm")?;
    anyhow::ensure!(wasm > 0, "Trunk produced no .wasm file");
    let (_, js_gz) = part("js")?;
    let (_, css_gz) = part("css")?;
    let total = kb(wasm_gz + js_gz + css_gz);
    let against_budget = if total <= BUNDLE_BUDGET_KB {
        format!("{:.1} KB under", BUNDLE_BUDGET_KB - total)
    } else {
        format!("OVER by {:.1} KB", total - BUNDLE_BUDGET_KB)
    };
    say(&format!(
        "Page bundle: {:.1} KB wasm, {:.1} KB gzipped; with JS {:.1} and CSS {:.1}, {total:.1} KB gzipped ({against_budget} the {BUNDLE_BUDGET_KB:.0} KB budget)",
        kb(wasm),
        kb(wasm_gz),
        kb(js_gz),
        kb(css_gz),
    ));
    Ok(())
}

/// How many bytes `data` takes gzipped at the best level, as `gzip -9` gives it
/// (what a server sends with `Content-Encoding: gzip`).
fn gzipped_size(data: &[u8]) -> Result<u64> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data)?;
    Ok(encoder.finish()?.len() as u64)
}

fn kb(bytes: u64) -> f64 {
    bytes as f64 / 1000.0
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
