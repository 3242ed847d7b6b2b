//! The race without a delay hook: rounds of copies whose last bytes are
//! released together, so that every copy's request is complete at the
//! server at the same moment and the copies meet in its store round trip.

use std::collections::BTreeSet;

use crate::client::{Answer, Client};
use crate::config::ProbeConfig;
use crate::report::{Level, ScenarioResult};

use super::grading::{cite, new_key, not_applicable, pass_if, result};

/// `config.rounds` rounds of `config.copies` copies, each round a new key:
/// any round that kept more than one resource is a broken promise.
pub async fn copies_released_together(client: &Client, config: &ProbeConfig) -> ScenarioResult {
    let name = format!(
        "{} copies released together, {} rounds",
        config.copies, config.rounds
    );
    const EXPECTED: &str = "one resource per round, without any delay hook";
    let level = (Level::Must, cite::ROUNDS);
    if config.rounds == 0 {
        let why = "give --rounds N to try the race without a delay hook".to_owned();
        return not_applicable(name, level, EXPECTED, &why);
    }
    let mut raced = 0;
    let mut most = 0;
    for _ in 0..config.rounds {
        let key = new_key();
        let answers = match client
            .post_all_at_once(&key, &config.body, config.copies)
            .await
        {
            Ok(answers) => answers,
            Err(why) => return not_applicable(name, level, EXPECTED, &why),
        };
        let resources: BTreeSet<&str> = answers.iter().filter_map(Answer::resource).collect();
        most = most.max(resources.len());
        if resources.len() > 1 {
            raced += 1;
        }
    }
    let rounds = config.rounds;
    let observed = if raced == 0 {
        format!(
            "no round of {rounds} kept more than one resource (no proof: the race may need more)"
        )
    } else {
        format!(
            "{raced} of {rounds} rounds kept more than one resource (at most {most}): a check-then-insert race"
        )
    };
    result(name, level, EXPECTED, observed, pass_if(raced == 0))
}
