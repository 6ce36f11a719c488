//! `generate` stopped by a signal leaves nothing half-written (issue 23:
//! SIGINT left 150-450 MB `.NAME.tmp-PID` files and a README that looked
//! complete).

use crate::support::{TempDir, files};
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
    assert!(stderr.contains("interrupted"), "{stderr}");
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
