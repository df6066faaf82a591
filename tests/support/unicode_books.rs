//! Books in Japanese, Chinese, Arabic, emoji and French with no-break
//! spaces: the EPUB fixtures made by `tests/fixtures/epub/make.sh`, their
//! Markdown sources as plain text, and a query for each with the passage and
//! chapter it must find. Shared by the native and the browser tests.
#![allow(dead_code)]

/// One book and what searching it must find.
pub struct UnicodeBook {
    /// Fixture name.
    pub name: &'static str,
    /// The EPUB 3 file.
    pub epub: &'static [u8],
    /// Its source text (Markdown, read as plain text).
    pub text: &'static str,
    /// Searches: (query, text the best passage contains, its EPUB chapter).
    pub searches: &'static [(&'static str, &'static str, &'static str)],
}

macro_rules! fixture {
    ($name:literal) => {
        (
            include_bytes!(concat!("../fixtures/epub/", $name, ".epub")).as_slice(),
            include_str!(concat!("../fixtures/epub/src/", $name, ".md")),
        )
    };
}

/// The books.
pub fn books() -> Vec<UnicodeBook> {
    let book = |name, (epub, text), searches| UnicodeBook {
        name,
        epub,
        text,
        searches,
    };
    vec![
        book(
            "ja",
            fixture!("ja"),
            &[
                ("鰹節", "台所の棚には鰹節が三本並んでいた", "二"),
                ("猫の名前", "名前はまだ無い", "一"),
                ("三毛子の首輪", "鈴のついた首輪", "二"),
            ],
        ),
        book(
            "zh",
            fixture!("zh"),
            &[
                ("学而时习之", "学而时习之", "论语·学而"),
                ("众妙之门", "玄之又玄，众妙之门", "道德经·第一章"),
                ("吾日三省吾身", "吾日三省吾身", "论语·学而"),
            ],
        ),
        book(
            "ar",
            fixture!("ar"),
            &[
                ("بيت الحكمة في بغداد", "بيت الحكمة", "الفصل الثاني: المكتبة"),
                ("سمكة ذهبية تتكلم", "سمكة ذهبية", "الفصل الأول: الصياد"),
            ],
        ),
        book(
            "emoji",
            fixture!("emoji"),
            &[
                (
                    "seagull stole ice cream 🍦",
                    "seagull stole her ice cream 🍦😱",
                    "Tuesday 🌞",
                ),
                (
                    "baked bread, burned loaf",
                    "burned the first loaf 🔥😅",
                    "Monday 🌧️",
                ),
            ],
        ),
        book(
            "nbsp",
            fixture!("nbsp"),
            &[
                (
                    "une lettre sur les pivoines",
                    "venez voir les pivoines",
                    "Chapitre deux",
                ),
                (
                    "bulbes de tulipes",
                    "12 000 bulbes de tulipes",
                    "Chapitre premier",
                ),
            ],
        ),
    ]
}
