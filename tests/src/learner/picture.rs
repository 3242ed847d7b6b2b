//! What the learner sees as pictures: a pane's sequence diagram (its SVG
//! events, or the table beside it), its replay, and screenshots of the page.

use std::path::PathBuf;

use fantoccini::Locator;

use super::Learner;
use crate::browser::eventually;

impl Learner {
    /// Presses `key` on the page, as a learner's keyboard does (not in a field).
    pub async fn press_key(&self, key: &str) {
        self.by_css("body")
            .await
            .send_keys(key)
            .await
            .expect("press a key");
    }

    /// Presses K, which replays the run from the start, and waits until
    /// the replay has moved through it and ended on the whole run.
    pub async fn replay_to_the_end(&self) {
        self.press_key("k").await;
        let at = async || self.by_id("playback-at").await.text().await.ok();
        eventually(async || at().await.filter(|words| words.starts_with('+')))
            .await
            .expect("the replay moves through the run");
        eventually(async || at().await.filter(|words| words == "the whole run"))
            .await
            .expect("the replay ends on the whole run");
    }
}

/// One arrow or mark of a pane's picture.
#[derive(Debug, Clone)]
pub struct PictureEvent {
    /// `arrow`, `refused`, `lost` or `mark`.
    pub shape: String,
    /// What it is: `found-nothing` (a look-up that found no key), `order`
    /// (an insert), `conflict`, `failure`, `answer`, `request`, …
    pub tone: String,
    /// The lifeline it starts on: `request`, `server` or `database`.
    pub on: String,
    /// Its height in the picture.
    pub y: f64,
    /// Whether playback shows it now.
    pub shown: bool,
}

impl Learner {
    /// Chooses "Show the steps as: a table" (the picture's accessible twin).
    pub async fn show_steps_as_table(&self) {
        let radio = self.by_id("show-table").await;
        if !radio.is_selected().await.expect("state") {
            self.browser
                .find(Locator::Css("label[for='show-table']"))
                .await
                .expect("the table's label")
                .click()
                .await
                .expect("choose the table");
        }
    }

    /// The events of a pane's picture, in order: each one's `data-*`
    /// attributes (`shape`, `tone`, `on`, `y`) and whether it is shown now.
    pub async fn picture_events(&self, pane: &str) -> Vec<PictureEvent> {
        let pane = self.pane(pane).await;
        // One round trip for the whole picture: tests read it after every step.
        let read = self
            .browser
            .execute(
                "return [...arguments[0].querySelectorAll('svg.picture g.event')].map(g => [
                   g.dataset.shape, g.dataset.tone, g.dataset.on, g.dataset.y,
                   !g.classList.contains('hidden')]);",
                vec![serde_json::to_value(&pane).expect("an element as a script argument")],
            )
            .await
            .expect("the picture's events");
        let rows: Vec<(String, String, String, String, bool)> =
            serde_json::from_value(read).expect("rows of the picture's events");
        rows.into_iter()
            .map(|(shape, tone, on, y, shown)| PictureEvent {
                shape,
                tone,
                on,
                y: y.parse().expect("a number in data-y"),
                shown,
            })
            .collect()
    }

    /// Which of the elements `css` selects are not wholly inside the
    /// window (or not drawn at all), each with where it is; and a line if
    /// `css` selects fewer than `expected`.
    pub async fn outside_the_screen(&self, css: &str, expected: usize) -> Vec<String> {
        let measured = self
            .browser
            .execute(
                "const [css, expected] = arguments; const out = []; const all = document.querySelectorAll(css);
                 for (const el of all) {
                   const r = el.getBoundingClientRect();
                   if (r.height === 0 || r.top < 0 || r.left < 0
                       || r.bottom > window.innerHeight || r.right > window.innerWidth) {
                     out.push(`${el.tagName}.${el.getAttribute('class')}: ${JSON.stringify(r)} in ${window.innerWidth}x${window.innerHeight}`);
                   }
                 }
                 if (all.length < expected) out.push(`${all.length} of ${expected} elements ${css}`);
                 return out;",
                vec![css.into(), expected.into()],
            )
            .await
            .expect("measure the page");
        serde_json::from_value(measured).expect("a list of what is outside")
    }

    /// Waits until every element `css` selects (at least `expected`) is
    /// inside the window: the page scrolls by itself after a run or a
    /// move, so this waits for that, not for a time. Fails saying what
    /// stayed outside, and saves the screen as `name`.
    pub async fn wait_until_inside_the_screen(&self, css: &str, expected: usize, name: &str) {
        let fits = eventually(async || {
            self.outside_the_screen(css, expected)
                .await
                .is_empty()
                .then_some(())
        })
        .await;
        if fits.is_none() {
            self.save_this_screen(name).await;
            panic!(
                "{name}: outside the screen: {:#?}",
                self.outside_the_screen(css, expected).await
            );
        }
    }

    /// A screenshot of the whole page, wide and tall enough for the
    /// controls and both panes side by side.
    pub async fn save_screenshot(&self, name: &str) {
        self.browser
            .set_window_size(1400, 2300)
            .await
            .expect("resize the window");
        self.save_this_screen(name).await;
    }

    /// A screenshot of what the window shows now, at its size.
    pub async fn save_this_screen(&self, name: &str) {
        let png = self.browser.screenshot().await.expect("a screenshot");
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut folders = vec![root.join("target/screenshots")];
        // The README shows docs/; refresh it with UPDATE_SCREENSHOTS=1 when the page changes.
        if std::env::var_os("UPDATE_SCREENSHOTS").is_some() {
            folders.push(root.join("docs"));
        }
        for folder in folders {
            std::fs::create_dir_all(&folder).expect("create the screenshot folder");
            std::fs::write(folder.join(name), &png).expect("save the screenshot");
        }
    }
}
