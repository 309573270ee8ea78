//! The real networks the tests read: files of others (KataGo's), not kept in the repository
//! but in the directory build.rs names (`TENGEN_TEST_NETS`, by default `../shared/nets`).
//! Tests that read one carry `#[cfg_attr(not(test_nets), ignore = "...")]`, so they run only
//! when the directory holds it, or when `TENGEN_REQUIRE_EXTERNAL=1` asks for it: then a missing
//! net fails them here.

use std::path::{Path, PathBuf};

/// KataGo's small net of its g170 run (model version 8), whose answers tests/data/nets records.
pub const G170: &str = "g170-b6c96.bin.gz";

/// The real net `name` (e.g. [`G170`]) in the nets directory.
pub fn net(name: &str) -> PathBuf {
    let path = Path::new(env!("TENGEN_TEST_NETS")).join(name);
    assert!(
        path.is_file(),
        "{} is missing: TENGEN_TEST_NETS (by default ../shared/nets beside the repository) names \
         the directory of the real nets (tests/data/nets/README.md)",
        path.display()
    );
    path
}
