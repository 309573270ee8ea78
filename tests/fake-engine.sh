#!/bin/sh
# A misbehaving GTP engine for tests of tengen's match runner and external players.
# It accepts every command and passes at genmove, until its K-th genmove, where it:
#   fake-engine.sh crash K     exits with status 3
#   fake-engine.sh hang K      stops answering
#   fake-engine.sh illegal K   answers with the point its opponent played last (occupied),
#                              or with a word that is no move when there is none
#   fake-engine.sh garbage K   writes a line that is no GTP response, then passes
#   fake-engine.sh flood K N   writes N lines that are no GTP response, then passes
#   fake-engine.sh long K N    answers with a response of N lines
#   fake-engine.sh babble K    writes lines that are no GTP response without end
#   fake-engine.sh wide K N    answers with a line of N bytes
#   fake-engine.sh slow K      (any K) takes K seconds to start, then passes
#   fake-engine.sh mute K      (any K) stops itself (SIGSTOP) when asked its `name`
#   fake-engine.sh relapse K FILE   the first one to start (FILE does not exist yet: it
#                              creates it) exits at its K-th genmove; every later one stops
#                              itself (SIGSTOP) at its first `play`
#   fake-engine.sh second K FILE    (any K) the first one to start (FILE does not exist yet)
#                              exits before its handshake; every later one passes
#   fake-engine.sh analyze K   (any K) passes, and lists kata-analyze (one `info` line, then
#                              the end of the stream once a line arrives) and
#                              kata-genmove_analyze (one `info` line, then `play pass`)
# With TENGEN_FAKE_PIDS set, each one appends its process id to that file first.
mode=$1
k=${2:-1}
arg=$3
[ -n "$TENGEN_FAKE_PIDS" ] && echo $$ >> "$TENGEN_FAKE_PIDS"
[ "$mode" = slow ] && sleep "$k"
first=no
case $mode in relapse|second)
    if [ ! -e "$arg" ]; then first=yes; : > "$arg"; fi ;;
esac
[ "$mode" = second ] && [ $first = yes ] && exit 4
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
            flood) yes 'this is not GTP' | head -n "$arg" ;;
            babble) exec yes 'this is not GTP' ;;
            long) printf '=%s\n' "$id"; yes 'this is no move' | head -n "$arg"; printf '\n'; continue ;;
            wide) printf '=%s ' "$id"; head -c "$arg" /dev/zero | tr '\0' x; printf '\n\n'; continue ;;
            relapse) [ $first = yes ] && exit 3 ;;
            esac
        fi
        printf '=%s pass\n\n' "$id" ;;
    play)
        [ "$mode" = relapse ] && [ $first = no ] && kill -STOP $$
        case $3 in [Pp][Aa][Ss][Ss]) ;; *) last=$3 ;; esac
        printf '=%s\n\n' "$id" ;;
    name)
        [ "$mode" = mute ] && kill -STOP $$
        printf '=%s fake-engine\n\n' "$id" ;;
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
