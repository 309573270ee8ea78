//! The easy level (to be written).
