//! `[deployment]` of a `squill.toml`: the RAM, disk, shards and
//! compression ratio a capacity projection (`advise --horizon`) checks
//! the design against. Sizes are written as people write them (`64GiB`);
//! each is checked as it is read, so a typo is an error at its place.

use crate::model::{Deployment, parse_bytes};
use serde::{Deserialize, Deserializer, de::Error};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DeploymentOptions {
    /// RAM of each member: `64GiB`.
    #[serde(default, deserialize_with = "size")]
    pub ram: Option<u64>,
    /// Disk of each member: `4TiB`.
    #[serde(default, deserialize_with = "size")]
    pub disk: Option<u64>,
    #[serde(default, deserialize_with = "shards")]
    pub shards: Option<u32>,
    /// On-disk bytes per byte of data, above 0 and at most 1.
    #[serde(default, deserialize_with = "compression")]
    pub compression: Option<f64>,
}

impl DeploymentOptions {
    pub fn resolve(self) -> Deployment {
        Deployment {
            ram_bytes: self.ram,
            disk_bytes: self.disk,
            shards: self.shards,
            compression: self.compression,
        }
    }
}

fn size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let Some(text) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    parse_bytes(&text).map(Some).ok_or_else(|| {
        D::Error::custom(format!(
            "`{text}` is not a size: write a number and a unit, `64GiB`, `4TiB`, `512MB`"
        ))
    })
}

fn shards<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let Some(n) = Option::<u32>::deserialize(d)? else {
        return Ok(None);
    };
    if n == 0 {
        return Err(D::Error::custom("shards must be at least 1, found 0"));
    }
    Ok(Some(n))
}

fn compression<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let Some(v) = Option::<f64>::deserialize(d)? else {
        return Ok(None);
    };
    if !v.is_finite() || v <= 0.0 || v > 1.0 {
        return Err(D::Error::custom(format!(
            "compression is on-disk bytes per byte of data, above 0 and at most 1, found {v}"
        )));
    }
    Ok(Some(v))
}

#[cfg(test)]
mod tests {
    use crate::model::{Deployment, GIB};
    use std::path::Path;

    #[test]
    fn the_file_states_the_deployment() {
        let s = crate::settings::parse(
            Path::new("squill.toml"),
            "[deployment]\nram = \"64GiB\"\ndisk = \"4TiB\"\nshards = 3\ncompression = 0.4\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            s.capacity.deployment,
            Deployment {
                ram_bytes: Some(64 * GIB),
                disk_bytes: Some(4096 * GIB),
                shards: Some(3),
                compression: Some(0.4),
            }
        );
        assert_eq!(s.capacity.horizon, None);
    }

    #[test]
    fn a_bad_size_is_an_error_at_its_place() {
        let text = "[deployment]\nram = \"64 gigs\"\n";
        let Err(crate::settings::SettingsError::Parse(e)) =
            crate::settings::parse(Path::new("squill.toml"), text)
        else {
            panic!("expected a parse error");
        };
        assert!(
            e.message.contains("`64 gigs` is not a size"),
            "{}",
            e.message
        );
        let span = e.span.unwrap_or_else(|| panic!("a span"));
        assert_eq!(
            &text[span.offset()..span.offset() + span.len()],
            "\"64 gigs\""
        );
    }

    #[test]
    fn compression_is_a_share_of_the_bytes() {
        let text = "[deployment]\ncompression = 0\n";
        assert!(crate::settings::parse(Path::new("squill.toml"), text).is_err());
    }
}
