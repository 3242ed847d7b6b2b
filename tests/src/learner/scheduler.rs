//! The learner at the scheduler page (`/scheduler`): each copy's lane,
//! its buttons, and what the page says the server did. Each move waits
//! for the page to have made it (the schedule grows by one and the page
//! is ready again), never for a time.

use fantoccini::Locator;

use super::Learner;
use crate::browser::eventually;

impl Learner {
    /// A fresh browser at the scheduler of a new lab at `base`, on
    /// `design` with `copies` copies, once every copy waits at its first gate.
    pub async fn open_scheduler(base: &str, design: &str, copies: u8) -> Self {
        let learner = Self::open_page(
            &format!("{base}/scheduler?design={design}&copies={copies}"),
            "main[data-scheduler]",
        )
        .await;
        learner.wait_for_moves(0).await;
        learner
    }

    /// Waits until the page has made `moves` moves and waits for the next.
    pub async fn wait_for_moves(&self, moves: usize) {
        self.wait_for(&format!("main[data-scheduler=ready][data-moves='{moves}']"))
            .await;
    }

    /// How many moves the page has made.
    pub async fn moves_made(&self) -> usize {
        self.number_in("main", "data-moves").await
    }

    /// The whole number the first element `css` selects carries in `attribute`.
    async fn number_in(&self, css: &str, attribute: &str) -> usize {
        self.by_css(css)
            .await
            .attr(attribute)
            .await
            .ok()
            .flatten()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{css} carries a number in {attribute}"))
    }

    /// The lane of copy `copy`.
    fn lane_css(copy: u8) -> String {
        format!("section.lane[data-copy='{copy}']")
    }

    /// What copy `copy`'s lane says, and where it stands (`next`, `waiting`, …).
    pub async fn lane(&self, copy: u8) -> (String, String) {
        let lane = self.by_css(&Self::lane_css(copy)).await;
        let kind = lane
            .attr("data-lane")
            .await
            .ok()
            .flatten()
            .unwrap_or_default();
        let text = lane
            .find(Locator::Css(".lane-state"))
            .await
            .expect("a lane says where its copy stands")
            .text()
            .await
            .unwrap_or_default();
        (kind, text)
    }

    /// Waits until copy `copy`'s lane stands at `kind` (`next`, `waiting`, `answered`, …).
    pub async fn wait_for_lane(&self, copy: u8, kind: &str) -> String {
        eventually(async || {
            let (now, text) = self.lane(copy).await;
            (now == kind).then_some(text)
        })
        .await
        .unwrap_or_else(|| panic!("copy {copy}'s lane comes to stand at {kind}"))
    }

    /// Runs copy `copy`'s next statement with its button (or, with
    /// `by_key`, its number key) and waits until the page has made the move.
    pub async fn step(&self, copy: u8, by_key: bool) {
        let before = self.moves_made().await;
        self.wait_for("main[data-scheduler=ready]").await;
        if by_key {
            self.press_key(&copy.to_string()).await;
        } else {
            self.by_css(&format!("{} button.release", Self::lane_css(copy)))
                .await
                .click()
                .await
                .expect("the lane's button is pressed");
        }
        self.wait_for_moves(before + 1).await;
    }

    /// Crashes the server where copy `copy` waits, and waits for the page.
    pub async fn crash(&self, copy: u8) {
        let before = self.moves_made().await;
        self.by_css(&format!("{} button.crash", Self::lane_css(copy)))
            .await
            .click()
            .await
            .expect("the lane's crash button is pressed");
        self.wait_for_moves(before + 1).await;
    }

    /// Steps copy `copy` until its lane says it will `gate` next (in words).
    pub async fn step_until(&self, copy: u8, gate: &str) {
        for _ in 0..12 {
            let (kind, text) = self.lane(copy).await;
            if kind == "next" && text.ends_with(gate) {
                return;
            }
            self.step(copy, false).await;
        }
        panic!("copy {copy} never came to '{gate}'");
    }

    /// Steps each copy in turn, lowest first, until every lane has ended.
    pub async fn run_every_copy_to_its_end(&self, copies: u8) {
        for _ in 0..40 {
            let mut moved = false;
            for copy in 1..=copies {
                let (kind, _) = self.lane(copy).await;
                if kind == "next" {
                    self.step(copy, false).await;
                    moved = true;
                    break;
                }
            }
            if !moved {
                let ended = async || {
                    for copy in 1..=copies {
                        let (kind, _) = self.lane(copy).await;
                        if !matches!(kind.as_str(), "answered" | "crashed") {
                            return None;
                        }
                    }
                    Some(())
                };
                if ended().await.is_some() {
                    return;
                }
                // A copy moves by itself (let in by another) or its answer
                // is on its way: wait for its lane to change.
                eventually(async || {
                    for copy in 1..=copies {
                        let (kind, _) = self.lane(copy).await;
                        if matches!(kind.as_str(), "next" | "answered" | "crashed") {
                            continue;
                        }
                        return None;
                    }
                    Some(())
                })
                .await
                .expect("every copy settles");
            }
        }
        panic!("the copies did not end");
    }

    /// Every element `css` selects now.
    pub async fn all(&self, css: &str) -> Vec<fantoccini::elements::Element> {
        self.browser
            .find_all(Locator::Css(css))
            .await
            .expect("a query of the page")
    }

    /// The orders the page says the server keeps for the purchase.
    pub async fn orders_kept(&self) -> usize {
        self.number_in("p.order-total", "data-count").await
    }

    /// Presses the challenge `name`'s "Play it on …" and waits until its
    /// server's copies wait at their first gate.
    pub async fn play_challenge(&self, name: &str) {
        self.by_css(&format!("li[data-challenge='{name}'] button.play"))
            .await
            .click()
            .await
            .expect("the challenge's button is pressed");
        self.wait_for_moves(0).await;
        self.wait_for_lane(1, "next").await;
    }

    /// Waits until the challenge `name` is shown as met.
    pub async fn wait_for_challenge(&self, name: &str) {
        self.wait_for(&format!("li[data-challenge='{name}'][data-met='true']"))
            .await;
    }
}
