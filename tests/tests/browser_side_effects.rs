//! The scenarios beyond the database, in real headless Chromium: each
//! pane's verdict says how often the payment provider charged the card and
//! how many e-mails went out, counted from the steps its server reported.

use lab_e2e::browser::within_deadline;
use lab_e2e::learner::{Learner, open_lab};

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
        let (_, learner) = open_lab().await;

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
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_shorter_than_the_work_charges_twice_on_safe_until_fencing_refuses_the_late_write() {
    within_deadline(async {
        let (_, learner) = open_lab().await;

        learner.press_and_wait("Lock shorter than the work").await;

        assert_eq!(
            learner.orders_stored("Safe").await,
            2,
            "{}",
            learner.pane_text("Safe").await
        );
        assert_eq!(charges_and_emails(&learner, "Safe").await, (2, 2));
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
