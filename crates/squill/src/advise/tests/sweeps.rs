//! Writes that move what they find out of their own selection (audit48
//! A6): a sweep that cancels the requests nobody accepted within 5
//! minutes, every minute, finds on each run only the requests of the
//! minute since the run before. It was priced at every matching ride
//! ever inserted, each run, in both collections of an archive split.

use super::{design_of as design, plan_of as plan};

/// Rides requested at 400/s, accepted by id or cancelled by a sweep once
/// a minute; riders read their rides of the day, and now and then their
/// whole history (which crosses the archive's horizon). `SWEEP_CHANGES`
/// is what the sweep changes.
const DISPATCH: &str = r#"
name: dispatch
entities:
  rider: {count: 1000000, fields: {name: string(20)}}
  ride:
    count: 2000000000
    fields:
      status: {type: string(10), enum: [requested, accepted, ongoing, done, cancelled]}
      note: string(40)
      requested_at: date
relationships:
  rider_rides: {parent: rider, child: ride, children: {min: 0, typical: 200, max: 20000}, child_field: rider}
operations:
  request_ride: {insert: ride, links: [rider_rides], rate: 400}
  accept_ride:
    update: ride
    filter: {_id: eq}
    when: ["status = requested"]
    changes: [status]
    rate: 400
  rides_today:
    read: ride
    filter: {rider: eq, requested_at: since(1 day)}
    sort: -requested_at
    limit: 20
    rate: 300
  history:
    read: ride
    filter: {rider: eq}
    sort: -requested_at
    limit: 20
    rate: 30
  cancel_stale_requests:
    update: ride
    filter: {status: eq, requested_at: before(5 minutes)}
    when: ["status = requested"]
    changes: SWEEP_CHANGES
    multi: true
    rate: 0.0167
"#;

fn dispatch(changes: &str) -> crate::design::Design {
    design(&DISPATCH.replace("SWEEP_CHANGES", changes))
}

/// The sweep sets `status` away from `requested`: each run finds the
/// requests of one interval still requested, 400/s × 60 s × 1/5 (the
/// share of the five states), and the step keeps what the first run
/// finds (every stale request already there). A sweep that changes
/// another field leaves its selection as it was: every run finds it
/// whole, as today.
#[test]
fn a_sweep_finds_what_arrived_since_its_last_run() {
    let d = dispatch("[status]");
    let step = &plan(&d, "cancel_stale_requests").steps[0];
    let per_run = 400.0 / 0.0167 / 5.0;
    // The documents that hold them, where rides are embedded: a few
    // riders have two at once.
    assert!(
        (step.documents - per_run).abs() < 0.01 * per_run,
        "{} documents a run, not {per_run}",
        step.documents
    );
    let backlog = step.backlog.expect("the first run's backlog");
    assert!(backlog > 100.0 * per_run, "backlog {backlog}");

    let kept = dispatch("[note]");
    let step = &plan(&kept, "cancel_stale_requests").steps[0];
    assert_eq!(step.backlog, None);
    assert!(step.documents > 100.0 * per_run, "{}", step.documents);
}

/// The requested state never reaches the archive: the sweep clears it
/// from every ride older than 6 minutes, well within the day the live
/// collection keeps. The sweep, the acceptance by id and nothing else
/// that tests that state run on the archive; the history, which reads
/// every age, still does. A sweep that does not clear the state leaves
/// the archive holding requested rides, and the writes run on both.
#[test]
fn a_state_only_live_rides_hold_is_not_written_in_the_archive() {
    let d = dispatch("[status]");
    let names: Vec<&str> = d.operations.iter().map(|p| p.operation.as_str()).collect();
    assert!(names.contains(&"history_in_archive"), "{names:?}");
    assert!(
        !names.contains(&"cancel_stale_requests_in_archive"),
        "{names:?}"
    );
    assert!(!names.contains(&"accept_ride_in_archive"), "{names:?}");

    let kept = dispatch("[note]");
    let names: Vec<&str> = kept
        .operations
        .iter()
        .map(|p| p.operation.as_str())
        .collect();
    assert!(names.contains(&"history_in_archive"), "{names:?}");
    assert!(names.contains(&"accept_ride_in_archive"), "{names:?}");
}

/// Sessions opened at 100/s, purged every minute once unused for 30
/// minutes: each run deletes the minute's sessions that aged past 30
/// minutes (100 × 60), not every old session there is. A purge of one
/// user's old sessions selects other sessions on every call: priced at
/// what its filter matches.
const SESSIONS: &str = r"
name: sessions
entities:
  user: {count: 1000000, fields: {name: string(20)}}
  session:
    count: 50000000
    fields: {started_at: date, token: string(32)}
relationships:
  user_sessions: {parent: user, child: session, children: {min: 0, typical: 50, max: 5000}, child_field: user, layout: parent-reference}
operations:
  open: {insert: session, links: [user_sessions], rate: 100}
  by_token: {read: session, filter: {token: eq}, rate: 1000}
  purge:
    delete: session
    filter: PURGE
    rate: 0.0167
";

#[test]
fn a_purge_by_age_deletes_what_aged_since_its_last_run() {
    let d = design(&SESSIONS.replace("PURGE", "{started_at: before(30 minutes)}"));
    let p = plan(&d, "purge");
    let step = p
        .steps
        .iter()
        .find(|s| s.action == crate::design::Action::DeleteMany)
        .expect("a deleteMany");
    let per_run = 100.0 / 0.0167;
    assert!(
        (step.documents - per_run).abs() < 0.01 * per_run,
        "{} documents a run, not {per_run}",
        step.documents
    );
    assert!(step.backlog.is_some_and(|b| b > 100.0 * per_run));

    let d = design(&SESSIONS.replace("PURGE", "{user: eq, started_at: before(30 minutes)}"));
    let step = &plan(&d, "purge").steps.last().unwrap().clone();
    assert_eq!(step.backlog, None);
}

/// The same dispatch under a tenant (every ride and rider in a city, every
/// operation naming its city): each run of the sweep names one city, and
/// finds that city's requests since its own last run. The tenant's
/// equality had counted as a caller's value, so the sweep was priced at
/// today's figure again and ran on the archive (review49 A3).
#[test]
fn a_sweep_under_a_tenant_finds_what_arrived_since_its_last_run() {
    let text = DISPATCH
        .replace("SWEEP_CHANGES", "[status]")
        .replace(
            "entities:\n",
            "tenant: city\nentities:\n  city: {count: 500, fields: {name: string(20)}}\n",
        )
        .replace(
            "relationships:\n",
            "relationships:\n  city_riders: {parent: city, child: rider, children: {min: 0, typical: 2000, max: 100000}, child_field: city}\n  city_rides: {parent: city, child: ride, children: {min: 0, typical: 4000000, max: 100000000}, child_field: city}\n",
        );
    let d = design(&text);
    let step = &plan(&d, "cancel_stale_requests").steps[0];
    let per_run = 400.0 / 0.0167 / 5.0;
    assert!(
        (step.documents - per_run).abs() < 0.01 * per_run,
        "{} documents a run, not {per_run}",
        step.documents
    );
    let names: Vec<&str> = d.operations.iter().map(|p| p.operation.as_str()).collect();
    assert!(
        !names.contains(&"cancel_stale_requests_in_archive"),
        "{names:?}"
    );
}
