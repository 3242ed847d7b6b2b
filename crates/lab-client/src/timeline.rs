//! The record of each HTTP attempt, and where it sits on a shared time axis.

use crate::display::Num;
use lab_i18n::Locale;
use lab_i18n::i18n::td_string;

pub use lab_wire::run::AttemptRecord;

/// An attempt's times in the learner's words.
pub trait AttemptText {
    /// `0–500 ms` or `800 ms–…` while running.
    fn time_range(&self, locale: Locale) -> String;
}

impl AttemptText for AttemptRecord {
    fn time_range(&self, locale: Locale) -> String {
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
