//! Orders with side effects (`Lab-Side-Effects: charge-and-email`) on the
//! whole lab, and what each design did at the lab's payment provider and
//! mail sink: the charges and e-mails a customer would see.

use std::path::PathBuf;

use lab_wire::headers::{LAB_FAULT, LAB_LOCK_TIMEOUT_SECS, LAB_SECRET, LAB_SIDE_EFFECTS};
use lab_wire::outside::SideEffects;
use lab_wire::{Step, StepKind};

use crate::client::{COFFEE, send};
use crate::steps::until_the_lock_has_run_out;
use crate::{Attempt, Backend, TestServer, spawn_lab};

/// One learner's lab, every design in it.
pub struct Shop {
    /// The lab's address.
    pub base: String,
    /// The naive server, in this test's own lab; [`Self::design`] gives the others.
    lab: TestServer,
    http: reqwest::Client,
}

/// Where no page is built: these tests need only the API.
fn no_page() -> PathBuf {
    std::env::temp_dir().join("idempotency-lab-no-page")
}

impl Shop {
    /// The whole lab over `backend`, in a new lab of its own.
    pub async fn open(backend: Backend) -> Self {
        let base = spawn_lab(backend, &no_page()).await;
        let lab = TestServer::new(format!("{base}/api/naive/orders"));
        Self {
            base,
            lab,
            http: reqwest::Client::new(),
        }
    }

    /// The design `name` (`naive`, `safe`, `transactional`, `phased`…), in this lab.
    pub fn design(&self, name: &str) -> TestServer {
        self.lab.at(format!("{}/api/{name}/orders", self.base))
    }

    /// Buys the default order on `design` with `key`, charging the card and
    /// e-mailing the receipt, with `fault` if any. A crashed claim's lock
    /// is 1 s, so a retry may take it over soon.
    pub async fn buy(&self, design: &str, key: &str, fault: Option<&str>) -> Attempt {
        let mut request = self
            .design(design)
            .order_request(Some(key), COFFEE)
            .header(LAB_SIDE_EFFECTS, "charge-and-email")
            .header(LAB_LOCK_TIMEOUT_SECS, "1");
        if let Some(fault) = fault {
            request = request.header(LAB_FAULT, fault);
        }
        send(request).await
    }

    /// Buys with `key` on `design`, asking the server to crash right after
    /// the charge; returns what the client got and the request's steps, up
    /// to its crash.
    pub async fn buy_and_crash_after_charge(
        &self,
        design: &str,
        key: &str,
    ) -> (Attempt, Vec<Step>) {
        let mut steps = self.design(design).steps().await;
        let crashed = self.buy(design, key, Some("crash-after-charge")).await;
        let taken = steps
            .until(|step| step.key == key && step.kind == StepKind::Crashed)
            .await;
        (crashed, taken)
    }

    /// Retries `key` on `design` once the lock of the claim among `steps`
    /// (a crashed request's: 1 s) has run out, as a careful client told
    /// "still in progress" does.
    pub async fn buy_once_its_lock_ran_out(
        &self,
        design: &str,
        key: &str,
        steps: &[Step],
    ) -> Attempt {
        until_the_lock_has_run_out(steps, 1).await;
        self.buy(design, key, None).await
    }

    /// How many orders `design` holds for `key`.
    pub async fn orders_for(&self, design: &str, key: &str) -> usize {
        self.design(design)
            .orders()
            .await
            .iter()
            .filter(|order| order.idempotency_key == key)
            .count()
    }

    /// What `design` did for this lab at the provider and the mail sink,
    /// once its outbox (if it has one) has sent everything it holds. The
    /// outbox is drained in the background, where no step is reported:
    /// the event waited for is its count, `emails_waiting`, reaching 0.
    pub async fn side_effects(&self, design: &str) -> SideEffects {
        for _ in 0..100 {
            let all: Vec<SideEffects> = self
                .get("/api/side-effects")
                .send()
                .await
                .expect("side effects answer")
                .json()
                .await
                .expect("side effects are JSON");
            let effects = all
                .into_iter()
                .find(|effects| effects.server == design)
                .unwrap_or_else(|| panic!("no side effects listed for {design}"));
            if effects.emails_waiting == 0 {
                return effects;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("{design}'s outbox still held e-mails after 5 s");
    }

    /// A client of this lab for any path: `GET {base}{path}` with its secret.
    pub fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.http
            .get(format!("{}{path}", self.base))
            .header(LAB_SECRET, &self.lab.secret)
    }
}
