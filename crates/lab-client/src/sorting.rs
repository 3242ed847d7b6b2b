//! Sorting by a whole-number key through one sort the whole page shares.
//!
//! Each `sort_by_key` on a new element type compiles the standard library's
//! stable sort again for the page; six of them were 21 KB of its wasm
//! (measured with twiggy). Here every caller sorts the same `(key,
//! position)` pairs, so the sort is compiled once, and only the small
//! reordering below is compiled per element type.

/// Sorts `items` by `key`, keeping the order of items whose keys are equal.
pub fn sort_by_number<T>(items: &mut Vec<T>, key: impl Fn(&T) -> i64) {
    let mut keyed: Vec<(i64, usize)> = items
        .iter()
        .enumerate()
        .map(|(position, item)| (key(item), position))
        .collect();
    // The position breaks ties, so the unstable sort keeps equal keys in order.
    keyed.sort_unstable();
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(
        keyed
            .into_iter()
            .filter_map(|(_, position)| slots[position].take()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_out_in_key_order_with_ties_in_their_first_order() {
        let mut items = vec![(3, 'a'), (1, 'b'), (3, 'c'), (-2, 'd'), (1, 'e')];
        sort_by_number(&mut items, |(key, _)| *key);
        assert_eq!(
            items,
            vec![(-2, 'd'), (1, 'b'), (1, 'e'), (3, 'a'), (3, 'c')]
        );
    }

    #[test]
    fn an_empty_list_stays_empty() {
        let mut items: Vec<u8> = Vec::new();
        sort_by_number(&mut items, |item| i64::from(*item));
        assert!(items.is_empty());
    }
}
