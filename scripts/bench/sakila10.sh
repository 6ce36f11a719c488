# shellcheck shell=bash
# The databases the migrate benches measure, shared by scripts/bench/migrate
# (native) and scripts/bench/migrate-spark (the Spark job beside it); sourced.
# Needs psql_su DATABASE [psql args…] and value DATABASE SQL from the caller.
#
#   build_sakila10 → database sakila10: sakila with customer, inventory,
#     rental and payment ten times over. Copy k (1..9) of each row has its
#     id + k × (the table's largest id) and points at copy k of the customer,
#     inventory item and rental it referenced (address, film, store and staff
#     are shared), so every customer's rentals and payments are as in sakila.
#     The copies' emails get a "k." prefix (still unique). Inserted with
#     session_replication_role = replica (no triggers, no foreign-key checks,
#     no payment partition rules: the copies stay in the table the originals
#     are in), sequences moved past the copies, then VACUUM ANALYZE (sakila
#     and sakila10).
#   workload_sql FILE → the workload of the integration tests
#     (crates/squill-cli/tests/integration/postgres.rs, sakila_workload:
#     reads of films, actors, rentals by customer, customers by email,
#     payments; the rental insert and update rolled back, so the rows stay
#     exactly 1× and 10×) into FILE, so that the design has reads to fit.

build_sakila10() {
    psql_su postgres -c 'CREATE DATABASE sakila10 TEMPLATE sakila'
    psql_su sakila10 -o /dev/null <<'SQL'
SET session_replication_role = replica;
SELECT max(customer_id) AS nc FROM customer \gset
SELECT max(inventory_id) AS ni FROM inventory \gset
SELECT max(rental_id) AS nr FROM rental \gset
SELECT max(payment_id) AS np FROM payment \gset
INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, activebool, create_date, last_update, active)
  SELECT customer_id + k * :nc, store_id, first_name, last_name, k || '.' || email, address_id, activebool, create_date, last_update, active
  FROM ONLY customer, generate_series(1, 9) k;
INSERT INTO inventory (inventory_id, film_id, store_id, last_update)
  SELECT inventory_id + k * :ni, film_id, store_id, last_update
  FROM ONLY inventory, generate_series(1, 9) k;
INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, return_date, staff_id, last_update)
  SELECT rental_id + k * :nr, rental_date, inventory_id + k * :ni, customer_id + k * :nc, return_date, staff_id, last_update
  FROM ONLY rental, generate_series(1, 9) k;
INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, payment_date)
  SELECT payment_id + k * :np, customer_id + k * :nc, staff_id, rental_id + k * :nr, amount, payment_date
  FROM ONLY payment, generate_series(1, 9) k;
SELECT setval('customer_customer_id_seq', 10 * :nc);
SELECT setval('inventory_inventory_id_seq', 10 * :ni);
SELECT setval('rental_rental_id_seq', 10 * :nr);
SELECT setval('payment_payment_id_seq', 10 * :np);
SQL
    local db
    for db in sakila sakila10; do
        psql_su "$db" -c 'VACUUM ANALYZE'
    done
}

workload_sql() {
    {
        echo 'BEGIN;'
        local i film customer
        for ((i = 0; i < 400; i++)); do
            film=$((i * 37 % 1000 + 1))
            echo "SELECT f.title, f.description, f.rental_rate, l.name FROM film f JOIN language l ON l.language_id = f.language_id WHERE f.film_id = $film;"
            echo "SELECT a.first_name, a.last_name FROM actor a JOIN film_actor fa ON fa.actor_id = a.actor_id WHERE fa.film_id = $film;"
        done
        for ((i = 0; i < 300; i++)); do
            customer=$((i * 7 % 599 + 1))
            echo "SELECT r.rental_id, r.rental_date, r.return_date, f.title FROM rental r JOIN inventory i ON i.inventory_id = r.inventory_id JOIN film f ON f.film_id = i.film_id WHERE r.customer_id = $customer ORDER BY r.rental_date DESC LIMIT 10;"
            echo "SELECT customer_id, first_name, last_name FROM customer WHERE email = 'user$customer@example.org';"
        done
        for ((i = 0; i < 200; i++)); do
            echo "SELECT f.film_id, f.title FROM film f JOIN film_category fc ON fc.film_id = f.film_id WHERE fc.category_id = $((i % 16 + 1)) ORDER BY f.title LIMIT 20;"
            echo "SELECT count(*) FROM inventory WHERE film_id = $((i * 13 % 1000 + 1)) AND store_id = $((i % 2 + 1));"
        done
        for ((i = 0; i < 100; i++)); do
            echo "SELECT amount, payment_date FROM payment WHERE customer_id = $((i * 11 % 599 + 1)) ORDER BY payment_date DESC;"
        done
        for ((i = 0; i < 50; i++)); do
            echo "INSERT INTO rental (rental_date, inventory_id, customer_id, staff_id) VALUES (now() + interval '$i seconds', $((i * 91 % 4581 + 1)), $((i * 13 % 599 + 1)), 1);"
            echo "UPDATE rental SET return_date = now() WHERE rental_id = $((i * 17 % 16000 + 1));"
        done
        echo 'ROLLBACK;'
    } >"$1"
}
