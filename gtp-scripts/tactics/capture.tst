# Capture and escape. Positions in ../sgf/, loaded with loadsgf (the path is relative to
# this file). Every answer was checked with GNU Go 3.8 at level 10 (Japanese and Chinese
# rules): its move is in the accepted set.

# Black D5-E5 is in atari (only liberty E4, and E4 itself has no liberty for Black). The
# white cutting stone C5 is in atari too: capturing it at C4 gives D5-E5 the liberty C5 and
# connects them out. C4 is the only way to save the two stones.
loadsgf ../sgf/cap-escape-capture.sgf
10 reg_genmove b
#? [C4]

# The same position with White to move: capture D5-E5 at E4, or keep them in atari and save
# the cutting stone at C4 (Black still cannot extend to E4: it has no liberty there).
11 reg_genmove w
#? [C4|E4]

# Black D5-E5 is in atari; extending to E4 joins the black stone at E3 and gives four
# liberties. No white stone around is in atari, so E4 is the only escape.
loadsgf ../sgf/cap-escape-extend.sgf
20 reg_genmove b
#? [E4]

# White to move captures the two black stones at E4.
21 reg_genmove w
#? [E4]

# Two white groups are in atari: G2 (one stone, liberty F2) and the three stones E3-E5
# (liberty E6), which also cut Black's wall. Capture the larger group, which mends the wall:
# E6.
loadsgf ../sgf/cap-larger.sgf
30 reg_genmove b
#? [E6]

# White to move saves the three stones by connecting them to the wall at E6 (which also
# splits Black's wall); saving G2 at F2 is smaller.
31 reg_genmove w
#? [E6]
