//! The teacher's view of the room as markup: one table row per active lab
//! (its id, when it was last active, its runs and duplicates, where it is
//! in the lesson, its predictions, the scheduler's challenges it met) with links to its latest run, plain and
//! for the projector. Set as inner HTML, like the lesson card; every text
//! is escaped.

use std::fmt::Write;

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::workshop::{Challenge, LabActivity};

use crate::display::{clock_time, escape};

/// The table, or a sentence saying no lab is active yet.
pub fn room_table(labs: &[LabActivity], locale: Locale) -> String {
    if labs.is_empty() {
        return format!(
            "<p class=\"hint\">{}</p>",
            escape(td_string!(locale, teacher.none))
        );
    }
    let heading = |text: &str| format!("<th scope=\"col\">{}</th>", escape(text));
    let mut html = format!(
        "<table class=\"room\" id=\"room\"><caption class=\"visually-hidden\">{}</caption><thead><tr>{}{}{}{}{}{}{}{}</tr></thead><tbody>",
        escape(td_string!(locale, teacher.title)),
        heading(td_string!(locale, teacher.lab)),
        heading(td_string!(locale, teacher.last_activity)),
        heading(td_string!(locale, teacher.runs)),
        heading(td_string!(locale, teacher.duplicates)),
        heading(td_string!(locale, teacher.step)),
        heading(td_string!(locale, teacher.predictions)),
        heading(td_string!(locale, teacher.challenges)),
        heading(td_string!(locale, teacher.latest)),
    );
    for lab in labs {
        let step = match (lab.lesson_step, lab.furthest_step) {
            (Some(step), Some(furthest)) if furthest > step => {
                td_string!(locale, teacher.step_value, step = step, furthest = furthest)
            }
            (Some(step), _) => step.to_string(),
            (None, _) => "—".to_owned(),
        };
        let predictions = if lab.predictions_made == 0 {
            "—".to_owned()
        } else {
            td_string!(
                locale,
                teacher.predictions_value,
                right = lab.predictions_right,
                made = lab.predictions_made
            )
        };
        let challenges = if lab.challenges.is_empty() {
            "—".to_owned()
        } else {
            td_string!(
                locale,
                teacher.challenges_value,
                met = lab.challenges.len(),
                total = Challenge::ALL.len()
            )
        };
        let met: Vec<&str> = lab.challenges.iter().map(|c| c.name()).collect();
        let latest = lab.latest_run.as_deref().map_or_else(
            || "—".to_owned(),
            |run| {
                let run = escape(run);
                format!(
                    "<a href=\"/runs/{run}\">{}</a> · <a href=\"/runs/{run}?projector\" class=\"projector-link\">{}</a>",
                    escape(td_string!(locale, teacher.open)),
                    escape(td_string!(locale, teacher.project)),
                )
            },
        );
        let _ = write!(
            html,
            "<tr data-lab=\"{id}\"><th scope=\"row\"><code>{id}</code></th><td>{at}</td><td>{runs}</td><td data-duplicates=\"{dup}\">{dup}</td><td class=\"step\">{step}</td><td>{predictions}</td><td class=\"challenges\" data-challenges=\"{met}\">{challenges}</td><td>{latest}</td></tr>",
            id = escape(&lab.lab),
            at = escape(&clock_time(lab.last_activity.micros())),
            runs = lab.runs,
            dup = lab.runs_with_duplicates,
            step = escape(&step),
            predictions = escape(&predictions),
            met = met.join(" "),
            challenges = escape(&challenges),
        );
    }
    html.push_str("</tbody></table>");
    html
}

#[cfg(test)]
mod tests {
    use lab_wire::Timestamp;

    use super::*;

    fn lab(id: &str, latest: Option<&str>) -> LabActivity {
        LabActivity {
            lab: id.into(),
            last_activity: Timestamp::from_micros(1_796_205_845_678_901),
            runs: 4,
            runs_with_duplicates: 2,
            lesson_step: Some(3),
            furthest_step: Some(6),
            predictions_right: 2,
            predictions_made: 5,
            latest_run: latest.map(str::to_owned),
            challenges: vec![Challenge::NaiveKeepsTwo],
        }
    }

    #[test]
    fn each_lab_is_a_row_with_its_step_runs_predictions_and_latest_run() {
        let html = room_table(
            &[lab("lab-1", Some("run-abc")), lab("lab-<2>", None)],
            Locale::en,
        );
        assert!(html.contains(r#"<tr data-lab="lab-1">"#), "{html}");
        assert!(
            html.contains("<td>10:04:05.678 UTC</td><td>4</td>"),
            "{html}"
        );
        assert!(
            html.contains(r#"<td class="step">3 (furthest 6)</td><td>2 of 5 right</td>"#),
            "{html}"
        );
        assert!(
            html.contains(
                r#"<a href="/runs/run-abc?projector" class="projector-link">Projector</a>"#
            ),
            "{html}"
        );
        assert!(
            html.contains(
                r#"<td class="challenges" data-challenges="naive-keeps-two">1 of 3</td>"#
            ),
            "{html}"
        );
        assert!(html.contains("lab-&lt;2&gt;"), "ids are escaped: {html}");
        let zh = room_table(&[lab("lab-1", None)], Locale::zh_CN);
        assert!(zh.contains("5 次中猜对 2 次"), "{zh}");
    }

    #[test]
    fn an_empty_room_says_so() {
        assert!(room_table(&[], Locale::en).contains("No lab"));
    }
}
