//! Writes that guard themselves and documents that leave on their own: a
//! condition a write tests on the current document (`remaining > 0`), a
//! claim (find one by a filter and an order, change it in the same step),
//! amounts a write adds (`$inc`), and expiry (documents gone a set time
//! after a date field). Kept apart from `workload` so the words of issue 41
//! are one unit.

use super::sort_key::SortKey;
use serde::Serialize;

/// A test on a field of the document a write is about to change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    pub field: String,
    /// The write's own amount added to the field before the test
    /// (`available + rooms <= total`: the value the field will hold):
    /// MongoDB spells it `$expr` with `$add`, which an index cannot serve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plus: Option<Plus>,
    pub test: Test,
    /// The value compared, as the model writes it (`0`, `pending`).
    pub value: Literal,
}

/// The amount a condition adds to its field before it compares
/// (`available + rooms`), by the name the write's `increments` give it;
/// `negative` when it is taken away (`available - rooms`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Plus {
    pub amount: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub negative: bool,
}

impl Condition {
    /// The test as the model file writes it: `status = open`, `cost > 100`.
    pub fn written(&self) -> String {
        let value = match &self.value {
            Literal::Number(n) => n.to_string(),
            Literal::Text(t) => t.clone(),
            Literal::Bool(b) => b.to_string(),
            Literal::Amount(x) | Literal::Field(x) => x.clone(),
            Literal::Param(x) => format!(":{x}"),
        };
        format!("{} {} {value}", self.left(), self.test.symbol())
    }

    /// The left side as the model file writes it: `available + rooms`.
    pub fn left(&self) -> String {
        left_side(&self.field, self.plus.as_ref())
    }
}

/// `path`, or `path + amount` / `path - amount`.
pub fn left_side(path: &str, plus: Option<&Plus>) -> String {
    match plus {
        Some(p) => format!("{path} {} {}", if p.negative { "-" } else { "+" }, p.amount),
        None => path.to_string(),
    }
}

/// The comparison of a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
}

impl Test {
    /// The query operator MongoDB spells it with (`$eq` is written as the value itself).
    pub fn operator(self) -> &'static str {
        match self {
            Test::Eq => "$eq",
            Test::Ne => "$ne",
            Test::Gt => "$gt",
            Test::Gte => "$gte",
            Test::Lt => "$lt",
            Test::Lte => "$lte",
        }
    }

    /// The symbol the model file writes (`>`).
    pub fn symbol(self) -> &'static str {
        match self {
            Test::Eq => "=",
            Test::Ne => "!=",
            Test::Gt => ">",
            Test::Gte => ">=",
            Test::Lt => "<",
            Test::Lte => "<=",
        }
    }
}

/// The value a condition compares with: a constant (a number, or a word:
/// a state, a name), or the amount the caller passes, by its name
/// (`available >= quantity`, where the same write's `increments` says
/// `available: -quantity`).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum Literal {
    Number(f64),
    Text(String),
    Bool(bool),
    /// A caller's amount, named in the write's `increments`.
    Amount(String),
    /// Another field of the same document, of the same kind (`used <
    /// quota`: each key has a quota of its own). MongoDB compares two
    /// fields of one document with `$expr`, which an index cannot serve.
    Field(String),
    /// A value the caller passes for the test alone, by the name the
    /// model writes after a colon: the version it read (`version =
    /// :expected`, a compare-and-set), or a state it expects (`status =
    /// :wanted`).
    Param(String),
}

impl Literal {
    /// Whether the value is the same on every call and every document
    /// (not the caller's, not another field's).
    pub fn is_constant(&self) -> bool {
        !matches!(
            self,
            Literal::Amount(_) | Literal::Field(_) | Literal::Param(_)
        )
    }
}

/// What the application does when a conditional write matches nothing.
/// The model file's default is `fail` for a write of one document and
/// `skip` for a `multi: true` write (`inputs::model_file::conditional`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Otherwise {
    /// Tell the caller (sold out, no job waiting): the default.
    #[default]
    Fail,
    /// Undo the writes its atomic group made before it (delete the
    /// redemption just inserted): a compensating write, no transaction.
    Undo,
    /// Nothing to do (the state was already reached): the write is idempotent.
    Skip,
    /// Add the instance (an upsert: "add 3 of this sku to the cart, or add
    /// the line"): `increments` add to it when it exists; when the filter
    /// matches nothing, the instance is inserted with the filter's keys and
    /// the amounts as its values.
    Insert,
}

impl Otherwise {
    pub fn name(self) -> &'static str {
        match self {
            Otherwise::Fail => "fail",
            Otherwise::Undo => "undo",
            Otherwise::Skip => "skip",
            Otherwise::Insert => "insert",
        }
    }
}

/// A field a write adds to (`$inc`): a constant (`remaining: -1`); or,
/// with `per`, a value each document gets from its own related instance
/// (`stock: -ordered.quantity`: each product less its own line's
/// quantity); or, with `amount`, the amount the caller passes under that
/// name (`available: -quantity`). With `per` or `amount`, `by` is the
/// sign (1 or -1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Increment {
    pub field: String,
    pub by: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per: Option<AmountOf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
}

/// Where a per-document amount comes from: `field` of the instance
/// related to the written document through `relationship` (the ordered
/// item's `quantity`). Each document gets a different amount, so the
/// write is one update per document, not one `updateMany`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AmountOf {
    pub relationship: super::ids::RelationshipId,
    pub field: String,
}

impl Increment {
    /// Whether each document is changed by an amount of its own.
    pub fn per_document(&self) -> bool {
        self.per.is_some()
    }
}

/// How a write guards itself: the conditions it tests on the current
/// document, what happens when they fail, the amounts it adds, and, for a
/// claim, the order that picks the one document. Empty for a plain write.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct WriteTerms {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    pub otherwise: Otherwise,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub increments: Vec<Increment>,
    /// A claim: of the documents the filter matches, the first in this
    /// order is changed and returned, in one `findOneAndUpdate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<Vec<SortKey>>,
    /// With `otherwise: insert`: the share of calls that add the instance
    /// (`inserts: 0.2`); `None` when the model does not say, and the plan
    /// assumes every call may (1, an upper bound, reported as assumed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inserts: Option<f64>,
    /// Changed fields set to a value the caller passes under a name of
    /// its own (`changes: ["current_price = :offer"]`): the same value
    /// the conditions test, so "only above the current price" can never
    /// set a lower one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<SetValue>,
}

/// `current_price = :offer`: the changed field and the name of the
/// caller's value it is set to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetValue {
    pub field: String,
    pub value: String,
}

impl WriteTerms {
    pub fn is_plain(&self) -> bool {
        self == &WriteTerms::default()
    }

    /// Whether the write is conditional: a condition or a claim.
    pub fn is_conditional(&self) -> bool {
        !self.conditions.is_empty() || self.claim.is_some()
    }

    /// Whether the write adds the instance when it matches nothing
    /// (`otherwise: insert`, an upsert).
    pub fn upserts(&self) -> bool {
        self.otherwise == Otherwise::Insert
    }

    /// The share of calls that insert: the model's, or 1 (assumed).
    pub fn insert_share(&self) -> f64 {
        self.inserts.unwrap_or(1.0)
    }

    /// The name of the caller's value `field` is set to, if the model
    /// names one (`current_price = :offer`).
    pub fn value_of(&self, field: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|v| v.field == field)
            .map(|v| v.value.as_str())
    }
}

/// Instances removed by the server a set time after a date field
/// (`expires: {after: last_used, in: 30 minutes}`): a TTL index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expiry {
    /// The date field the time counts from.
    pub field: String,
    /// Seconds after that date (`expireAfterSeconds`).
    pub seconds: u64,
}
