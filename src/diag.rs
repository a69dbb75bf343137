//! Errors as values. An [`Error`] carries a message and a chain of context (outermost first),
//! e.g. `a.o: section '.nv.info': record at 0x10 runs past the end of the section`.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
    /// Innermost context last, as it is added while the error travels outwards.
    context: Vec<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            context: Vec::new(),
        }
    }

    /// Wraps the error in one more layer of context (a file, a section, a symbol).
    pub fn context(mut self, ctx: impl Into<String>) -> Self {
        self.context.push(ctx.into());
        self
    }

    /// Something valid inputs ask for that cubin-ld refuses rather than link differently
    /// from nvlink (`what` says what, and where).
    pub fn not_implemented(what: impl std::fmt::Display) -> Self {
        Error::new(format!(
            "{what} is not implemented yet in this version of cubin-ld (inputs are valid)"
        ))
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.context.iter().rev() {
            write!(f, "{c}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<object::read::Error> for Error {
    fn from(e: object::read::Error) -> Self {
        Error::new(e.to_string())
    }
}

/// Adds context to any result whose error converts into [`Error`].
pub trait Context<T> {
    fn context(self, ctx: impl Into<String>) -> Result<T>;
    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn context(self, ctx: impl Into<String>) -> Result<T> {
        self.map_err(|e| e.into().context(ctx))
    }
    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|e| e.into().context(f()))
    }
}

/// `bail!("fmt", args)`: return an [`Error`] from the current function.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => { return Err($crate::diag::Error::new(format!($($arg)*))) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_is_printed_outermost_first() {
        let e = Error::new("record runs past the end")
            .context("section '.nv.info'")
            .context("a.o");
        assert_eq!(
            e.to_string(),
            "a.o: section '.nv.info': record runs past the end"
        );
    }
}
