//! The time errkb writes: RFC 3339 UTC, as events, fixes and log lines
//! store it. A clock outside what that format can hold (before 1970, or
//! after 9999, a machine with a broken clock) is clamped to the nearest end,
//! so that nothing is lost and nothing panics, and the times still sort.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The last instant RFC 3339 can write: 9999-12-31T23:59:59.999Z.
const LAST: Duration = Duration::from_millis(253_402_300_799_999);

/// Whether `t` can be written as it is (1970 to 9999).
pub fn in_range(t: SystemTime) -> bool {
    t.duration_since(UNIX_EPOCH).is_ok_and(|d| d <= LAST)
}

fn clamped(t: SystemTime) -> SystemTime {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) if d <= LAST => t,
        Ok(_) => UNIX_EPOCH + LAST,
        Err(_) => UNIX_EPOCH,
    }
}

/// `t` with milliseconds: `2026-11-27T09:00:00.123Z` (what `ts` columns hold).
pub fn millis(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(clamped(t)).to_string()
}

/// `t` to the second: `2026-11-27T09:00:00Z` (log lines).
pub fn seconds(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(clamped(t)).to_string()
}

/// Now, with milliseconds (`utc_now()` in SQL).
pub fn now_millis() -> String {
    millis(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_out_of_range_is_clamped_not_a_panic() {
        assert_eq!(millis(UNIX_EPOCH - Duration::from_secs(5)), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            millis(UNIX_EPOCH + Duration::from_secs(400_000_000_000)),
            "9999-12-31T23:59:59.999Z"
        );
        assert_eq!(
            seconds(UNIX_EPOCH + Duration::from_secs(86_400)),
            "1970-01-02T00:00:00Z"
        );
        assert!(!in_range(UNIX_EPOCH + Duration::from_secs(253_402_300_800)));
        assert!(in_range(UNIX_EPOCH + LAST));
    }
}
