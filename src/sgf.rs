//! Reading SGF (to be written).
