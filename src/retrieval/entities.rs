//! Character references in XML and XHTML text: the named entities of HTML 4
//! and XHTML 1 (Latin-1, symbols and Greek, typographic punctuation: what
//! EPUB documents use), and numeric references, decimal or hex.

/// The named entities of HTML 4 / XHTML 1 plus XML's `apos`, sorted by name.
#[rustfmt::skip]
const NAMED: &[(&str, char)] = &[
    ("AElig", '\u{c6}'), ("Aacute", '\u{c1}'), ("Acirc", '\u{c2}'), ("Agrave", '\u{c0}'),
    ("Alpha", '\u{391}'), ("Aring", '\u{c5}'), ("Atilde", '\u{c3}'), ("Auml", '\u{c4}'),
    ("Beta", '\u{392}'), ("Ccedil", '\u{c7}'), ("Chi", '\u{3a7}'), ("Dagger", '\u{2021}'),
    ("Delta", '\u{394}'), ("ETH", '\u{d0}'), ("Eacute", '\u{c9}'), ("Ecirc", '\u{ca}'),
    ("Egrave", '\u{c8}'), ("Epsilon", '\u{395}'), ("Eta", '\u{397}'), ("Euml", '\u{cb}'),
    ("Gamma", '\u{393}'), ("Iacute", '\u{cd}'), ("Icirc", '\u{ce}'), ("Igrave", '\u{cc}'),
    ("Iota", '\u{399}'), ("Iuml", '\u{cf}'), ("Kappa", '\u{39a}'), ("Lambda", '\u{39b}'),
    ("Mu", '\u{39c}'), ("Ntilde", '\u{d1}'), ("Nu", '\u{39d}'), ("OElig", '\u{152}'),
    ("Oacute", '\u{d3}'), ("Ocirc", '\u{d4}'), ("Ograve", '\u{d2}'), ("Omega", '\u{3a9}'),
    ("Omicron", '\u{39f}'), ("Oslash", '\u{d8}'), ("Otilde", '\u{d5}'), ("Ouml", '\u{d6}'),
    ("Phi", '\u{3a6}'), ("Pi", '\u{3a0}'), ("Prime", '\u{2033}'), ("Psi", '\u{3a8}'),
    ("Rho", '\u{3a1}'), ("Scaron", '\u{160}'), ("Sigma", '\u{3a3}'), ("THORN", '\u{de}'),
    ("Tau", '\u{3a4}'), ("Theta", '\u{398}'), ("Uacute", '\u{da}'), ("Ucirc", '\u{db}'),
    ("Ugrave", '\u{d9}'), ("Upsilon", '\u{3a5}'), ("Uuml", '\u{dc}'), ("Xi", '\u{39e}'),
    ("Yacute", '\u{dd}'), ("Yuml", '\u{178}'), ("Zeta", '\u{396}'), ("aacute", '\u{e1}'),
    ("acirc", '\u{e2}'), ("acute", '\u{b4}'), ("aelig", '\u{e6}'), ("agrave", '\u{e0}'),
    ("alefsym", '\u{2135}'), ("alpha", '\u{3b1}'), ("amp", '\u{26}'), ("and", '\u{2227}'),
    ("ang", '\u{2220}'), ("apos", '\u{27}'), ("aring", '\u{e5}'), ("asymp", '\u{2248}'),
    ("atilde", '\u{e3}'), ("auml", '\u{e4}'), ("bdquo", '\u{201e}'), ("beta", '\u{3b2}'),
    ("brvbar", '\u{a6}'), ("bull", '\u{2022}'), ("cap", '\u{2229}'), ("ccedil", '\u{e7}'),
    ("cedil", '\u{b8}'), ("cent", '\u{a2}'), ("chi", '\u{3c7}'), ("circ", '\u{2c6}'),
    ("clubs", '\u{2663}'), ("cong", '\u{2245}'), ("copy", '\u{a9}'), ("crarr", '\u{21b5}'),
    ("cup", '\u{222a}'), ("curren", '\u{a4}'), ("dArr", '\u{21d3}'), ("dagger", '\u{2020}'),
    ("darr", '\u{2193}'), ("deg", '\u{b0}'), ("delta", '\u{3b4}'), ("diams", '\u{2666}'),
    ("divide", '\u{f7}'), ("eacute", '\u{e9}'), ("ecirc", '\u{ea}'), ("egrave", '\u{e8}'),
    ("empty", '\u{2205}'), ("emsp", '\u{2003}'), ("ensp", '\u{2002}'), ("epsilon", '\u{3b5}'),
    ("equiv", '\u{2261}'), ("eta", '\u{3b7}'), ("eth", '\u{f0}'), ("euml", '\u{eb}'),
    ("euro", '\u{20ac}'), ("exist", '\u{2203}'), ("fnof", '\u{192}'), ("forall", '\u{2200}'),
    ("frac12", '\u{bd}'), ("frac14", '\u{bc}'), ("frac34", '\u{be}'), ("frasl", '\u{2044}'),
    ("gamma", '\u{3b3}'), ("ge", '\u{2265}'), ("gt", '\u{3e}'), ("hArr", '\u{21d4}'),
    ("harr", '\u{2194}'), ("hearts", '\u{2665}'), ("hellip", '\u{2026}'), ("iacute", '\u{ed}'),
    ("icirc", '\u{ee}'), ("iexcl", '\u{a1}'), ("igrave", '\u{ec}'), ("image", '\u{2111}'),
    ("infin", '\u{221e}'), ("int", '\u{222b}'), ("iota", '\u{3b9}'), ("iquest", '\u{bf}'),
    ("isin", '\u{2208}'), ("iuml", '\u{ef}'), ("kappa", '\u{3ba}'), ("lArr", '\u{21d0}'),
    ("lambda", '\u{3bb}'), ("lang", '\u{2329}'), ("laquo", '\u{ab}'), ("larr", '\u{2190}'),
    ("lceil", '\u{2308}'), ("ldquo", '\u{201c}'), ("le", '\u{2264}'), ("lfloor", '\u{230a}'),
    ("lowast", '\u{2217}'), ("loz", '\u{25ca}'), ("lrm", '\u{200e}'), ("lsaquo", '\u{2039}'),
    ("lsquo", '\u{2018}'), ("lt", '\u{3c}'), ("macr", '\u{af}'), ("mdash", '\u{2014}'),
    ("micro", '\u{b5}'), ("middot", '\u{b7}'), ("minus", '\u{2212}'), ("mu", '\u{3bc}'),
    ("nabla", '\u{2207}'), ("nbsp", '\u{a0}'), ("ndash", '\u{2013}'), ("ne", '\u{2260}'),
    ("ni", '\u{220b}'), ("not", '\u{ac}'), ("notin", '\u{2209}'), ("nsub", '\u{2284}'),
    ("ntilde", '\u{f1}'), ("nu", '\u{3bd}'), ("oacute", '\u{f3}'), ("ocirc", '\u{f4}'),
    ("oelig", '\u{153}'), ("ograve", '\u{f2}'), ("oline", '\u{203e}'), ("omega", '\u{3c9}'),
    ("omicron", '\u{3bf}'), ("oplus", '\u{2295}'), ("or", '\u{2228}'), ("ordf", '\u{aa}'),
    ("ordm", '\u{ba}'), ("oslash", '\u{f8}'), ("otilde", '\u{f5}'), ("otimes", '\u{2297}'),
    ("ouml", '\u{f6}'), ("para", '\u{b6}'), ("part", '\u{2202}'), ("permil", '\u{2030}'),
    ("perp", '\u{22a5}'), ("phi", '\u{3c6}'), ("pi", '\u{3c0}'), ("piv", '\u{3d6}'),
    ("plusmn", '\u{b1}'), ("pound", '\u{a3}'), ("prime", '\u{2032}'), ("prod", '\u{220f}'),
    ("prop", '\u{221d}'), ("psi", '\u{3c8}'), ("quot", '\u{22}'), ("rArr", '\u{21d2}'),
    ("radic", '\u{221a}'), ("rang", '\u{232a}'), ("raquo", '\u{bb}'), ("rarr", '\u{2192}'),
    ("rceil", '\u{2309}'), ("rdquo", '\u{201d}'), ("real", '\u{211c}'), ("reg", '\u{ae}'),
    ("rfloor", '\u{230b}'), ("rho", '\u{3c1}'), ("rlm", '\u{200f}'), ("rsaquo", '\u{203a}'),
    ("rsquo", '\u{2019}'), ("sbquo", '\u{201a}'), ("scaron", '\u{161}'), ("sdot", '\u{22c5}'),
    ("sect", '\u{a7}'), ("shy", '\u{ad}'), ("sigma", '\u{3c3}'), ("sigmaf", '\u{3c2}'),
    ("sim", '\u{223c}'), ("spades", '\u{2660}'), ("sub", '\u{2282}'), ("sube", '\u{2286}'),
    ("sum", '\u{2211}'), ("sup", '\u{2283}'), ("sup1", '\u{b9}'), ("sup2", '\u{b2}'),
    ("sup3", '\u{b3}'), ("supe", '\u{2287}'), ("szlig", '\u{df}'), ("tau", '\u{3c4}'),
    ("there4", '\u{2234}'), ("theta", '\u{3b8}'), ("thetasym", '\u{3d1}'), ("thinsp", '\u{2009}'),
    ("thorn", '\u{fe}'), ("tilde", '\u{2dc}'), ("times", '\u{d7}'), ("trade", '\u{2122}'),
    ("uArr", '\u{21d1}'), ("uacute", '\u{fa}'), ("uarr", '\u{2191}'), ("ucirc", '\u{fb}'),
    ("ugrave", '\u{f9}'), ("uml", '\u{a8}'), ("upsih", '\u{3d2}'), ("upsilon", '\u{3c5}'),
    ("uuml", '\u{fc}'), ("weierp", '\u{2118}'), ("xi", '\u{3be}'), ("yacute", '\u{fd}'),
    ("yen", '\u{a5}'), ("yuml", '\u{ff}'), ("zeta", '\u{3b6}'), ("zwj", '\u{200d}'),
    ("zwnj", '\u{200c}'),
];

/// What numeric references 128–159 mean in practice (Windows-1252), as HTML decoders read them.
const WINDOWS_1252: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}', '\u{90}',
    '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
];

/// The longest reference looked at: `&thetasym;` and `&#x10FFFF;` are shorter.
const MAX_NAME: usize = 32;

/// The character a reference's name (between `&` and `;`) stands for, if any.
/// Numeric references to nothing (0, surrogates, past U+10FFFF) give U+FFFD.
pub fn entity(name: &str) -> Option<char> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                u32::from_str_radix(hex, 16).unwrap_or(u32::MAX)
            }
            None if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => {
                number.parse().unwrap_or(u32::MAX)
            }
            _ => return None,
        };
        return Some(match code {
            128..=159 => WINDOWS_1252[code as usize - 128],
            0 => '\u{FFFD}',
            _ => char::from_u32(code).unwrap_or('\u{FFFD}'),
        });
    }
    NAMED
        .binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .map(|i| NAMED[i].1)
}

/// Decodes `&name;`, `&#NNN;` and `&#xHHH;` references; anything else that
/// starts with `&` is kept as written.
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        // A name is ASCII letters, digits and `#`: every byte of it is a char boundary.
        let len = rest
            .bytes()
            .take(MAX_NAME + 1)
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'#')
            .count();
        match (rest.as_bytes().get(len), entity(&rest[..len])) {
            (Some(b';'), Some(c)) => {
                out.push(c);
                rest = &rest[len + 1..];
            }
            _ => out.push('&'),
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_for_binary_search() {
        assert!(NAMED.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(NAMED.iter().all(|(n, _)| n.len() <= MAX_NAME));
        assert_eq!(NAMED.len(), 253);
    }

    #[test]
    fn names_and_numbers() {
        assert_eq!(entity("eacute"), Some('é'));
        assert_eq!(entity("Eacute"), Some('É'));
        assert_eq!(entity("thetasym"), Some('ϑ'));
        assert_eq!(entity("#x41"), Some('A'));
        assert_eq!(entity("#65"), Some('A'));
        assert_eq!(entity("#99999999999999999999"), Some('\u{FFFD}'));
        assert_eq!(entity("#"), None);
        assert_eq!(entity("#x"), None);
        assert_eq!(entity("#-1"), None);
        assert_eq!(entity("#+1"), None);
        assert_eq!(entity("nosuch"), None);
    }
}
