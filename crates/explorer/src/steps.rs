//! A lab's `GET /steps` stream, read as the page reads it: Server-Sent
//! Events, one step per event.

use std::time::Duration;

use lab_wire::{STEPS_MISSED_EVENT, Step};

use crate::error::ExploreError;

/// How long the stream may stay silent while a step is awaited: far past
/// any statement's time, so only a server that stopped answering meets it.
const SILENCE_LIMIT: Duration = Duration::from_secs(30);

/// An open step stream, and every step read from it so far.
pub(crate) struct StepStream {
    response: reqwest::Response,
    unread: String,
    /// Every step read, in order.
    pub(crate) seen: Vec<Step>,
}

impl StepStream {
    /// Opens the stream at `url` (`…/steps?secret=…`).
    pub(crate) async fn open(client: &reqwest::Client, url: &str) -> Result<Self, ExploreError> {
        let response = client
            .get(url)
            .send()
            .await
            .map_err(|source| ExploreError::Http {
                url: url.to_owned(),
                source,
            })?;
        if !response.status().is_success() {
            let status = response.status().as_u16();
            let body = response.text().await.unwrap_or_default();
            return Err(ExploreError::Refused {
                what: "opening the step stream".into(),
                status,
                body,
            });
        }
        Ok(Self {
            response,
            unread: String::new(),
            seen: Vec::new(),
        })
    }

    /// Reads steps until one satisfies `wanted` (looking first among those
    /// already read at or after `from`); returns it.
    pub(crate) async fn until(
        &mut self,
        from: usize,
        wanted: impl Fn(&Step) -> bool,
    ) -> Result<Step, ExploreError> {
        if let Some(step) = self.seen.iter().skip(from).find(|step| wanted(step)) {
            return Ok(step.clone());
        }
        loop {
            let step = self.next().await?;
            self.seen.push(step.clone());
            if wanted(&step) {
                return Ok(step);
            }
        }
    }

    async fn next(&mut self) -> Result<Step, ExploreError> {
        loop {
            if let Some(step) = self.parse_one()? {
                return Ok(step);
            }
            let chunk = tokio::time::timeout(SILENCE_LIMIT, self.response.chunk())
                .await
                .map_err(|_| ExploreError::Stream(format!("was silent for {SILENCE_LIMIT:?}")))?
                .map_err(|error| ExploreError::Stream(format!("broke off: {error}")))?
                .ok_or_else(|| ExploreError::Stream("ended".into()))?;
            self.unread.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Takes the first complete event off the unread text, skipping keep-alives.
    fn parse_one(&mut self) -> Result<Option<Step>, ExploreError> {
        while let Some(end) = self.unread.find("\n\n") {
            let event: String = self.unread.drain(..end + 2).collect();
            let field = |name: &str| event.lines().find_map(|line| line.strip_prefix(name));
            if field("event: ") == Some(STEPS_MISSED_EVENT) {
                return Err(ExploreError::Stream(
                    "dropped steps: the explorer fell behind".into(),
                ));
            }
            if let Some(data) = field("data: ") {
                let step = serde_json::from_str(data)
                    .map_err(|error| ExploreError::Stream(format!("sent {data:?}: {error}")))?;
                return Ok(Some(step));
            }
        }
        Ok(None)
    }
}
