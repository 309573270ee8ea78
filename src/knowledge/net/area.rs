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
    /// Where the heads of `pla`'s strings this region is vital for start in the shared list.
    vital_start: usize,
    vital_len: usize,
    /// Points not next to any `pla` stone, counted up to 2.
    internal_spaces: u8,
    contains_opp: bool,
    /// Next to a string found not pass-alive.
    borders_dead: bool,
}

/// No region.
const NONE: u16 = u16::MAX;

/// `calculateAreaForPla` with safe and unsafe big territories.
fn area_for_pla(board: &KataBoard, pla: u8, suicide_legal: bool, result: &mut [u8; ARR]) {
    let opp = opp(pla);
    let colors = &board.colors;
    let mut region_of = [NONE; ARR];
    let mut next_in_region = [0u16; ARR];
    let mut regions: Vec<Region> = Vec::with_capacity(64);
    let mut vital: Vec<usize> = Vec::with_capacity(256);
    let mut queue = [0u16; ARR];

    let mut at_least_one_pla = false;
    for y in 0..board.size {
        for x in 0..board.size {
            let loc = board.loc(x, y);
            if region_of[loc] != NONE {
                continue;
            }
            if colors[loc] != EMPTY {
                at_least_one_pla |= colors[loc] == pla;
                continue;
            }
            let index = regions.len() as u16;
            let vital_start = vital.len();
            for &d in &board.adj {
                let adj = (loc as isize + d) as usize;
                if colors[adj] == pla {
                    let head = board.chain_head[adj] as usize;
                    if !vital[vital_start..].contains(&head) {
                        vital.push(head);
                    }
                }
            }
            let mut region = Region {
                head: loc,
                vital_start,
                vital_len: vital.len() - vital_start,
                internal_spaces: 0,
                contains_opp: false,
                borders_dead: false,
            };
            // Breadth-first over empty points and opponent stones, linking them in a circle.
            let mut tail = loc;
            queue[0] = loc as u16;
            let (mut q, mut queued) = (0, 1);
            region_of[loc] = index;
            while q < queued {
                let here = queue[q] as usize;
                q += 1;
                if region.vital_len > 0 && (suicide_legal || colors[here] == EMPTY) {
                    let mut kept = 0;
                    for i in 0..region.vital_len {
                        let head = vital[vital_start + i];
                        if board.is_adjacent_to_pla_head(pla, here, head) {
                            vital[vital_start + kept] = head;
                            kept += 1;
                        }
                    }
                    region.vital_len = kept;
                }
                if region.internal_spaces < 2 && !board.is_adjacent_to_pla(here, pla) {
                    region.internal_spaces += 1;
                }
                if colors[here] == opp {
                    region.contains_opp = true;
                }
                next_in_region[here] = tail as u16;
                tail = here;
                for &d in &board.adj {
                    let adj = (here as isize + d) as usize;
                    if (colors[adj] == EMPTY || colors[adj] == opp) && region_of[adj] == NONE {
                        queue[queued] = adj as u16;
                        queued += 1;
                        region_of[adj] = index;
                    }
                }
            }
            next_in_region[loc] = tail as u16;
            vital.truncate(vital_start + region.vital_len);
            regions.push(region);
        }
    }

    let mut heads = [0u16; ARR];
    let mut num_heads = 0;
    for y in 0..board.size {
        for x in 0..board.size {
            let loc = board.loc(x, y);
            if colors[loc] == pla && board.chain_head[loc] as usize == loc {
                heads[num_heads] = loc as u16;
                num_heads += 1;
            }
        }
    }
    let heads = &heads[..num_heads];
    let mut vital_count = [0u16; ARR];
    for &head in &vital {
        vital_count[head] += 1;
    }
    let mut killed = [false; ARR];
    loop {
        let mut killed_any = false;
        for (i, &head) in heads.iter().enumerate() {
            let head = head as usize;
            if killed[i] || vital_count[head] >= 2 {
                continue;
            }
            killed[i] = true;
            killed_any = true;
            for stone in board.chain_stones(head) {
                for &d in &board.adj {
                    let adj = (stone as isize + d) as usize;
                    let index = region_of[adj];
                    if index == NONE || !(colors[adj] == EMPTY || colors[adj] == opp) {
                        continue;
                    }
                    let region = &mut regions[index as usize];
                    if !region.borders_dead {
                        region.borders_dead = true;
                        for &h in &vital[region.vital_start..region.vital_start + region.vital_len]
                        {
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
            for stone in board.chain_stones(head as usize) {
                result[stone] = pla;
            }
        }
    }

    for region in &regions {
        let alive_border = !region.borders_dead && at_least_one_pla;
        let mark = alive_border && (region.internal_spaces <= 1 || !region.contains_opp);
        let mut cur = region.head;
        if mark {
            loop {
                result[cur] = pla;
                cur = next_in_region[cur] as usize;
                if cur == region.head {
                    break;
                }
            }
        } else if !region.contains_opp && at_least_one_pla {
            loop {
                if result[cur] == EMPTY {
                    result[cur] = pla;
                }
                cur = next_in_region[cur] as usize;
                if cur == region.head {
                    break;
                }
            }
        }
    }
}
