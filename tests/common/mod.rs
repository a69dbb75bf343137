//! Helpers the differential tests share.

/// Whether `key` (`case/sm_XX/name`) matches `pattern`: per part, a trailing `*` matches any
/// rest (`sm_1*`: sm_100 and later).
pub fn matches(pattern: &str, key: &str) -> bool {
    let (p, k): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), key.split('/').collect());
    p.len() == k.len()
        && p.iter().zip(&k).all(|(p, k)| match p.strip_suffix('*') {
            Some(prefix) => k.starts_with(prefix),
            None => p == k,
        })
}
