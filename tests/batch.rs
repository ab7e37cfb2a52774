//! Batch mode (`--out-dir DIR PATH…`) never loses or clobbers a file (issue 16): one test
//! per case. Unreadable folders and files get their own `failed` line and the batch goes
//! on; symbolic links to files are followed, dangling links and loops reported; outputs
//! mirror the inputs' folders, so same-named files do not collide; a collision between
//! PATHs, an output that would replace an input, and an output folder that is or is inside
//! an input folder stop the batch before anything is written (exit 2).
//!
//! Unreadable entries need permission checks: when the tests run as root, which reads
//! everything, the binary runs as `nobody` through `setpriv` for those cases.

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch folder that `nobody` may enter and write (for the permission cases).
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    dir
}

fn run(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mdae-rimis")).args(args).output().expect("runs")
}

/// True when this process runs as root (a file it creates is owned by uid 0).
fn is_root(dir: &Path) -> bool {
    let probe = dir.join(".uid");
    std::fs::write(&probe, "").unwrap();
    let root = std::fs::metadata(&probe).unwrap().uid() == 0;
    std::fs::remove_file(probe).unwrap();
    root
}

/// Runs the binary as a user the permissions apply to: `nobody` when we are root.
fn run_unprivileged(dir: &Path, args: &[&Path]) -> Output {
    let bin = env!("CARGO_BIN_EXE_mdae-rimis");
    let mut cmd = if is_root(dir) {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin]);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args).output().expect("runs (setpriv is needed when the tests run as root)")
}

/// Files under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walk(dir).iter().map(|p| p.strip_prefix(dir).unwrap().display().to_string()).collect();
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out
}

fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(fixture(from), to).unwrap();
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o644)).unwrap();
}

fn mkdir(p: &Path) {
    std::fs::create_dir_all(p).unwrap();
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
}

#[test]
fn an_unreadable_folder_and_file_get_a_failed_line_and_the_batch_goes_on() {
    let dir = scratch();
    let input = dir.path().join("in");
    mkdir(&input);
    mkdir(&input.join("locked"));
    copy("TwoEquations.mo", &input.join("a.mo"));
    copy("TwoEquations.mo", &input.join("locked/hidden.mo"));
    copy("WaterTank.mo", &input.join("secret.mo"));
    copy("WaterTank.mo", &input.join("z.mo"));
    std::fs::set_permissions(input.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(input.join("secret.mo"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let out_dir = dir.path().join("out");
    let out = run_unprivileged(dir.path(), &[Path::new("--out-dir"), &out_dir, &input]);
    std::fs::set_permissions(input.join("locked"), std::fs::Permissions::from_mode(0o777)).unwrap();
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}{}", text(&out.stderr));
    let lines: Vec<&str> = o.lines().collect();
    assert_eq!(lines.len(), 5, "{o}");
    assert!(lines[0].starts_with("ok      ") && lines[0].contains("a.mo"), "{o}");
    assert!(lines[1].starts_with("failed  ") && lines[1].contains("locked: cannot read folder"), "{o}");
    assert!(lines[2].starts_with("failed  ") && lines[2].contains("secret.mo") && lines[2].contains("denied"), "{o}");
    assert!(lines[3].starts_with("ok      ") && lines[3].contains("z.mo"), "{o}");
    assert_eq!(lines[4], "3 files: 2 transformed, 1 failed; 1 folder not read");
    assert_eq!(tree(&out_dir), ["a.mo", "z.mo"]);
}

#[test]
fn symbolic_links_to_files_are_followed_dangling_links_and_loops_reported() {
    let dir = scratch();
    let input = dir.path().join("in");
    copy("TwoEquations.mo", &input.join("models/m.mo"));
    symlink("models/m.mo", input.join("link.mo")).unwrap();
    symlink("nowhere.mo", input.join("dangling.mo")).unwrap();
    symlink("nowhere.txt", input.join("dangling.txt")).unwrap();
    symlink("..", input.join("models/up")).unwrap();
    let out_dir = dir.path().join("out");
    let out = run(&[Path::new("--out-dir"), &out_dir, &input]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}{}", text(&out.stderr));
    let lines: Vec<&str> = o.lines().collect();
    assert_eq!(lines.len(), 5, "{o}");
    assert!(lines[0].starts_with("failed  ") && lines[0].ends_with("dangling.mo: dangling symbolic link"), "{o}");
    assert!(lines[1].starts_with("ok      ") && lines[1].contains("link.mo ->"), "{o}");
    assert!(lines[2].starts_with("ok      ") && lines[2].contains("models/m.mo ->"), "{o}");
    assert!(lines[3].starts_with("failed  ") && lines[3].contains("models/up: symbolic link loop"), "{o}");
    assert_eq!(lines[4], "3 files: 2 transformed, 1 failed; 1 folder not read");
    assert_eq!(tree(&out_dir), ["link.mo", "models/m.mo"]);
    assert_eq!(std::fs::read(out_dir.join("link.mo")).unwrap(), std::fs::read(out_dir.join("models/m.mo")).unwrap());
}

#[test]
fn same_named_files_in_different_folders_mirror_their_folders() {
    let dir = scratch();
    let input = dir.path().join("in");
    copy("TwoEquations.mo", &input.join("a/m.mo"));
    copy("WaterTank.mo", &input.join("b/m.mo"));
    let out_dir = dir.path().join("out");
    let out = run(&[Path::new("--out-dir"), &out_dir, &input]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).ends_with("2 files: 2 transformed, 0 failed\n"), "{}", text(&out.stdout));
    assert_eq!(tree(&out_dir), ["a/m.mo", "b/m.mo"]);
    let a = run(&[&input.join("a/m.mo")]);
    let b = run(&[&input.join("b/m.mo")]);
    assert_eq!(std::fs::read(out_dir.join("a/m.mo")).unwrap(), a.stdout);
    assert_eq!(std::fs::read(out_dir.join("b/m.mo")).unwrap(), b.stdout);
}

#[test]
fn two_paths_with_the_same_output_stop_the_batch_before_any_write() {
    let dir = scratch();
    copy("TwoEquations.mo", &dir.path().join("a/m.mo"));
    copy("WaterTank.mo", &dir.path().join("b/m.mo"));
    let out_dir = dir.path().join("out");
    let out = run(&[Path::new("--out-dir"), &out_dir, &dir.path().join("a"), &dir.path().join("b")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains("a/m.mo and ") && err.contains("b/m.mo would both be written to"), "{err}");
    assert!(!out_dir.exists(), "nothing written");
    // The same file named twice is one input.
    let out = run(&[Path::new("--out-dir"), &out_dir, &dir.path().join("a"), &dir.path().join("a/m.mo")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(tree(&out_dir), ["m.mo"]);
}

#[test]
fn an_output_folder_that_is_or_is_inside_an_input_folder_is_refused() {
    let dir = scratch();
    let input = dir.path().join("in");
    copy("TwoEquations.mo", &input.join("m.mo"));
    let before = std::fs::read(input.join("m.mo")).unwrap();
    for out_dir in [input.clone(), input.join("out"), input.join("sub/../out")] {
        let out = run(&[Path::new("--out-dir"), &out_dir, &input]);
        assert_eq!(out.status.code(), Some(2), "{}", out_dir.display());
        let err = text(&out.stderr);
        assert!(err.contains("the output folder") && err.contains("the input folder"), "{err}");
        assert!(out.stdout.is_empty());
    }
    assert_eq!(tree(&input), ["m.mo"], "nothing written");
    assert_eq!(std::fs::read(input.join("m.mo")).unwrap(), before, "the input is untouched");
    // A file PATH whose output would replace it.
    let out = run(&[Path::new("--out-dir"), &input, &input.join("m.mo")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("would replace the input"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(input.join("m.mo")).unwrap(), before, "the input is untouched");
}
