//! Latency percentiles.

use std::time::Duration;

/// Latency percentiles of one cell, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Latencies {
    /// The median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// The slowest request.
    pub max: f64,
}

impl Latencies {
    /// Percentiles of `samples` by the nearest-rank method (all zero if empty).
    pub fn of(samples: &mut [Duration]) -> Self {
        samples.sort_unstable();
        let rank = |percent: f64| -> f64 {
            if samples.is_empty() {
                return 0.0;
            }
            let index = ((percent / 100.0) * samples.len() as f64).ceil() as usize;
            samples[index.clamp(1, samples.len()) - 1].as_secs_f64() * 1000.0
        };
        Self {
            p50: rank(50.0),
            p90: rank(90.0),
            p99: rank(99.0),
            max: rank(100.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let mut samples: Vec<Duration> = (1..=100).rev().map(Duration::from_millis).collect();
        let latencies = Latencies::of(&mut samples);
        assert_eq!(
            latencies,
            Latencies {
                p50: 50.0,
                p90: 90.0,
                p99: 99.0,
                max: 100.0
            }
        );
    }

    #[test]
    fn one_sample_is_every_percentile_and_none_is_zero() {
        let one = Latencies::of(&mut [Duration::from_millis(7)]);
        assert_eq!((one.p50, one.p99, one.max), (7.0, 7.0, 7.0));
        assert_eq!(Latencies::of(&mut []).max, 0.0);
    }
}
