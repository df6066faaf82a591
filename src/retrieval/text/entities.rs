//! Character references in XML and XHTML text: the named entities of HTML 4
//! and XHTML 1 (Latin-1, symbols and Greek, typographic punctuation: what
//! EPUB documents use), and numeric references, decimal or hex.

/// The names of HTML 4 / XHTML 1's entities plus XML's `apos`, separated by
/// spaces; `CODES` holds their characters in the same order. (Two flat
/// tables: a table of `(&str, char)` pairs is twice the size in the wasm.)
#[rustfmt::skip]
const NAMES: &str = concat!(
    "AElig Aacute Acirc Agrave Alpha Aring Atilde Auml Beta Ccedil Chi Dagger Delta ETH Eacute ",
    "Ecirc Egrave Epsilon Eta Euml Gamma Iacute Icirc Igrave Iota Iuml Kappa Lambda Mu Ntilde Nu ",
    "OElig Oacute Ocirc Ograve Omega Omicron Oslash Otilde Ouml Phi Pi Prime Psi Rho Scaron ",
    "Sigma THORN Tau Theta Uacute Ucirc Ugrave Upsilon Uuml Xi Yacute Yuml Zeta aacute acirc ",
    "acute aelig agrave alefsym alpha amp and ang apos aring asymp atilde auml bdquo beta brvbar ",
    "bull cap ccedil cedil cent chi circ clubs cong copy crarr cup curren dArr dagger darr deg ",
    "delta diams divide eacute ecirc egrave empty emsp ensp epsilon equiv eta eth euml euro ",
    "exist fnof forall frac12 frac14 frac34 frasl gamma ge gt hArr harr hearts hellip iacute ",
    "icirc iexcl igrave image infin int iota iquest isin iuml kappa lArr lambda lang laquo larr ",
    "lceil ldquo le lfloor lowast loz lrm lsaquo lsquo lt macr mdash micro middot minus mu nabla ",
    "nbsp ndash ne ni not notin nsub ntilde nu oacute ocirc oelig ograve oline omega omicron ",
    "oplus or ordf ordm oslash otilde otimes ouml para part permil perp phi pi piv plusmn pound ",
    "prime prod prop psi quot rArr radic rang raquo rarr rceil rdquo real reg rfloor rho rlm ",
    "rsaquo rsquo sbquo scaron sdot sect shy sigma sigmaf sim spades sub sube sum sup sup1 sup2 ",
    "sup3 supe szlig tau there4 theta thetasym thinsp thorn tilde times trade uArr uacute uarr ",
    "ucirc ugrave uml upsih upsilon uuml weierp xi yacute yen yuml zeta zwj zwnj",
);

/// The characters of `NAMES`, in order (all in the Basic Multilingual Plane).
#[rustfmt::skip]
const CODES: [u16; 253] = [
    0x00C6, 0x00C1, 0x00C2, 0x00C0, 0x0391, 0x00C5, 0x00C3, 0x00C4, 0x0392, 0x00C7, 0x03A7, 0x2021,
    0x0394, 0x00D0, 0x00C9, 0x00CA, 0x00C8, 0x0395, 0x0397, 0x00CB, 0x0393, 0x00CD, 0x00CE, 0x00CC,
    0x0399, 0x00CF, 0x039A, 0x039B, 0x039C, 0x00D1, 0x039D, 0x0152, 0x00D3, 0x00D4, 0x00D2, 0x03A9,
    0x039F, 0x00D8, 0x00D5, 0x00D6, 0x03A6, 0x03A0, 0x2033, 0x03A8, 0x03A1, 0x0160, 0x03A3, 0x00DE,
    0x03A4, 0x0398, 0x00DA, 0x00DB, 0x00D9, 0x03A5, 0x00DC, 0x039E, 0x00DD, 0x0178, 0x0396, 0x00E1,
    0x00E2, 0x00B4, 0x00E6, 0x00E0, 0x2135, 0x03B1, 0x0026, 0x2227, 0x2220, 0x0027, 0x00E5, 0x2248,
    0x00E3, 0x00E4, 0x201E, 0x03B2, 0x00A6, 0x2022, 0x2229, 0x00E7, 0x00B8, 0x00A2, 0x03C7, 0x02C6,
    0x2663, 0x2245, 0x00A9, 0x21B5, 0x222A, 0x00A4, 0x21D3, 0x2020, 0x2193, 0x00B0, 0x03B4, 0x2666,
    0x00F7, 0x00E9, 0x00EA, 0x00E8, 0x2205, 0x2003, 0x2002, 0x03B5, 0x2261, 0x03B7, 0x00F0, 0x00EB,
    0x20AC, 0x2203, 0x0192, 0x2200, 0x00BD, 0x00BC, 0x00BE, 0x2044, 0x03B3, 0x2265, 0x003E, 0x21D4,
    0x2194, 0x2665, 0x2026, 0x00ED, 0x00EE, 0x00A1, 0x00EC, 0x2111, 0x221E, 0x222B, 0x03B9, 0x00BF,
    0x2208, 0x00EF, 0x03BA, 0x21D0, 0x03BB, 0x2329, 0x00AB, 0x2190, 0x2308, 0x201C, 0x2264, 0x230A,
    0x2217, 0x25CA, 0x200E, 0x2039, 0x2018, 0x003C, 0x00AF, 0x2014, 0x00B5, 0x00B7, 0x2212, 0x03BC,
    0x2207, 0x00A0, 0x2013, 0x2260, 0x220B, 0x00AC, 0x2209, 0x2284, 0x00F1, 0x03BD, 0x00F3, 0x00F4,
    0x0153, 0x00F2, 0x203E, 0x03C9, 0x03BF, 0x2295, 0x2228, 0x00AA, 0x00BA, 0x00F8, 0x00F5, 0x2297,
    0x00F6, 0x00B6, 0x2202, 0x2030, 0x22A5, 0x03C6, 0x03C0, 0x03D6, 0x00B1, 0x00A3, 0x2032, 0x220F,
    0x221D, 0x03C8, 0x0022, 0x21D2, 0x221A, 0x232A, 0x00BB, 0x2192, 0x2309, 0x201D, 0x211C, 0x00AE,
    0x230B, 0x03C1, 0x200F, 0x203A, 0x2019, 0x201A, 0x0161, 0x22C5, 0x00A7, 0x00AD, 0x03C3, 0x03C2,
    0x223C, 0x2660, 0x2282, 0x2286, 0x2211, 0x2283, 0x00B9, 0x00B2, 0x00B3, 0x2287, 0x00DF, 0x03C4,
    0x2234, 0x03B8, 0x03D1, 0x2009, 0x00FE, 0x02DC, 0x00D7, 0x2122, 0x21D1, 0x00FA, 0x2191, 0x00FB,
    0x00F9, 0x00A8, 0x03D2, 0x03C5, 0x00FC, 0x2118, 0x03BE, 0x00FD, 0x00A5, 0x00FF, 0x03B6, 0x200D,
    0x200C,
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
            128..=159 => char::from_u32(WINDOWS_1252[code as usize - 128].into()).unwrap_or('\u{FFFD}'),
            0 => '\u{FFFD}',
            _ => char::from_u32(code).unwrap_or('\u{FFFD}'),
        });
    }
    let at = NAMES.split(' ').position(|n| n == name)?;
    char::from_u32(CODES[at].into())
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
    fn the_tables_match() {
        let names: Vec<&str> = NAMES.split(' ').collect();
        assert_eq!(names.len(), CODES.len());
        assert_eq!(names.len(), 253);
        assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted, no duplicates");
        assert!(names.iter().all(|n| !n.is_empty() && n.len() <= MAX_NAME));
        assert!(CODES.iter().all(|&c| char::from_u32(c.into()).is_some()));
        assert_eq!(entity("AElig"), Some('Æ'));
        assert_eq!(entity("zwnj"), Some('\u{200C}'));
        assert_eq!(entity("#150"), Some('–'));
        assert_eq!(entity("#159"), Some('Ÿ'));
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
