//! One schedule, run to its end on a real server: a fresh lab and key,
//! the copies sent with the schedule's id, released in the order asked.

use lab_wire::{CopyState, Gate, ScheduleView, StepKind};
use tokio::task::JoinHandle;

use crate::error::ExploreError;
use crate::reduce::{Offered, pick};
use crate::report::{Answer, Choice, Crashes, Move, ScheduleRun, schedule_text};
use crate::steps::StepStream;
use crate::target::{ClosedIfAbandoned, Target};

/// The most releases one schedule may take: far more than any design's
/// statements, so only a server that never lets its copies end meets it.
const MOST_MOVES: usize = 200;

/// Waits until a request other than `known` stops at its first gate; returns its number.
async fn first_gate(stream: &mut StepStream, known: &[u64]) -> Result<u64, ExploreError> {
    let first = stream
        .until(0, |step| {
            !known.contains(&step.request) && matches!(step.kind, StepKind::AtGate { .. })
        })
        .await?;
    Ok(first.request)
}

/// What each copy's client got back, once every one has.
async fn answers(clients: Vec<JoinHandle<Answer>>) -> Result<Vec<Answer>, ExploreError> {
    let mut answers = Vec::with_capacity(clients.len());
    for client in clients {
        let answer = client
            .await
            .map_err(|error| ExploreError::Stream(format!("a copy's client failed: {error}")))?;
        answers.push(answer);
    }
    Ok(answers)
}

/// Where a run starts: the choices to make first, and (in a reduced
/// search) the moves asleep once they are made.
#[derive(Debug, Clone)]
pub(crate) struct Start {
    pub choices: Vec<Choice>,
    /// `None`: an unreduced search (every schedule).
    pub asleep: Option<Vec<Offered>>,
}

/// What a run found: its schedule (`None` when, in a reduced search, every
/// choice left was asleep: equivalent to a schedule run elsewhere), and
/// the branches a reduced search takes from it.
pub(crate) struct Ran {
    pub run: Option<ScheduleRun>,
    pub branches: Vec<Start>,
}

/// The gate copy `copy` waits at, if it waits at one.
fn gate_of(view: &ScheduleView, copy: u8) -> Option<Gate> {
    view.copies
        .iter()
        .find_map(|scheduled| match scheduled.state {
            CopyState::AtGate { next } if scheduled.copy == copy => Some(next),
            _ => None,
        })
}

/// Runs one schedule of `copies` copies on `target`: makes the choices
/// `choose` names, in order, then lets the copy that moved last go on
/// while it can, else the lowest copy that can move, until none can. With
/// `crash` other than never, each point also offers to crash any copy
/// waiting at a gate where `crash` allows it, once per schedule; the
/// crashed copy's client then retries with the same key, as a new copy.
/// Each run has a lab and a key of its own.
pub async fn run_schedule(
    target: &Target,
    copies: u8,
    choose: &[Choice],
    crash: Crashes,
) -> Result<ScheduleRun, ExploreError> {
    let start = Start {
        choices: choose.to_vec(),
        asleep: None,
    };
    let ran = run_from(target, copies, &start, crash).await?;
    Ok(ran.run.expect("an unreduced run always ends its schedule"))
}

/// [`run_schedule`] from `start`: in a reduced search, past its choices
/// each move is [`pick`]ed, and the run ends early once every choice left
/// is asleep.
pub(crate) async fn run_from(
    target: &Target,
    copies: u8,
    start: &Start,
    crash: Crashes,
) -> Result<Ran, ExploreError> {
    let choose = &start.choices[..];
    let mut asleep = start.asleep.clone();
    let mut branches = Vec::new();
    let secret = format!("explore-{}", uuid::Uuid::new_v4().simple());
    let key = uuid::Uuid::new_v4().to_string();
    let steps_url = format!("{}/steps?secret={secret}", target.root());
    let mut stream = StepStream::open(&target.client, &steps_url).await?;
    let id = target.open_schedule(&secret).await?;
    let mut open = ClosedIfAbandoned {
        target: Some(target.clone()),
        secret: secret.clone(),
        id: id.clone(),
    };

    // The copies arrive in turn, each stopping at its first gate.
    let mut requests: Vec<u64> = Vec::new();
    let mut clients = Vec::new();
    for copy in 1..=copies {
        clients.push(target.send_copy(&secret, &key, &id, copy));
        requests.push(first_gate(&mut stream, &requests).await?);
    }

    let mut view = target.view(&secret, &id).await?;
    let mut run = ScheduleRun {
        schedule: Vec::new(),
        moves: Vec::new(),
        enabled: Vec::new(),
        steps: Vec::new(),
        orders: Vec::new(),
        answers: Vec::new(),
    };
    let mut crashed = false;
    let mut cut_short = false;
    loop {
        let waiting: Vec<u8> = view
            .copies
            .iter()
            .filter(|copy| matches!(copy.state, CopyState::AtGate { .. }))
            .map(|copy| copy.copy)
            .collect();
        let mut enabled: Vec<Choice> = waiting.iter().map(|&copy| Choice::Release(copy)).collect();
        if !crashed {
            enabled.extend(view.copies.iter().filter_map(|copy| match copy.state {
                CopyState::AtGate { next } if crash.allowed_at(next) => {
                    Some(Choice::Crash(copy.copy))
                }
                _ => None,
            }));
        }
        let at = run.schedule.len();
        let not_enabled = |choice: Choice| ExploreError::NotEnabled {
            schedule: schedule_text(choose),
            copy: choice.copy(),
            at: at + 1,
        };
        if enabled.is_empty() {
            if let Some(&choice) = choose.get(at) {
                return Err(not_enabled(choice));
            }
            break;
        }
        if at >= MOST_MOVES {
            return Err(ExploreError::Stream(format!(
                "the copies were still waiting at gates after {MOST_MOVES} releases"
            )));
        }
        let last = run.schedule.last().map(|last| last.copy());
        let choice = match (choose.get(at), asleep.as_mut()) {
            (Some(&choice), _) if enabled.contains(&choice) => choice,
            (Some(&choice), _) => return Err(not_enabled(choice)),
            // Unasked, the copy that moved last moves on if it can (no
            // preemption), else the lowest that can: the search counts
            // preemptions from this default (see `search`).
            (None, None) => last
                .map(Choice::Release)
                .filter(|go_on| enabled.contains(go_on))
                .unwrap_or(enabled[0]),
            (None, Some(sleeping)) => {
                let offered: Vec<Offered> = enabled
                    .iter()
                    .map(|&one| {
                        let gate = gate_of(&view, one.copy()).expect("an enabled copy waits");
                        Offered::new(one, gate)
                    })
                    .collect();
                let Some(picked) = pick(&offered, sleeping, last) else {
                    cut_short = true;
                    break;
                };
                branches.extend(picked.branches.into_iter().map(|(choice, asleep)| Start {
                    choices: run.schedule.iter().copied().chain([choice]).collect(),
                    asleep: Some(asleep),
                }));
                *sleeping = picked.asleep;
                picked.chosen
            }
        };
        let gate = gate_of(&view, choice.copy()).expect("an enabled copy waits at a gate");
        view = target.make(&secret, &id, choice).await?;
        run.enabled.push(enabled);
        run.schedule.push(choice);
        run.moves.push(Move { choice, gate });
        if let Choice::Crash(_) = choice {
            // Its client saw the connection close: it retries with the
            // same key, and the retry is one more copy.
            crashed = true;
            let retry = u8::try_from(clients.len() + 1).expect("a few copies");
            clients.push(target.send_copy(&secret, &key, &id, retry));
            requests.push(first_gate(&mut stream, &requests).await?);
            view = target.view(&secret, &id).await?;
        }
    }

    if cut_short {
        // Equivalent to a schedule run elsewhere: let the copies run on
        // unscheduled, and clear the lab once they have answered.
        open.target = None;
        target.close(&secret, &id).await?;
        answers(clients).await?;
        target.forget_if_asked(&secret).await?;
        return Ok(Ran {
            run: None,
            branches,
        });
    }

    // No copy waits at a gate: each has ended, or waits for one that will
    // end (the database settles a deadlock by failing one side).
    run.answers = answers(clients).await?;
    for request in &requests {
        stream
            .until(0, |step| step.request == *request && step.kind.is_last())
            .await?;
    }
    run.steps = std::mem::take(&mut stream.seen);
    run.orders = target.orders_for(&secret, &key).await?;
    open.target = None;
    target.close(&secret, &id).await?;
    target.forget_if_asked(&secret).await?;
    Ok(Ran {
        run: Some(run),
        branches,
    })
}
