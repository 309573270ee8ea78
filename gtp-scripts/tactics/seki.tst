# Seki. Position in ../sgf/; answers checked with GNU Go 3.8 at level 10 (Japanese and
# Chinese rules): it passes in both colours.

# The lower-left corner is inside Black's living wall (eyes E2, E4): White A2 A3 B3 C3 C2 and
# Black B1 B2 have no eyes and share their only two liberties, A1 and C1. This is seki.
# Whoever plays A1 or C1 puts both groups in atari and, with its own group shorter of
# liberties after the move, gets captured first: Black filling loses B1 B2 and the stone
# played, White filling loses six stones. Both sides must leave the shared liberties
# alone (every other move, a pass included, is fine).
loadsgf ../sgf/seki-corner.sgf
10 reg_genmove b
#? [!A1|C1]*
11 reg_genmove w
#? [!A1|C1]
