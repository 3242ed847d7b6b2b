//! The diagram's layout from hand-made step lists: lifelines, the order and
//! ends of arrows, time to scale and folded waits.

use lab_wire::KeyFound;

use super::*;

fn step(seq: u64, request: u64, at_ms: i64, kind: StepKind) -> Step {
    Step {
        seq,
        request,
        key: format!("{request}abcdef0-0000"),
        at_us: 1_000_000 + at_ms * 1000,
        kind,
    }
}

const NOTHING: StepKind = StepKind::KeyLookedUp {
    found: KeyFound::Nothing,
};
const CREATED: StepKind = StepKind::Answered {
    status: 201,
    replayed: false,
};

/// Two copies of one purchase on the naive server: both look, then both insert.
fn naive_race() -> Vec<Step> {
    vec![
        step(1, 7, 0, NOTHING),
        step(2, 8, 1, NOTHING),
        step(3, 7, 2, StepKind::SlowPartStarted { ms: 300 }),
        step(4, 8, 3, StepKind::SlowPartStarted { ms: 300 }),
        step(5, 7, 302, StepKind::OrderInserted),
        step(6, 8, 303, StepKind::OrderInserted),
        step(7, 7, 304, CREATED),
        step(8, 8, 305, CREATED),
    ]
}

fn lines(diagram: &Diagram) -> Vec<(Role, &str)> {
    diagram
        .lifelines
        .iter()
        .map(|line| (line.role, line.label.as_str()))
        .collect()
}

#[test]
fn each_request_gets_a_lifeline_left_of_the_server_and_the_database() {
    let diagram = Diagram::of(&naive_race(), 1_000_000, Scale::Folded, Locale::en);
    assert_eq!(
        lines(&diagram),
        [
            (Role::Request, "Request 1"),
            (Role::Request, "Request 2"),
            (Role::Server, "Server"),
            (Role::Database, "Database"),
        ]
    );
    let xs: Vec<f64> = diagram.lifelines.iter().map(|line| line.x).collect();
    assert!(xs.windows(2).all(|pair| pair[0] < pair[1]), "{xs:?}");
    assert_eq!(diagram.lifelines[0].note, "7abcdef0");
    assert_eq!(diagram.width, xs[3] + MARGIN);

    let chinese = Diagram::of(&naive_race(), 1_000_000, Scale::Folded, Locale::zh_CN);
    assert_eq!(chinese.lifelines[1].label, "请求 2");
    assert_eq!(chinese.lifelines[2].label, "服务器");
    assert_eq!(chinese.lifelines[3].label, "数据库");
}

#[test]
fn the_naive_race_shows_both_lookups_above_the_first_insert() {
    let diagram = Diagram::of(&naive_race(), 1_000_000, Scale::Folded, Locale::en);
    let (server, database) = (2, 3);
    let lookups: Vec<&Event> = diagram
        .events
        .iter()
        .filter(|e| e.tone == "found-nothing")
        .collect();
    let first_insert = diagram
        .events
        .iter()
        .find(|e| e.step == Some(StepKind::OrderInserted))
        .unwrap();
    assert_eq!(lookups.len(), 2);
    for lookup in &lookups {
        assert_eq!((lookup.from, lookup.to), (server, database));
        assert!(
            lookup.y < first_insert.y,
            "{lookup:?} above {first_insert:?}"
        );
    }
    assert_eq!(lookups[1].label, "#2 looked for the key: none");

    // A request arrives before its first step; an answer goes back to its own lifeline.
    let arrivals: Vec<(usize, usize, f64)> = diagram
        .events
        .iter()
        .filter(|e| e.step.is_none())
        .map(|e| (e.from, e.to, e.at_ms))
        .collect();
    assert_eq!(arrivals, [(0, server, 0.0), (1, server, 1.0)]);
    let answers: Vec<(usize, usize)> = diagram
        .events
        .iter()
        .filter(|e| e.tone == "answer")
        .map(|e| (e.from, e.to))
        .collect();
    assert_eq!(answers, [(server, 0), (server, 1)]);
    let ys: Vec<f64> = diagram.events.iter().map(|e| e.y).collect();
    assert!(ys.windows(2).all(|pair| pair[0] <= pair[1]), "{ys:?}");
    // Each arrival and its request's first statement share a row; nothing else does.
    let shared: Vec<(Option<StepKind>, Option<StepKind>)> = diagram
        .events
        .windows(2)
        .filter(|pair| pair[0].y == pair[1].y)
        .map(|pair| (pair[0].step, pair[1].step))
        .collect();
    assert_eq!(shared, [(None, Some(NOTHING)), (None, Some(NOTHING))]);
}

#[test]
fn a_refusal_a_lost_answer_and_a_crash_have_shapes_of_their_own() {
    let steps = [
        step(1, 1, 0, StepKind::KeyClaimed),
        step(2, 2, 1, StepKind::KeyConflict),
        step(3, 1, 2, StepKind::OrderInserted),
        step(4, 1, 3, StepKind::Crashed),
        step(5, 2, 4, StepKind::ResponseDropped),
    ];
    let diagram = Diagram::of(&steps, 1_000_000, Scale::Folded, Locale::en);
    let shape_of = |kind: StepKind| {
        let event = diagram
            .events
            .iter()
            .find(|e| e.step == Some(kind))
            .unwrap();
        (event.shape, event.from, event.to)
    };
    assert_eq!(shape_of(StepKind::KeyConflict), (Shape::Refused, 2, 3));
    assert_eq!(shape_of(StepKind::KeyClaimed), (Shape::Arrow, 2, 3));
    assert_eq!(shape_of(StepKind::Crashed), (Shape::Mark, 2, 2));
    assert_eq!(shape_of(StepKind::ResponseDropped), (Shape::Lost, 2, 1));
    let crash = diagram
        .events
        .iter()
        .find(|e| e.step == Some(StepKind::Crashed))
        .unwrap();
    assert_eq!((crash.request, crash.label.as_str()), (1, "#1 crashed"));
}

#[test]
fn short_waits_are_drawn_to_scale_and_long_ones_folded() {
    let diagram = Diagram::of(&naive_race(), 1_000_000, Scale::Folded, Locale::en);
    let y_of = |seq_ms: f64| {
        diagram
            .events
            .iter()
            .find(|e| e.at_ms == seq_ms && e.step.is_some())
            .unwrap()
            .y
    };
    // 1 ms apart: the second request's arrival and look-up (one row) take
    // the least room a row takes.
    assert_eq!(y_of(1.0) - y_of(0.0), ROW);
    // 299 ms of slow payment would take 239 px: folded, and the fold says how long it was.
    assert_eq!(y_of(302.0) - y_of(3.0), FOLDED_GAP);
    assert_eq!(diagram.folds.len(), 1);
    assert_eq!(diagram.folds[0].skipped_ms, 299.0);
    assert_eq!(diagram.height, y_of(305.0) + BOTTOM);

    let to_scale = Diagram::of(&naive_race(), 1_000_000, Scale::ToScale, Locale::en);
    assert!(to_scale.folds.is_empty());
    let gap = |d: &Diagram| d.events[6].y - d.events[5].y;
    assert!(
        gap(&to_scale) > 200.0,
        "the wait is to scale: {}",
        gap(&to_scale)
    );
}

#[test]
fn a_long_run_drawn_to_scale_is_squeezed_to_fit() {
    let steps = [
        step(1, 1, 0, StepKind::SlowPartStarted { ms: 5000 }),
        step(2, 1, 5000, StepKind::OrderInserted),
        step(3, 1, 5001, CREATED),
    ];
    let diagram = Diagram::of(&steps, 1_000_000, Scale::ToScale, Locale::en);
    assert!(
        diagram.height <= TOP + TALLEST_TO_SCALE + BOTTOM,
        "{}",
        diagram.height
    );
    assert!(diagram.events[2].y - diagram.events[1].y > 300.0);
}

#[test]
fn playback_shows_what_had_happened_by_a_moment_on_a_shared_axis() {
    let naive = naive_race();
    // The other pane's server started 2 ms earlier: the axis starts there.
    let safe = vec![
        step(1, 1, -2, StepKind::KeyClaimed),
        step(2, 1, 310, CREATED),
    ];
    let origin = origin_us([naive.as_slice(), safe.as_slice()]).unwrap();
    assert_eq!(origin, 998_000);
    let left = Diagram::of(&naive, origin, Scale::Folded, Locale::en);
    let right = Diagram::of(&safe, origin, Scale::Folded, Locale::en);
    assert_eq!(left.events[0].at_ms, 2.0);

    let times = moments([&left, &right]);
    assert_eq!(times.first(), Some(&0.0));
    assert_eq!(times.last(), Some(&312.0));
    assert!(times.windows(2).all(|pair| pair[0] < pair[1]));

    assert_eq!(left.shown_at(-1.0), 0);
    assert_eq!(left.playhead_y(-1.0), TOP - ROW / 2.0);
    // At +4 ms: both arrivals, both lookups, and one slow part had begun.
    assert_eq!(left.shown_at(4.0), 5);
    assert_eq!(left.playhead_y(4.0), left.events[4].y);
    assert_eq!(left.shown_at(1000.0), left.events.len());
    assert!(Diagram::default().is_empty());
}
