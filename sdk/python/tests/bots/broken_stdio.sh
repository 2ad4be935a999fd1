#!/bin/sh
# A stdio bot in POSIX sh for the tests. It answers the first legal action of
# each request, as {"action": ...} JSON (the bridge accepts that too), and in
# MODE (first argument) breaks after AFTER answers (second argument, default 3):
#   good     never breaks
#   crash    exits with status 3
#   garbage  answers a line that is no action
#   silent   keeps reading but stops answering
mode=${1:-good}
after=${2:-3}
n=0
while IFS= read -r line; do
  n=$((n + 1))
  first=$(printf '%s\n' "$line" | sed -n 's/.*"legal_actions":\["\([^"]*\)".*/\1/p')
  if [ "$n" -gt "$after" ]; then
    case $mode in
      crash) echo "broken_stdio: crashing at request $n" >&2; exit 3 ;;
      garbage) echo "hello, referee"; continue ;;
      silent) continue ;;
    esac
  fi
  printf '{"action": "%s"}\n' "$first"
done
