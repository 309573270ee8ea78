# Ladders. Positions in ../sgf/; answers checked with GNU Go 3.8 at level 10.

# White D4 has two liberties (D3, E4) against Black C4, D5, E3. An atari from either side
# starts a ladder that works: from E4 it runs toward A1, from D3 toward J9 (the position is
# symmetric about the C5-E3 diagonal), and no white stone stands in either path. Both
# capture the cutting stone.
loadsgf ../sgf/ladder-works.sgf
10 reg_genmove b
#? [D3|E4]

# White to move must not extend from D4: either extension leaves two liberties and Black
# ladders the stones to the edge. (Anything else, even tenuki, loses less.)
11 reg_genmove w
#? [!D3|E4]*

# Black D4 is in atari (liberty D3) inside White C4, D5, E4, E3. Running to D3 gives two
# liberties and White ladders the stones toward A1 with no black stone to break it: the
# running move only feeds White more stones.
loadsgf ../sgf/ladder-run-none.sgf
20 reg_genmove b
#? [!D3]

# The ladder-works shape again (White D4 between Black C4, D5, E3), now with a white ladder
# breaker at G7. The atari from D3 drives White up and to the right, into G7, and fails;
# the atari from E4 drives it toward A1, where nothing helps White. GNU Go's tactical
# reader finds E4 the only black move after which D4 cannot be saved.
loadsgf ../sgf/ladder-breaker.sgf
30 reg_genmove b
#? [E4]
