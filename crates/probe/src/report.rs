//! The probe's findings: a table for people, JSON for programs.

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
}

impl Report {
    /// A report over `scenarios`, with the counts filled in.
    pub fn new(url: String, scenarios: Vec<ScenarioResult>) -> Self {
        let count = |verdict| scenarios.iter().filter(|s| s.verdict == verdict).count();
        Self {
            url,
            passed: count(Verdict::Pass),
            failed: count(Verdict::Fail),
            not_applicable: count(Verdict::NotApplicable),
            scenarios,
        }
    }

    /// 0 when nothing failed, 1 when a scenario failed.
    pub fn exit_code(&self) -> i32 {
        i32::from(self.failed > 0)
    }

    /// The findings as an aligned text table with a closing summary.
    pub fn to_table(&self) -> String {
        let headers = ["result", "scenario", "expected", "observed"];
        let rows: Vec<[&str; 4]> = self
            .scenarios
            .iter()
            .map(|s| {
                [
                    s.verdict.label(),
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
        let widths = [width(0), width(1), width(2)];
        let line = |cells: [&str; 4]| {
            format!(
                "{:<w0$}  {:<w1$}  {:<w2$}  {}",
                cells[0],
                cells[1],
                cells[2],
                cells[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            )
        };
        let mut table = format!("Probe of {}\n\n{}\n", self.url, line(headers));
        for row in rows {
            table.push_str(&line(row));
            table.push('\n');
        }
        table.push_str(&format!(
            "\nprobe summary: {} of {} scenarios as expected, {} not, {} not applicable\n",
            self.passed,
            self.scenarios.len(),
            self.failed,
            self.not_applicable
        ));
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(scenario: &str, verdict: Verdict) -> ScenarioResult {
        ScenarioResult {
            scenario: scenario.into(),
            expected: "e".into(),
            observed: "o".into(),
            verdict,
        }
    }

    #[test]
    fn a_failed_scenario_makes_the_exit_code_one() {
        let ok = Report::new(
            "u".into(),
            vec![
                result("a", Verdict::Pass),
                result("b", Verdict::NotApplicable),
            ],
        );
        assert_eq!((ok.passed, ok.not_applicable, ok.exit_code()), (1, 1, 0));
        let bad = Report::new(
            "u".into(),
            vec![result("a", Verdict::Pass), result("b", Verdict::Fail)],
        );
        assert_eq!(bad.exit_code(), 1);
    }

    #[test]
    fn the_table_lists_every_scenario_and_the_json_round_trips() {
        let report = Report::new(
            "http://x/orders".into(),
            vec![result("missing key", Verdict::Fail)],
        );
        let table = report.to_table();
        assert!(table.contains("FAIL    missing key"), "{table}");
        assert!(
            table.contains("0 of 1 scenarios as expected, 1 not"),
            "{table}"
        );
        let json = serde_json::to_string(&report).unwrap();
        assert!(json.contains(r#""verdict":"fail""#), "{json}");
        assert_eq!(serde_json::from_str::<Report>(&json).unwrap(), report);
    }
}
