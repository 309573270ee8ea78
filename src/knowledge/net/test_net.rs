//! The real net the tests read: KataGo's g170-b6c96, from the directory of real nets that
//! build.rs finds (`TENGEN_TEST_NETS`; it then sets `test_nets`).

use std::path::Path;

use super::Net;

/// KataGo's g170-b6c96 net.
pub(crate) fn real_net() -> Net {
    let file = Path::new(env!("TENGEN_TEST_NETS")).join("g170-b6c96.bin.gz");
    Net::load(&file).unwrap_or_else(|e| panic!("{e} (TENGEN_TEST_NETS names the nets' directory)"))
}

/// A test with [`real_net`]: it runs in --release with the net in `TENGEN_TEST_NETS`, and is
/// ignored otherwise.
macro_rules! real_net_test {
    ($(#[$attr:meta])* fn $name:ident() $body:block) => {
        #[test]
        #[cfg_attr(
            not(all(test_nets, not(debug_assertions))),
            ignore = "needs g170-b6c96.bin.gz in TENGEN_TEST_NETS, and --release"
        )]
        $(#[$attr])*
        fn $name() $body
    };
}

pub(crate) use real_net_test;
