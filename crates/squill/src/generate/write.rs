//! Writing files so that a reader never sees half of one: each file is written
//! to a temporary name in the same directory and renamed into place when
//! complete. Existing files are refused unless the caller forces overwriting,
//! and the refusal happens before anything is written.

use super::GenerateError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Fails with the first of `paths` that exists, unless `force`.
pub fn refuse_existing(paths: &[PathBuf], force: bool) -> Result<(), GenerateError> {
    if force {
        return Ok(());
    }
    match paths.iter().find(|p| p.exists()) {
        Some(p) => Err(GenerateError::Exists { path: p.clone() }),
        None => Ok(()),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GenerateError + '_ {
    move |source| GenerateError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A file being written under a temporary name; `commit` renames it into
/// place, dropping it uncommitted (or after a failed `commit`) removes the
/// temporary file.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
    renamed: bool,
}

impl AtomicFile {
    pub fn create(path: &Path) -> Result<Self, GenerateError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let file = File::create(&tmp).map_err(io(&tmp))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(64 << 10, file)),
            renamed: false,
        })
    }

    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), GenerateError> {
        match self.out.as_mut() {
            Some(out) => out.write_all(bytes).map_err(io(&self.tmp)),
            None => Ok(()),
        }
    }

    /// Hands what is buffered to the kernel.
    pub fn flush(&mut self) -> Result<(), GenerateError> {
        match self.out.as_mut() {
            Some(out) => out.flush().map_err(io(&self.tmp)),
            None => Ok(()),
        }
    }

    /// The temporary name the file is written under until `commit`.
    pub fn temporary_path(&self) -> &Path {
        &self.tmp
    }

    pub fn commit(mut self) -> Result<PathBuf, GenerateError> {
        if let Some(out) = self.out.take() {
            let file = out.into_inner().map_err(|e| GenerateError::Io {
                path: self.tmp.clone(),
                source: e.into_error(),
            })?;
            file.sync_all().map_err(io(&self.tmp))?;
        }
        std::fs::rename(&self.tmp, &self.path).map_err(io(&self.path))?;
        self.renamed = true;
        Ok(self.path.clone())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.renamed {
            // Close before removing.
            self.out = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes a whole file atomically.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<PathBuf, GenerateError> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-"))
            .collect()
    }

    #[test]
    fn a_failed_commit_reports_the_path_and_removes_the_temporary_file() {
        let dir = std::env::temp_dir().join(format!("squill-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let target = dir.join("x.json");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"{}\n").unwrap();
        // A non-empty directory where the file should go: the rename fails.
        std::fs::create_dir_all(target.join("in-the-way")).unwrap();
        let err = f.commit().unwrap_err();
        assert!(
            matches!(&err, GenerateError::Io { path, .. } if *path == target),
            "{err}"
        );
        assert_eq!(leftovers(&dir), Vec::<String>::new());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
