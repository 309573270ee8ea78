//! The ground floor: what every layer above may use.

/// Downloading a file over HTTPS, resumed where it stopped.
pub mod download;
/// Reading a line from a stream that may never end one, with a bound on what is held.
pub mod lines;
/// Finding programs and files on the machine.
pub mod locate;
/// An error that is one line for the user.
pub mod message_error;
