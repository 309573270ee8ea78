/// Declares an error type whose whole content is the one line the user reads: a tuple
/// struct around a `String`, whose `Display` writes it. The struct's field stays private to
/// the module that invokes the macro, as a hand-written one would.
macro_rules! message_error {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name(String);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::error::Error for $name {}
    };
}

pub(crate) use message_error;

#[cfg(test)]
mod tests {
    super::message_error!(
        /// A test's error.
        Refusal
    );

    #[test]
    fn the_error_displays_its_line_and_is_an_error() {
        let error = Refusal("line 3: no komi".to_string());
        assert_eq!(error.to_string(), "line 3: no komi");
        let boxed: Box<dyn std::error::Error> = Box::new(error.clone());
        assert_eq!(boxed.to_string(), "line 3: no komi");
        assert_eq!(error, Refusal("line 3: no komi".to_string()));
    }
}
