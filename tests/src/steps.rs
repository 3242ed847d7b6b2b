//! Listening to a server's `GET /steps` stream the way the page does, so a
//! test can wait for what the server did instead of guessing how long it takes.

use std::time::Duration;

use lab_wire::Step;

/// An open `GET /steps` stream of one lab on one server.
pub struct StepStream {
    response: reqwest::Response,
    unread: String,
}

impl StepStream {
    /// Opens the stream at `url` (`…/steps?secret=…`), checking that it is Server-Sent Events.
    pub async fn open(url: &str) -> Self {
        let response = reqwest::get(url).await.expect("the step stream opens");
        assert_eq!(response.status(), 200, "GET {url}");
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        Self {
            response,
            unread: String::new(),
        }
    }

    /// Reads `count` steps (failing after 10 s).
    pub async fn take(&mut self, count: usize) -> Vec<Step> {
        let named = self.take_named(count).await;
        named.into_iter().map(|(_, step)| step).collect()
    }

    /// Reads `count` steps with their event names (failing after 10 s).
    pub async fn take_named(&mut self, count: usize) -> Vec<(String, Step)> {
        let mut steps = Vec::new();
        while steps.len() < count {
            steps.push(self.next(&steps).await);
        }
        steps
    }

    /// Reads steps until one satisfies `last` (failing after 10 s); returns them all.
    pub async fn until(&mut self, last: impl Fn(&Step) -> bool) -> Vec<Step> {
        let mut steps = Vec::new();
        loop {
            let named = self.next(&steps).await;
            let done = last(&named.1);
            steps.push(named);
            if done {
                return steps.into_iter().map(|(_, step)| step).collect();
            }
        }
    }

    /// Reads steps until `count` of them satisfy `which` (failing after 10 s
    /// without a step); returns them all. For "until both requests have
    /// answered", whatever number of steps each took.
    pub async fn until_count(&mut self, count: usize, which: impl Fn(&Step) -> bool) -> Vec<Step> {
        let mut steps: Vec<(String, Step)> = Vec::new();
        let mut seen = 0;
        while seen < count {
            let named = self.next(&steps).await;
            seen += usize::from(which(&named.1));
            steps.push(named);
        }
        steps.into_iter().map(|(_, step)| step).collect()
    }

    async fn next(&mut self, so_far: &[(String, Step)]) -> (String, Step) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(step) = self.parse_one() {
                return step;
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .unwrap_or_else(|_| panic!("no further step came; so far: {so_far:#?}"))
                .expect("the stream stays open")
                .expect("a chunk");
            self.unread.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Takes the first complete event off the unread text, skipping keep-alives.
    fn parse_one(&mut self) -> Option<(String, Step)> {
        while let Some(end) = self.unread.find("\n\n") {
            let event: String = self.unread.drain(..end + 2).collect();
            let field = |name: &str| event.lines().find_map(|line| line.strip_prefix(name));
            if let Some(data) = field("data: ") {
                let name = field("event: ").unwrap_or("message").to_owned();
                return Some((name, serde_json::from_str(data).expect("a step as JSON")));
            }
        }
        None
    }
}

/// Waits until this machine's clock (which the servers under test share)
/// is past `at_us` (microseconds since the epoch), with a tenth of a second
/// to spare: for a deadline the server computed from a moment it reported,
/// such as a claim's lock or a key's retention.
pub async fn until_clock_passes(at_us: i64) {
    let left_us = at_us + 100_000 - chrono::Utc::now().timestamp_micros();
    if let Ok(left_us) = u64::try_from(left_us) {
        tokio::time::sleep(Duration::from_micros(left_us)).await;
    }
}

/// Waits until the lock (of `lock_secs`) of the claim among `steps` has run out.
pub async fn until_the_lock_has_run_out(steps: &[Step], lock_secs: u64) {
    let claimed_at_us = steps
        .iter()
        .find(|step| step.kind == lab_wire::StepKind::KeyClaimed)
        .expect("the request claimed its key")
        .at_us;
    until_clock_passes(claimed_at_us + i64::try_from(lock_secs * 1_000_000).unwrap()).await;
}
