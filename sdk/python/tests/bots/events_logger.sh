#!/bin/sh
# A stdio bot for the bridge's --events mode: it names every message it gets on
# standard error (the bridge's log) and answers only the decision requests.
while IFS= read -r line; do
  kind=$(printf '%s\n' "$line" | sed -n 's/^{"\([a-z_]*\)".*/\1/p')
  echo "got $kind" >&2
  if [ "$kind" = decision_request ]; then
    printf '%s\n' "$line" | sed -n 's/.*"legal_actions":\["\([^"]*\)".*/\1/p'
  fi
done
