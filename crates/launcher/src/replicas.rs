//! `--replicas N`: each design served by N server processes' worth of
//! state — a connection pool of its own and, for the locked server, locks
//! of its own — with requests spread over them in turn, as a load balancer
//! in front of N processes does. Every answer names the replica that gave
//! it (`Lab-Replica: 1…N`). What the lab still shares between them is its
//! instruments, the step hub a page watches, the open schedules and
//! explorations (a release must find its schedule whichever replica it
//! reaches) and the room's limits, and the world outside: one payment
//! provider and one mail sink.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::Request;
use axum::http::HeaderValue;
use axum::response::IntoResponse;
use lab_core::explorations::Explorations;
use lab_core::schedules::Schedules;
use lab_core::{Db, OrderServer, Outside, StepHub};
use lab_platform::access::TeacherToken;
use lab_platform::limits::Room;
use lab_wire::headers::LAB_REPLICA;
use tower::ServiceExt;

/// What every design's servers share with the lab's other designs.
#[derive(Debug, Clone, Copy)]
pub struct SharedByDesigns<'a> {
    /// The room's limits, which hold over every design together.
    pub room: &'a Room,
    /// Whose token reads every lab.
    pub teacher: &'a TeacherToken,
    /// The payment provider and the mail sink.
    pub outside: &'a Outside,
    /// The explorations: one per lab at a time, whichever design.
    pub explorations: &'a Explorations,
}

/// One design's routes over `replicas` (one database handle each), and the
/// step hub its replicas share.
pub fn design_routes<S: OrderServer>(
    replicas: &[Db],
    shared: SharedByDesigns,
) -> (Router, StepHub) {
    let SharedByDesigns {
        room,
        teacher,
        outside,
        explorations,
    } = shared;
    let hub = StepHub::new();
    let schedules = Schedules::default();
    let routers: Vec<Router> = replicas
        .iter()
        .map(|db| {
            let mut state = S::state_in(db.clone(), room.clone())
                .with_teacher(teacher.clone())
                .with_outside(outside.clone());
            state.steps = hub.clone();
            state.schedules = schedules.clone();
            state.explorations = explorations.clone();
            S::routes(state)
        })
        .collect();
    (in_turn(routers), hub)
}

/// `routers` as one, each request to the next in turn; one router alone as it is.
fn in_turn(mut routers: Vec<Router>) -> Router {
    if routers.len() == 1 {
        return routers.remove(0);
    }
    let routers: Arc<[Router]> = routers.into();
    let next = Arc::new(AtomicUsize::new(0));
    Router::new().fallback(move |request: Request| {
        let index = next.fetch_add(1, Ordering::Relaxed) % routers.len();
        let router = routers[index].clone();
        async move {
            let mut response = router.oneshot(request).await.into_response();
            response
                .headers_mut()
                .insert(LAB_REPLICA, HeaderValue::from(index + 1));
            response
        }
    })
}
