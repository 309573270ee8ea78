# Life and death: eye shapes and their vital points. Each position is a black group in
# White's lower right corner whose only space is the eye shape named (every outside point is
# filled by White); the game hangs on it. The same point makes two eyes for Black and kills
# for White. Answers checked with GNU Go 3.8 at level 10 (Japanese and Chinese rules).

# Straight three G1 H1 J1: the middle point H1 splits it into two eyes; White there leaves
# one eye.
loadsgf ../sgf/ld-straight-three.sgf
10 reg_genmove b
#? [H1]*
11 reg_genmove w
#? [H1]

# Bent three in the corner, H1 J1 J2: the bend J1 is the vital point.
loadsgf ../sgf/ld-bent-three.sgf
20 reg_genmove b
#? [J1]
21 reg_genmove w
#? [J1]*

# Pyramid (T) four G1 H1 J1 H2: the centre H1, touching the other three, is the vital point.
loadsgf ../sgf/ld-pyramid-four.sgf
30 reg_genmove b
#? [H1]
31 reg_genmove w
#? [H1]

# Bulky five G1 H1 J1 H2 J2: the vital point is H1, the point next to three of the others;
# White inside there is nakade.
loadsgf ../sgf/ld-bulky-five.sgf
40 reg_genmove b
#? [H1]
41 reg_genmove w
#? [H1]*

# Rabbity six H3 G2 H2 J2 H1 J1: the centre H2 touches four points and is vital.
loadsgf ../sgf/ld-rabbity-six.sgf
50 reg_genmove b
#? [H2]
51 reg_genmove w
#? [H2]

# The same five shapes turned 180 degrees with the colours swapped: now a white group in
# Black's upper left corner, so the vital points are B9, A9, B9, B9 and B8. An engine with a
# colour or orientation bias passes one set and fails the other.
loadsgf ../sgf/ld-straight-three-white.sgf
60 reg_genmove w
#? [B9]*
61 reg_genmove b
#? [B9]
loadsgf ../sgf/ld-bent-three-white.sgf
70 reg_genmove w
#? [A9]
71 reg_genmove b
#? [A9]*
loadsgf ../sgf/ld-pyramid-four-white.sgf
80 reg_genmove w
#? [B9]
81 reg_genmove b
#? [B9]
loadsgf ../sgf/ld-bulky-five-white.sgf
90 reg_genmove w
#? [B9]
91 reg_genmove b
#? [B9]*
loadsgf ../sgf/ld-rabbity-six-white.sgf
100 reg_genmove w
#? [B8]
101 reg_genmove b
#? [B8]
