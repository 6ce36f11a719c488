//! `squill import postgres://…` against a real PostgreSQL that
//! `scripts/test` starts (scripts/testenv/postgres.sh): Sakila and the
//! `shop` fixture loaded, a scripted workload run through psql, then the
//! import measured and checked; and the errors a user meets (wrong
//! password, no server, bad URL), none of which may show the password.
//! Without the environment the tests skip with a NOTICE, and fail under
//! CI=true.

use crate::migrate::IMPORT_PROGRESS;
use crate::support::{Test, each_line_is};
use std::process::{Command, Stdio};

/// The test role's password, set by scripts/testenv/postgres.sh.
pub const SECRET: &str = "squill-test-secret";

/// (user URL without a database, superuser URL without a database).
pub fn server() -> Option<(String, String)> {
    match (
        std::env::var("SQUILL_TEST_POSTGRES_URI"),
        std::env::var("SQUILL_TEST_POSTGRES_SUPERUSER_URI"),
    ) {
        (Ok(u), Ok(s)) => Some((u, s)),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "SQUILL_TEST_POSTGRES_URI is not set and CI=true: scripts/test starts PostgreSQL"
            );
            eprintln!(
                "NOTICE: skipping: no PostgreSQL (run through scripts/test or scripts/testenv/with-postgres)"
            );
            None
        }
    }
}

/// `host:port` of a server URL, which a message names: written `HOST` in
/// the expected output.
fn host(url: &str) -> &str {
    let rest = url.rsplit('@').next().unwrap_or(url);
    rest.split('/').next().unwrap_or(rest)
}

/// Runs SQL through psql as the superuser, failing on the first error.
pub fn psql(url: &str, sql: &str) -> String {
    let mut child = Command::new("psql")
        .args(["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", url])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("psql runs");
    // Written from a thread: psql's output would fill its pipe meanwhile.
    let mut stdin = child.stdin.take().unwrap();
    let text = sql.to_string();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "psql failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// A fresh copy of database `template` named `name`, for one test.
pub fn copy_of(superuser: &str, template: &str, name: &str) {
    psql(
        &format!("{superuser}/postgres"),
        &format!("DROP DATABASE IF EXISTS {name};\nCREATE DATABASE {name} TEMPLATE {template};\n"),
    );
}

/// The statements of a small rental-shop application on Sakila, each run
/// many times with varying values (pg_stat_statements folds them into one
/// normalized statement with the count).
pub fn sakila_workload() -> String {
    let mut sql = String::new();
    for i in 0..400u32 {
        let film = i * 37 % 1000 + 1;
        sql.push_str(&format!(
            "SELECT f.title, f.description, f.rental_rate, l.name FROM film f JOIN language l ON l.language_id = f.language_id WHERE f.film_id = {film};\n\
             SELECT a.first_name, a.last_name FROM actor a JOIN film_actor fa ON fa.actor_id = a.actor_id WHERE fa.film_id = {film};\n"
        ));
    }
    for i in 0..300u32 {
        let customer = i * 7 % 599 + 1;
        sql.push_str(&format!(
            "SELECT r.rental_id, r.rental_date, r.return_date, f.title FROM rental r JOIN inventory i ON i.inventory_id = r.inventory_id JOIN film f ON f.film_id = i.film_id WHERE r.customer_id = {customer} ORDER BY r.rental_date DESC LIMIT 10;\n\
             SELECT customer_id, first_name, last_name FROM customer WHERE email = 'user{customer}@example.org';\n"
        ));
    }
    for i in 0..200u32 {
        sql.push_str(&format!(
            "SELECT f.film_id, f.title FROM film f JOIN film_category fc ON fc.film_id = f.film_id WHERE fc.category_id = {} ORDER BY f.title LIMIT 20;\n\
             SELECT count(*) FROM inventory WHERE film_id = {} AND store_id = {};\n",
            i % 16 + 1,
            i * 13 % 1000 + 1,
            i % 2 + 1
        ));
    }
    for i in 0..100u32 {
        sql.push_str(&format!(
            "SELECT amount, payment_date FROM payment WHERE customer_id = {} ORDER BY payment_date DESC;\n",
            i * 11 % 599 + 1
        ));
    }
    for i in 0..50u32 {
        let inventory = i * 91 % 4581 + 1;
        let customer = i * 13 % 599 + 1;
        sql.push_str(&format!(
            "INSERT INTO rental (rental_date, inventory_id, customer_id, staff_id) VALUES (now() + interval '{i} seconds', {inventory}, {customer}, 1);\n\
             UPDATE rental SET return_date = now() WHERE rental_id = {};\n",
            i * 17 % 16000 + 1
        ));
    }
    sql
}

#[test]
fn import_postgres_measures_sakila_and_its_workload() {
    let Some((user, superuser)) = server() else {
        return;
    };
    copy_of(&superuser, "sakila", "sakila_import");
    psql(&format!("{superuser}/sakila_import"), &sakila_workload());
    let run = Test::new()
        .args(["import", &format!("{user}/sakila_import")])
        .path_as(host(&user), "HOST")
        .stdout_any()
        .stderr_matching(
            "squill import: connecting to HOST/sakila_import
squill import: counting the rows of 15 tables
squill import: measuring 20 relationships
HOST/sakila_import: 13 entities, 20 relationships (0 inferred and confirmed), measured; [..] statements became operations ([..]); [..] s
",
        )
        .check();
    assert!(!run.stdout.contains(SECRET));
    let yaml = &run.stdout;
    // Measured counts and fan-out, no assumptions left on them.
    // 16,044 rentals and the 50 the workload added.
    assert!(yaml.contains("count: 16094  # measured"), "{yaml}");
    assert!(
        yaml.contains("children: {min: 14, typical: 27, p95: 35, p99: 40, max: 42}  # measured over 200 parents"),
        "film_actor per actor:\n{yaml}"
    );
    assert!(!yaml.contains("assumed: [count]"), "{yaml}");
    // A column of an enum type (film.rating, mpaa_rating) takes its labels.
    assert!(
        yaml.contains(r#"rating: {type: string(3), enum: ["G", "PG", "PG-13", "R", "NC-17"]}"#),
        "{yaml}"
    );
    // The workload: each statement an operation with its rate.
    for op in [
        "read_film_by_id:",
        "read_actor_by_film_actor_id:",
        "read_rental_by_customer_id:",
        "read_customer_by_email:",
        "read_film_by_film_category_id:",
        "read_inventory_by_film_id_and_store_id:",
        "read_payment_by_customer_id:",
        "insert_rental:",
        "update_rental_by_id:",
    ] {
        assert!(yaml.contains(op), "no {op} in\n{yaml}");
    }
    assert!(
        yaml.contains("# 400 calls, 1 row each: SELECT f.title"),
        "{yaml}"
    );
    // The rental history: sorted, limited by the rows returned, the film's
    // title through the inventory.
    assert!(
        yaml.contains("    sort: [-rental_date]\n    limit: 10\n"),
        "{yaml}"
    );
    // The model is valid and advise works from it.
    let dir = crate::support::TempDir::new("pg-sakila");
    let model = dir.path().join("sakila.yaml");
    std::fs::write(&model, yaml).unwrap();
    let check = Test::new()
        .args(["check"])
        .args([&model])
        .path_as(dir.path(), "DIR")
        .stdout_any()
        .check();
    assert!(
        check
            .stdout
            .starts_with("DIR/sakila.yaml: model `sakila_import` is valid\n"),
        "{}",
        check.stdout
    );
    let advise = Test::new()
        .args(["advise"])
        .args([&model])
        .stdout_any()
        .check();
    assert!(advise.stdout.contains("film_actor"), "{}", advise.stdout);
}

#[test]
fn import_postgres_errors_never_show_the_password() {
    let Some((user, _)) = server() else {
        return;
    };
    // The password is in none of the expected messages: stating them
    // whole shows it is nowhere.
    let wrong = user.replace(SECRET, "not-the-password-42");
    Test::new()
        .args(["import", &format!("{wrong}/sakila")])
        .path_as(host(&user), "HOST")
        .status(2)
        .stderr(
            "squill import: connecting to HOST/sakila
error: the server refused the login: HOST/sakila (connecting): password authentication failed for user \"squill\" (the password from the URL)
",
        )
        .check();
    // Nothing listens on port 1.
    Test::new()
        .args([
            "import",
            "postgres://squill:hunter2-secret@127.0.0.1:1/sakila",
            "--timeout",
            "5s",
        ])
        .status(2)
        .stderr(
            "squill import: connecting to 127.0.0.1:1/sakila
error: cannot reach the server: 127.0.0.1:1/sakila (connecting): error connecting to server: Connection refused (os error 111)
",
        )
        .check();
    // A database that does not exist.
    Test::new()
        .args(["import", &format!("{user}/no_such_db")])
        .path_as(host(&user), "HOST")
        .status(2)
        .stderr(
            "squill import: connecting to HOST/no_such_db
error: cannot reach the server: HOST/no_such_db (connecting): database \"no_such_db\" does not exist
",
        )
        .check();
    // Not a URL at all.
    Test::new()
        .args(["import", "postgres://squill:pw-secret@[bad/sakila"])
        .status(2)
        .stderr(
            "error: not a PostgreSQL URL: invalid connection string (expected postgres://user:password@host:port/database)\n",
        )
        .check();
}

#[test]
fn import_postgres_says_which_privilege_is_missing() {
    let Some((user, superuser)) = server() else {
        return;
    };
    // A role that may log in but read no table.
    psql(
        &format!("{superuser}/postgres"),
        "DROP ROLE IF EXISTS squill_nothing; CREATE ROLE squill_nothing LOGIN PASSWORD 'nothing-secret-1';",
    );
    let url = user.replacen(
        "squill:squill-test-secret@",
        "squill_nothing:nothing-secret-1@",
        1,
    ) + "/shop";
    Test::new()
        .args(["import", &url])
        .path_as(host(&user), "HOST")
        .status(2)
        .stderr(
            "squill import: connecting to HOST/shop
squill import: counting the rows of 8 tables
error: missing privilege: HOST/shop (counting the rows of categories): permission denied for table categories
",
        )
        .check();
}

#[test]
fn import_postgres_is_read_only() {
    let Some((user, superuser)) = server() else {
        return;
    };
    copy_of(&superuser, "shop", "shop_readonly");
    let before = psql(
        &format!("{superuser}/shop_readonly"),
        "SELECT sum(n_tup_ins + n_tup_upd + n_tup_del) FROM pg_stat_user_tables;",
    );
    let run = Test::new()
        .args(["import", &format!("{user}/shop_readonly")])
        .stdout_any()
        .stderr_any()
        .check();
    assert!(
        run.stdout.contains("\nname: shop_readonly\n"),
        "{}",
        run.stdout
    );
    each_line_is("stderr", &run.stderr, IMPORT_PROGRESS);
    let after = psql(
        &format!("{superuser}/shop_readonly"),
        "SELECT pg_stat_force_next_flush(); SELECT sum(n_tup_ins + n_tup_upd + n_tup_del) FROM pg_stat_user_tables;",
    );
    assert_eq!(before.trim(), after.lines().last().unwrap_or("").trim());
    // Every statement squill sent to this database ran in a read-only
    // session, and none was a write (other tests' migrations use others).
    let writes = psql(
        &format!("{superuser}/shop_readonly"),
        "SELECT count(*) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query LIKE '%squill import%' AND query !~* '^\\s*(/\\*.*\\*/)?\\s*(select|with|set)';",
    );
    assert_eq!(
        writes.trim(),
        "0",
        "squill sent a statement that is no read"
    );
}

#[test]
fn import_postgres_observes_the_workload_over_a_window() {
    let Some((user, superuser)) = server() else {
        return;
    };
    copy_of(&superuser, "shop", "shop_observe");
    // Statements before the window are not counted: only the difference.
    let before = "SELECT name FROM customers WHERE email = 'a@b.c';\n".repeat(40);
    psql(&format!("{superuser}/shop_observe"), &before);
    let url = format!("{user}/shop_observe");
    let import = std::thread::spawn(move || {
        Test::new()
            .args(["import", &url, "--observe", "4s"])
            .path_as(host(&url), "HOST")
            .stdout_any()
            .stderr_matching(
                "squill import: connecting to HOST/shop_observe
squill import: counting the rows of 8 tables
squill import: measuring 7 relationships
squill import: observing the workload for 4 s
HOST/shop_observe: 7 entities, 7 relationships (0 inferred and confirmed), measured; [..] statements became operations ([..]); [..] s
",
            )
            .check()
    });
    // Inside the window: 30 lookups by email, 12 orders placed.
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let mut during = "SELECT name FROM customers WHERE email = 'x@y.z';\n".repeat(30);
    during.push_str(
        &"INSERT INTO orders (customer_id, status, placed_at, updated_at) VALUES (7, 'pending', now(), now());\n"
            .repeat(12),
    );
    psql(&format!("{superuser}/shop_observe"), &during);
    let run = import.join().unwrap();
    let yaml = &run.stdout;
    assert!(
        yaml.contains("# 30 calls, 0 rows each: SELECT name FROM customers WHERE email = $1"),
        "{yaml}"
    );
    assert!(
        yaml.contains("# 12 calls, 1 row each: INSERT INTO orders"),
        "{yaml}"
    );
    // 30 calls over the 4 s window.
    let rate: f64 = yaml
        .split("read_customers_by_email:")
        .nth(1)
        .and_then(|rest| rest.lines().find(|l| l.trim_start().starts_with("rate:")))
        .and_then(|l| l.trim().trim_start_matches("rate:").trim().parse().ok())
        .unwrap_or_else(|| panic!("no rate for read_customers_by_email in\n{yaml}"));
    assert!(
        (6.0..=8.0).contains(&rate),
        "{rate} per second for 30 calls in about 4 s"
    );
}
