# Rule edge cases, in the gogui-regress format: a numbered command, then `#? [regex]` for
# its expected response; `*` after the bracket marks a command that must be refused (any `?`
# answer counts as a failure in gogui-regress, so a refusal is an "expected failure").

boardsize 5
clear_board
komi 0.5

# Capture of a multi-stone string frees its points.
play w a1
play w b1
play b a2
play b b2
play b c1
10 play w a1
#? []
# B1 would join A1 with no liberty left: a two-stone suicide.
11 play w b1
#? []*

# Suicide is illegal under the default (Chinese) rules...
clear_board
play b a2
play b b1
20 play w a1
#? []*
# ...and legal under New Zealand rules, which allow it (a lone stone recreating the
# position is still barred by superko, so use a two-stone suicide).
clear_board
kgs-rules new_zealand
play w a1
play b a2
play b c1
play b b2
21 play w b1
#? []
kgs-rules chinese

# Simple ko: the immediate retake is illegal, after a threat exchange it is legal.
clear_board
play b b2
play w c2
play b a3
play w d3
play b b4
play w c4
play b c3
play w b3
30 play b c3
#? []*
play b e5
play w e1
31 play b c3
#? []

# Positional superko: after two passes the ko point is free for simple ko, but retaking
# would repeat a whole-board position.
clear_board
play b b2
play w c2
play b a3
play w d3
play b b4
play w c4
play b c3
play w b3
play b pass
play w pass
40 play b c3
#? []*
kgs-rules japanese
41 play b c3
#? []
kgs-rules chinese

# Consecutive moves of one colour, every colour spelling, any vertex case.
clear_board
50 play BLACK D4
#? []
51 play black e4
#? []
52 play B pass
#? []
53 play W a5
#? []

# Undo to any depth, and its error on an empty history.
clear_board
60 undo
#? []*
play b c3
play w d3
undo
undo
61 play w c3
#? []

# Vertices the board does not have.
70 play b i3
#? []*
71 play b f1
#? []*
