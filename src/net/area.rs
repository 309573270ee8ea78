//! KataGo's area: Benson's pass-alive strings and territories as `Board::calculateArea` finds
//! them, for the net's area features.
//!
//! The second home of pass-alive reading, for the net's sake: `game::benson` serves tengen's
//! scoring; this one follows KataGo's `calculateAreaForPla` exactly (its regions include the
//! opponent's stones, its vital-region test depends on whether multi-stone suicide is legal,
//! and it marks safe and unsafe big territories and non-pass-alive stones as the features ask).

use super::kataboard::{ARR, BLACK, EMPTY, KataBoard, WHITE, opp};

/// Who each location belongs to (`EMPTY`, `BLACK`, `WHITE`), as `calculateArea` with
/// `nonPassAliveStones`, `safeBigTerritories` and `unsafeBigTerritories` all set: pass-alive
/// strings and their territories, empty regions bordered by one colour only, and every other
/// stone to its own colour.
pub(crate) fn calculate_area(board: &KataBoard, multi_stone_suicide_legal: bool) -> [u8; ARR] {
    let mut result = [EMPTY; ARR];
    for pla in [BLACK, WHITE] {
        area_for_pla(board, pla, multi_stone_suicide_legal, &mut result);
    }
    for y in 0..board.size {
        for x in 0..board.size {
            let loc = board.loc(x, y);
            if result[loc] == EMPTY {
                result[loc] = board.colors[loc];
            }
        }
    }
    result
}

/// One region of empty points and opponent stones.
struct Region {
    head: usize,
    /// The heads of `pla`'s strings this region is vital for.
    vital_for: Vec<usize>,
    /// Points not next to any `pla` stone, counted up to 2.
    internal_spaces: u8,
    contains_opp: bool,
}

/// `calculateAreaForPla` with safe and unsafe big territories.
fn area_for_pla(board: &KataBoard, pla: u8, suicide_legal: bool, result: &mut [u8; ARR]) {
    let opp = opp(pla);
    let colors = &board.colors;
    let mut region_of = [usize::MAX; ARR];
    let mut next_in_region = [0usize; ARR];
    let mut borders_dead = [false; ARR];
    let mut regions: Vec<Region> = Vec::new();
    let mut queue: Vec<usize> = Vec::with_capacity(board.size * board.size);

    let mut at_least_one_pla = false;
    for y in 0..board.size {
        for x in 0..board.size {
            let loc = board.loc(x, y);
            if region_of[loc] != usize::MAX {
                continue;
            }
            if colors[loc] != EMPTY {
                at_least_one_pla |= colors[loc] == pla;
                continue;
            }
            let index = regions.len();
            let mut vital_for: Vec<usize> = Vec::new();
            for &d in &board.adj {
                let adj = (loc as isize + d) as usize;
                if colors[adj] == pla {
                    let head = board.chain_head[adj] as usize;
                    if !vital_for.contains(&head) {
                        vital_for.push(head);
                    }
                }
            }
            let mut region = Region {
                head: loc,
                vital_for,
                internal_spaces: 0,
                contains_opp: false,
            };
            // Breadth-first over empty points and opponent stones, linking them in a circle.
            let mut tail = loc;
            queue.clear();
            queue.push(loc);
            region_of[loc] = index;
            let mut q = 0;
            while q < queue.len() {
                let here = queue[q];
                q += 1;
                if !region.vital_for.is_empty() && (suicide_legal || colors[here] == EMPTY) {
                    region
                        .vital_for
                        .retain(|&head| board.is_adjacent_to_pla_head(pla, here, head));
                }
                if region.internal_spaces < 2 && !board.is_adjacent_to_pla(here, pla) {
                    region.internal_spaces += 1;
                }
                if colors[here] == opp {
                    region.contains_opp = true;
                }
                next_in_region[here] = tail;
                tail = here;
                for &d in &board.adj {
                    let adj = (here as isize + d) as usize;
                    if (colors[adj] == EMPTY || colors[adj] == opp) && region_of[adj] == usize::MAX
                    {
                        queue.push(adj);
                        region_of[adj] = index;
                    }
                }
            }
            next_in_region[loc] = tail;
            regions.push(region);
        }
    }

    let heads: Vec<usize> = (0..ARR)
        .filter(|&loc| colors[loc] == pla && board.chain_head[loc] as usize == loc)
        .collect();
    let mut vital_count = [0i32; ARR];
    for region in &regions {
        for &head in &region.vital_for {
            vital_count[head] += 1;
        }
    }
    let mut killed = vec![false; heads.len()];
    loop {
        let mut killed_any = false;
        for (i, &head) in heads.iter().enumerate() {
            if killed[i] || vital_count[head] >= 2 {
                continue;
            }
            killed[i] = true;
            killed_any = true;
            for stone in board.chain_stones(head) {
                for &d in &board.adj {
                    let adj = (stone as isize + d) as usize;
                    let index = region_of[adj];
                    if index == usize::MAX || !(colors[adj] == EMPTY || colors[adj] == opp) {
                        continue;
                    }
                    let region = &regions[index];
                    if !borders_dead[region.head] {
                        borders_dead[region.head] = true;
                        for &h in &region.vital_for {
                            vital_count[h] -= 1;
                        }
                    }
                }
            }
        }
        if !killed_any {
            break;
        }
    }
    for (i, &head) in heads.iter().enumerate() {
        if !killed[i] {
            for stone in board.chain_stones(head) {
                result[stone] = pla;
            }
        }
    }

    for region in &regions {
        let alive_border = !borders_dead[region.head] && at_least_one_pla;
        let mark = alive_border && (region.internal_spaces <= 1 || !region.contains_opp);
        let mut cur = region.head;
        if mark {
            loop {
                result[cur] = pla;
                cur = next_in_region[cur];
                if cur == region.head {
                    break;
                }
            }
        } else if !region.contains_opp && at_least_one_pla {
            loop {
                if result[cur] == EMPTY {
                    result[cur] = pla;
                }
                cur = next_in_region[cur];
                if cur == region.head {
                    break;
                }
            }
        }
    }
}
