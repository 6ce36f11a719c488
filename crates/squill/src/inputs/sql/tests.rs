//! The DDL importer on small schemas written for each case, and on the
//! shared sample databases when they are present.

use super::{SqlDialect, import};
use crate::inputs::model_file::parse;
use crate::model::{Model, RelationshipKind};

fn model(sql: &str, dialect: SqlDialect) -> (Model, super::Import) {
    let i = import("shop.sql", sql, dialect);
    let m = parse("shop.yaml", &i.yaml).unwrap_or_else(|e| panic!("{e:?}\n{}", i.yaml));
    (m, i)
}

fn rel<'m>(m: &'m Model, name: &str) -> &'m crate::model::Relationship {
    m.relationships
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no relationship {name}: {:?}",
                m.relationships.iter().map(|r| &r.name).collect::<Vec<_>>()
            )
        })
}

const SHOP: &str = r#"
CREATE TABLE customer (
  customer_id serial PRIMARY KEY,
  email varchar(80) NOT NULL UNIQUE,
  name text
);
CREATE TABLE profile (
  customer_id integer PRIMARY KEY REFERENCES customer(customer_id),
  bio varchar(400)
);
CREATE TABLE category (
  category_id integer PRIMARY KEY,
  parent_id integer REFERENCES category(category_id),
  name varchar(40) NOT NULL
);
CREATE TABLE product (
  product_id bigserial PRIMARY KEY,
  name varchar(120) NOT NULL,
  price numeric(10,2) NOT NULL,
  specs jsonb
);
CREATE TABLE product_category (
  product_id bigint NOT NULL REFERENCES product(product_id),
  category_id integer NOT NULL REFERENCES category(category_id),
  rank smallint,
  PRIMARY KEY (product_id, category_id)
);
CREATE TABLE orders (
  order_id bigserial PRIMARY KEY,
  customer_id integer NOT NULL,
  placed_at timestamp with time zone NOT NULL
);
ALTER TABLE ONLY orders ADD CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES customer(customer_id);
CREATE TABLE order_line (
  order_id bigint NOT NULL REFERENCES orders(order_id),
  line smallint NOT NULL,
  product_id bigint NOT NULL REFERENCES product(product_id),
  quantity integer NOT NULL,
  PRIMARY KEY (order_id, line)
);
CREATE INDEX order_placed ON orders (customer_id, placed_at);
CREATE VIEW big_orders AS SELECT * FROM orders;
CREATE FROBNICATE everything;
"#;

/// Tables, keys and foreign keys become entities and relationships of the
/// right kind; the statement the parser cannot read is named at its place.
#[test]
fn a_schema_becomes_a_model() {
    let (m, i) = model(SHOP, SqlDialect::Postgres);
    let names: Vec<&str> = m.entities.iter().map(|e| e.name.as_str()).collect();
    // The linking table is a many-to-many, not an entity.
    assert_eq!(
        names,
        [
            "customer",
            "profile",
            "category",
            "product",
            "orders",
            "order_line"
        ]
    );
    assert_eq!(rel(&m, "profiles").kind, RelationshipKind::OneToOne);
    assert_eq!(
        rel(&m, "orders_of_customer").kind,
        RelationshipKind::OneToMany
    );
    assert_eq!(rel(&m, "orders_of_customer").child_field, "customer_id");
    let tree = rel(&m, "category_children");
    assert_eq!(tree.parent, tree.child);
    let link = rel(&m, "product_category");
    assert_eq!(link.kind, RelationshipKind::ManyToMany);
    assert_eq!(link.attributes[0].name, "rank");
    // The single-column key is the `_id`, typed as in SQL; sizes from lengths.
    let customer = &m.entities[0];
    assert_eq!(
        customer.field("_id").unwrap().ty,
        crate::model::FieldType::Int
    );
    assert_eq!(customer.field("email").unwrap().avg_size, Some(80));
    assert!(!customer.field("name").unwrap().required);
    // A composite key is a unique key of the entity.
    let line = m.entities.iter().find(|e| e.name == "order_line").unwrap();
    assert_eq!(line.unique.len(), 1, "{:?}", line.unique);
    // Counts and fan-out are marked as assumptions, for people and for advise.
    assert!(i.yaml.contains("count: 1000  # assumed"), "{}", i.yaml);
    assert!(m.assumed.contains(&"entities.customer.count".to_string()));
    assert!(
        m.assumed
            .contains(&"relationships.orders_of_customer.children".to_string())
    );
    assert!(
        m.assumed
            .contains(&"relationships.product_category.parents".to_string())
    );
    assert!(
        i.yaml
            .contains("# indexed in SQL: (customer_id, placed_at)")
    );
    let problems: Vec<&super::Note> = i.notes.iter().filter(|n| n.problem).collect();
    assert_eq!(problems.len(), 1, "{:?}", i.notes);
    let line = SHOP.lines().position(|l| l.contains("FROBNICATE")).unwrap() as u64 + 1;
    assert_eq!((problems[0].at.line, problems[0].at.column), (line, 8));
    assert!(
        i.notes
            .iter()
            .any(|n| !n.problem && n.message.contains("view big_orders ignored"))
    );
}

/// MySQL client blocks and words the parser does not know do not lose the
/// tables around them; what was left out is named.
#[test]
fn mysql_dumps_are_read_around_what_the_parser_cannot() {
    let sql = "CREATE TABLE store (\n  store_id INT UNSIGNED NOT NULL AUTO_INCREMENT,\n  PRIMARY KEY (store_id)\n) ENGINE=InnoDB;\n\
DELIMITER ;;\nCREATE TRIGGER t AFTER INSERT ON store FOR EACH ROW BEGIN\n  SET @x = 1;\nEND;;\nDELIMITER ;\n\
CREATE TABLE staff (\n  staff_id INT UNSIGNED NOT NULL AUTO_INCREMENT,\n  password VARCHAR(40) BINARY DEFAULT NULL,\n  store_id INT UNSIGNED NOT NULL,\n  PRIMARY KEY (staff_id),\n  KEY idx_store (store_id),\n  CONSTRAINT fk_staff_store FOREIGN KEY (store_id) REFERENCES store (store_id)\n) ENGINE=InnoDB;\n";
    let (m, i) = model(sql, SqlDialect::MySql);
    assert_eq!(m.entities.len(), 2, "{}", i.yaml);
    assert_eq!(rel(&m, "staffs").parent, m.entity_by_name("store").unwrap());
    let left_out = i.notes.iter().find(|n| n.problem).unwrap();
    assert!(
        left_out.message.contains("`BINARY` at 12:24"),
        "{:?}",
        i.notes
    );
    assert!(
        i.notes
            .iter()
            .any(|n| n.message.contains("DELIMITER block"))
    );
}

/// With no foreign key declared (MyISAM, benchmark schemas), integer
/// columns named after a table become relationships marked as inferred;
/// a count named after a table (`nb_of_bids`) does not.
#[test]
fn references_are_inferred_from_column_names() {
    let sql = "CREATE TABLE users (id INTEGER UNSIGNED NOT NULL, region INTEGER NOT NULL, PRIMARY KEY(id));\n\
CREATE TABLE regions (id INTEGER UNSIGNED NOT NULL, name VARCHAR(25), PRIMARY KEY(id));\n\
CREATE TABLE bids (id INTEGER UNSIGNED NOT NULL, from_user_id INTEGER NOT NULL, PRIMARY KEY(id));\n\
CREATE TABLE items (id INTEGER UNSIGNED NOT NULL, nb_of_bids INTEGER, PRIMARY KEY(id));\n\
CREATE TABLE useracct (u_id INTEGER NOT NULL, PRIMARY KEY(u_id));\n\
CREATE TABLE friend (source_u_id INTEGER NOT NULL, name VARCHAR(20));\n";
    let (m, i) = model(sql, SqlDialect::MySql);
    assert_eq!(i.inferred, 3, "{}", i.yaml);
    assert_eq!(
        rel(&m, "users_by_region").parent,
        m.entity_by_name("regions").unwrap()
    );
    assert_eq!(rel(&m, "bids_by_from_user").child_field, "from_user_id");
    assert_eq!(
        rel(&m, "friends_by_source_u").parent,
        m.entity_by_name("useracct").unwrap()
    );
    assert!(i.yaml.contains("# inferred: no foreign key declared"));
    assert!(!i.yaml.contains("nb_of_bids\n"), "{}", i.yaml);
}

/// The shared sample databases import into valid models.
#[test]
fn the_sample_databases_import() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/sql");
    if !root.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: ../shared/data/sql is missing"
        );
        eprintln!("skipped: {} is absent", root.display());
        return;
    }
    let cases = [
        (
            "sakila/postgres-sakila-db/postgres-sakila-schema.sql",
            SqlDialect::Postgres,
            13,
            20,
        ),
        (
            "sakila/mysql-sakila-db/mysql-sakila-schema.sql",
            SqlDialect::MySql,
            14,
            20,
        ),
        ("northwind/northwind.sql", SqlDialect::Postgres, 11, 10),
        (
            "chinook/ChinookDatabase/DataSources/Chinook_PostgreSql.sql",
            SqlDialect::Postgres,
            10,
            10,
        ),
        (
            "chinook/ChinookDatabase/DataSources/Chinook_MySql.sql",
            SqlDialect::MySql,
            10,
            10,
        ),
        ("rubis/database/rubis.sql", SqlDialect::MySql, 9, 14),
    ];
    let mut golden = String::new();
    for (file, dialect, entities, relationships) in cases {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let i = import(file, &text, dialect);
        let m = parse(file, &i.yaml).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        assert_eq!(
            (m.entities.len(), m.relationships.len()),
            (entities, relationships),
            "{file}"
        );
        // The relationships as the model has them: kind, sides, the
        // reference's field, a link's attributes, and which were inferred.
        golden.push_str(&format!("== {file}\n"));
        for r in &m.relationships {
            let inferred = i
                .yaml
                .split(&format!("\n  {}:\n", r.name))
                .nth(1)
                .and_then(|rest| rest.lines().next())
                .is_some_and(|l| l.contains("inferred"));
            golden.push_str(&format!(
                "{}: {:?} {} -> {}{}{}{}\n",
                r.name,
                r.kind,
                m.entity(r.parent).name,
                m.entity(r.child).name,
                if r.kind == RelationshipKind::ManyToMany {
                    String::new()
                } else {
                    format!(" by {}", r.child_field)
                },
                if r.attributes.is_empty() {
                    String::new()
                } else {
                    format!(
                        " with [{}]",
                        r.attributes
                            .iter()
                            .map(|a| a.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
                if inferred { " (inferred)" } else { "" }
            ));
        }
    }
    insta::assert_snapshot!(golden);
}

/// The dialect of each sample is told from the file itself.
#[test]
fn the_dialect_is_detected() {
    assert_eq!(SqlDialect::detect(SHOP), SqlDialect::Postgres);
    assert_eq!(
        SqlDialect::detect("CREATE TABLE `a` (id INT AUTO_INCREMENT) ENGINE=InnoDB;"),
        SqlDialect::MySql
    );
    assert_eq!(
        SqlDialect::detect("CREATE TABLE [dbo].[a] (id INT);"),
        SqlDialect::MsSql
    );
    assert_eq!(
        SqlDialect::detect("PRAGMA foreign_keys=ON;\nCREATE TABLE a (id INTEGER);"),
        SqlDialect::Sqlite
    );
    assert_eq!(
        SqlDialect::detect("CREATE TABLE a (id INT);"),
        SqlDialect::Generic
    );
    // A comment's backquotes are no MySQL; identity columns are PostgreSQL.
    assert_eq!(
        SqlDialect::detect(
            "-- loaded by `psql`\nCREATE TABLE a (id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY);"
        ),
        SqlDialect::Postgres
    );
}

/// A column that takes only listed values becomes a string field with an
/// `enum`, whichever way the schema lists them: MySQL's `ENUM(…)`, a
/// PostgreSQL enum type, `CHECK (col IN (…))` on the column or the table,
/// or pg_dump's `= ANY (ARRAY[…])`. A check of another kind (numbers, a
/// `NOT IN`, a range) lists nothing.
#[test]
fn listed_values_become_an_enum() {
    use crate::model::FieldType;
    let enum_of = |sql: &str, dialect: SqlDialect, entity: &str, field: &str| {
        let (m, _) = model(sql, dialect);
        let e = m.entities.iter().find(|e| e.name == entity).unwrap();
        let f = e.field(field).unwrap();
        assert!(matches!(f.ty, FieldType::String), "{field}: {:?}", f.ty);
        f.enum_values.clone()
    };
    let mysql =
        "CREATE TABLE film (film_id INT PRIMARY KEY, rating ENUM('G','PG','PG-13') DEFAULT 'G');";
    assert_eq!(
        enum_of(mysql, SqlDialect::MySql, "film", "rating"),
        ["G", "PG", "PG-13"]
    );
    let pg_type = "CREATE TYPE mpaa_rating AS ENUM ('G', 'PG', 'R');
CREATE TABLE film (film_id serial PRIMARY KEY, rating mpaa_rating);";
    assert_eq!(
        enum_of(pg_type, SqlDialect::Postgres, "film", "rating"),
        ["G", "PG", "R"]
    );
    let column_check = "CREATE TABLE orders (id serial PRIMARY KEY, status varchar(16) NOT NULL CHECK (status IN ('new', 'paid')));";
    assert_eq!(
        enum_of(column_check, SqlDialect::Postgres, "orders", "status"),
        ["new", "paid"]
    );
    let pg_dump = "CREATE TABLE orders (id serial PRIMARY KEY, status character varying(16) NOT NULL,
  CONSTRAINT orders_status_check CHECK (((status)::text = ANY ((ARRAY['new'::character varying, 'paid'::character varying])::text[]))));";
    assert_eq!(
        enum_of(pg_dump, SqlDialect::Postgres, "orders", "status"),
        ["new", "paid"]
    );
    for other in [
        "CHECK (qty IN (1, 2))",
        "CHECK (status NOT IN ('x'))",
        "CHECK (qty > 0)",
    ] {
        let sql = format!(
            "CREATE TABLE orders (id serial PRIMARY KEY, status varchar(16), qty int, {other});"
        );
        assert!(
            enum_of(&sql, SqlDialect::Postgres, "orders", "status").is_empty(),
            "{other}"
        );
    }
    // The catalog's text of a check, as the live import reads it.
    assert_eq!(
        super::ddl::check_values(
            "CHECK (((status)::text = ANY ((ARRAY['new'::character varying, 'paid'::character varying])::text[])))"
        ),
        Some((
            "status".to_string(),
            vec!["new".to_string(), "paid".to_string()]
        ))
    );
    assert_eq!(super::ddl::check_values("CHECK ((qty > 0))"), None);
}
