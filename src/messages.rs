//! The messages a link prints, as data: each kind with a stable code and the values it names
//! (file, symbol, section, …), so that `--diagnostics-format=json` gives them as fields beside
//! the words, which stay nvlink's. A message no shape matches keeps code `other`.

/// One kind of message: its code, and its shape with `{field}` where a value stands. A
/// message matches when it starts with the shape (text after it is cubin-ld's own addition,
/// such as the chain that keeps the code making an undefined reference).
struct Kind {
    code: &'static str,
    shape: &'static str,
}

const fn kind(code: &'static str, shape: &'static str) -> Kind {
    Kind { code, shape }
}

/// Longer shapes before the shorter ones they begin with.
const KINDS: &[Kind] = &[
    kind(
        "undefined-reference",
        "Undefined reference to '{symbol}' in '{file}' (from '{function}')",
    ),
    kind(
        "undefined-reference",
        "Undefined reference to '{symbol}' in '{file}'",
    ),
    kind(
        "duplicate-definition",
        "Multiple definition of '{symbol}' in '{file}', first defined in '{first_file}'",
    ),
    kind("merge-failed", "merge_elf failed"),
    kind(
        "size-mismatch",
        "Size doesn't match for '{symbol}' in '{file}', first specified in '{first_file}'",
    ),
    kind(
        "kernel-declaration-mismatch",
        "Function '{symbol}' not declared __global__ in all source files",
    ),
    kind(
        "launch-bounds-registers",
        "entry function '{symbol}' with max regcount of {limit} calls function '{callee}' with regcount of {registers}",
    ),
    kind(
        "stack-size-unknown",
        "Stack size for entry function '{symbol}' cannot be statically determined",
    ),
    kind("constant-bank-overflow", "File uses too much global constant data"),
    kind(
        "shared-memory-overflow",
        "Entry function '{symbol}' uses too much shared data",
    ),
    kind(
        "arch-mismatch",
        "Input file '{file}' arch does not match target '{target}'",
    ),
    kind("no-code-for-target", "SM Arch ('{target}') not found in '{file}'"),
    kind(
        "accelerated-into-plain",
        "cannot link accelerated arch to non-accelerated",
    ),
    kind("cannot-open-input", "Could not open input file '{file}'"),
    kind("cannot-read-input", "Could not read file '{file}'"),
    kind("cannot-open-output", "Could not open output file '{file}'"),
    kind("cannot-write-output", "Could not write output file '{file}'"),
    kind("input-skipped", "input file '{file}' skipped"),
    kind("unknown-option", "Unknown option '{option}'"),
    kind("no-inputs", "No input files specified"),
    kind("missing-arch", "Unknown arch name '(null)': no target was given"),
    kind("unknown-arch", "Unknown arch name '{target}'"),
];

/// What a message is: its kind's code and the values it names, in the shape's order.
#[derive(Debug, PartialEq, Eq)]
pub struct Classified<'m> {
    pub code: &'static str,
    pub fields: Vec<(&'static str, &'m str)>,
}

/// The kind of `message` (a message as the link words it, names mangled).
pub fn classify(message: &str) -> Classified<'_> {
    let hit = KINDS
        .iter()
        .find_map(|k| matches(k.shape, message).map(|fields| (k.code, fields)));
    match hit {
        Some((code, fields)) => Classified { code, fields },
        None => Classified {
            code: damaged_or_other(message),
            fields: context_fields(message),
        },
    }
}

/// `--diagnostics-format=json`'s line for a message: its severity, kind and fields (from
/// `raw`, the words as the link made them, names mangled) and the text shown (`shown`:
/// demangled under `--demangle`, with `-report-arch`'s suffix).
pub fn json_line(severity: &str, raw: &str, shown: &str) -> String {
    let json = crate::diag::json_string;
    let kind = classify(raw);
    let fields: String = kind
        .fields
        .iter()
        .map(|(name, value)| format!(",{}:{}", json(name), json(value)))
        .collect();
    format!(
        "{{\"severity\":{},\"code\":{}{fields},\"message\":{}}}",
        json(severity),
        json(kind.code),
        json(shown)
    )
}

/// The values `message` holds where `shape` has fields, if it has the shape.
fn matches<'m>(shape: &'static str, message: &'m str) -> Option<Vec<(&'static str, &'m str)>> {
    let mut fields = Vec::new();
    let mut rest = message;
    let mut shape = shape;
    loop {
        let Some(open) = shape.find('{') else {
            return rest.starts_with(shape).then_some(fields);
        };
        rest = rest.strip_prefix(&shape[..open])?;
        let close = open + shape[open..].find('}')?;
        let name = &shape[open + 1..close];
        shape = &shape[close + 1..];
        // (A value runs to where the text after it in the shape next begins.)
        let next = shape.find('{').unwrap_or(shape.len());
        let end = match &shape[..next] {
            "" => rest.len(),
            literal => rest.find(literal)?,
        };
        fields.push((name, &rest[..end]));
        rest = &rest[end..];
    }
}

/// A message about an input's content reads `file: section 'name': what is wrong` (the
/// context the reader added): damaged or unsupported input.
fn damaged_or_other(message: &str) -> &'static str {
    if message.contains("is not implemented yet in this version of cubin-ld") {
        "not-implemented"
    } else if message.contains(": section '") {
        "invalid-input"
    } else {
        "other"
    }
}

/// The file and section a reader's context names (`a.o: section '.nv.info': …`).
fn context_fields(message: &str) -> Vec<(&'static str, &str)> {
    let mut fields = Vec::new();
    if let Some(at) = message.find(": section '") {
        let file = &message[..at];
        let file = file
            .strip_prefix('\'')
            .and_then(|f| f.strip_suffix('\''))
            .unwrap_or(file);
        fields.push(("file", file));
        let rest = &message[at + 11..];
        if let Some(end) = rest.find('\'') {
            fields.push(("section", &rest[..end]));
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undefined_reference_names_symbol_file_and_function() {
        let c = classify(
            "Undefined reference to '_Z1fi' in 'a.o' (from '_Z1kPi'); kept by '_Z1kPi' [a kernel]",
        );
        assert_eq!(c.code, "undefined-reference");
        assert_eq!(
            c.fields,
            [("symbol", "_Z1fi"), ("file", "a.o"), ("function", "_Z1kPi")]
        );
    }

    #[test]
    fn an_undefined_variable_without_a_function_takes_the_shorter_shape() {
        let c = classify("Undefined reference to 'v' in 'lib.a:b.o'");
        assert_eq!(c.code, "undefined-reference");
        assert_eq!(c.fields, [("symbol", "v"), ("file", "lib.a:b.o")]);
    }

    #[test]
    fn a_duplicate_names_both_files() {
        let c = classify("Multiple definition of '_Z1fv' in 'b.o', first defined in 'a.o'");
        assert_eq!(c.code, "duplicate-definition");
        assert_eq!(
            c.fields,
            [("symbol", "_Z1fv"), ("file", "b.o"), ("first_file", "a.o")]
        );
    }

    #[test]
    fn a_damaged_input_names_its_file_and_section() {
        let c = classify("'x.o': section '.nv.info': record at 0x10 runs past the end");
        assert_eq!(c.code, "invalid-input");
        assert_eq!(c.fields, [("file", "x.o"), ("section", ".nv.info")]);
    }

    #[test]
    fn a_message_of_no_known_shape_is_other() {
        assert_eq!(classify("something else").code, "other");
        assert!(classify("something else").fields.is_empty());
    }
}
