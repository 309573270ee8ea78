//! The medium level (to be written).
