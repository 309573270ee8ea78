#!/bin/sh
# A misbehaving GTP engine for tests of tengen's match runner and external players.
# It accepts every command and passes at genmove, until its K-th genmove, where it:
#   fake-engine.sh crash K     exits with status 3
#   fake-engine.sh hang K      stops answering
#   fake-engine.sh illegal K   answers with the point its opponent played last (occupied),
#                              or with a word that is no move when there is none
#   fake-engine.sh garbage K   writes a line that is no GTP response, then passes
#   fake-engine.sh slow K      (any K) takes K seconds to start, then passes
#   fake-engine.sh analyze K   (any K) passes, and lists kata-analyze (one `info` line, then
#                              the end of the stream once a line arrives) and
#                              kata-genmove_analyze (one `info` line, then `play pass`)
mode=$1
k=${2:-1}
[ "$mode" = slow ] && sleep "$k"
n=0
last=Z99
set -f
while IFS= read -r line; do
    set -- $line
    id=""
    case $1 in [0-9]*) id=$1; shift ;; esac
    case $1 in
    genmove)
        n=$((n + 1))
        if [ "$n" -ge "$k" ]; then
            case $mode in
            crash) exit 3 ;;
            hang) exec sleep 3600 ;;
            illegal) printf '=%s %s\n\n' "$id" "$last"; continue ;;
            garbage) printf 'this is not GTP\n' ;;
            esac
        fi
        printf '=%s pass\n\n' "$id" ;;
    play)
        case $3 in [Pp][Aa][Ss][Ss]) ;; *) last=$3 ;; esac
        printf '=%s\n\n' "$id" ;;
    name) printf '=%s fake-engine\n\n' "$id" ;;
    version) printf '=%s %s\n\n' "$id" "$mode" ;;
    final_score) printf '?%s cannot score\n\n' "$id" ;;
    list_commands) printf '=%s genmove\nplay\nkata-analyze\nkata-genmove_analyze\n\n' "$id" ;;
    kata-genmove_analyze)
        printf '=%s\ninfo move A1 visits 3 winrate 0.5 order 0 pv A1 fake-genmove\nplay pass\n\n' "$id" ;;
    kata-analyze)
        if [ "$mode" = analyze ]; then
            printf '=%s\ninfo move A1 visits 7 winrate 0.5 order 0 pv A1 from-the-fake\n' "$id"
            read -r _
            printf '\n'
        else
            printf '?%s unknown command\n\n' "$id"
        fi ;;
    quit) printf '=%s\n\n' "$id"; exit 0 ;;
    *) printf '=%s\n\n' "$id" ;;
    esac
done
