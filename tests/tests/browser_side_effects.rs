//! The scenarios beyond the database, in real headless Chromium: each
//! pane's verdict says how often the payment provider charged the card and
//! how many e-mails went out, counted from the steps its server reported,
//! and the provider's and the mail sink's own counts say the same.

use lab_e2e::browser::within_deadline;
use lab_e2e::learner::{Learner, open_lab};
use lab_wire::headers::LAB_SECRET;
use lab_wire::outside::SideEffects;

/// What the provider and the mail sink recorded for the learner's lab
/// (its secret is in the page's link), per design, once no outbox waits:
/// the outbox drains in the background, where no step is reported, so the
/// event waited for is its count, `emails_waiting`, reaching 0.
async fn recorded(base: &str, learner: &Learner, design: &str) -> (usize, usize) {
    let url = learner.current_url().await;
    let secret = url
        .split("secret=")
        .nth(1)
        .and_then(|rest| rest.split('&').next())
        .expect("the page's link holds its lab's secret");
    for _ in 0..100 {
        let all: Vec<SideEffects> = reqwest::Client::new()
            .get(format!("{base}/api/side-effects"))
            .header(LAB_SECRET, secret)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let effects = all.into_iter().find(|e| e.server == design).unwrap();
        if effects.emails_waiting == 0 {
            return (effects.charges as usize, effects.emails as usize);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{design}'s outbox kept e-mails waiting");
}

/// The charges and e-mails a pane's verdict reports: "charged the card N
/// time(s) … M confirmation e-mail(s)".
async fn charges_and_emails(learner: &Learner, pane: &str) -> (usize, usize) {
    let text = learner.pane_text(pane).await;
    let number_before = |marker: &str| -> usize {
        let at = text
            .find(marker)
            .unwrap_or_else(|| panic!("{pane} says {marker:?}:\n{text}"));
        let digits: String = text[..at]
            .chars()
            .rev()
            .skip_while(|c| c.is_whitespace())
            .take_while(char::is_ascii_digit)
            .collect();
        digits.chars().rev().collect::<String>().parse().unwrap()
    };
    (
        number_before("time(s)"),
        number_before("confirmation e-mail(s)"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn charging_inside_a_transaction_charges_again_and_atomic_phases_charge_once() {
    within_deadline(async {
        let (base, learner) = open_lab().await;

        learner.press_and_wait("Charge inside a transaction").await;

        for pane in ["Transactional", "Atomic phases"] {
            assert_eq!(
                learner.orders_stored(pane).await,
                1,
                "{pane}:\n{}",
                learner.pane_text(pane).await
            );
        }
        let (charges, emails) = charges_and_emails(&learner, "Transactional").await;
        assert!(
            charges >= 2 && emails >= 2,
            "the rolled-back attempt's charge and e-mail stayed: {charges}, {emails}"
        );
        assert_eq!(
            charges_and_emails(&learner, "Atomic phases").await,
            (1, 1),
            "{}",
            learner.pane_text("Atomic phases").await
        );
        assert!(
            learner
                .pane_text("Atomic phases")
                .await
                .contains("4.50 in all"),
            "one charge of the order's price"
        );
        for pane in ["Transactional", "Atomic phases"] {
            let design = if pane == "Transactional" {
                "transactional"
            } else {
                "phased"
            };
            assert_eq!(
                charges_and_emails(&learner, pane).await,
                recorded(&base, &learner, design).await,
                "{pane}: the page's numbers are the provider's and the mail sink's"
            );
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_shorter_than_the_work_charges_twice_on_safe_until_fencing_refuses_the_late_write() {
    within_deadline(async {
        let (base, learner) = open_lab().await;

        learner.press_and_wait("Lock shorter than the work").await;

        assert_eq!(
            learner.orders_stored("Safe").await,
            2,
            "{}",
            learner.pane_text("Safe").await
        );
        assert_eq!(charges_and_emails(&learner, "Safe").await, (2, 2));
        assert_eq!(recorded(&base, &learner, "safe").await, (2, 2));
        assert_eq!(learner.orders_stored("Transactional").await, 1);
        assert_eq!(charges_and_emails(&learner, "Transactional").await.0, 1);

        learner.press_and_wait("Reset").await;
        learner.tick("Fencing on the safe server").await;
        learner.press_and_wait("Place order").await;

        assert_eq!(
            learner.orders_stored("Safe").await,
            1,
            "{}",
            learner.pane_text("Safe").await
        );
        assert_eq!(charges_and_emails(&learner, "Safe").await, (1, 1));
    })
    .await;
}
