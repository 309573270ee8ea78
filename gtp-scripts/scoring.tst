# Scoring: area and territory counting, dead stones, and loadsgf with a move number.

boardsize 7
clear_board
komi 0
play w c1
play w c2
play w c3
play w c4
play w c5
play w c6
play w c7
play b b1
play b b2
play b b3
play b b4
play b b5
play b b6
play b b7
play b f5
10 final_status_list dead
#? [F5]
# Area: Black 7 stones + A1-A7 = 14; White 7 stones + D1-G7 (F5's point included) = 35.
11 final_score
#? [W\+21]
12 final_status_list alive
#? [.*C1 C2 C3 C4 C5 C6 C7.*]
kgs-rules japanese
# Territory: Black A1-A7 = 7; White D1-G7 = 28 points plus F5 taken as a prisoner = 29.
13 final_score
#? [W\+22]
kgs-rules chinese

# loadsgf stops before the given move: the ko position before White's capture at B3.
20 loadsgf sgf/ko.sgf 8
#? []
21 play w b3
#? []
22 loadsgf sgf/ko.sgf
#? []
23 play b c3
#? []*
24 loadsgf sgf/missing.sgf
#? []*
