//! The report as JUnit XML, for a CI job: one test case per check, named
//! by its level and scenario. A check that failed at the `--fail-on` level
//! or above is a failure carrying what was expected and what happened; one
//! below it passes with that said in its output; one that could not be
//! tried is skipped with the reason.

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use crate::report::{Level, Report, Verdict};

impl Report {
    /// The report as a JUnit XML document, failing the checks at
    /// `fail_on` or above (advice never fails).
    pub fn to_junit(&self, fail_on: Level) -> String {
        let mut suite = TestSuite::new("idempotency probe");
        for check in &self.scenarios {
            let said = format!(
                "expected: {}\nobserved: {}\nreference: {}",
                check.expected, check.observed, check.reference
            );
            let fails_the_run = check.level >= fail_on && check.level > Level::Advice;
            let mut case = match check.verdict {
                Verdict::Fail if fails_the_run => {
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    status
                        .set_message(format!("{}: {}", check.level.label(), check.observed))
                        .set_type(check.level.label())
                        .set_description(said);
                    TestCase::new(name_of(check.level, &check.scenario), status)
                }
                Verdict::Fail => {
                    let mut case = TestCase::new(
                        name_of(check.level, &check.scenario),
                        TestCaseStatus::success(),
                    );
                    case.set_system_out(format!(
                        "not as expected, below the --fail-on level:\n{said}"
                    ));
                    case
                }
                Verdict::Pass => {
                    let mut case = TestCase::new(
                        name_of(check.level, &check.scenario),
                        TestCaseStatus::success(),
                    );
                    case.set_system_out(said);
                    case
                }
                Verdict::NotApplicable => {
                    let mut status = TestCaseStatus::skipped();
                    status.set_message(check.observed.clone());
                    TestCase::new(name_of(check.level, &check.scenario), status)
                }
            };
            case.set_classname(self.url.clone());
            suite.add_test_case(case);
        }
        let mut report = quick_junit::Report::new("idempotency-lab probe");
        report.add_test_suite(suite);
        report
            .to_string()
            .expect("a report of plain strings always serialises")
    }
}

/// A test case's name: `[MUST] 8 concurrent copies`.
fn name_of(level: Level, scenario: &str) -> String {
    format!("[{}] {scenario}", level.label())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ScenarioResult;

    fn check(scenario: &str, level: Level, verdict: Verdict) -> ScenarioResult {
        ScenarioResult {
            scenario: scenario.into(),
            level,
            reference: "ref".into(),
            expected: "one <resource>".into(),
            observed: "two & more".into(),
            verdict,
        }
    }

    #[test]
    fn failures_at_the_fail_on_level_are_junit_failures_and_the_rest_pass_or_skip() {
        let report = Report::new(
            "http://x/orders".into(),
            vec![
                check("race", Level::Must, Verdict::Fail),
                check("reuse", Level::Should, Verdict::Fail),
                check("long key", Level::Advice, Verdict::Fail),
                check("dropped", Level::Must, Verdict::NotApplicable),
            ],
        );
        let xml = report.to_junit(Level::Must);
        assert!(xml.contains(r#"tests="4""#), "{xml}");
        assert!(xml.contains(r#"failures="1""#), "{xml}");
        assert!(
            xml.contains(r#"disabled="1""#) && xml.contains("<skipped"),
            "{xml}"
        );
        assert!(xml.contains("[MUST] race"), "{xml}");
        assert!(xml.contains("two &amp; more"), "escaped: {xml}");
        let strict = report.to_junit(Level::Should);
        assert!(strict.contains(r#"failures="2""#), "{strict}");
    }
}
