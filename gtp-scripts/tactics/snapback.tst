# Snapback. Position in ../sgf/; answers checked with GNU Go 3.8 at level 10.

# The white corner group A2 B2 C2 C1 has two liberties, A1 and B1, and no way out; but the
# black stones D1-D2 that enclose it have only E1 and E2, so White threatens to capture them
# and free the corner. Black throws in at B1 (or A1): White can take the stone only by
# filling the other point, which leaves the whole group with the one liberty where the
# stone was, and Black recaptures five stones. Saving D1-D2 directly (E1 or E2) leaves them
# with one liberty.
loadsgf ../sgf/snapback-corner.sgf
10 reg_genmove b
#? [A1|B1]

# White to move ataris D1-D2 from E1 or E2 first: if Black then throws in, White captures
# D1-D2 and the corner group gets their liberties. Taking A1 or B1 itself would be walking
# into the snapback.
11 reg_genmove w
#? [E1|E2]

# The same position turned 180 degrees with the colours swapped: White throws in at H9 or
# J9; Black ataris the enclosing white stones from E8 or E9 first.
loadsgf ../sgf/snapback-corner-white.sgf
20 reg_genmove w
#? [H9|J9]
21 reg_genmove b
#? [E8|E9]
