//! The probe's findings, each graded by what the IETF draft (or the common
//! practice it follows) requires of it: a table for people, JSON for
//! programs, and an exit status a CI job can gate on.

/// How much a check's expectation weighs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Common practice the draft does not require (Stripe's documented
    /// behaviour, say): reported, never a failed run.
    Advice,
    /// The draft says SHOULD: a failed run with `--fail-on should`.
    Should,
    /// Breaking it breaks the header's promise, the work done once for a
    /// key: always a failed run.
    Must,
}

impl Level {
    /// How the table shows it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Must => "MUST",
            Self::Should => "SHOULD",
            Self::Advice => "advice",
        }
    }
}

/// Whether the endpoint did what is expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Verdict {
    /// It did.
    #[serde(rename = "pass")]
    Pass,
    /// It did not.
    #[serde(rename = "fail")]
    Fail,
    /// The scenario could not be tried against this endpoint.
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl Verdict {
    fn label(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "FAIL",
            Self::NotApplicable => "n/a",
        }
    }
}

/// One scenario's finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ScenarioResult {
    /// The scenario, e.g. `concurrent copies`.
    pub scenario: String,
    /// How much its expectation weighs.
    pub level: Level,
    /// Where the expectation comes from: the draft's section, or the
    /// practice it follows.
    pub reference: String,
    /// What the IETF draft or common practice expects.
    pub expected: String,
    /// What the endpoint did.
    pub observed: String,
    /// Whether that is what is expected.
    pub verdict: Verdict,
}

/// Every scenario's finding for one endpoint.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Report {
    /// The endpoint probed.
    pub url: String,
    /// The findings, in the order the scenarios ran.
    pub scenarios: Vec<ScenarioResult>,
    /// How many passed.
    pub passed: usize,
    /// How many failed.
    pub failed: usize,
    /// How many could not be tried.
    pub not_applicable: usize,
    /// How many of the failures were of a MUST.
    pub failed_must: usize,
    /// How many of the failures were of a SHOULD.
    pub failed_should: usize,
}

impl Report {
    /// A report over `scenarios`, with the counts filled in.
    pub fn new(url: String, scenarios: Vec<ScenarioResult>) -> Self {
        let count = |verdict| scenarios.iter().filter(|s| s.verdict == verdict).count();
        let failed_at = |level| {
            scenarios
                .iter()
                .filter(|s| s.verdict == Verdict::Fail && s.level == level)
                .count()
        };
        Self {
            url,
            passed: count(Verdict::Pass),
            failed: count(Verdict::Fail),
            not_applicable: count(Verdict::NotApplicable),
            failed_must: failed_at(Level::Must),
            failed_should: failed_at(Level::Should),
            scenarios,
        }
    }

    /// 1 when a check of `fail_on`'s level or above failed, else 0:
    /// advice never fails a run.
    pub fn exit_code(&self, fail_on: Level) -> i32 {
        let failed = self
            .scenarios
            .iter()
            .any(|s| s.verdict == Verdict::Fail && s.level >= fail_on && s.level > Level::Advice);
        i32::from(failed)
    }

    /// The findings as an aligned text table with a closing summary.
    pub fn to_table(&self) -> String {
        let headers = ["result", "level", "scenario", "expected", "observed"];
        let rows: Vec<[&str; 5]> = self
            .scenarios
            .iter()
            .map(|s| {
                [
                    s.verdict.label(),
                    s.level.label(),
                    s.scenario.as_str(),
                    s.expected.as_str(),
                    s.observed.as_str(),
                ]
            })
            .collect();
        let width = |column: usize| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .chain([headers[column].len()])
                .max()
                .unwrap_or(0)
        };
        let widths = [width(0), width(1), width(2), width(3)];
        let line = |cells: [&str; 5]| {
            format!(
                "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {}",
                cells[0],
                cells[1],
                cells[2],
                cells[3],
                cells[4],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2],
                w3 = widths[3]
            )
        };
        let mut table = format!("Probe of {}\n\n{}\n", self.url, line(headers));
        for row in rows {
            table.push_str(&line(row));
            table.push('\n');
        }
        table.push_str(&format!(
            "\nprobe summary: {} of {} scenarios as expected, {} not ({} MUST, {} SHOULD, {} advice), {} not applicable\n",
            self.passed,
            self.scenarios.len(),
            self.failed,
            self.failed_must,
            self.failed_should,
            self.failed - self.failed_must - self.failed_should,
            self.not_applicable
        ));
        table.push_str("\nwhere each expectation comes from:\n");
        let mut references: Vec<(&str, Level, Vec<&str>)> = Vec::new();
        for s in &self.scenarios {
            match references.iter_mut().find(|(r, ..)| *r == s.reference) {
                Some((.., checks)) => checks.push(&s.scenario),
                None => references.push((&s.reference, s.level, vec![&s.scenario])),
            }
        }
        for (reference, level, checks) in references {
            table.push_str(&format!(
                "  {} ({}): {reference}\n",
                checks.join(", "),
                level.label()
            ));
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(scenario: &str, level: Level, verdict: Verdict) -> ScenarioResult {
        ScenarioResult {
            scenario: scenario.into(),
            level,
            reference: format!("the reference of {scenario}"),
            expected: "e".into(),
            observed: "o".into(),
            verdict,
        }
    }

    #[test]
    fn a_failed_must_fails_the_run_a_failed_should_only_when_asked_and_advice_never() {
        let ok = Report::new(
            "u".into(),
            vec![
                result("a", Level::Must, Verdict::Pass),
                result("b", Level::Must, Verdict::NotApplicable),
                result("c", Level::Advice, Verdict::Fail),
            ],
        );
        assert_eq!((ok.passed, ok.not_applicable), (1, 1));
        assert_eq!(ok.exit_code(Level::Must), 0);
        assert_eq!(ok.exit_code(Level::Should), 0);
        assert_eq!(ok.exit_code(Level::Advice), 0, "advice never fails a run");
        let should = Report::new("u".into(), vec![result("a", Level::Should, Verdict::Fail)]);
        assert_eq!(should.exit_code(Level::Must), 0);
        assert_eq!(should.exit_code(Level::Should), 1);
        let must = Report::new("u".into(), vec![result("a", Level::Must, Verdict::Fail)]);
        assert_eq!(must.exit_code(Level::Must), 1);
        assert_eq!(must.exit_code(Level::Should), 1);
        assert_eq!((must.failed_must, must.failed_should), (1, 0));
    }

    #[test]
    fn the_table_lists_every_scenario_with_its_level_and_reference_and_the_json_round_trips() {
        let report = Report::new(
            "http://x/orders".into(),
            vec![
                result("missing key", Level::Should, Verdict::Fail),
                result("race", Level::Must, Verdict::Pass),
            ],
        );
        let table = report.to_table();
        assert!(table.contains("FAIL    SHOULD  missing key"), "{table}");
        assert!(table.contains("pass    MUST    race"), "{table}");
        assert!(
            table.contains("1 of 2 scenarios as expected, 1 not (0 MUST, 1 SHOULD, 0 advice)"),
            "{table}"
        );
        assert!(
            table.contains("missing key (SHOULD): the reference of missing key"),
            "{table}"
        );
        let json = serde_json::to_string(&report).unwrap();
        assert!(json.contains(r#""verdict":"fail""#), "{json}");
        assert!(json.contains(r#""level":"should""#), "{json}");
        assert_eq!(serde_json::from_str::<Report>(&json).unwrap(), report);
    }
}
