//! A temporary directory of a test's own.

use std::path::{Path, PathBuf};

/// An empty directory under the system's temporary one, named for the test process and
/// `name` (unique within one test binary); removed, with what it holds, when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Makes the directory, emptied first if a run before left it behind.
    pub fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("tengen-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("create {}: {e}", path.display()));
        TempDir(path)
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
