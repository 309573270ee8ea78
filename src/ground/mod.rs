//! The ground floor: what every layer above may use.

/// Downloading a file over HTTPS, resumed where it stopped.
pub mod download;
/// Error types that are one line for the user.
pub mod error;
/// Reading a line from a stream that may never end one, with a bound on what is held.
pub mod lines;
/// Finding programs and files on the machine.
pub mod locate;
