//! The page in Chinese and in English, in real headless Chromium: every
//! scenario read in Chinese with no English left over, a language switch
//! that keeps the lab, a choice that survives a reload, a link's `?lang=`
//! that wins, and a browser that prefers Chinese getting Chinese.
//!
//! Buttons and panes are found by their language-neutral ids here.

use fantoccini::Locator;
use lab_e2e::browser::{eventually, ui_dir, within_deadline};
use lab_e2e::catalogue::{english_only_words, words};
use lab_e2e::learner::open_lab;
use lab_e2e::{Backend, Learner, spawn_lab};

fn has_chinese(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// The text of every element `css` selects.
async fn texts_of(learner: &Learner, css: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for element in learner.browser.find_all(Locator::Css(css)).await.unwrap() {
        texts.push(element.text().await.unwrap());
    }
    texts
}

/// The button's text, once the page shows `expected` on it.
async fn wait_for_button_text(learner: &Learner, id: &str, expected: &str) {
    let shown = eventually(async || {
        // Its words whether or not it is shown now ("Place order" sits in
        // the folded "Set up your own experiment").
        let text = learner.by_id(id).await.prop("textContent").await.ok()??;
        (text == expected).then_some(text)
    })
    .await;
    assert_eq!(shown.as_deref(), Some(expected), "#{id}");
}

/// Chooses 中文 with the language switch (found by its label, as a learner
/// finds it) and waits until the page reads in Chinese.
async fn choose_chinese(learner: &Learner) {
    let (language, _) = learner.control("Language · 语言").await;
    language
        .select_by_value("zh-CN")
        .await
        .expect("choose 中文");
    wait_for_button_text(learner, "place-order", "下单").await;
}

async fn page_language(learner: &Learner) -> String {
    learner
        .browser
        .execute("return document.documentElement.lang;", vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chinese_every_scenario_reads_in_chinese_and_no_english_word_is_left() {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
        let learner = Learner::open(&format!("{base}/?lang=zh-CN")).await;
        let english = english_only_words();
        assert_eq!(page_language(&learner).await, "zh-CN");

        let mut scenarios = Vec::new();
        for button in learner
            .browser
            .find_all(Locator::Css("#presets button.preset"))
            .await
            .unwrap()
        {
            scenarios.push(
                button
                    .attr("id")
                    .await
                    .unwrap()
                    .expect("a scenario has an id"),
            );
        }
        assert_eq!(scenarios.len(), 11, "{scenarios:?}");

        for scenario in &scenarios {
            let button = learner.by_id(scenario).await;
            let name = button.text().await.unwrap();
            assert!(
                has_chinese(&name),
                "{scenario} is named in Chinese: {name:?}"
            );
            learner.click_and_wait(button, scenario).await;

            let explanation = learner.by_css(".explanation").await.text().await.unwrap();
            assert!(has_chinese(&explanation), "{scenario}: {explanation}");
            let verdicts = texts_of(&learner, ".verdict").await;
            assert_eq!(verdicts.len(), 2, "{scenario}");
            for verdict in &verdicts {
                assert!(has_chinese(verdict), "{scenario}: the verdict {verdict:?}");
            }
            assert_eq!(
                learner
                    .by_id("place-order")
                    .await
                    .prop("textContent")
                    .await
                    .unwrap()
                    .as_deref(),
                Some("下单")
            );

            // The lab's id and link are names, not words.
            let url = learner.current_url().await;
            let lab = texts_of(&learner, "footer code").await.concat();
            assert!(lab.starts_with("lab-"), "the footer names the lab: {lab:?}");
            let page = learner
                .page_text()
                .await
                .replace(&url, " ")
                .replace(&lab, " ");
            let left: Vec<String> = words(&page)
                .into_iter()
                .filter(|word| english.contains(word))
                .collect();
            assert!(
                left.is_empty(),
                "{scenario}: English words {left:?} on the Chinese page:\n{page}"
            );
        }

        // The receiving side's scenarios, and what its panes say after each.
        for id in ["webhook-twice", "webhook-answer-lost", "webhook-at-once"] {
            let button = learner.by_id(&format!("receiving-{id}")).await;
            assert!(has_chinese(&button.text().await.unwrap()), "{id}");
            button.click().await.unwrap();
            let status = learner.by_id("receiving-status").await;
            lab_e2e::learner::until_the_status_says(&status, &["done"], id).await;
            let receiving = learner.by_id("receiving").await.text().await.unwrap();
            let left: Vec<String> = words(&receiving)
                .into_iter()
                .filter(|word| english.contains(word))
                .collect();
            assert!(
                left.is_empty(),
                "{id}: English words {left:?} on the Chinese page:\n{receiving}"
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switching_language_keeps_the_lab_and_its_orders_and_the_choice_survives_a_reload() {
    within_deadline(async {
        let (_, learner) = open_lab().await;
        learner.press_and_wait("Place order").await;
        let lab_url = learner.current_url().await;
        assert_eq!(learner.orders_stored_in("pane-2").await, 1);
        let english_verdict = learner.by_css(".verdict").await.text().await.unwrap();

        choose_chinese(&learner).await;
        assert_eq!(
            learner.current_url().await,
            lab_url,
            "the same lab, no reload"
        );
        assert_eq!(learner.orders_stored_in("pane-2").await, 1);
        let chinese_verdict = learner.by_css(".verdict").await.text().await.unwrap();
        assert!(
            has_chinese(&chinese_verdict),
            "the last run's verdict is said again: {chinese_verdict}"
        );
        assert_ne!(chinese_verdict, english_verdict);

        learner.reload().await;
        wait_for_button_text(&learner, "place-order", "下单").await;
        assert_eq!(page_language(&learner).await, "zh-CN");
        assert_eq!(
            learner.orders_stored_in("pane-2").await,
            1,
            "a reload keeps the lab"
        );

        // A link that names the language wins over the remembered choice…
        let (page, lab_secret) = lab_url.split_once('#').expect("the lab is in the fragment");
        let join = if page.contains('?') { '&' } else { '?' };
        learner
            .go_to(&format!("{page}{join}lang=en#{lab_secret}"))
            .await;
        wait_for_button_text(&learner, "place-order", "Place order").await;
        // …and a switch after it is what a reload keeps.
        choose_chinese(&learner).await;
        assert!(
            learner.current_url().await.contains("lang=zh-CN"),
            "{}",
            learner.current_url().await
        );
        learner.reload().await;
        wait_for_button_text(&learner, "place-order", "下单").await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_prefers_chinese_opens_the_page_in_chinese() {
    within_deadline(async {
        let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
        let learner = Learner::open_preferring(&base, "zh-CN,zh").await;
        wait_for_button_text(&learner, "place-order", "下单").await;
        assert_eq!(
            learner.by_id("pane-1").await.text().await.unwrap(),
            "朴素版"
        );
        learner
            .click_and_wait(learner.by_id("preset-concurrent-sends").await, "并发发送")
            .await;
        assert!(
            learner.orders_stored_in("pane-1").await > 1,
            "Naive duplicated, in Chinese too"
        );
        assert_eq!(learner.orders_stored_in("pane-2").await, 1);
    })
    .await;
}
