//! The compile options each LTO-IR module recorded (its fatbin entry's option string, as
//! `-maxreg 32 -generate-line-info -ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1`), and what nvlink
//! makes of them: the math modes must agree (they are already in the IR), a register limit or
//! line information any module asks for applies to the whole program.

use crate::diag::{Error, Result};

/// A math mode every module must agree on: the recorded name and the name nvlink's
/// message gives it.
const MATH_MODES: &[(&str, &str)] = &[
    ("ftz", "-ftz"),
    ("prec_div", "-prec-div"),
    ("prec_sqrt", "-prec-sqrt"),
    ("fmad", "-fmad"),
];

/// What the recorded options ask of the optimized program.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// `-maxrregcount` for nvJitLink and ptxas (the link's own, else the recorded one).
    pub maxrregcount: Option<String>,
    /// `-lineinfo` for nvJitLink.
    pub lineinfo: bool,
    /// What nvlink says about them.
    pub infos: Vec<String>,
}

/// One module's options, read.
#[derive(Default)]
struct Options<'a> {
    maxreg: Option<&'a str>,
    lineinfo: bool,
    math: Vec<(&'static str, &'a str)>,
}

fn parse<'a>(name: &str, text: &'a str) -> Result<Options<'a>> {
    let mut o = Options::default();
    let mut words = text.split_whitespace();
    while let Some(w) = words.next() {
        match w {
            "-maxreg" => o.maxreg = words.next(),
            "-generate-line-info" => o.lineinfo = true,
            _ => {
                let known = w
                    .strip_prefix('-')
                    .and_then(|w| w.split_once('='))
                    .and_then(|(k, v)| Some((MATH_MODES.iter().find(|m| m.0 == k)?.1, v)));
                match known {
                    Some(m) => o.math.push(m),
                    None => {
                        return Err(Error::new(format!(
                            "'{name}': its LTO-IR records the compile option '{w}', which \
                             cubin-ld does not know how to apply to the link"
                        )))
                    }
                }
            }
        }
    }
    Ok(o)
}

/// Reads every module's options (`name`, option string; none for a bare `.ltoir` file) and
/// decides the program's; nvlink's fatal error where the math modes or register limits
/// disagree. `link_maxrregcount` is the link's own `-maxrregcount`.
pub fn agree(modules: &[(&str, Option<&str>)], link_maxrregcount: Option<i64>) -> Result<Recorded> {
    let all: Vec<Options<'_>> = modules
        .iter()
        .filter_map(|(n, o)| Some(parse(n, (*o)?)))
        .collect::<Result<_>>()?;
    let differ = |name: &str| Error::new(format!("Cicc option values for '{name}' do not match"));
    for (_, shown) in MATH_MODES {
        let mut values = all
            .iter()
            .flat_map(|o| o.math.iter().filter(|m| m.0 == *shown));
        if let Some(first) = values.next() {
            if values.any(|m| m.1 != first.1) {
                return Err(differ(shown));
            }
        }
    }
    let mut r = Recorded::default();
    let maxregs: Vec<&str> = all.iter().filter_map(|o| o.maxreg).collect();
    if maxregs.iter().any(|m| *m != maxregs[0]) {
        return Err(differ("-maxrregcount"));
    }
    if let Some(m) = maxregs.first() {
        if maxregs.len() < all.len() {
            r.infos.push(format!(
                "Some objects do not have '-maxrregcount' specified but others do; will build \
                 everything with '-maxrregcount={m}'"
            ));
        }
    }
    r.maxrregcount = link_maxrregcount
        .map(|n| n.to_string())
        .or(maxregs.first().map(|m| m.to_string()));
    let lines = all.iter().filter(|o| o.lineinfo).count();
    r.lineinfo = lines > 0;
    if lines > 0 && lines < all.len() {
        r.infos.push(
            "Some objects do not have '-lineinfo' specified but others do; will build \
             everything with '-lineinfo'"
                .into(),
        );
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: &str = "-ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 ";

    fn agree_on(options: &[&str], link: Option<i64>) -> Result<Recorded> {
        let m: Vec<(&str, Option<&str>)> = options.iter().map(|o| ("x.o", Some(*o))).collect();
        agree(&m, link)
    }

    #[test]
    fn modules_compiled_alike_ask_for_nothing() {
        assert_eq!(
            agree_on(&[PLAIN, PLAIN], None).unwrap(),
            Recorded::default()
        );
    }

    #[test]
    fn a_math_mode_the_modules_disagree_on_is_nvlinks_fatal_error() {
        let e = agree_on(&[PLAIN, "-ftz=1 -prec_div=1 -prec_sqrt=1 -fmad=1"], None).unwrap_err();
        assert_eq!(e.to_string(), "Cicc option values for '-ftz' do not match");
        let e = agree_on(&[PLAIN, "-ftz=0 -prec_div=0 -prec_sqrt=1 -fmad=1"], None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Cicc option values for '-prec-div' do not match"
        );
    }

    #[test]
    fn different_register_limits_are_an_error_and_one_limit_applies_to_all() {
        let e = agree_on(&["-maxreg 32 -ftz=0", "-maxreg 48 -ftz=0"], None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Cicc option values for '-maxrregcount' do not match"
        );
        let r = agree_on(&["-maxreg 32 -ftz=0", PLAIN], None).unwrap();
        assert_eq!(r.maxrregcount.as_deref(), Some("32"));
        assert_eq!(
            r.infos,
            [
                "Some objects do not have '-maxrregcount' specified but others do; will build \
              everything with '-maxrregcount=32'"
            ]
        );
    }

    #[test]
    fn the_links_register_limit_overrides_the_recorded_one() {
        let r = agree_on(&["-maxreg 32 -ftz=0", "-maxreg 32"], Some(40)).unwrap();
        assert_eq!(r.maxrregcount.as_deref(), Some("40"));
        assert!(r.infos.is_empty());
    }

    #[test]
    fn line_information_one_module_asks_for_applies_to_all() {
        let r = agree_on(&["-generate-line-info -ftz=0", PLAIN], None).unwrap();
        assert!(r.lineinfo);
        assert_eq!(r.infos.len(), 1, "{:?}", r.infos);
    }

    #[test]
    fn an_unknown_recorded_option_is_refused_naming_the_module() {
        let e = agree_on(&["-ftz=0 -Onew"], None).unwrap_err().to_string();
        assert!(e.contains("'x.o'") && e.contains("'-Onew'"), "{e}");
    }
}
