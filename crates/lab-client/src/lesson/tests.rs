//! The lesson's steps, links and comparisons, in both languages.

use super::*;

#[test]
fn the_lesson_follows_the_articles_questions_in_order() {
    let ids: Vec<&str> = steps().iter().map(|step| step.id).collect();
    assert_eq!(
        ids,
        [
            "post-is-not-put",
            "lost-answer",
            "client-key",
            "key-per-attempt",
            "race",
            "scheduler",
            "timeout",
            "get",
            "expiry",
            "beyond-payments",
        ]
    );
    assert_eq!(steps().len(), LESSON_STEPS);
}

#[test]
fn every_run_is_one_the_page_can_make_and_asks_about_one_of_its_panes() {
    let steps = steps();
    for step in &steps {
        let Some(run) = step.run() else {
            continue;
        };
        assert_eq!(run.policy.clone().clamped(), run.policy, "{}", step.id);
        assert!(run.asks_about < 2, "{}", step.id);
        assert_ne!(run.panes[0], run.panes[1], "{}", step.id);
    }
    let unrun: Vec<&str> = steps
        .iter()
        .filter(|s| s.run().is_none())
        .map(|s| s.id)
        .collect();
    assert_eq!(unrun, ["scheduler", "beyond-payments"]);
    assert!(
        matches!(steps[5].activity, Activity::Scheduler),
        "the scheduler right after the race"
    );
    assert!(matches!(
        steps[LESSON_STEPS - 1].activity,
        Activity::Closing
    ));
    // The first two steps have no key yet; the key arrives in the third.
    assert!(steps[0].run().unwrap().policy.no_key);
    assert!(steps[1].run().unwrap().policy.no_key);
    assert!(!steps[2].run().unwrap().policy.no_key);
    assert!(steps[7].run().unwrap().policy.read_only);
}

#[test]
fn every_step_reads_in_both_languages_and_names_its_server_in_the_question() {
    for locale in lab_i18n::LOCALES {
        for step in steps() {
            for text in [step.title, step.setup, step.takeaway] {
                assert!(!text(locale).trim().is_empty(), "{} {locale:?}", step.id);
            }
            if let Some(run) = step.run() {
                let server = run.asked_server().title(locale);
                assert!(run.question(locale).contains(&server), "{}", step.id);
            }
        }
    }
    let race = &steps()[4];
    assert_eq!(
        race.run().unwrap().question(Locale::en),
        "How many orders will Naive hold for this run?"
    );
}

#[test]
fn a_link_names_a_step_from_one_to_ten() {
    assert_eq!(step_from_link("1"), Some(0));
    assert_eq!(step_from_link(" 10 "), Some(9));
    for bad in ["0", "11", "-1", "two", ""] {
        assert_eq!(step_from_link(bad), None, "{bad}");
    }
}

#[test]
fn a_prediction_is_compared_with_the_orders_the_server_holds() {
    assert_eq!(Guess::of(0), Guess::NoOrder);
    assert_eq!(Guess::of(1), Guess::OneOrder);
    assert_eq!(Guess::of(4), Guess::MoreThanOne);
    assert_eq!(
        comparison(Guess::OneOrder, 3, Design::Naive, Locale::en),
        "You predicted exactly one order on Naive, but it holds 3."
    );
    assert_eq!(
        comparison(Guess::MoreThanOne, 3, Design::Naive, Locale::en),
        "You predicted more than one order on Naive, and it holds 3: right."
    );
    assert_eq!(
        comparison(Guess::OneOrder, 1, Design::Transactional, Locale::en),
        "You predicted exactly one order on Transactional, and it holds 1: right."
    );
    let zh = comparison(Guess::OneOrder, 3, Design::Naive, Locale::zh_CN);
    assert!(zh.contains("正好一笔订单") && zh.contains('3'), "{zh}");
}

#[test]
fn the_score_counts_only_steps_that_were_predicted_and_run() {
    let results = [
        Some((Guess::MoreThanOne, 5)),
        Some((Guess::OneOrder, 2)),
        None,
        Some((Guess::NoOrder, 0)),
    ];
    assert_eq!(score(&results), (2, 3));
    assert_eq!(
        score_text(&results, Locale::en),
        "You predicted 2 of 3 runs right."
    );
    assert_eq!(
        score_text(&results, Locale::zh_CN),
        "3 次预测中你猜对了 2 次。"
    );
    assert_eq!(
        score_text(&[None, None], Locale::en),
        "You made no prediction this time: go back to any step and try one."
    );
}
