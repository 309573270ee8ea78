//! tengen's tree searches, what the `mcts` level plays and analyses with (through
//! [`crate::engine::player`]): the playout search ([`Search`]: UCT with RAVE and priors over
//! a lock-free tree, leaves valued by playouts) and, with a network, the net search
//! ([`PuctSearch`]: PUCT, leaves valued by the net). Both speak the same vocabulary (settings,
//! budget, choice, reports) and share the rules of passing, principal variations and tree
//! reuse; docs/SEARCH.md says what differs and why.

mod analysis;
mod budget;
mod dynamic_komi;
mod last_good_reply;
mod pass;
mod playout_search;
pub mod policy;
mod priors;
pub mod puct;
mod report;
mod root_tally;
mod search_tree;
mod settings;
mod time;
mod tree;
mod uct;

pub use crate::knowledge::tactics::Scratch;
pub use budget::{Budget, Choice};
pub use last_good_reply::ReplyTable;
pub use playout_search::{Search, SearchReport, move_priors, warm_up};
pub use puct::PuctSearch;
pub use report::{AnalysisRequest, MoveInfo, Report, RootInfo, ScoreStats};
pub use settings::{
    DEFAULT_HANDICAP_KOMI, DEFAULT_LEAF_BATCH, DEFAULT_MAX_NODES, DEFAULT_PLAYOUTS,
    DEFAULT_RESIGN_THRESHOLD, MAX_LEAF_BATCH, MAX_NODES, MAX_PLAYOUTS, MAX_RAVE_EARLY_WEIGHT,
    MAX_THREADS, MIN_NODES, MIN_PLAYOUTS_TO_RESIGN, SearchSettings, param_names, thread_count,
};
pub use time::time_for_move;
