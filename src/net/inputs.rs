//! The input features of a position as KataGo computes them.
