//! The model file's `tenant:` as written: an entity's name, or `{entity,
//! largest}`. Apart from `raw` (which holds it) so that the tenant's words
//! and their schema are read in one place; `tenancy` resolves them.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use serde_saphyr::Spanned;
use std::borrow::Cow;
use std::fmt;

type S<T> = Spanned<T>;

/// `tenant: store`, or `{entity: store, largest: 0.015}`.
#[derive(Debug)]
pub(super) enum RawTenant {
    Short(String),
    Long(RawTenantLong),
}

/// The long form of `tenant:`.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TenantLong")]
pub(super) struct RawTenantLong {
    /// The entity each tenant is (a store, an organisation).
    #[schemars(with = "String")]
    pub entity: S<String>,
    /// The largest tenant's share of every scoped entity's instances
    /// (above 0, at most 1). Default: each scoped relationship's `max`.
    #[schemars(with = "Option<f64>", range(min = 0, max = 1))]
    pub largest: Option<S<f64>>,
}

impl<'de> serde::Deserialize<'de> for RawTenant {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_;
        impl<'de> Visitor<'de> for V_ {
            type Value = RawTenant;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "an entity's name, `tenant: store`, or `{entity: store, largest: 0.015}`",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawTenant, E> {
                Ok(RawTenant::Short(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawTenant, A::Error> {
                RawTenantLong::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(RawTenant::Long)
            }
        }
        d.deserialize_any(V_)
    }
}

impl JsonSchema for RawTenant {
    fn schema_name() -> Cow<'static, str> {
        "Tenant".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The entity every operation names (a store in a multi-store shop): its name, or `{entity, largest}`.",
            "oneOf": [
                {"type": "string"},
                generator.subschema_for::<RawTenantLong>(),
            ]
        })
    }
}
