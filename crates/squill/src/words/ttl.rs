//! A TTL index in words: when its documents go, and how much later than
//! stated the server's monitor can delete them.

use super::grammar::duration_seconds;
use super::number::int;

/// How often MongoDB's TTL monitor runs by default
/// (`ttlMonitorSleepSecs`): a document can outlive its time by up to this.
pub const MONITOR_SECONDS: u64 = 60;

/// When a TTL index of `secs` on `field` deletes a document: `deleted at
/// expires_at` (the date is the moment of expiry), `deleted 30 minutes
/// after last_used`.
pub fn ttl_deleted(secs: u64, field: &str) -> String {
    if secs == 0 {
        format!("deleted at {field}")
    } else {
        format!("deleted {} after {field}", duration_seconds(secs))
    }
}

/// The monitor's period over the life a TTL of `secs` states: the share
/// of its life a document can outlive it by. None for a TTL of 0, whose
/// date is the moment of expiry (no life stated).
pub fn ttl_monitor_share(secs: u64) -> Option<f64> {
    (secs > 0).then(|| MONITOR_SECONDS as f64 / secs as f64)
}

/// The monitor's delay, said of this TTL: for a TTL of a minute or more,
/// the share of the life stated it adds (60 s of a 2-minute ticket is
/// half its life, of a 30-day order nothing a reader sees: audit45 gap 5);
/// for a shorter one, how long documents can live past `field` against
/// the time stated, since there the delay is most of a document's life
/// (an offer of 15 s can live 75 s).
pub fn ttl_monitor_delay(secs: u64, field: &str) -> String {
    if secs >= MONITOR_SECONDS {
        // The share the monitor's period is of the life, to a tenth of a
        // percent (audit46 D9: "up to under 1% of the 2 hours" said two
        // bounds at once); one share with the JSON's `monitor_delay_share`.
        let share = ttl_monitor_share(secs).unwrap_or(0.0);
        let share = if share >= 0.001 {
            super::percent(share)
        } else {
            "less than 0.1%".to_string()
        };
        return format!(
            "eventually (the monitor runs about every {MONITOR_SECONDS} s, so a document can outlive the {} stated by up to {MONITOR_SECONDS} s, {share} of it: a read that must be exact compares the date)",
            duration_seconds(secs)
        );
    }
    let most = secs + MONITOR_SECONDS;
    let life = if secs == 0 {
        String::new()
    } else {
        format!(
            ", {}× the {} stated, and up to that many times as many of them at any time",
            super::num(most as f64 / secs as f64),
            duration_seconds(secs)
        )
    };
    format!(
        "eventually: the monitor runs about every {MONITOR_SECONDS} s, longer than this TTL, so a document can live up to about {} s past {field}{life}; a read that must be exact compares the date",
        int(most)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ttl_of_zero_deletes_at_the_date() {
        assert_eq!(ttl_deleted(0, "expires_at"), "deleted at expires_at");
        assert_eq!(
            ttl_deleted(1800, "last_used"),
            "deleted 30 minutes after last_used"
        );
    }

    /// A TTL shorter than the monitor's period says how long its documents
    /// can live, in its own terms; a longer one keeps the generic caveat.
    #[test]
    fn a_ttl_shorter_than_the_monitor_says_by_how_much() {
        assert_eq!(
            ttl_monitor_delay(15, "sent_at"),
            "eventually: the monitor runs about every 60 s, longer than this TTL, so a document can live up to about 75 s past sent_at, 5× the 15 seconds stated, and up to that many times as many of them at any time; a read that must be exact compares the date"
        );
        assert!(ttl_monitor_delay(0, "expires_at").contains("up to about 60 s past expires_at;"));
        assert!(ttl_monitor_delay(60, "at").starts_with("eventually (the monitor runs"));
    }

    /// A TTL of a minute or more says the share of its life the monitor
    /// adds: half of a 2-minute ticket's, less than 0.1% of a 30-day order's.
    #[test]
    fn a_longer_ttl_says_the_share_of_its_life_the_monitor_adds() {
        assert_eq!(
            ttl_monitor_delay(120, "queued_at"),
            "eventually (the monitor runs about every 60 s, so a document can outlive the 2 minutes stated by up to 60 s, 50% of it: a read that must be exact compares the date)"
        );
        assert!(
            ttl_monitor_delay(30 * 86_400, "placed_at")
                .contains("the 30 days stated by up to 60 s, less than 0.1% of it")
        );
        // 2 hours: 0.8%, one figure (it read "up to under 1%").
        assert!(
            ttl_monitor_delay(7_200, "touched_at")
                .contains("the 2 hours stated by up to 60 s, 0.8% of it:")
        );
    }
}
