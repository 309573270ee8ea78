#!/usr/bin/env bash
# A stand-in for `katago analysis` in tests/book.rs: answers each JSON query on stdin with
# fixed root moves for 9x9 (E5 100 visits, C4 60, pass 2), after the noise a real engine may
# write (a line that is not JSON, an answer to another id, an answer during the search).
# A query without the size, komi, rules and visits the test asks for gets an error answer.
# FAKE_ANALYSIS=error answers every query with an error; FAKE_ANALYSIS=exit exits at the first.
echo "fake analysis engine starting" >&2
while IFS= read -r query; do
  id=$(printf '%s' "$query" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
  case "${FAKE_ANALYSIS:-}" in
    error) printf '{"id":"%s","error":"bad query"}\n' "$id"; continue ;;
    exit) exit 3 ;;
  esac
  for want in '"boardXSize":9' '"boardYSize":9' '"komi":7.0' '"maxVisits":77' '"rules":"chinese"' '"moves":['; do
    case "$query" in
      *"$want"*) ;;
      *) printf '{"id":"%s","error":"the query lacks %s: %s"}\n' "$id" "$want" "$query"; continue 2 ;;
    esac
  done
  echo 'starting search'
  printf '{"id":"other","isDuringSearch":false,"moveInfos":[]}\n'
  printf '{"id":"%s","isDuringSearch":true,"moveInfos":[{"move":"A1","visits":5}]}\n' "$id"
  printf '{"id":"%s","isDuringSearch":false,"moveInfos":[{"move":"C4","visits":60,"order":1},{"move":"E5","visits":100,"order":0},{"move":"pass","visits":2,"order":2}]}\n' "$id"
done
