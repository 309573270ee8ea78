# Handicap placement as the GTP spec (and GNU Go, its reference) lays it out.

boardsize 19
clear_board
10 fixed_handicap 2
#? [D4 Q16]
clear_board
11 fixed_handicap 9
#? [D4 Q16 D16 Q4 D10 Q10 K4 K16 K10]
12 fixed_handicap 2
#? []*
clear_board
13 fixed_handicap 10
#? []*
boardsize 9
clear_board
14 fixed_handicap 5
#? [C3 G7 C7 G3 E5]
boardsize 7
clear_board
15 fixed_handicap 5
#? []*
16 place_free_handicap 6
#? [(\S+ ){5}\S+]
boardsize 19
clear_board
17 set_free_handicap D4 Q16 K10
#? []
18 set_free_handicap C3 C3
#? []*
