//! The verdicts for each outcome, from hand-made runs, in both languages:
//! the same numbers must reach the learner whichever language they read.

use super::*;
use crate::preset;

fn attempt(copy: u8, number: u8, key: &str, outcome: Outcome) -> AttemptRecord {
    AttemptRecord {
        copy,
        number,
        key: key.into(),
        started_ms: 0.0,
        ended_ms: Some(10.0),
        outcome: Some(outcome),
    }
}

fn facts<'a>(
    policy: &'a ClientPolicy,
    attempts: &'a [AttemptRecord],
    orders: usize,
) -> RunFacts<'a> {
    RunFacts {
        design: Design::Naive,
        policy,
        attempts,
        orders,
        amount_cents: 450,
    }
}

/// The verdict in English and in Chinese.
fn both(facts: &RunFacts<'_>) -> (String, String) {
    (verdict(facts, Locale::en), verdict(facts, Locale::zh_CN))
}

fn policy_of(id: &str) -> &'static ClientPolicy {
    &preset(id).unwrap().policy
}

#[test]
fn concurrent_duplicates_are_explained_with_the_double_charge() {
    let policy = policy_of("concurrent-sends");
    let attempts: Vec<_> = (1..=3)
        .map(|copy| attempt(copy, 1, "3f2a9c1e-aaaa", Outcome::Created))
        .collect();
    let (en, zh) = both(&facts(policy, &attempts, 3));
    assert!(
        en.starts_with("3 requests with key 3f2a9c1e… reached the server together"),
        "{en}"
    );
    assert!(en.contains("3 orders for one purchase"), "{en}");
    assert!(en.contains("3 × 4.50 = 13.50"), "{en}");
    assert!(
        zh.starts_with("3 个带键 3f2a9c1e… 的请求同时到达服务器"),
        "{zh}"
    );
    assert!(zh.contains("一次购买，3 笔订单"), "{zh}");
    assert!(zh.contains("顾客被扣款 3 × 4.50 = 13.50。"), "{zh}");
    assert!(zh.contains("竞态条件"), "{zh}");
}

#[test]
fn concurrent_copies_answered_with_the_winners_order_are_called_copies_not_retries() {
    let policy = policy_of("concurrent-sends");
    let attempts = [
        attempt(1, 1, "3f2a9c1e-aaaa", Outcome::Created),
        attempt(2, 1, "3f2a9c1e-aaaa", Outcome::Replayed),
        attempt(3, 1, "3f2a9c1e-aaaa", Outcome::Replayed),
    ];
    let (en, zh) = both(&facts(policy, &attempts, 1));
    assert!(
        en.contains(
            "3 attempts with key 3f2a9c1e… left exactly one order (one of them created it)"
        ),
        "{en}"
    );
    assert!(
        en.contains("2 later copies got the stored answer replayed"),
        "{en}"
    );
    assert!(
        zh.contains("3 次尝试只留下了一笔订单（由其中一次创建）"),
        "{zh}"
    );
    assert!(zh.contains("2 份后到的副本拿到了重放的已存响应"), "{zh}");
}

#[test]
fn a_crash_on_the_transactional_server_is_explained_as_a_rollback() {
    let policy = policy_of("crash");
    let attempts = [
        attempt(1, 1, "3f2a9c1e-aaaa", Outcome::Crashed),
        attempt(1, 2, "3f2a9c1e-aaaa", Outcome::Created),
    ];
    let on = |design| {
        both(&RunFacts {
            design,
            ..facts(policy, &attempts, 1)
        })
    };
    let (en, zh) = on(Design::Transactional);
    assert!(
        en.contains("crashed once after writing the order, before committing"),
        "{en}"
    );
    assert!(
        en.contains("rolled back the key, the order and all"),
        "{en}"
    );
    assert!(
        zh.contains("崩溃了 1 次，数据库回滚了键、订单和其他一切"),
        "{zh}"
    );
    let (en, zh) = on(Design::Safe);
    assert!(en.contains("before saving its answer"), "{en}");
    assert!(!en.contains("rolled back"), "{en}");
    assert!(zh.contains("保存响应之前崩溃了 1 次"), "{zh}");
    assert!(!zh.contains("回滚"), "{zh}");
}

#[test]
fn a_timeout_retry_duplicate_blames_the_timeout() {
    let policy = policy_of("slow-response");
    let attempts = [
        attempt(1, 1, "k", Outcome::TimedOut),
        attempt(1, 2, "k", Outcome::TimedOut),
        attempt(1, 3, "k", Outcome::Replayed),
    ];
    let (en, zh) = both(&facts(policy, &attempts, 2));
    assert!(
        en.contains("gave up after 500 ms while the server was still working (1200 ms)"),
        "{en}"
    );
    assert!(en.contains("concurrency in disguise"), "{en}");
    assert!(zh.contains("需要 1200 毫秒"), "{zh}");
    assert!(zh.contains("等了 500 毫秒就放弃"), "{zh}");
    assert!(zh.contains("一次购买，2 笔订单"), "{zh}");
    assert!(zh.contains("伪装起来的并发"), "{zh}");
}

#[test]
fn one_order_after_a_409_and_a_replay_says_so() {
    let policy = policy_of("slow-response");
    let attempts = [
        attempt(1, 1, "k", Outcome::TimedOut),
        attempt(1, 2, "k", Outcome::InProgress),
        attempt(1, 3, "k", Outcome::Replayed),
    ];
    let (en, zh) = both(&facts(policy, &attempts, 1));
    assert!(en.contains("exactly one order"), "{en}");
    assert!(en.contains("the client stopped waiting once"), "{en}");
    assert!(en.contains("1 attempt was told 409"), "{en}");
    assert!(
        en.contains("1 retry got the stored answer replayed"),
        "{en}"
    );
    assert!(en.ends_with("The customer pays 4.50 once."), "{en}");
    assert!(zh.contains("1 次尝试收到 409"), "{zh}");
    assert!(zh.contains("1 次重试拿到了重放的已存响应"), "{zh}");
    assert!(zh.ends_with("顾客只付一次 4.50。"), "{zh}");
}

#[test]
fn new_keys_per_attempt_are_named_as_the_cause() {
    let policy = policy_of("new-key-per-attempt");
    let attempts = [
        attempt(1, 1, "k1", Outcome::Dropped),
        attempt(1, 2, "k2", Outcome::Created),
    ];
    let (en, zh) = both(&facts(policy, &attempts, 2));
    assert!(
        en.contains("Every attempt carried a new key (2 for one purchase)"),
        "{en}"
    );
    assert!(en.contains("2 × 4.50 = 9.00"), "{en}");
    assert!(zh.contains("一次购买用了 2 个键"), "{zh}");
    assert!(zh.contains("2 × 4.50 = 9.00"), "{zh}");
}

#[test]
fn a_dropped_answer_that_was_replayed_is_one_order() {
    let policy = policy_of("dropped-response");
    let attempts = [
        attempt(1, 1, "k", Outcome::Dropped),
        attempt(1, 2, "k", Outcome::Replayed),
    ];
    let (en, zh) = both(&facts(policy, &attempts, 1));
    assert!(en.contains("1 answer was lost on the way back"), "{en}");
    assert!(en.contains("exactly one order (it was created)"), "{en}");
    assert!(zh.contains("有 1 个响应在返回途中丢失"), "{zh}");
    assert!(zh.contains("只留下了一笔订单（订单已创建）"), "{zh}");
}

#[test]
fn a_crash_that_left_two_orders_blames_the_separate_answer() {
    let policy = policy_of("crash");
    let attempts = [
        attempt(1, 1, "k", Outcome::Crashed),
        attempt(1, 2, "k", Outcome::Created),
    ];
    let (en, zh) = both(&facts(policy, &attempts, 2));
    assert!(en.contains("crashed after writing the order"), "{en}");
    assert!(en.contains("2 × 4.50 = 9.00"), "{en}");
    assert!(zh.contains("写入订单后、保存响应前崩溃"), "{zh}");
    assert!(zh.contains("一次购买，2 笔订单"), "{zh}");
}

#[test]
fn a_crash_that_left_one_order_tells_the_409s_and_the_recovery() {
    let policy = policy_of("crash");
    let attempts = [
        attempt(1, 1, "k", Outcome::Crashed),
        attempt(1, 2, "k", Outcome::InProgress),
        attempt(1, 2, "k", Outcome::InProgress),
        attempt(1, 3, "k", Outcome::Created),
    ];
    let (en, zh) = both(&facts(policy, &attempts, 1));
    assert!(en.contains("exactly one order"), "{en}");
    assert!(en.contains("crashed once after writing the order"), "{en}");
    assert!(en.contains("2 attempts were told 409"), "{en}");
    assert!(zh.contains("2 次尝试收到 409"), "{zh}");
    assert!(
        zh.contains("；"),
        "the clauses are joined the Chinese way: {zh}"
    );
}

#[test]
fn a_changed_order_is_refused_by_one_server_and_silently_replayed_by_the_other() {
    let policy = policy_of("changed-payload");
    let refused = Outcome::Rejected {
        status: 422,
        problem: "/problems/idempotency-key-reused".into(),
    };
    let safe = [
        attempt(1, 1, "k", Outcome::Dropped),
        attempt(1, 2, "k", refused),
    ];
    let (en, zh) = both(&facts(policy, &safe, 1));
    assert!(
        en.contains("1 retry with a different order under the same key was refused (422"),
        "{en}"
    );
    assert!(
        zh.contains("1 次用同一个键提交不同订单的重试被拒绝（422"),
        "{zh}"
    );
    let naive = [
        attempt(1, 1, "k", Outcome::Dropped),
        attempt(1, 2, "k", Outcome::Replayed),
    ];
    let (en, zh) = both(&facts(policy, &naive, 1));
    assert!(
        en.contains(
            "asked for a different order (5.50) and was answered with the first one's (4.50)"
        ),
        "{en}"
    );
    assert!(zh.contains("另一笔订单（5.50）"), "{zh}");
    assert!(zh.contains("第一笔订单的响应（4.50）"), "{zh}");
}

#[test]
fn a_retry_after_expiry_names_the_retention() {
    let policy = policy_of("expiry");
    let attempts = [
        attempt(1, 1, "k", Outcome::Dropped),
        attempt(1, 2, "k", Outcome::Created),
    ];
    let (en, zh) = both(&facts(policy, &attempts, 2));
    assert!(en.contains("kept key k… for 2 s only"), "{en}");
    assert!(zh.contains("只把键 k… 保留了 2 秒"), "{zh}");
}

#[test]
fn cancelled_work_is_explained_with_the_claim_left_behind() {
    let policy = policy_of("hang-up");
    let attempts = [
        attempt(1, 1, "k", Outcome::TimedOut),
        attempt(1, 2, "k", Outcome::InProgress),
        attempt(1, 3, "k", Outcome::TimedOut),
    ];
    let (en, zh) = both(&facts(policy, &attempts, 0));
    assert!(en.contains("gave up after 400 ms each time"), "{en}");
    assert!(en.contains("a claim on the key was left behind"), "{en}");
    assert!(zh.contains("每次等了 400 毫秒就放弃"), "{zh}");
    assert!(zh.contains("没有订单的占用"), "{zh}");
    let without_claim = [attempt(1, 1, "k", Outcome::TimedOut)];
    let (en, zh) = both(&facts(policy, &without_claim, 0));
    assert!(!en.contains("claim"), "{en}");
    assert!(!zh.contains("占用"), "{zh}");
}

#[test]
fn a_run_that_stored_nothing_points_at_the_timeline() {
    let policy = ClientPolicy::default();
    let refused = Outcome::Rejected {
        status: 422,
        problem: "/problems/invalid-order".into(),
    };
    let one = [attempt(1, 1, "k", refused.clone())];
    let (en, zh) = both(&facts(&policy, &one, 0));
    assert!(
        en.starts_with("1 request was sent, and no order was stored"),
        "{en}"
    );
    assert!(
        zh.starts_with("共发送了 1 个请求，但没有存下任何订单"),
        "{zh}"
    );
    let two = [
        attempt(1, 1, "k", refused.clone()),
        attempt(2, 1, "k", refused),
    ];
    let (en, _) = both(&facts(&policy, &two, 0));
    assert!(en.starts_with("2 requests were sent"), "{en}");
}

#[test]
fn no_verdict_is_the_same_text_in_both_languages() {
    let policy = policy_of("dropped-response");
    let attempts = [
        attempt(1, 1, "k", Outcome::Dropped),
        attempt(1, 2, "k", Outcome::Replayed),
    ];
    for orders in 0..3 {
        let (en, zh) = both(&facts(policy, &attempts, orders));
        assert_ne!(en, zh, "{orders} orders");
        assert!(!zh.contains(" The "), "{zh}");
    }
}

#[test]
fn five_posts_without_a_key_are_five_orders_the_server_could_not_tell_apart() {
    let policy = ClientPolicy {
        no_key: true,
        copies: 5,
        retries: 0,
        ..ClientPolicy::PLAIN
    };
    let attempts: Vec<AttemptRecord> = (1..=5)
        .map(|copy| attempt(copy, 1, "", Outcome::Created))
        .collect();
    let (en, zh) = both(&facts(&policy, &attempts, 5));
    assert_eq!(
        en,
        "No request carried a key, so the server had nothing to tell a repeat from a new purchase by: 5 requests, 5 orders. The customer is charged 5 × 4.50 = 22.50."
    );
    assert_eq!(
        zh,
        "没有一个请求带键，服务器无从分辨重复请求和新的购买：5 个请求，5 笔订单。顾客被扣款 5 × 4.50 = 22.50。"
    );
}

#[test]
fn reads_are_counted_and_change_nothing() {
    let policy = ClientPolicy {
        read_only: true,
        copies: 5,
        retries: 0,
        ..ClientPolicy::PLAIN
    };
    let attempts: Vec<AttemptRecord> = (1..=5)
        .map(|copy| attempt(copy, 1, "", Outcome::Read { orders: 2 }))
        .collect();
    let (en, zh) = both(&facts(&policy, &attempts, 0));
    assert_eq!(
        en,
        "5 GETs read the orders and changed nothing: 0 orders were made by this run. Reading again is always safe."
    );
    assert_eq!(
        zh,
        "5 个 GET 请求读取了订单，什么也没改变：这次运行创建了 0 笔订单。重复读取永远是安全的。"
    );
}
