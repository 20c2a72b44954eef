//! The language errkb speaks to the agent in: Korean (the original system's), or
//! English. `$ERRKB_LANGUAGE` decides, else `"language"` in config.json
//! (`"ko"` or `"en"`; `errkb install` writes it from the user's locale);
//! without either, the locale decides the same way: Korean for a Korean
//! locale, otherwise English.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Korean,
    English,
}

impl Language {
    pub fn code(self) -> &'static str {
        match self {
            Language::Korean => "ko",
            Language::English => "en",
        }
    }

    /// `"ko"` (or `ko_KR.UTF-8` …) is Korean; anything else English.
    pub fn from_code(code: &str) -> Language {
        if code.trim().to_ascii_lowercase().starts_with("ko") {
            Language::Korean
        } else {
            Language::English
        }
    }
}

/// The language of the user's locale: the first of `LANGUAGE`, `LC_ALL`,
/// `LC_MESSAGES`, `LANG` that is set (as gettext reads them).
pub fn from_locale() -> Language {
    let locale = ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.is_empty())
        .unwrap_or_default();
    // LANGUAGE may list several (ko:en): the first counts
    Language::from_code(locale.split(':').next().unwrap_or(""))
}

/// The language to speak: `$ERRKB_LANGUAGE`, else config.json's
/// `"language"`, else the locale's.
pub fn current() -> Language {
    if let Some(code) = std::env::var("ERRKB_LANGUAGE").ok().filter(|c| !c.is_empty()) {
        return Language::from_code(&code);
    }
    match crate::config::read()
        .as_ref()
        .and_then(|c| c.get("language"))
        .and_then(|l| l.as_str())
    {
        Some(code) => Language::from_code(code),
        None => from_locale(),
    }
}
