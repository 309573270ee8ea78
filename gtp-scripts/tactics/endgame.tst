# Endgame mistakes to avoid. Positions in ../sgf/; answers checked with GNU Go 3.8 at level 10
# unless noted.

# The board is settled except E5, a dame between Black's D column and White's E and F
# stones. Under area scoring it is the one point left that gains anything: take it rather
# than pass or play inside either territory.
loadsgf ../sgf/end-dame.sgf
10 reg_genmove b
#? [E5]*
11 reg_genmove w
#? [E5]*

# A white stone pushed into Black's wall at D5 is in atari (liberty E5). Black captures it
# at E5; White to move connects it to its wall at E5 (then it threatens C5's territory).
loadsgf ../sgf/end-atari-boundary.sgf
20 reg_genmove b
#? [E5]
21 reg_genmove w
#? [E5]

# The board is full: each side has one group with two one-point eyes (B2 B8, H2 H8). Filling
# an own eye is self-atari of the whole group, and the opponent's eyes are suicide: the only
# right move is to pass.
loadsgf ../sgf/end-two-eyes.sgf
30 reg_genmove b
#? [PASS]
31 reg_genmove w
#? [PASS]

# As above, but White has filled its eye at H8: the whole white group (44 stones) is in atari
# at H2. Black must capture it, not pass. (GNU Go passes here: it seems not to look for moves
# on a board this full; the capture is obviously right, so the test stays.)
loadsgf ../sgf/end-capture-group.sgf
40 reg_genmove b
#? [H2]
