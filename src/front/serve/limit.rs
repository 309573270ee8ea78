//! The per-client request limit: a token bucket per client name, refilled at `rate` tokens a
//! second up to a burst of two seconds' worth, one token a request.
//!
//! Servers that share a store (PostgreSQL) count in it instead, so that a client whose games
//! the balancer spreads over several servers still gets the rate once: at most two seconds'
//! worth of requests admitted in any two consecutive seconds of the store's clock (the same
//! rate and burst; [`super::store::Store::count_request`]). While the store cannot count, the
//! buckets of this process count for a second at a time.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Seconds of requests a client may send at once after a pause.
const BURST_SECONDS: f64 = 2.0;

/// Clients tracked before the full buckets (those that could be forgotten without changing
/// any answer) are dropped; the table grows past it only while that many are busy at once.
const PRUNE_AT: usize = 4096;

/// How long the buckets count instead of the store after the store failed to count.
const STORE_BACKOFF: Duration = Duration::from_secs(1);

/// Requests a second each client may make on average.
pub struct RateLimit {
    per_second: u32,
    buckets: Mutex<Buckets>,
    /// Whether the store counts (several servers share it).
    in_store: bool,
    /// Until when the buckets count instead of the store, which failed to.
    store_failed_until: Mutex<Option<Instant>>,
}

struct Buckets {
    by_client: HashMap<String, Bucket>,
    /// The table's size at which the full buckets are dropped next.
    prune_at: usize,
}

#[derive(Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimit {
    /// `rate` requests a second per client (at least one), counted in this process.
    pub fn new(rate: u32) -> RateLimit {
        RateLimit {
            per_second: rate.max(1),
            buckets: Mutex::new(Buckets {
                by_client: HashMap::new(),
                prune_at: PRUNE_AT,
            }),
            in_store: false,
            store_failed_until: Mutex::new(None),
        }
    }

    /// `rate` requests a second per client, counted in the store that several servers share.
    pub fn in_store(rate: u32) -> RateLimit {
        RateLimit {
            in_store: true,
            ..RateLimit::new(rate)
        }
    }

    /// Whether a request at `now` is counted in the store ([`RateLimit::most_in_store`]);
    /// otherwise [`RateLimit::admit`] counts it.
    pub fn counts_in_store(&self, now: Instant) -> bool {
        self.in_store
            && self
                .store_failed_until
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_none_or(|until| now >= until)
    }

    /// The most requests of a client the store admits in two consecutive seconds.
    pub fn most_in_store(&self) -> u32 {
        self.per_second.saturating_mul(BURST_SECONDS as u32)
    }

    /// Notes that the store failed to count at `now`: the buckets count for a while.
    pub fn store_failed(&self, now: Instant) {
        *self
            .store_failed_until
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(now + STORE_BACKOFF);
    }

    /// Requests a second per client.
    pub fn rate(&self) -> u32 {
        self.per_second
    }

    /// Tokens a second.
    fn refill(&self) -> f64 {
        f64::from(self.per_second)
    }

    fn burst(&self) -> f64 {
        self.refill() * BURST_SECONDS
    }

    /// Takes a token for a request of `client` at `now`: `Err` with the time until the next
    /// one when it has none left.
    pub fn admit(&self, client: &str, now: Instant) -> Result<(), Duration> {
        let (rate, burst) = (self.refill(), self.burst());
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let bucket = match buckets.by_client.get(client) {
            Some(b) => {
                let refilled = now.saturating_duration_since(b.at).as_secs_f64() * rate;
                Bucket {
                    tokens: (b.tokens + refilled).min(burst),
                    at: now,
                }
            }
            None => Bucket {
                tokens: burst,
                at: now,
            },
        };
        if bucket.tokens < 1.0 {
            return Err(Duration::from_secs_f64((1.0 - bucket.tokens) / rate));
        }
        buckets.by_client.insert(
            client.to_string(),
            Bucket {
                tokens: bucket.tokens - 1.0,
                ..bucket
            },
        );
        if buckets.by_client.len() >= buckets.prune_at {
            buckets.by_client.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * rate < burst
            });
            buckets.prune_at = (2 * buckets.by_client.len()).max(PRUNE_AT);
        }
        Ok(())
    }

    /// Clients tracked now.
    #[cfg(test)]
    fn tracked(&self) -> usize {
        let buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        buckets.by_client.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_rate() {
        let limit = RateLimit::new(5);
        let start = Instant::now();
        for _ in 0..10 {
            assert!(limit.admit("a", start).is_ok());
        }
        let wait = limit.admit("a", start).unwrap_err();
        assert_eq!(wait, Duration::from_millis(200));
        // Another client has its own bucket.
        assert!(limit.admit("b", start).is_ok());
        // A token a fifth of a second, no more.
        let later = start + Duration::from_millis(200);
        assert!(limit.admit("a", later).is_ok());
        assert!(limit.admit("a", later).is_err());
        // After a long pause, a burst again, not more.
        let much_later = start + Duration::from_secs(60);
        for _ in 0..10 {
            assert!(limit.admit("a", much_later).is_ok());
        }
        assert!(limit.admit("a", much_later).is_err());
    }

    #[test]
    fn a_shared_store_counts_but_for_a_second_after_it_failed() {
        let start = Instant::now();
        assert!(!RateLimit::new(5).counts_in_store(start));
        let limit = RateLimit::in_store(5);
        assert_eq!(limit.most_in_store(), 10);
        assert!(limit.counts_in_store(start));
        limit.store_failed(start);
        assert!(!limit.counts_in_store(start + Duration::from_millis(999)));
        assert!(limit.counts_in_store(start + STORE_BACKOFF));
    }

    #[test]
    fn idle_clients_are_forgotten_busy_ones_kept() {
        let limit = RateLimit::new(1);
        let start = Instant::now();
        limit.admit("busy", start).unwrap();
        for n in 0..PRUNE_AT {
            limit.admit(&format!("old{n}"), start).unwrap();
        }
        // Three seconds on, the old clients' buckets are full again; busy empties its own.
        let later = start + Duration::from_secs(3);
        limit.admit("busy", later).unwrap();
        limit.admit("busy", later).unwrap();
        for n in 0..PRUNE_AT {
            limit.admit(&format!("new{n}"), later).unwrap();
        }
        // The pruning dropped the old clients and kept those short of a full bucket.
        assert_eq!(limit.tracked(), PRUNE_AT + 1);
        assert!(limit.admit("busy", later).is_err(), "busy was forgotten");
    }
}
