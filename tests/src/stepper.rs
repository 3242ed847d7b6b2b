//! Stepping copies of one order through a schedule, one statement at a
//! time, the way a learner playing the scheduler (or the explorer) does:
//! open a schedule, send copies with `Lab-Schedule`, release one copy's
//! gate and wait, on the step stream, for that copy's next gate or its end.

use lab_wire::headers::{LAB_SCHEDULE, LAB_SECRET};
use lab_wire::{Gate, ScheduleView, Step, StepKind};
use tokio::task::JoinHandle;

use crate::client::{Attempt, COFFEE, TestServer, send};
use crate::steps::StepStream;

/// One schedule of one lab on one server, its copies and every step they took.
pub struct Stepper {
    server: TestServer,
    schedule_url: String,
    key: String,
    stream: StepStream,
    /// Each copy's request number on the step stream, in order of arrival.
    requests: Vec<u64>,
    /// Every step read from the stream so far, in order.
    seen: Vec<Step>,
    /// For each copy, how many of `seen` it has been waited past.
    read_up_to: Vec<usize>,
    copies: Vec<JoinHandle<Attempt>>,
}

impl Stepper {
    /// Opens a schedule in `server`'s lab, for copies of one order with `key`.
    pub async fn open(server: &TestServer, key: &str) -> Self {
        let stream = server.steps().await;
        let root = server.orders_url.trim_end_matches("/orders");
        let response = reqwest::Client::new()
            .post(format!("{root}/schedules"))
            .header(LAB_SECRET, &server.secret)
            .send()
            .await
            .expect("POST /schedules answers");
        assert_eq!(response.status(), 201, "POST /schedules");
        let view: ScheduleView = response.json().await.expect("a schedule");
        assert!(view.copies.is_empty());
        Self {
            server: server.clone(),
            schedule_url: format!("{root}/schedules/{}", view.id),
            key: key.to_owned(),
            stream,
            requests: Vec::new(),
            seen: Vec::new(),
            read_up_to: Vec::new(),
            copies: Vec::new(),
        }
    }

    /// The schedule's id, for `Lab-Schedule`.
    pub fn id(&self) -> &str {
        self.schedule_url.rsplit('/').next().expect("an id")
    }

    /// Sends the next copy, with `extra` headers, and waits until it stops at its first gate.
    pub async fn add_copy_with(&mut self, extra: &[(&str, &str)]) -> Gate {
        let mut request = self
            .server
            .order_request(Some(&self.key), COFFEE)
            .header(LAB_SCHEDULE, self.id());
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        self.copies.push(tokio::spawn(send(request)));
        let known = self.requests.clone();
        let step = self
            .next_matching(0, |step| {
                !known.contains(&step.request) && matches!(step.kind, StepKind::AtGate { .. })
            })
            .await;
        let view = self.view().await;
        let joined = view.copies.last().expect("the copy joined");
        assert_eq!(joined.request, step.request, "{view:?}");
        self.requests.push(step.request);
        self.read_up_to.push(self.seen.len());
        gate_of(&step)
    }

    /// Sends the next copy and waits until it stops at its first gate.
    pub async fn add_copy(&mut self) -> Gate {
        self.add_copy_with(&[]).await
    }

    /// Releases copy `copy` (1, 2, …) and waits until it stops at its next
    /// gate (returned) or ends (`None`).
    pub async fn step(&mut self, copy: u8) -> Option<Gate> {
        self.release(copy).await;
        self.wait_for(copy).await
    }

    /// Releases copy `copy`; the server answers once it has settled (at
    /// its next gate, finished or blocked), with the schedule as it then
    /// stands. The copy's steps are read from the stream by [`Self::wait_for`].
    pub async fn release(&mut self, copy: u8) -> ScheduleView {
        self.act_on(copy, "release").await
    }

    /// Crashes copy `copy` at the gate it waits at; answers, like a
    /// release, once every copy has settled.
    pub async fn crash(&mut self, copy: u8) -> ScheduleView {
        self.act_on(copy, "crash").await
    }

    /// `POST …/copies/{copy}/{action}`: the schedule once every copy has settled.
    async fn act_on(&self, copy: u8, action: &str) -> ScheduleView {
        let response = reqwest::Client::new()
            .post(format!("{}/copies/{copy}/{action}", self.schedule_url))
            .header(LAB_SECRET, &self.server.secret)
            .send()
            .await
            .expect("the schedule answers");
        assert_eq!(response.status(), 200, "{action} of copy {copy}");
        response.json().await.expect("a schedule")
    }

    /// Waits until copy `copy` reports a step that `wanted` accepts (after
    /// the last one waited for), and returns it.
    pub async fn wait_for_step(
        &mut self,
        copy: u8,
        wanted: impl Fn(&StepKind) -> bool,
    ) -> StepKind {
        let request = self.request_of(copy);
        let from = self.read_up_to[usize::from(copy) - 1];
        let step = self
            .next_matching(from, |step| step.request == request && wanted(&step.kind))
            .await;
        step.kind
    }

    /// Waits until copy `copy` stops at its next gate (returned) or ends (`None`).
    pub async fn wait_for(&mut self, copy: u8) -> Option<Gate> {
        let index = usize::from(copy) - 1;
        let request = self.requests[index];
        let from = self.read_up_to[index];
        let step = self
            .next_matching(from, |step| {
                step.request == request
                    && (matches!(step.kind, StepKind::AtGate { .. }) || step.kind.is_last())
            })
            .await;
        let at = self
            .seen
            .iter()
            .rposition(|seen| seen == &step)
            .expect("seen");
        self.read_up_to[index] = at + 1;
        match step.kind {
            StepKind::AtGate { next } => Some(next),
            _ => None,
        }
    }

    /// Runs copy `copy` gate after gate to its end; returns the gates it passed.
    pub async fn run_to_end(&mut self, copy: u8) -> Vec<Gate> {
        let mut passed = Vec::new();
        while let Some(gate) = self.current_gate(copy) {
            passed.push(gate);
            self.step(copy).await;
        }
        passed
    }

    /// Where the schedule's copies stand, as the server reads it.
    pub async fn view(&self) -> ScheduleView {
        let response = reqwest::Client::new()
            .get(&self.schedule_url)
            .header(LAB_SECRET, &self.server.secret)
            .send()
            .await
            .expect("GET the schedule answers");
        assert_eq!(response.status(), 200, "GET {}", self.schedule_url);
        response.json().await.expect("a schedule")
    }

    /// The steps copy `copy` took (its gates included), in order.
    pub fn steps_of(&self, copy: u8) -> Vec<StepKind> {
        let request = self.requests[usize::from(copy) - 1];
        self.seen
            .iter()
            .filter(|step| step.request == request)
            .map(|step| step.kind)
            .collect()
    }

    /// Copy `copy`'s request number on the step stream.
    pub fn request_of(&self, copy: u8) -> u64 {
        self.requests[usize::from(copy) - 1]
    }

    /// Every step seen so far, in the server's order.
    pub fn seen(&self) -> &[Step] {
        &self.seen
    }

    /// The gate copy `copy` was last seen stopped at, if it has not moved on since.
    pub fn current_gate(&self, copy: u8) -> Option<Gate> {
        match self.steps_of(copy).last() {
            Some(StepKind::AtGate { next }) => Some(*next),
            _ => None,
        }
    }

    /// What each copy's client got back, once every copy has ended.
    pub async fn answers(self) -> Vec<Attempt> {
        let mut answers = Vec::new();
        for copy in self.copies {
            answers.push(copy.await.expect("the copy's client task"));
        }
        answers
    }

    /// The first step at or after `seen[from]` that `wanted` accepts,
    /// reading the stream further as needed.
    async fn next_matching(&mut self, from: usize, wanted: impl Fn(&Step) -> bool) -> Step {
        if let Some(step) = self.seen[from.min(self.seen.len())..]
            .iter()
            .find(|step| wanted(step))
        {
            return step.clone();
        }
        let more = self.stream.until(&wanted).await;
        let step = more
            .last()
            .expect("until returns the step it waited for")
            .clone();
        self.seen.extend(more);
        step
    }
}

fn gate_of(step: &Step) -> Gate {
    match step.kind {
        StepKind::AtGate { next } => next,
        other => panic!("not a gate: {other:?}"),
    }
}
