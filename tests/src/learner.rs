//! A learner at a browser: finds what the page shows the way assistive
//! technology does, by role and accessible name ("the button named Place
//! order", "the checkbox named Send concurrently"), and reads the panes.
//! Where a name will be translated, [`Learner::by_id`] is the hook that
//! stays the same in every language.

use fantoccini::elements::Element;
use fantoccini::{Client, Locator};

use crate::browser::{Chromedriver, eventually, open_browser, start_chromedriver, ui_dir};
use crate::{Backend, spawn_lab};

mod accessibility;
mod console;
pub mod picture;
mod scheduler;

use accessibility::ComputedAccessibility;
pub use accessibility::Role;

/// A learner at a browser: finds things by what the page shows.
pub struct Learner {
    /// The WebDriver session, for what the helpers below do not cover.
    pub browser: Client,
    _driver: Chromedriver,
}

impl Learner {
    /// A fresh browser (preferring English) showing the page at `url`, once the app has started.
    pub async fn open(url: &str) -> Self {
        Self::open_preferring(url, "en-US,en").await
    }

    /// A fresh browser whose preferred languages are `languages`
    /// (`zh-CN,zh`), showing the page at `url` once the app has started.
    pub async fn open_preferring(url: &str, languages: &str) -> Self {
        let driver = start_chromedriver().await;
        let browser = open_browser(&driver, languages).await;
        let learner = Self {
            browser,
            _driver: driver,
        };
        learner.go_to(url).await;
        learner
    }

    /// A fresh browser (preferring English) showing a page other than the
    /// lab (a saved run, the teacher's view), once `ready` (CSS) is on it.
    pub async fn open_page(url: &str, ready: &str) -> Self {
        let driver = start_chromedriver().await;
        let browser = open_browser(&driver, "en-US,en").await;
        let learner = Self {
            browser,
            _driver: driver,
        };
        learner.visit(url, ready).await;
        learner
    }

    /// Goes to `url` and waits until `ready` (CSS) is on the page.
    pub async fn visit(&self, url: &str, ready: &str) {
        self.browser.goto(url).await.expect("the page loads");
        self.wait_for(ready).await;
    }

    /// Waits until `ready` (CSS) is on the page shown now.
    pub async fn wait_for(&self, ready: &str) {
        eventually(async || self.browser.find(Locator::Css(ready)).await.ok())
            .await
            .unwrap_or_else(|| panic!("the page shows {ready}"));
    }

    pub async fn go_to(&self, url: &str) {
        self.browser.goto(url).await.expect("the page loads");
        self.wait_for_the_app().await;
    }

    /// Reloads the page, as a learner pressing F5 does.
    pub async fn reload(&self) {
        self.browser.refresh().await.expect("the page reloads");
        self.wait_for_the_app().await;
    }

    /// Waits until the app has started: its "Place order" button (found by
    /// id, so in any language) is on the page.
    async fn wait_for_the_app(&self) {
        eventually(async || self.browser.find(Locator::Id("place-order")).await.ok())
            .await
            .expect("the app starts and shows its 'Place order' button");
    }

    /// The address of the last run's permalink, once the page has saved it.
    pub async fn run_link(&self) -> String {
        eventually(async || self.by_id("run-link").await.attr("href").await.ok()?)
            .await
            .expect("the run is saved and linked")
    }

    /// The visible text of the whole page, as a learner reads it.
    pub async fn page_text(&self) -> String {
        self.by_css("main")
            .await
            .text()
            .await
            .expect("the page's text")
    }

    /// The first element `css` selects, which must be there.
    pub async fn by_css(&self, css: &str) -> Element {
        self.browser
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|error| panic!("an element {css}: {error}"))
    }

    pub async fn current_url(&self) -> String {
        self.browser.current_url().await.expect("a URL").to_string()
    }

    /// The element with `role` whose accessible name is `name`, as the
    /// browser computes them (what a screen reader announces), if there is one.
    pub async fn find(&self, role: Role, name: &str) -> Option<Element> {
        let candidates = self
            .browser
            .find_all(Locator::Css(role.candidates()))
            .await
            .ok()?;
        for candidate in candidates {
            // The name first: it rules out most candidates in one round trip.
            if self.computed(&candidate, "computedlabel").await == name
                && self.computed(&candidate, "computedrole").await == role.aria()
            {
                return Some(candidate);
            }
        }
        None
    }

    /// Like [`Self::find`], for an element that must be there.
    pub async fn by_role(&self, role: Role, name: &str) -> Element {
        self.find(role, name)
            .await
            .unwrap_or_else(|| panic!("a {} named {name:?}", role.aria()))
    }

    /// The element whose id is `id`: the hook that stays the same in every language.
    pub async fn by_id(&self, id: &str) -> Element {
        self.browser
            .find(Locator::Id(id))
            .await
            .unwrap_or_else(|error| panic!("an element #{id}: {error}"))
    }

    /// The browser's computed role or label of `element` (WebDriver's
    /// `computedrole` and `computedlabel`, which fantoccini has no call for).
    async fn computed(&self, element: &Element, property: &'static str) -> String {
        let command = ComputedAccessibility {
            element: element.element_id().to_string(),
            property,
        };
        match self.browser.issue_cmd(command).await {
            Ok(serde_json::Value::String(value)) => value,
            _ => String::new(),
        }
    }

    /// The button named `text`; one inside the folded "Set up your own
    /// experiment" section is reached by unfolding it first, as a learner does.
    pub async fn button(&self, text: &str) -> Element {
        if let Some(button) = self.find(Role::Button, text).await
            && button.is_displayed().await.unwrap_or(false)
        {
            return button;
        }
        self.open_setup().await;
        self.by_role(Role::Button, text).await
    }

    /// Unfolds "Set up your own experiment" (the free lab's controls) if it is folded.
    pub async fn open_setup(&self) {
        let setup = self.by_id("setup").await;
        if setup.prop("open").await.expect("open").as_deref() != Some("true") {
            self.by_id("setup-toggle")
                .await
                .click()
                .await
                .expect("unfold the setup");
        }
    }

    /// Clicks a button and waits until the page says the run is done.
    pub async fn press_and_wait(&self, text: &str) {
        self.click_and_wait(self.button(text).await, text).await;
    }

    /// Clicks `button` (called `what` in messages) and waits until the page
    /// says the run is done.
    pub async fn click_and_wait(&self, button: Element, what: &str) {
        button.click().await.expect("click");
        let status = self
            .browser
            .find(Locator::Css("[role=status]"))
            .await
            .expect("a status line");
        until_the_status_says(&status, &["done", "reset"], what).await;
    }

    /// The form control (checkbox, number, text field or selector) whose
    /// accessible name is `label`, and the `<label>` that names it.
    pub async fn control(&self, label: &str) -> (Element, Element) {
        self.open_setup().await;
        let mut control = None;
        for role in [
            Role::Checkbox,
            Role::SpinButton,
            Role::TextBox,
            Role::ComboBox,
        ] {
            control = self.find(role, label).await;
            if control.is_some() {
                break;
            }
        }
        let control = control.unwrap_or_else(|| panic!("a form control named {label:?}"));
        let id = control
            .attr("id")
            .await
            .expect("attribute")
            .expect("a labelled control has an id");
        let label_element = self
            .browser
            .find(Locator::Css(&format!("label[for='{id}']")))
            .await
            .unwrap_or_else(|error| panic!("the label of #{id}: {error}"));
        (control, label_element)
    }

    /// Types `value` into the number field labelled `label` and leaves it (Tab).
    pub async fn set_number(&self, label: &str, value: u32) {
        let (field, _) = self.control(label).await;
        field.clear().await.expect("clear the field");
        field
            .send_keys(&format!("{value}\u{E004}"))
            .await
            .expect("type and press Tab");
        assert_eq!(
            field.prop("value").await.expect("value").as_deref(),
            Some(value.to_string().as_str()),
            "{label}"
        );
    }

    /// Unticks the checkbox whose label reads `label` by clicking the label.
    pub async fn untick(&self, label: &str) {
        let (checkbox, label_element) = self.control(label).await;
        label_element.click().await.expect("click the label");
        assert!(
            !checkbox.is_selected().await.expect("state"),
            "clicking {label:?} unticks its box"
        );
    }

    /// Ticks the checkbox whose label reads `label` by clicking the label.
    pub async fn tick(&self, label: &str) {
        let (checkbox, label_element) = self.control(label).await;
        label_element.click().await.expect("click the label");
        assert!(
            checkbox.is_selected().await.expect("state"),
            "clicking {label:?} ticks its box"
        );
    }

    /// The number in a pane's "Orders stored: N" heading.
    pub async fn orders_stored(&self, pane: &str) -> usize {
        orders_in(&self.pane(pane).await).await
    }

    /// The number of orders the pane whose heading has `id` (`pane-1`) shows, in any language.
    pub async fn orders_stored_in(&self, id: &str) -> usize {
        let heading = self.by_id(id).await;
        let pane = heading
            .find(Locator::XPath("./ancestor::section[1]"))
            .await
            .expect("a pane around its heading");
        orders_in(&pane).await
    }

    /// The pane (a region named after its server's heading) showing `server`.
    pub async fn pane(&self, server: &str) -> Element {
        self.by_role(Role::Region, server).await
    }

    /// Whether a pane shows `server` now.
    pub async fn shows_pane(&self, server: &str) -> bool {
        self.find(Role::Region, server).await.is_some()
    }

    pub async fn pane_text(&self, pane: &str) -> String {
        self.pane(pane).await.text().await.expect("pane text")
    }

    /// The outcome of each attempt on a pane's timeline, in order.
    pub async fn outcomes(&self, pane: &str) -> Vec<String> {
        let mut outcomes = Vec::new();
        for element in self
            .pane(pane)
            .await
            .find_all(Locator::Css("ol.timeline strong.outcome"))
            .await
            .expect("timeline outcomes")
        {
            outcomes.push(element.text().await.expect("outcome text"));
        }
        outcomes
    }

    /// A pane's sequence diagram, row by row: the lane (column) of the
    /// step and its text.
    pub async fn diagram_rows(&self, pane: &str) -> Vec<(usize, String)> {
        self.show_steps_as_table().await;
        let mut rows = Vec::new();
        let pane = self.pane(pane).await;
        for row in pane
            .find_all(Locator::Css("table.sequence > tbody > tr"))
            .await
            .unwrap()
        {
            let cells = row.find_all(Locator::Css("td")).await.unwrap();
            for (lane, cell) in cells.iter().enumerate() {
                let text = cell.text().await.unwrap();
                if !text.is_empty() {
                    rows.push((lane, text));
                }
            }
        }
        rows
    }
}

/// The count a pane's "Orders stored" heading carries (in `data-count`, so
/// the words around it may be in any language).
async fn orders_in(pane: &Element) -> usize {
    let heading = pane
        .find(Locator::Css("h3.order-count"))
        .await
        .expect("an 'Orders stored' heading");
    let count = heading.attr("data-count").await.expect("attribute");
    count
        .as_deref()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {count:?}"))
}

/// A lab on SQLite serving the built page, and a learner at a fresh browser on it.
pub async fn open_lab() -> (String, Learner) {
    let base = spawn_lab(Backend::Sqlite, &ui_dir()).await;
    let learner = Learner::open(&base).await;
    (base, learner)
}

/// Waits until `status` (a status line) is in one of `states` and returns
/// it: its state, not its words, the same in every language. `what` names
/// what was pressed, for the message if it never gets there.
pub async fn until_the_status_says(status: &Element, states: &[&str], what: &str) -> String {
    eventually(async || {
        status
            .attr("data-state")
            .await
            .ok()
            .flatten()
            .filter(|state| states.contains(&state.as_str()))
    })
    .await
    .unwrap_or_else(|| panic!("pressing {what:?} finishes and says so"))
}
