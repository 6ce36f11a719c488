//! Named threshold profiles, each tied to the source its numbers come from.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// The seeds (Zola's rules of thumb and 004_16209cf0db7b32ff.txt): a couple of
    /// hundred elements, a few thousand ids.
    #[default]
    Seeds,
    /// MongoDB Compass performance insights.
    Compass,
    /// MongoDB Atlas schema advice.
    Atlas,
    /// The schema design anti-pattern articles (Schaefer & Coupal).
    Articles,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Seeds => "seeds",
            Profile::Compass => "compass",
            Profile::Atlas => "atlas",
            Profile::Articles => "articles",
        }
    }
}
