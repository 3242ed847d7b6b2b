//! The record of each HTTP attempt, and where it sits on a shared time axis.

use crate::display::Num;
use lab_i18n::Locale;
use lab_i18n::i18n::td_string;

use crate::Outcome;

/// One HTTP attempt as it happened, times in ms since the run started.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AttemptRecord {
    /// Which copy, from 1.
    pub copy: u8,
    /// Which attempt of that copy, from 1.
    pub number: u8,
    /// The key it carried.
    pub key: String,
    /// When it was sent.
    pub started_ms: f64,
    /// When it ended, once it has.
    pub ended_ms: Option<f64>,
    /// What it got, once it ended.
    pub outcome: Option<Outcome>,
}

impl AttemptRecord {
    /// How far along the axis `0..span_ms` the attempt starts, and how much
    /// of it it covers, both in percent. A running attempt extends to `now_ms`.
    pub fn bar(&self, span_ms: f64, now_ms: f64) -> (f64, f64) {
        let span = span_ms.max(1.0);
        let end = self.ended_ms.unwrap_or(now_ms).max(self.started_ms);
        // At least a sliver, so an instant answer is still visible.
        let left = (self.started_ms / span * 100.0).clamp(0.0, 99.5);
        let width = ((end - self.started_ms) / span * 100.0)
            .max(0.5)
            .min(100.0 - left);
        (left, width)
    }

    /// `0–500 ms` or `800 ms–…` while running.
    pub fn time_range(&self, locale: Locale) -> String {
        let start = format!("{:.0}", Num(self.started_ms));
        match self.ended_ms {
            Some(end) => {
                let end = format!("{:.0}", Num(end));
                td_string!(locale, pane.time_range, start = start, end = end)
            }
            None => td_string!(locale, pane.time_running, start = start),
        }
    }
}

/// The length of the shared axis: the latest end (or `now_ms` while
/// anything runs) over every pane's attempts.
pub fn span_ms<'a>(records: impl IntoIterator<Item = &'a AttemptRecord>, now_ms: f64) -> f64 {
    records
        .into_iter()
        .map(|record| record.ended_ms.unwrap_or(now_ms))
        .fold(1.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(started_ms: f64, ended_ms: Option<f64>) -> AttemptRecord {
        AttemptRecord {
            copy: 1,
            number: 1,
            key: "k".into(),
            started_ms,
            ended_ms,
            outcome: None,
        }
    }

    #[test]
    fn bars_sit_on_a_shared_axis() {
        let records = [record(0.0, Some(500.0)), record(800.0, Some(1000.0))];
        let span = span_ms(&records, 0.0);
        assert_eq!(span, 1000.0);
        assert_eq!(records[0].bar(span, 0.0), (0.0, 50.0));
        assert_eq!(records[1].bar(span, 0.0), (80.0, 20.0));
    }

    #[test]
    fn a_running_attempt_reaches_now_and_an_instant_one_is_still_visible() {
        let running = record(100.0, None);
        assert_eq!(span_ms([&running], 400.0), 400.0);
        assert_eq!(running.bar(400.0, 400.0), (25.0, 75.0));
        assert_eq!(record(400.0, Some(400.0)).bar(400.0, 400.0), (99.5, 0.5));
    }

    #[test]
    fn a_time_range_reads_the_same_in_both_languages_and_is_open_while_running() {
        for locale in lab_i18n::LOCALES {
            assert_eq!(record(0.0, Some(499.6)).time_range(locale), "0–500 ms");
            assert_eq!(record(800.0, None).time_range(locale), "800 ms–…");
        }
    }
}
