//! C++ names shown demangled, two ways:
//! - [`readable`], as `c++filt` prints them (`int tsum<int>(int, int)`), for cubin-ld's own
//!   reports and messages: through the `cpp_demangle` crate, which covers the whole Itanium
//!   ABI, where the hand-written parser below covers what nvlink prints;
//! - [`demangle`], as nvlink prints them in `--dump-callgraph` and its messages: in the style of
//!   NVIDIA's tools (`k_rec(int *)`, `Square::area() const`, `Circle::~Circle() [deleting]`,
//!   `T1 tsum<int>(T1, T1)`). Covers the constructs CUDA device code commonly uses; anything
//!   else is returned mangled, never guessed.

/// `name` as `c++filt` prints it; a `$N` clone suffix and a static kernel's module prefix are
/// dropped first, and a name that is not C++ (or that the crate cannot read) is returned as
/// it is.
pub fn readable(name: &str) -> String {
    let base = mangled_base(name);
    if !base.starts_with("_Z") {
        return base.to_string();
    }
    let Ok(symbol) = cpp_demangle::Symbol::new(base) else {
        return name.to_string();
    };
    let mut out = Bounded(String::new());
    match symbol.structured_demangle(&mut out, &cpp_demangle::DemangleOptions::default()) {
        Ok(()) => special_as_cxxfilt(out.0),
        Err(_) => name.to_string(),
    }
}

/// The crate spells special names its own way (`{vtable(Base)}`); c++filt as `vtable for
/// Base`.
fn special_as_cxxfilt(s: String) -> String {
    const KINDS: &[(&str, &str)] = &[
        ("vtable", "vtable for "),
        ("vtt", "VTT for "),
        ("typeinfo", "typeinfo for "),
        ("typeinfo name", "typeinfo name for "),
    ];
    let Some(inner) = s.strip_prefix('{').and_then(|r| r.strip_suffix(")}")) else {
        return s;
    };
    let Some((kind, what)) = inner.split_once('(') else {
        return s;
    };
    match KINDS.iter().find(|(k, _)| *k == kind) {
        Some((_, words)) => format!("{words}{what}"),
        None => s,
    }
}

/// A string that refuses to grow past what any name is printed as, so that a hostile name
/// stops being demangled as soon as it asks for more (see `MAX_DEMANGLED`).
struct Bounded(String);

impl std::fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.0.len() + s.len() > MAX_DEMANGLED {
            return Err(std::fmt::Error);
        }
        self.0.push_str(s);
        Ok(())
    }
}

/// Demangles `name` (a `$N` suffix, which ptxas gives local clones, is dropped first).
pub fn demangle(name: &str) -> String {
    let base = mangled_base(name);
    if !base.starts_with("_Z") {
        return base.to_string();
    }
    let mut p = Parser {
        s: base.as_bytes(),
        i: 2,
        subs: Vec::new(),
        tmpl: Vec::new(),
    };
    match p.encoding() {
        Some(out) if p.i == p.s.len() => out,
        _ => name.to_string(),
    }
}

/// The name to demangle: without the `$N` suffix ptxas gives local clones, and without a
/// static kernel's module id (`__nv_static_<N>_<N characters>_<mangled>`).
fn mangled_base(name: &str) -> &str {
    let base = match name.find('$') {
        Some(p) if p > 0 => &name[..p],
        _ => name,
    };
    strip_static_prefix(base).unwrap_or(base)
}

/// A message with each quoted C++ name (`'_Z…'`) shown demangled, the mangled form after it
/// (`'missing_fn(int)' (_Z10missing_fni)`): `--demangle`. Other text is left as it is.
pub fn demangle_quoted(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(open) = rest.find("'_Z") {
        let Some(len) = rest[open + 1..].find('\'') else {
            break;
        };
        let name = &rest[open + 1..open + 1 + len];
        out.push_str(&rest[..open]);
        let plain = readable(name);
        if plain == name {
            out.push_str(&rest[open..open + len + 2]);
        } else {
            out.push_str(&format!("'{plain}' ({name})"));
        }
        rest = &rest[open + len + 2..];
    }
    out.push_str(rest);
    out
}

fn strip_static_prefix(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("__nv_static_")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let n: usize = rest[..digits].parse().ok()?;
    let rest = rest[digits..].strip_prefix('_')?;
    rest.get(n..)?.strip_prefix('_')
}

/// Longer demangled names (or parts) are not made: substitutions can double a name at each
/// step, so a few hundred mangled bytes could ask for gigabytes. The mangled name is
/// printed instead. (The longest real names, deep Thrust/CUB templates, are a few KB.)
const MAX_DEMANGLED: usize = 64 << 10;

/// `s`, unless it is longer than any name is printed.
fn bounded(s: String) -> Option<String> {
    (s.len() <= MAX_DEMANGLED).then_some(s)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    /// Substitution candidates (S_, S0_, …), as printed.
    subs: Vec<String>,
    /// Template arguments of the function being demangled.
    tmpl: Vec<String>,
}

/// A parsed function name: the qualified name, the printed template arguments (if any), and
/// what the name says about the function.
struct Name {
    text: String,
    has_template_args: bool,
    const_method: bool,
    dtor_kind: Option<u8>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()
    }

    fn source_name(&mut self) -> Option<String> {
        let n = self.number()?;
        let end = self.i.checked_add(n)?;
        let id = std::str::from_utf8(self.s.get(self.i..end)?)
            .ok()?
            .to_string();
        self.i = end;
        Some(id)
    }

    fn encoding(&mut self) -> Option<String> {
        let name = self.name()?;
        if self.i == self.s.len() {
            return Some(name.text); // a variable
        }
        // Function templates mangle their return type first; NVIDIA's demangler prints
        // template parameters in it (and in the parameters) as T1, T2, …
        let mut ret = String::new();
        if name.has_template_args {
            ret = self.ty()?;
            ret.push(' ');
        }
        let mut params = Vec::new();
        while self.i < self.s.len() {
            params.push(self.ty()?);
        }
        let params = if params.len() == 1 && params[0] == "void" {
            String::new()
        } else {
            params.join(", ")
        };
        let mut out = bounded(format!("{ret}{}({params})", name.text))?;
        if name.const_method {
            out.push_str(" const");
        }
        match name.dtor_kind {
            Some(b'0') => out.push_str(" [deleting]"),
            Some(b'2') => out.push_str(" [base]"),
            _ => {}
        }
        Some(out)
    }

    fn name(&mut self) -> Option<Name> {
        if self.eat(b'N') {
            let const_method = self.eat(b'K');
            let mut parts: Vec<String> = Vec::new();
            let mut dtor_kind = None;
            let mut has_template_args = false;
            while !self.eat(b'E') {
                let c = self.peek()?;
                if c.is_ascii_digit() {
                    let id = self.source_name()?;
                    // A `static` function's file-scope namespace is not shown, an anonymous
                    // namespace is `<unnamed>`.
                    if id.starts_with("_GLOBAL__N_") {
                        parts.push("<unnamed>".into());
                    } else if !id.starts_with("_INTERNAL_") {
                        parts.push(id);
                    }
                    has_template_args = false;
                    // (The nested name itself is no substitution candidate, only its
                    // prefixes.)
                    if self.peek() != Some(b'E') {
                        self.subs.push(bounded(parts.join("::"))?);
                    }
                } else if c == b'C' || c == b'D' {
                    self.i += 1;
                    let kind = self.peek()?;
                    self.i += 1;
                    let class = parts.last()?.clone();
                    let class = class.split('<').next().unwrap_or(&class).to_string();
                    parts.push(if c == b'C' {
                        class
                    } else {
                        format!("~{class}")
                    });
                    if c == b'D' {
                        dtor_kind = Some(kind);
                    }
                } else if c == b'I' {
                    let args = self.template_args()?;
                    *parts.last_mut()? += &args;
                    has_template_args = true;
                    if self.peek() != Some(b'E') {
                        self.subs.push(bounded(parts.join("::"))?);
                    }
                } else if c == b'S' {
                    parts.push(self.substitution()?);
                } else {
                    return None;
                }
            }
            return Some(Name {
                text: bounded(parts.join("::"))?,
                has_template_args,
                const_method,
                dtor_kind,
            });
        }
        let mut text = self.source_name()?;
        let mut has_template_args = false;
        if self.peek() == Some(b'I') {
            self.subs.push(text.clone());
            text += &self.template_args()?;
            has_template_args = true;
        }
        Some(Name {
            text,
            has_template_args,
            const_method: false,
            dtor_kind: None,
        })
    }

    fn template_args(&mut self) -> Option<String> {
        self.eat(b'I');
        let mut args = Vec::new();
        while !self.eat(b'E') {
            let t = self.ty()?;
            self.tmpl.push(t.clone());
            args.push(t);
        }
        bounded(format!("<{}>", args.join(", ")))
    }

    fn substitution(&mut self) -> Option<String> {
        self.eat(b'S');
        if self.eat(b'_') {
            return self.subs.first().cloned();
        }
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            self.i += 1;
        }
        let digits = std::str::from_utf8(&self.s[start..self.i]).ok()?;
        if !self.eat(b'_') {
            return None;
        }
        let n = usize::from_str_radix(digits, 36).ok()? + 1;
        self.subs.get(n).cloned()
    }

    fn ty(&mut self) -> Option<String> {
        let c = self.peek()?;
        let builtin = match c {
            b'v' => Some("void"),
            b'b' => Some("bool"),
            b'c' => Some("char"),
            b'a' => Some("signed char"),
            b'h' => Some("unsigned char"),
            b's' => Some("short"),
            b't' => Some("unsigned short"),
            b'i' => Some("int"),
            b'j' => Some("unsigned int"),
            b'l' => Some("long"),
            b'm' => Some("unsigned long"),
            b'x' => Some("long long"),
            b'y' => Some("unsigned long long"),
            b'f' => Some("float"),
            b'd' => Some("double"),
            b'e' => Some("long double"),
            _ => None,
        };
        if let Some(b) = builtin {
            self.i += 1;
            return Some(b.to_string());
        }
        let t = match c {
            b'P' | b'R' | b'O' => {
                self.i += 1;
                let inner = self.ty()?;
                let mark = match c {
                    b'P' => "*",
                    b'R' => "&",
                    _ => "&&",
                };
                format!("{inner} {mark}")
            }
            b'K' => {
                self.i += 1;
                format!("const {}", self.ty()?)
            }
            b'T' => {
                // Template parameter: NVIDIA's demangler prints its position, from 1.
                self.i += 1;
                let n = if self.eat(b'_') {
                    0
                } else {
                    let k = self.number()?;
                    if !self.eat(b'_') {
                        return None;
                    }
                    k + 1
                };
                format!("T{}", n + 1)
            }
            b'S' => return self.substitution(),
            b'N' => self.name()?.text,
            d if d.is_ascii_digit() => self.source_name()?,
            _ => return None,
        };
        let t = bounded(t)?;
        self.subs.push(t.clone());
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn readable_names_are_as_cxxfilt_prints_them() {
        use super::readable;
        assert_eq!(readable("_Z4tsumIiET_S0_S0_"), "int tsum<int>(int, int)");
        assert_eq!(readable("_Z6k_tmplIfEvPT_"), "void k_tmpl<float>(float*)");
        assert_eq!(readable("_Z1kPi$1"), "k(int*)");
        assert_eq!(readable("vprintf"), "vprintf");
        assert_eq!(readable("_ZTV4Base"), "vtable for Base");
        assert_eq!(readable("_ZTI2D1"), "typeinfo for D1");
        assert_eq!(readable("_Zgarbage"), "_Zgarbage");
    }

    #[test]
    fn a_readable_name_that_would_grow_past_the_bound_stays_mangled() {
        assert!(super::readable(&doubling_name(3)).starts_with("void a::b<a, a>::b<"));
        let name = doubling_name(40);
        assert_eq!(super::readable(&name), name);
    }

    #[test]
    fn quoted_names_in_a_message_are_shown_demangled_with_the_mangled_form() {
        assert_eq!(
            super::demangle_quoted(
                "Undefined reference to '_Z10missing_fni' in 'a.o' (from '_Z7k_undefPi')"
            ),
            "Undefined reference to 'missing_fn(int)' (_Z10missing_fni) in 'a.o' (from \
             'k_undef(int*)' (_Z7k_undefPi))"
        );
        assert_eq!(super::demangle_quoted("no names 'here"), "no names 'here");
        assert_eq!(super::demangle_quoted("'_Zbogus' stays"), "'_Zbogus' stays");
    }

    use super::demangle;

    /// `_ZN1a` then `n` times `1bI X X E`, X the last substitution: each step doubles it.
    fn doubling_name(n: usize) -> String {
        let seq = |m: usize| match m {
            0 => "S_".to_string(),
            m => {
                let (mut k, mut d) = (m - 1, String::new());
                loop {
                    d.insert(
                        0,
                        char::from_digit((k % 36) as u32, 36)
                            .unwrap()
                            .to_ascii_uppercase(),
                    );
                    k /= 36;
                    if k == 0 {
                        break;
                    }
                }
                format!("S{d}_")
            }
        };
        let mut s = "_ZN1a".to_string();
        for k in 0..n {
            let last = seq(2 * k);
            s += &format!("1bI{last}{last}E");
        }
        s + "Ev"
    }

    #[test]
    fn a_name_that_doubles_at_each_substitution_stays_mangled_not_gigabytes() {
        assert!(demangle(&doubling_name(3)).starts_with("void a::b<a, a>::b<a::b<a, a>, "));
        let name = doubling_name(40);
        assert_eq!(demangle(&name), name);
    }

    #[test]
    fn names_come_out_as_nvlink_prints_them() {
        for (m, d) in [
            ("_Z5k_recPi", "k_rec(int *)"),
            ("_Z5b_addii", "b_add(int, int)"),
            ("_Z5k_xtuPiPfi", "k_xtu(int *, float *, int)"),
            ("_Z7a_stagePKf$3", "a_stage(const float *)"),
            ("_ZNK6Square4areaEv", "Square::area() const"),
            ("_ZN6CircleD0Ev", "Circle::~Circle() [deleting]"),
            ("_ZN6CircleD1Ev", "Circle::~Circle()"),
            ("_Z4tsumIiET_S0_S0_", "T1 tsum<int>(T1, T1)"),
            ("_Z11k_managed_av", "k_managed_a()"),
            (
                "_Z5k_texyyPf",
                "k_tex(unsigned long long, unsigned long long, float *)",
            ),
            ("vprintf", "vprintf"),
            ("_Zbogus", "_Zbogus"),
        ] {
            assert_eq!(demangle(m), d, "{m}");
        }
    }

    #[test]
    fn static_functions_are_shown_without_their_file_namespace() {
        for (m, d) in [
            ("_ZN33_INTERNAL_782a9efa_4_a_cu__Z2kaPf1hEff", "h(float, float)"),
            ("_ZN34_INTERNAL_815545c4_4_d_cu_a6acf8432ns1hEf", "ns::h(float)"),
            (
                "_ZN34_INTERNAL_815545c4_4_d_cu_a6acf84336_GLOBAL__N__815545c4_4_d_cu_a6acf8434anonEf",
                "<unnamed>::anon(float)",
            ),
            // (S1_ is the return type T_: the function's own name is no candidate.)
            ("_ZN34_INTERNAL_815545c4_4_d_cu_a6acf8432tfIiEET_S1_", "T1 tf<int>(T1)"),
        ] {
            assert_eq!(super::demangle(m), d, "{m}");
        }
    }

    #[test]
    fn static_kernels_are_shown_without_their_module_prefix() {
        assert_eq!(
            super::demangle("__nv_static_25__cc2310ea_4_a_cu_9593ac6e__Z8k_staticPi"),
            "k_static(int *)"
        );
    }
}
