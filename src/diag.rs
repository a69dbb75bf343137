//! Errors as values. An [`Error`] carries a message and a chain of context (outermost first),
//! e.g. `a.o: section '.nv.info': record at 0x10 runs past the end of the section`.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
    /// Innermost context last, as it is added while the error travels outwards.
    context: Vec<String>,
    /// What the user can do about it, where the message (often nvlink's words) does not say.
    hint: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            context: Vec::new(),
            hint: None,
        }
    }

    /// Adds what the user can do about it (printed as a `hint` line after the message).
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
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
    fn an_io_errors_reason_leaves_out_the_errno() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(reason(&e), "No such file or directory");
        assert_eq!(reason(&"plain words"), "plain words");
    }

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

/// What a finished link reports back to the driver program.
#[derive(Debug, Default)]
pub struct LinkOutcome {
    pub warnings: Vec<String>,
    /// `info` lines (`-v`).
    pub infos: Vec<String>,
    /// `--dump-callgraph` lines.
    pub callgraph: Vec<String>,
    /// What loading the inputs said, printed before anything else.
    pub load_messages: Vec<LoadMessage>,
    /// What goes to standard output (`-ghls` without `-o`, `-time -`).
    pub stdout: String,
}

/// A message from loading the inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadMessage {
    /// A warning about the options, said before any input is read.
    Warning(String),
    /// What a tool cubin-ld ran said (ptxas's warnings), printed as it is.
    Tool(String),
    /// An `info` line about an input.
    Info(String),
}

/// Why a link failed, in the shape nvlink reports it: error lines, then possibly one fatal
/// line, and an exit status (1 for fatal errors, 255 for link errors).
#[derive(Debug, Default)]
pub struct Failure {
    pub warnings: Vec<String>,
    pub errors: Vec<String>,
    pub fatal: Option<Box<str>>,
    pub code: u8,
    /// What loading the inputs said, printed before anything else.
    pub load_messages: Vec<LoadMessage>,
    /// Reports asked for that were made before the link failed (`--why-live`,
    /// `--print-gc-sections`): most wanted when it fails. (Boxed: a failure stays small.)
    pub stdout: Box<str>,
    /// cubin-ld's own advice, printed last as `hint` lines: what to do about the errors,
    /// where nvlink's words do not say. (Boxed: a failure stays small.)
    pub hints: Box<Vec<String>>,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure {
            fatal: Some(e.to_string().into()),
            code: 1,
            hints: Box::new(e.hint.into_iter().collect()),
            ..Default::default()
        }
    }
}

impl Failure {
    /// Link errors (nvlink's `error` lines): status 255, no fatal line.
    pub fn link_errors(errors: Vec<String>) -> Self {
        Failure {
            errors,
            code: 255,
            ..Default::default()
        }
    }
}

/// What the link says before it links: messages about the options and the inputs, found
/// while loading them, printed first whatever happens later.
#[derive(Default)]
pub struct Early {
    /// Warnings about the options, which come before anything the inputs make said.
    pub option_warnings: Vec<String>,
    pub tool_messages: Vec<String>,
    pub infos: Vec<String>,
    pub warnings: Vec<String>,
    pub stdout: String,
}

impl Early {
    /// `r` with what was said early put before what it says. What is put there is taken from
    /// here, so completing a result twice adds nothing the second time.
    pub fn complete(
        &mut self,
        r: std::result::Result<LinkOutcome, Failure>,
    ) -> std::result::Result<LinkOutcome, Failure> {
        let load_messages = self.messages();
        let warnings = std::mem::take(&mut self.warnings);
        let stdout = std::mem::take(&mut self.stdout);
        match r {
            Ok(o) => Ok(LinkOutcome {
                load_messages: [load_messages, o.load_messages].concat(),
                warnings: [warnings, o.warnings].concat(),
                stdout: stdout + &o.stdout,
                ..o
            }),
            Err(f) => Err(Failure {
                load_messages: [load_messages, f.load_messages].concat(),
                warnings: [warnings, f.warnings].concat(),
                stdout: (stdout + &f.stdout).into_boxed_str(),
                ..f
            }),
        }
    }

    /// Tools' messages first, then the infos, as nvlink prints them.
    pub fn messages(&mut self) -> Vec<LoadMessage> {
        let options = std::mem::take(&mut self.option_warnings).into_iter();
        let tools = std::mem::take(&mut self.tool_messages).into_iter();
        let infos = std::mem::take(&mut self.infos).into_iter();
        options
            .map(LoadMessage::Warning)
            .chain(tools.map(LoadMessage::Tool))
            .chain(infos.map(LoadMessage::Info))
            .collect()
    }
}

/// What went wrong, as a user reads it: an I/O error's text without Rust's
/// " (os error N)" (the errno the text already names).
pub fn reason(e: &dyn std::fmt::Display) -> String {
    let s = e.to_string();
    match s.rfind(" (os error ") {
        Some(i) if s.ends_with(')') => s[..i].to_string(),
        _ => s,
    }
}

/// `s` as a JSON string literal (the reports' and diagnostics' JSON forms).
pub fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
