//! Turning what happened in one run into a sentence a newcomer understands.

use crate::Outcome;

/// What one press of "Place order" did against one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// What each attempt got back, in the order they were sent.
    pub outcomes: Vec<Outcome>,
    /// How many orders the server now holds for this run's key.
    pub orders_for_key: usize,
    /// The price of one order, in cents.
    pub amount_cents: i64,
}

/// Cents as a decimal amount: `450` → `4.50`.
pub fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

fn copies(n: usize) -> String {
    match n {
        1 => "One request".to_owned(),
        n => format!("{n} copies of the request, all with the same key,"),
    }
}

/// One paragraph saying what the server did with the run and what it cost.
pub fn explain(run: &Run) -> String {
    let sent = run.outcomes.len();
    let count = |wanted: fn(&Outcome) -> bool| run.outcomes.iter().filter(|o| wanted(o)).count();
    let created = count(|o| matches!(o, Outcome::Created));
    let replayed = count(|o| matches!(o, Outcome::Replayed));
    let in_progress = count(|o| matches!(o, Outcome::InProgress));
    let lost = count(|o| matches!(o, Outcome::NoResponse(_)));
    let orders = run.orders_for_key;
    let price = money(run.amount_cents);

    if orders == 0 {
        return format!(
            "{} reached the server, but no order was stored: look at the responses for why.",
            copies(sent)
        );
    }
    if orders == 1 {
        let mut others = Vec::new();
        if replayed > 0 {
            others.push(format!("{replayed} got the stored answer replayed"));
        }
        if in_progress > 0 {
            let verb = if in_progress == 1 { "was" } else { "were" };
            others.push(format!(
                "{in_progress} {verb} told to wait (409) because the first was still running"
            ));
        }
        if lost > 0 {
            others.push(format!("{lost} got no response"));
        }
        let rest = if others.is_empty() {
            String::new()
        } else {
            format!(" The others: {}.", others.join(", "))
        };
        return format!(
            "{} reached the server and exactly one order was created.{rest} The customer pays {price} once.",
            copies(sent)
        );
    }
    format!(
        "{} reached the server together. {} of them looked for the key, found nothing yet, and each created its own order: \
         {orders} orders for one purchase. The customer is charged {orders} × {price} = {}.",
        copies(sent),
        created.max(orders),
        money(run.amount_cents * orders as i64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_always_has_two_decimals() {
        assert_eq!(money(450), "4.50");
        assert_eq!(money(5), "0.05");
        assert_eq!(money(10_000_000), "100000.00");
    }

    #[test]
    fn duplicates_are_explained_with_the_double_charge() {
        let run = Run {
            outcomes: vec![Outcome::Created, Outcome::Created, Outcome::Created],
            orders_for_key: 3,
            amount_cents: 450,
        };
        let text = explain(&run);
        assert!(text.contains("3 orders for one purchase"), "{text}");
        assert!(text.contains("3 × 4.50 = 13.50"), "{text}");
    }

    #[test]
    fn a_single_order_says_what_happened_to_the_other_copies() {
        let run = Run {
            outcomes: vec![Outcome::Created, Outcome::InProgress, Outcome::Replayed],
            orders_for_key: 1,
            amount_cents: 450,
        };
        let text = explain(&run);
        assert!(text.contains("exactly one order"), "{text}");
        assert!(text.contains("1 got the stored answer replayed"), "{text}");
        assert!(text.contains("1 was told to wait (409)"), "{text}");
        assert!(text.contains("pays 4.50 once"), "{text}");
    }

    #[test]
    fn a_run_that_stored_nothing_points_at_the_responses() {
        let run = Run {
            outcomes: vec![Outcome::Rejected {
                status: 422,
                title: "Invalid order".into(),
            }],
            orders_for_key: 0,
            amount_cents: 450,
        };
        assert!(explain(&run).contains("no order was stored"));
    }
}
