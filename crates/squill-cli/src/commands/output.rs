//! Where commands write. One rule for every file the CLI writes, checked
//! before any work starts so that a long scan or import is not wasted:
//! - an input of the command is never replaced, `--force` or not: an output
//!   that names an input (the same file, through a link or not), or an
//!   existing file inside an input directory (it was read as input), is
//!   refused (issue 40);
//! - an existing regular file is replaced only with `--force` (issue 40:
//!   `scan --emit-model` replaced a model that `generate` would have kept);
//! - a regular file is written whole or not at all (a temporary file renamed
//!   into place); a device or a pipe (`--output /dev/null`) is written in place.

use anyhow::{Context as _, Result};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a file is not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The file exists and `--force` was not given.
    Exists { path: PathBuf },
    /// The output is one of the command's inputs.
    IsInput { output: PathBuf, input: PathBuf },
    /// The output exists inside a directory the command reads.
    InsideInput { output: PathBuf, dir: PathBuf },
    /// A directory the command fills holds one of its inputs.
    // Only `migrate` fills directories of its own, and it needs `postgres`.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    HoldsInput { dir: PathBuf, input: PathBuf },
    /// Two outputs of one run name the same file.
    SameOutput { first: PathBuf, second: PathBuf },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The text `generate` has always used (GenerateError::Exists).
            Refusal::Exists { path } => {
                write!(f, "{} exists; pass --force to overwrite it", path.display())
            }
            Refusal::IsInput { output, input } => write!(
                f,
                "{} is the input {} (paths compared with links followed): refusing to replace an input, even with --force; write to another file",
                output.display(),
                input.display()
            ),
            Refusal::InsideInput { output, dir } => write!(
                f,
                "{} is inside the input directory {} and was read as input: refusing to replace an input, even with --force; write to another file",
                output.display(),
                dir.display()
            ),
            Refusal::HoldsInput { dir, input } => write!(
                f,
                "{} would be written into, and it holds the input {}: refusing to replace an input, even with --force; move the input or write elsewhere",
                dir.display(),
                input.display()
            ),
            Refusal::SameOutput { first, second } => write!(
                f,
                "{} and {} are the same file: one output would replace the other",
                first.display(),
                second.display()
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// A file a command reads: as given (for messages) and as resolved.
#[derive(Debug, Clone)]
struct Input {
    given: PathBuf,
    real: PathBuf,
    dir: bool,
    /// Device and inode: a hard link is the same file under another path.
    id: Option<(u64, u64)>,
}

/// The inputs of one run and whether `--force` was given.
#[derive(Debug, Clone, Default)]
pub struct Writes {
    force: bool,
    inputs: Vec<Input>,
}

impl Writes {
    pub fn new(force: bool) -> Self {
        Writes {
            force,
            inputs: Vec::new(),
        }
    }

    /// Adds an input. Standard input (`-`), URLs and paths that do not
    /// exist are left out: nothing on disk can be replaced through them.
    #[must_use]
    pub fn input(mut self, path: &Path) -> Self {
        if path == Path::new("-") {
            return self;
        }
        if let Ok(real) = std::fs::canonicalize(path) {
            self.inputs.push(Input {
                given: path.to_path_buf(),
                dir: real.is_dir(),
                id: file_id(&real),
                real,
            });
        }
        self
    }

    /// Adds every path of `paths` as an input.
    #[must_use]
    pub fn inputs<'a>(self, paths: impl IntoIterator<Item = &'a PathBuf>) -> Self {
        paths.into_iter().fold(self, |w, p| w.input(p))
    }

    /// The settings file every command reads: `--config`, else
    /// `./squill.toml` when it exists.
    #[must_use]
    pub fn config(self, global: &crate::cli::Global) -> Self {
        let path = global
            .config
            .clone()
            .unwrap_or_else(|| PathBuf::from("squill.toml"));
        self.input(&path)
    }

    /// Refuses `output` when it names an input, or exists without `--force`.
    pub fn check(&self, output: &Path) -> Result<(), Refusal> {
        self.check_not_input(output)?;
        if !self.force && is_regular_file(output) {
            return Err(Refusal::Exists {
                path: output.to_path_buf(),
            });
        }
        Ok(())
    }

    /// Refuses `output` when it names an input (whatever `--force` says):
    /// for writers that apply the existing-file rule themselves.
    pub fn check_not_input(&self, output: &Path) -> Result<(), Refusal> {
        let Some(real) = resolve(output) else {
            return Ok(());
        };
        let id = file_id(&real);
        for input in &self.inputs {
            if input.real == real || id.is_some() && id == input.id {
                return Err(Refusal::IsInput {
                    output: output.to_path_buf(),
                    input: input.given.clone(),
                });
            }
            // A file that does not exist yet was not read.
            if input.dir && real.starts_with(&input.real) && output.exists() {
                return Err(Refusal::InsideInput {
                    output: output.to_path_buf(),
                    dir: input.given.clone(),
                });
            }
        }
        Ok(())
    }

    /// Refuses to fill `dir` (every file under it is the command's to
    /// replace) when an input lies inside it.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub fn check_dir(&self, dir: &Path) -> Result<(), Refusal> {
        let Some(real) = resolve(dir) else {
            return Ok(());
        };
        match self.inputs.iter().find(|i| i.real.starts_with(&real)) {
            Some(input) => Err(Refusal::HoldsInput {
                dir: dir.to_path_buf(),
                input: input.given.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Writes `bytes` to `output` after `check`: a regular file whole or
    /// not at all, a device or pipe in place.
    pub fn write(&self, output: &Path, bytes: &[u8]) -> Result<()> {
        self.check(output)?;
        if output.exists() && !is_regular_file(output) {
            return std::fs::write(output, bytes)
                .with_context(|| format!("cannot write {}", output.display()));
        }
        // The atomic writer makes missing directories (for `generate`'s
        // trees); a report's directory is the user's to make.
        if let Some(parent) = output.parent()
            && !parent.as_os_str().is_empty()
            && !parent.is_dir()
        {
            anyhow::bail!(
                "cannot write {}: the directory {} does not exist",
                output.display(),
                parent.display()
            );
        }
        squill::synthetic::write::write_file(output, bytes)
            .map(|_| ())
            .with_context(|| format!("cannot write {}", output.display()))
    }
}

/// Refuses two outputs of one run that are the same file.
pub fn distinct(first: &Path, second: &Path) -> Result<(), Refusal> {
    match (resolve(first), resolve(second)) {
        (Some(a), Some(b)) if a == b => Err(Refusal::SameOutput {
            first: first.to_path_buf(),
            second: second.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// Device and inode of an existing file.
#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Elsewhere the resolved path alone tells.
#[cfg(not(unix))]
fn file_id(_: &Path) -> Option<(u64, u64)> {
    None
}

/// Whether `path` is a regular file, links followed.
fn is_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The real path `path` would be written at: itself resolved when it
/// exists, else its directory resolved and its name (a file still to be
/// made may sit in a directory reached through a link). `None` when even
/// the directory does not exist: such a path names nothing yet.
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    // A dangling link: the file it points to, once written.
    if let Ok(target) = std::fs::read_link(path) {
        let target = match path.parent() {
            Some(parent) if target.is_relative() => parent.join(target),
            _ => target,
        };
        return resolve(&target);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::canonicalize(parent).ok().map(|p| p.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty directory of this test's own.
    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("squill-output-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn an_input_is_refused_through_a_link_and_a_relative_path() {
        let dir = scratch("link");
        let model = dir.join("model.yaml");
        std::fs::write(&model, "x").unwrap();
        let link = dir.join("link.yaml");
        std::os::unix::fs::symlink(&model, &link).unwrap();
        let writes = Writes::new(true).input(&model);
        assert_eq!(
            writes.check(&link),
            Err(Refusal::IsInput {
                output: link.clone(),
                input: model.clone()
            })
        );
        let roundabout = dir.join("sub/../model.yaml");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        assert!(matches!(
            writes.check(&roundabout),
            Err(Refusal::IsInput { .. })
        ));
        // A hard link: another path, the same file.
        let hard = dir.join("hard.yaml");
        std::fs::hard_link(&model, &hard).unwrap();
        assert!(matches!(writes.check(&hard), Err(Refusal::IsInput { .. })));
        // A link to a directory holding the input, the file named through it.
        let alias = dir.join("alias");
        std::os::unix::fs::symlink(&dir, &alias).unwrap();
        assert!(matches!(
            writes.check(&alias.join("model.yaml")),
            Err(Refusal::IsInput { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_dangling_link_to_an_input_is_refused() {
        let dir = scratch("dangling");
        let model = dir.join("model.yaml");
        std::fs::write(&model, "x").unwrap();
        let link = dir.join("link.yaml");
        std::os::unix::fs::symlink("chain.yaml", &link).unwrap();
        std::os::unix::fs::symlink("model.yaml", dir.join("chain.yaml")).unwrap();
        let writes = Writes::new(true).input(&model);
        assert!(matches!(writes.check(&link), Err(Refusal::IsInput { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_existing_file_needs_force_and_a_new_one_does_not() {
        let dir = scratch("force");
        let existing = dir.join("report.txt");
        std::fs::write(&existing, "old").unwrap();
        assert_eq!(
            Writes::new(false).check(&existing),
            Err(Refusal::Exists {
                path: existing.clone()
            })
        );
        assert_eq!(Writes::new(true).check(&existing), Ok(()));
        assert_eq!(Writes::new(false).check(&dir.join("new.txt")), Ok(()));
        // Not a regular file: written in place, no --force needed.
        assert_eq!(Writes::new(false).check(Path::new("/dev/null")), Ok(()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn inside_an_input_directory_only_what_was_read_is_refused() {
        let dir = scratch("inside");
        let read = dir.join("users.bson");
        std::fs::write(&read, "").unwrap();
        let writes = Writes::new(true).input(&dir);
        assert!(matches!(
            writes.check(&read),
            Err(Refusal::InsideInput { .. })
        ));
        assert_eq!(writes.check(&dir.join("report.txt")), Ok(()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_to_fill_may_not_hold_an_input() {
        let dir = scratch("holds");
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let model = dir.join("data/model.json");
        std::fs::write(&model, "{}").unwrap();
        let writes = Writes::new(true).input(&model);
        assert!(matches!(
            writes.check_dir(&dir.join("data")),
            Err(Refusal::HoldsInput { .. })
        ));
        assert_eq!(writes.check_dir(&dir.join("dump")), Ok(()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn two_outputs_naming_one_file_are_refused() {
        let dir = scratch("distinct");
        assert!(matches!(
            distinct(&dir.join("m.yaml"), &dir.join("./m.yaml")),
            Err(Refusal::SameOutput { .. })
        ));
        assert_eq!(distinct(&dir.join("a"), &dir.join("b")), Ok(()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
