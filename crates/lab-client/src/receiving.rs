//! The receiving side on the page: the payment provider's webhook,
//! delivered at least once to two of the shop's receivers, and what each
//! run comes to, in plain words (both languages).

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;
use lab_wire::webhook::{
    AttemptOutcome, DeliveryAttempt, DeliveryPlan, ReceiverDesign, WebhookEvent,
};

use crate::display::Text;

/// A scenario of the receiving side: one click runs its plan on both panes.
#[derive(Debug, Clone, Copy)]
pub struct ReceivingScenario {
    /// A name that stays the same in every language (`webhook-twice`).
    pub id: &'static str,
    /// Its button.
    pub name: Text,
    /// What to notice, shown after it runs.
    pub explanation: Text,
    /// How the provider delivers.
    pub plan: DeliveryPlan,
}

/// The receiving side's scenarios, in the order they are offered.
pub const RECEIVING_SCENARIOS: [ReceivingScenario; 3] = [
    ReceivingScenario {
        id: "webhook-twice",
        name: |l| td_string!(l, receiving.twice_name).into(),
        explanation: |l| td_string!(l, receiving.twice_explanation).into(),
        plan: DeliveryPlan::Twice,
    },
    ReceivingScenario {
        id: "webhook-answer-lost",
        name: |l| td_string!(l, receiving.lost_name).into(),
        explanation: |l| td_string!(l, receiving.lost_explanation).into(),
        plan: DeliveryPlan::AnswerLost,
    },
    ReceivingScenario {
        id: "webhook-at-once",
        name: |l| td_string!(l, receiving.at_once_name).into(),
        explanation: |l| td_string!(l, receiving.at_once_explanation).into(),
        plan: DeliveryPlan::AtOnce,
    },
];

/// A receiver's name on the page: "Naive receiver".
pub fn receiver_title(receiver: ReceiverDesign, locale: Locale) -> String {
    match receiver {
        ReceiverDesign::Naive => td_string!(locale, receiving.naive),
        ReceiverDesign::Inbox => td_string!(locale, receiving.inbox),
    }
    .into()
}

/// What a receiver does, in a few words.
pub fn receiver_about(receiver: ReceiverDesign, locale: Locale) -> String {
    match receiver {
        ReceiverDesign::Naive => td_string!(locale, receiving.naive_about),
        ReceiverDesign::Inbox => td_string!(locale, receiving.inbox_about),
    }
    .into()
}

/// The run's verdict: `shipments` parcels for `orders` paid orders.
pub fn verdict(shipments: u64, orders: u64, locale: Locale) -> String {
    if shipments == 0 {
        td_string!(locale, receiving.verdict_none).into()
    } else if shipments <= orders {
        td_string!(locale, receiving.verdict_once).into()
    } else {
        td_string!(
            locale,
            receiving.verdict_more,
            shipments = shipments,
            orders = orders
        )
    }
}

/// One attempt in words: which event, which delivery, and what came of it.
pub fn attempt_line(attempt: &DeliveryAttempt, events: &[WebhookEvent], locale: Locale) -> String {
    let event = events
        .iter()
        .position(|event| event.id == attempt.event)
        .map_or(0, |at| at + 1);
    let (delivery, number) = (attempt.delivery, attempt.attempt);
    match &attempt.outcome {
        AttemptOutcome::NoAnswer { .. } => td_string!(
            locale,
            receiving.attempt_lost,
            event = event,
            delivery = delivery,
            attempt = number
        ),
        AttemptOutcome::Answered {
            status,
            receipt: Some(receipt),
        } if receipt.shipped => td_string!(
            locale,
            receiving.attempt_shipped,
            event = event,
            delivery = delivery,
            attempt = number,
            status = *status
        ),
        AttemptOutcome::Answered {
            status,
            receipt: Some(_),
        } => td_string!(
            locale,
            receiving.attempt_duplicate,
            event = event,
            delivery = delivery,
            attempt = number,
            status = *status
        ),
        AttemptOutcome::Answered { status, .. } => td_string!(
            locale,
            receiving.attempt_refused,
            event = event,
            delivery = delivery,
            attempt = number,
            status = *status
        ),
    }
}

#[cfg(test)]
mod tests {
    use lab_wire::webhook::{ChargeSucceeded, Receipt};

    use super::*;

    fn event(id: &str) -> WebhookEvent {
        WebhookEvent {
            id: id.into(),
            kind: "charge.succeeded".into(),
            created_at: lab_wire::Timestamp::parse("2026-12-08T10:00:00Z").unwrap(),
            data: ChargeSucceeded {
                charge: "ch_1".into(),
                order: "ord_1".into(),
                amount_cents: 1200,
            },
        }
    }

    fn attempt(event: &str, outcome: AttemptOutcome) -> DeliveryAttempt {
        DeliveryAttempt {
            event: event.into(),
            delivery: 1,
            attempt: 2,
            sent_at_us: 0,
            ended_at_us: 0,
            outcome,
        }
    }

    fn answered(status: u16, shipped: Option<bool>) -> AttemptOutcome {
        AttemptOutcome::Answered {
            status,
            receipt: shipped.map(|shipped| Receipt {
                event: "evt_b".into(),
                shipped,
            }),
        }
    }

    #[test]
    fn the_verdict_says_whether_the_customer_got_one_parcel_per_order_in_both_languages() {
        assert!(verdict(2, 1, Locale::en).contains("2 parcels for 1 paid order"));
        assert!(verdict(1, 1, Locale::en).starts_with("One parcel per paid order"));
        assert!(verdict(0, 1, Locale::en).starts_with("Nothing shipped"));
        assert!(verdict(3, 2, Locale::zh_CN).contains('3'));
        assert_ne!(verdict(1, 1, Locale::zh_CN), verdict(1, 1, Locale::en));
    }

    #[test]
    fn each_attempt_says_which_event_and_what_came_of_it() {
        let events = [event("evt_a"), event("evt_b")];
        let line = |outcome| attempt_line(&attempt("evt_b", outcome), &events, Locale::en);
        assert_eq!(
            line(answered(200, Some(true))),
            "Event 2, delivery 1, attempt 2: answered 200, shipped."
        );
        assert!(line(answered(200, Some(false))).contains("already processed"));
        assert!(line(answered(401, None)).contains("refused (401)"));
        let lost = line(AttemptOutcome::NoAnswer {
            reason: "closed".into(),
        });
        assert!(lost.contains("no answer"), "{lost}");
        let chinese = attempt_line(
            &attempt("evt_a", answered(200, Some(true))),
            &events,
            Locale::zh_CN,
        );
        assert!(
            chinese.contains("200") && chinese.contains('1'),
            "{chinese}"
        );
    }

    #[test]
    fn every_scenario_has_its_own_plan_and_words() {
        let plans: Vec<_> = RECEIVING_SCENARIOS.iter().map(|s| s.plan).collect();
        assert_eq!(
            plans,
            [
                DeliveryPlan::Twice,
                DeliveryPlan::AnswerLost,
                DeliveryPlan::AtOnce
            ]
        );
        for scenario in RECEIVING_SCENARIOS {
            for locale in [Locale::en, Locale::zh_CN] {
                assert!(!(scenario.name)(locale).is_empty());
                assert!(!(scenario.explanation)(locale).is_empty());
            }
        }
    }
}
