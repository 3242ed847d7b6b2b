//! How much of a shared server one lab may take at a time.
//!
//! A workshop server is shared by a room, and every control a learner has
//! (a 10 s `Lab-Delay-Ms`, six copies, retries, a page left open) holds
//! something while it runs: a task, a pause, a stream. Without limits one
//! curious learner could hold them all. Each limit here is a tokio
//! [`Semaphore`] per lab (plus one for the whole server where the resource
//! is shared), taken before the work starts and held by the work itself, so
//! a client that hangs up does not free what its spawned work still holds.
//! A request past a limit is refused at once (429, or 503 when the whole
//! server is full), never queued: a queue would be one more thing to fill.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use lab_wire::LabId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The limits a server applies to every lab (flags of the lab and of each
/// server run alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Args)]
pub struct RoomLimits {
    /// Requests one lab may have in progress at once, over all servers
    /// (a request whose client hung up still counts until its work ends)
    #[arg(long = "max-requests-per-lab", env = "LAB_MAX_REQUESTS_PER_LAB", default_value_t = DEFAULT_REQUESTS_PER_LAB, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub requests_per_lab: u32,
    /// Seconds of Lab-Delay-Ms that one lab's requests in progress may add up to
    #[arg(long = "max-delay-per-lab-secs", env = "LAB_MAX_DELAY_PER_LAB_SECS", default_value_t = DEFAULT_DELAY_PER_LAB_SECS, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub delay_per_lab_secs: u32,
    /// Step streams (open pages) one lab may have at once
    #[arg(long = "max-step-streams-per-lab", env = "LAB_MAX_STEP_STREAMS_PER_LAB", default_value_t = DEFAULT_STREAMS_PER_LAB, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub streams_per_lab: u32,
    /// Step streams the whole server keeps open at once, over all labs
    #[arg(long = "max-step-streams", env = "LAB_MAX_STEP_STREAMS", default_value_t = DEFAULT_STREAMS_IN_ALL, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub streams_in_all: u32,
}

/// Six copies with five retries each, on two panes, fit in twice over.
pub const DEFAULT_REQUESTS_PER_LAB: u32 = 32;
/// Six requests at the largest delay (10 s), or sixty at one second.
pub const DEFAULT_DELAY_PER_LAB_SECS: u32 = 60;
/// A learner's page, a second tab and the teacher's projector, with room to spare.
pub const DEFAULT_STREAMS_PER_LAB: u32 = 8;
/// A room of a hundred learners with a few tabs each.
pub const DEFAULT_STREAMS_IN_ALL: u32 = 512;

impl Default for RoomLimits {
    fn default() -> Self {
        Self {
            requests_per_lab: DEFAULT_REQUESTS_PER_LAB,
            delay_per_lab_secs: DEFAULT_DELAY_PER_LAB_SECS,
            streams_per_lab: DEFAULT_STREAMS_PER_LAB,
            streams_in_all: DEFAULT_STREAMS_IN_ALL,
        }
    }
}

/// Which limit a request ran into; the error type turns it into a 429 (or
/// a 503 for the server-wide one) with `Retry-After`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LimitReached {
    /// The lab has as many requests in progress as it may.
    #[error(
        "this lab already has {limit} requests in progress, the most one lab may have; wait for some to finish, then try again"
    )]
    Requests {
        /// The limit.
        limit: u32,
    },
    /// The lab's requests in progress already pause for as long as it may.
    #[error(
        "this lab's requests in progress already pause (Lab-Delay-Ms) for nearly {limit_secs} s in all, the most one lab may; wait for them to finish or ask for a shorter delay"
    )]
    Delay {
        /// The limit, in seconds of delay.
        limit_secs: u32,
        /// The delay this request asked for, rounded up to seconds.
        asked_secs: u64,
    },
    /// The lab has as many step streams open as it may.
    #[error(
        "this lab already has {limit} step streams open, the most one lab may have; close a tab showing this lab"
    )]
    LabStreams {
        /// The limit.
        limit: u32,
    },
    /// The server has as many step streams open as it may.
    #[error(
        "the server already has {limit} step streams open, the most it keeps; try again in a moment"
    )]
    AllStreams {
        /// The limit.
        limit: u32,
    },
}

impl LimitReached {
    /// Whether the whole server is full, rather than this one lab.
    pub fn is_server_wide(&self) -> bool {
        matches!(self, Self::AllStreams { .. })
    }

    /// How many seconds a client should wait before trying again.
    pub fn retry_after_secs(&self) -> u64 {
        match self {
            // A delayed request frees its share when its delay is over.
            Self::Delay { asked_secs, .. } => (*asked_secs).max(1),
            Self::Requests { .. } => 1,
            Self::LabStreams { .. } | Self::AllStreams { .. } => 5,
        }
    }
}

/// One server's (or the whole lab's) limits and what each lab holds of them.
/// Clones share the counts: the launcher hands one to all three servers, so
/// a lab's limits hold over the three together.
#[derive(Debug, Clone)]
pub struct Room {
    inner: Arc<RoomInner>,
}

#[derive(Debug)]
struct RoomInner {
    limits: RoomLimits,
    requests: PerLab,
    delay_ms: PerLab,
    streams: PerLab,
    all_streams: Arc<Semaphore>,
}

impl Default for Room {
    fn default() -> Self {
        Self::new(RoomLimits::default())
    }
}

/// What a request holds while its work runs; dropping it gives it back.
#[derive(Debug)]
#[must_use = "the limit is held only while this lives"]
pub struct Admission {
    _request: LabPermit,
    _delay: Option<LabPermit>,
}

/// What an open step stream holds; dropping it gives it back.
#[derive(Debug)]
#[must_use = "the limit is held only while this lives"]
pub struct StreamAdmission {
    _lab: LabPermit,
    _server: OwnedSemaphorePermit,
}

impl Room {
    /// A room applying `limits`, with nothing held yet.
    pub fn new(limits: RoomLimits) -> Self {
        let delay_ms = u64::from(limits.delay_per_lab_secs) * 1000;
        Self {
            inner: Arc::new(RoomInner {
                limits,
                requests: PerLab::new(limits.requests_per_lab),
                delay_ms: PerLab::new(u32::try_from(delay_ms).unwrap_or(u32::MAX)),
                streams: PerLab::new(limits.streams_per_lab),
                all_streams: Arc::new(Semaphore::new(limits.streams_in_all as usize)),
            }),
        }
    }

    /// Lets a request of `lab` that pauses for `delay` start, or says which limit it reached.
    pub fn admit(&self, lab: &LabId, delay: Duration) -> Result<Admission, LimitReached> {
        let inner = &self.inner;
        let request = inner
            .requests
            .try_take(lab, 1)
            .ok_or(LimitReached::Requests {
                limit: inner.limits.requests_per_lab,
            })?;
        let delay_ms = u32::try_from(delay.as_millis()).unwrap_or(u32::MAX);
        let delay = if delay_ms == 0 {
            None
        } else {
            Some(
                inner
                    .delay_ms
                    .try_take(lab, delay_ms)
                    .ok_or(LimitReached::Delay {
                        limit_secs: inner.limits.delay_per_lab_secs,
                        asked_secs: delay.as_secs() + u64::from(delay.subsec_nanos() > 0),
                    })?,
            )
        };
        Ok(Admission {
            _request: request,
            _delay: delay,
        })
    }

    /// Lets `lab` start work that keeps up to `count` requests in progress
    /// at once (an exploration's schedules, run by the server itself), or
    /// says it would pass the lab's limit. A count above the whole share
    /// takes the whole share.
    pub fn admit_many(&self, lab: &LabId, count: u32) -> Result<Admission, LimitReached> {
        let inner = &self.inner;
        let requests = inner
            .requests
            .try_take(lab, count)
            .ok_or(LimitReached::Requests {
                limit: inner.limits.requests_per_lab,
            })?;
        Ok(Admission {
            _request: requests,
            _delay: None,
        })
    }

    /// Lets `lab` open one more step stream, or says which limit it reached.
    pub fn open_stream(&self, lab: &LabId) -> Result<StreamAdmission, LimitReached> {
        let inner = &self.inner;
        let lab = inner
            .streams
            .try_take(lab, 1)
            .ok_or(LimitReached::LabStreams {
                limit: inner.limits.streams_per_lab,
            })?;
        let server = inner.all_streams.clone().try_acquire_owned().map_err(|_| {
            LimitReached::AllStreams {
                limit: inner.limits.streams_in_all,
            }
        })?;
        Ok(StreamAdmission {
            _lab: lab,
            _server: server,
        })
    }
}

/// A number of permits per lab, each lab with its own [`Semaphore`]. A lab
/// holding nothing has no entry, so ids that come and go leave nothing behind.
#[derive(Debug, Clone)]
pub struct PerLab {
    inner: Arc<PerLabInner>,
}

#[derive(Debug)]
struct PerLabInner {
    per_lab: u32,
    labs: Mutex<HashMap<LabId, Arc<Semaphore>>>,
}

/// Permits one lab holds; dropping it gives them back.
#[derive(Debug)]
#[must_use = "the permits are held only while this lives"]
pub struct LabPermit {
    permit: Option<OwnedSemaphorePermit>,
    lab: LabId,
    owner: Arc<PerLabInner>,
}

impl PerLab {
    /// `per_lab` permits for every lab.
    pub fn new(per_lab: u32) -> Self {
        Self {
            inner: Arc::new(PerLabInner {
                per_lab,
                labs: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// `count` of `lab`'s permits if it has them free now. A count above
    /// the whole share is cut to the share, so one request alone always fits.
    pub fn try_take(&self, lab: &LabId, count: u32) -> Option<LabPermit> {
        let semaphore = self.inner.semaphore_of(lab);
        match semaphore.try_acquire_many_owned(count.min(self.inner.per_lab)) {
            Ok(permit) => Some(self.held_by(lab, permit)),
            // The failed attempt has let go of its semaphore: the entry may be idle.
            Err(_) => {
                self.inner.forget_if_idle(lab);
                None
            }
        }
    }

    /// One of `lab`'s permits, waiting for one to be free.
    pub async fn take(&self, lab: &LabId) -> LabPermit {
        let semaphore = self.inner.semaphore_of(lab);
        let permit = semaphore
            .acquire_owned()
            .await
            .expect("the semaphores are never closed");
        self.held_by(lab, permit)
    }

    /// How many labs hold permits now (or wait for them).
    pub fn labs_holding(&self) -> usize {
        self.inner.lock().len()
    }

    fn held_by(&self, lab: &LabId, permit: OwnedSemaphorePermit) -> LabPermit {
        LabPermit {
            permit: Some(permit),
            lab: lab.clone(),
            owner: self.inner.clone(),
        }
    }
}

impl PerLabInner {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<LabId, Arc<Semaphore>>> {
        // The map holds no invariant a panic could break half-way.
        self.labs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn semaphore_of(&self, lab: &LabId) -> Arc<Semaphore> {
        self.lock()
            .entry(lab.clone())
            .or_insert_with(|| Arc::new(Semaphore::new(self.per_lab as usize)))
            .clone()
    }

    /// Drops `lab`'s entry if nobody holds or awaits its permits.
    fn forget_if_idle(&self, lab: &LabId) {
        let mut labs = self.lock();
        // Only the map's own reference left, and every permit back: idle.
        let idle = labs.get(lab).is_some_and(|semaphore| {
            Arc::strong_count(semaphore) == 1
                && semaphore.available_permits() == self.per_lab as usize
        });
        if idle {
            labs.remove(lab);
        }
    }
}

impl Drop for LabPermit {
    fn drop(&mut self) {
        // The permit goes back first, so the entry can be seen to be idle.
        drop(self.permit.take());
        self.owner.forget_if_idle(&self.lab);
    }
}

#[cfg(test)]
mod tests;
