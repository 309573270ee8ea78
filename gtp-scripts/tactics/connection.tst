# Connection and cutting. Positions in ../sgf/; answers checked with GNU Go 3.8 at level 10
# (Japanese and Chinese rules): its move is in the accepted set.

# The bottom two rows hold two black groups under a white wall on row 4, each with one eye
# (B2 and H2). Between them the white stones E1-E2 have one liberty, E3, which is also the
# cutting point. Black connects at E3: that captures E1-E2, joins the groups and gives them
# the eye space at E1-E2. Nothing else saves them.
loadsgf ../sgf/conn-one-eyed.sgf
10 reg_genmove b
#? [E3]

# White to move cuts at E3: the white stones join the wall, and each black group is left
# with its one eye as its only liberty (in atari and dead). Any other move lets Black connect.
11 reg_genmove w
#? [E3]

# As above, but the cutting point is inside: White E3 hangs from the wall, White E1 is on
# the edge and E2 between them is empty. Black E2 captures E1 and connects both one-eyed
# groups (eyes B2, H2 and the new one at E1): the only saving move.
loadsgf ../sgf/conn-one-eyed-inner.sgf
20 reg_genmove b
#? [E2]

# White to move cuts at E2, joining E1 to the wall; each black group is left in atari with
# only its eye.
21 reg_genmove w
#? [E2]

# The first position flipped to the top edge with the colours swapped: two one-eyed white
# groups (eyes B8 and H8) under a black wall on row 6, and the black stones E8-E9 between
# them with one liberty, E7. White connects at E7 (capturing E8-E9); Black cuts there.
loadsgf ../sgf/conn-one-eyed-white.sgf
30 reg_genmove w
#? [E7]
31 reg_genmove b
#? [E7]

# White D5 and E4 touch diagonally, with Black D4 under one and E5, the other shared
# point, empty: E5 is the cutting point. D5 has two liberties (D6, E5) and E4 two (E5,
# F4), so Black's cut at E5 is a double atari, and White can save only one of the two.
# Ataris from outside (D6, F4) let White connect at E5 with four liberties.
loadsgf ../sgf/conn-double-atari.sgf
40 reg_genmove b
#? [E5]
