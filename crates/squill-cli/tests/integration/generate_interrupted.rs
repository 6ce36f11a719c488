//! `generate` stopped by a signal leaves nothing half-written (issue 23:
//! SIGINT left 150-450 MB `.NAME.tmp-PID` files and a README that looked
//! complete).

use crate::support::{TempDir, Test, files, lines_match};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn sigint_removes_the_files_being_written_and_writes_no_readme() {
    let dir = TempDir::new("interrupted");
    let out = dir.path().join("out");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/host-logs.yaml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_squill"))
        .args(["generate"])
        .arg(&model)
        .args(["--scale", "30", "--seed", "1", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until a data file is being written, then interrupt.
    let start = Instant::now();
    while !files(&out).iter().any(|f| f.contains(".tmp-")) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    // The estimate (the free space beside it, when the file system tells
    // it), then the interruption, and nothing else.
    let stderr = stderr.replace(&dir.path().display().to_string(), "DIR");
    assert!(
        lines_match(
            "squill generate: about 7,725,030 documents, 2.4 GiB to write into DIR/out[..]
squill::generate::interrupted

  × interrupted: the files being written were removed; the files already complete are kept
",
            &stderr
        ),
        "{stderr}"
    );
    let left = files(&out);
    assert!(
        left.iter().all(|f| !f.contains(".tmp-")),
        "temporary files left: {left:?}"
    );
    assert!(
        !left.iter().any(|f| f == "README.md"),
        "a README that looks complete: {left:?}"
    );
}

/// A scale no disk holds is refused up front, with the estimate, before
/// anything is written (issue 23: `--scale 10000000000` spun a core with no
/// estimate or bound).
#[test]
fn a_run_larger_than_the_free_space_is_refused_before_it_starts() {
    let dir = TempDir::new("no-space");
    let out = dir.path().join("out");
    Test::new()
        .args(["generate", "data"])
        .args([crate::support::repo_root().join("examples/rubis.yaml")])
        .args(["--scale", "10000000000", "--out"])
        .args([&out])
        .path_as(dir.path(), "DIR")
        .status(2)
        .stderr_matching(
            "squill::generate::no_space

  × this would write about 314.5 PiB into DIR/out, which has [..] free
  help: lower --scale or --max-children, write one format (--format), or pass --force to try anyway
",
        )
        .check();
    assert!(files(&out).is_empty(), "{:?}", files(&out));
}

/// The estimate is said before the data is written, and comes close to it.
#[test]
fn the_estimate_is_said_before_writing() {
    let dir = TempDir::new("estimate");
    let run = Test::new()
        .args(["generate", "data"])
        .args([crate::support::repo_root().join("examples/host-logs.yaml")])
        .args([
            "--scale",
            "20",
            "--max-children",
            "50",
            "--format",
            "dump",
            "--out",
        ])
        .args([dir.path()])
        .path_as(dir.path(), "DIR")
        // The time, the rates and the free space change from run to run.
        .stdout_matching(
            "squill generate data: model `host-logs`, mix `default`, scale 20, seed 1 → DIR
  host                               20 documents               0 bytes EJSON           1,645 bytes BSON
  logmsg                          1,000 documents               0 bytes EJSON         131,076 bytes BSON
  1,020 documents, 132,721 bytes in [..] s ([..] documents/s, [..] MB/s)
",
        )
        .stderr_matching("squill generate: about 1,020 documents, 129.6 KiB to write into DIR[..]\n")
        .check();
    let said = run
        .stderr
        .lines()
        .find(|l| l.contains("about") && l.contains("documents"))
        .unwrap_or_else(|| panic!("no estimate: {}", run.stderr));
    let number = |text: &str, before: &str| -> f64 {
        let head = &text[..text.find(before).unwrap_or_else(|| panic!("{text}"))];
        let word = head.split_whitespace().last().unwrap_or_default();
        word.replace(',', "")
            .parse()
            .unwrap_or_else(|_| panic!("{text}"))
    };
    let estimated = number(said, " documents");
    let total = run.stdout.lines().last().unwrap_or_default();
    let written = number(total, " documents,");
    assert!(
        (0.75..=1.25).contains(&(estimated / written)),
        "estimated {estimated}, wrote {written}"
    );
}
