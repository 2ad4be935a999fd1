#!/usr/bin/env bash
# Process-level tests of the metrics: a tarock-referee and a tarock-arena (with
# a second referee address where nothing listens, so matches move and the
# referee-failure series exist) run a short ladder between two random bots and
# a bot that answers an illegal action now and then (faults). Then:
#   - `promtool check metrics` passes on both /metrics pages;
#   - then a duplicate ladder set with three more bots: the margin rating
#     gauges (tarock_arena_margin_mu|sigma|deals) of all six bots;
#   - the series docs/monitoring.md promises are there (tarock_*, grpc_*, process_*);
#   - every metric name used by deploy/'s alerting rules and Grafana dashboard
#     appears in the scraped pages (tests/check_metric_names.py);
#   - with --prometheus: Debian's real Prometheus server scrapes both (and the
#     dead referee), loads deploy/'s alerting rules, and its HTTP API shows
#     up == 1, the tarock series and the rules healthy.
# Loopback only, free ports, bounded waits; nothing started here outlives it.
# Usage: metrics_test.sh BUILD_DIR SOURCE_DIR [--prometheus]
set -uo pipefail
bin=$(cd "$1/bin" && pwd)
src=$(cd "$2" && pwd)
with_prometheus=${3:-}
py=/usr/bin/python3
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill_tree "$p"; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source=tests/testlib.sh
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

free_port() { $py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
scrape() { curl -sf --max-time 10 "http://127.0.0.1:$1/metrics"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

referee=$(free_port); referee_http=$(free_port); dead=$(free_port)
arena=$(free_port); arena_http=$(free_port)
"$bin/tarock-referee" --listen "127.0.0.1:$referee" --metrics_listen "127.0.0.1:$referee_http" \
  > "$tmp/referee.log" 2>&1 & pids+=($!)
bots=()
for i in 1 2 3; do
  p=$(free_port); bots+=("$p")
  if [ $i -eq 3 ]; then
    "$bin/faulty_bot" --listen "127.0.0.1:$p" --mode illegal --every 20 > /dev/null 2>&1 & pids+=($!)
  else
    "$bin/tarock-bot-random" --listen "127.0.0.1:$p" --seed $i > /dev/null 2>&1 & pids+=($!)
  fi
done
"$bin/tarock-arena" --listen "127.0.0.1:$arena" --http_listen "127.0.0.1:$arena_http" \
  --data_dir "$tmp/data" --referees "127.0.0.1:$referee,127.0.0.1:$dead" \
  > "$tmp/arena.log" 2>&1 & pids+=($!)
for p in "$referee" "$referee_http" "${bots[@]}" "$arena" "$arena_http"; do
  wait_port "$p" || { bad "port $p never opened"; cat "$tmp"/*.log; finish; }
done

cli=("$bin/tarock-arena-cli" --arena "127.0.0.1:$arena")
for i in 0 1 2; do
  "${cli[@]}" bots add "b$i" --endpoint "127.0.0.1:${bots[$i]}" --variants slovenian-3p \
    --owner test > /dev/null || bad "bots add b$i"
done
# Unknown format and rating model names (issue 33): one line listing the valid
# ones, nothing stored.
out=$("${cli[@]}" ladder start --variant slovenian-3p --format swiss 2>&1) && bad "--format swiss accepted"
[ "$out" = "tarock-arena-cli: INVALID_ARGUMENT: unknown ladder format 'swiss' (valid: match, duplicate)" ] &&
  ok || bad "--format swiss: $out"
out=$("${cli[@]}" ladder start --variant slovenian-3p --rating_model elo 2>&1) && bad "--rating_model elo accepted"
[ "$out" = "tarock-arena-cli: INVALID_ARGUMENT: unknown rating model 'elo' (valid: place, margin)" ] &&
  ok || bad "--rating_model elo: $out"
[ -z "$("${cli[@]}" ladder list)" ] && ok || bad "a refused ladder was stored: $("${cli[@]}" ladder list)"
"${cli[@]}" ladder start --variant slovenian-3p --format match --hands 3 --max_matches 6 > /dev/null ||
  bad "ladder start"

# Until the arena has counted 6 matches done (60 s at most).
done_matches=0
for _ in $(seq 300); do
  done_matches=$(scrape "$arena_http" | sed -n \
    's/^tarock_arena_matches_total{outcome="done",variant="slovenian-3p"} //p')
  [ "${done_matches:-0}" = 6 ] && break
  sleep 0.2
done
[ "${done_matches:-0}" = 6 ] && ok || bad "the arena counted ${done_matches:-0} matches done, not 6"

scrape "$referee_http" > "$tmp/referee.txt" || bad "referee /metrics"
scrape "$arena_http" > "$tmp/arena.txt" || bad "arena /metrics"
for who in referee arena; do
  out=$(/usr/bin/promtool check metrics < "$tmp/$who.txt" 2>&1) && ok ||
    bad "promtool check metrics on the $who's /metrics: $out"
done

expect() {  # expect FILE REGEX: a line of FILE matches the extended REGEX
  grep -Eq "$2" "$1" && ok || bad "$(basename "$1") has no line matching: $2"
}
r="$tmp/referee.txt"; a="$tmp/arena.txt"
expect "$r" '^tarock_referee_matches_total\{outcome="ok",variant="slovenian-3p"\} 6$'
expect "$r" '^tarock_referee_decisions_total\{bot="b2"\} [1-9]'
expect "$r" '^tarock_referee_faults_total\{bot="b2",kind="illegal_action"\} [1-9]'
expect "$r" '^tarock_referee_decision_seconds_bucket\{bot="b0",le="0\.0001"\} '
expect "$r" '^tarock_referee_decision_seconds_bucket\{bot="b0",le="5e-05"\} '
expect "$r" '^tarock_referee_active_matches 0$'
expect "$r" '^grpc_server_handled_total\{grpc_code="OK",grpc_method="RunMatch",grpc_service="tarock\.v1\.Referee",grpc_type="server_stream"\} 6$'
expect "$r" '^grpc_server_handling_seconds_count\{grpc_method="RunMatch",grpc_service="tarock\.v1\.Referee",grpc_type="server_stream"\} 6$'
expect "$a" '^tarock_arena_matches_total\{outcome="done",variant="slovenian-3p"\} 6$'
expect "$a" '^tarock_arena_match_duration_seconds_bucket\{variant="slovenian-3p",le="0\.05"\} '
expect "$a" '^tarock_arena_referee_failures_total\{referee="127\.0\.0\.1:'"$dead"'"\} [1-9]'
expect "$a" '^tarock_arena_rating_mu\{bot="b1",variant="slovenian-3p"\} '
expect "$a" '^tarock_arena_queue_depth 0$'
expect "$a" '^grpc_server_handled_total\{grpc_code="OK",grpc_method="AddBot",grpc_service="tarock\.v1\.Arena",grpc_type="unary"\} 3$'
expect "$a" '^grpc_client_handled_total\{grpc_code="OK",grpc_method="RunMatch",grpc_service="tarock\.v1\.Referee",grpc_type="server_stream"\} 6$'
expect "$a" '^grpc_client_handled_total\{grpc_code="Unavailable",grpc_method="RunMatch",grpc_service="tarock\.v1\.Referee",grpc_type="server_stream"\} [1-9]'
for f in "$r" "$a"; do
  for m in process_cpu_seconds_total process_resident_memory_bytes process_virtual_memory_bytes \
           process_open_fds process_max_fds process_start_time_seconds; do
    expect "$f" "^$m [0-9.e+]+$"
  done
done

# Margin ratings (issue 33): three more random bots fill a bridge duplicate set
# of 6 for slovenian-3p; the default ladder (duplicate + margin) plays one set
# (2 tables) and the arena's gauges show each bot's margin rating: points a
# deal (mu), sigma, and the deals it rests on (3 here).
for i in 3 4 5; do
  p=$(free_port); bots+=("$p")
  "$bin/tarock-bot-random" --listen "127.0.0.1:$p" --seed $i > /dev/null 2>&1 & pids+=($!)
  wait_port "$p" || bad "bot $i never listened"
  "${cli[@]}" bots add "b$i" --endpoint "127.0.0.1:$p" --variants slovenian-3p \
    --owner test > /dev/null || bad "bots add b$i"
done
started=""
for _ in $(seq 100); do  # the match ladder above ends once its last result is in
  "${cli[@]}" ladder start --variant slovenian-3p --hands 3 --max_matches 2 > /dev/null 2>&1 &&
    { started=1; break; }
  sleep 0.1
done
[ -n "$started" ] && ok || bad "the duplicate ladder never started"
margins=0
for _ in $(seq 300); do
  margins=$(scrape "$arena_http" | grep -Ec '^tarock_arena_margin_deals\{bot="b[0-5]",variant="slovenian-3p"\} 3$')
  [ "$margins" = 6 ] && break
  sleep 0.2
done
[ "$margins" = 6 ] && ok || bad "$margins bots have a margin rating on 3 deals, not 6"
scrape "$arena_http" > "$a" || bad "arena /metrics"
out=$(/usr/bin/promtool check metrics < "$a" 2>&1) && ok || bad "promtool check metrics (margins): $out"
expect "$a" '^# TYPE tarock_arena_margin_mu gauge$'
expect "$a" '^tarock_arena_margin_mu\{bot="b0",variant="slovenian-3p"\} -?[0-9]'
expect "$a" '^tarock_arena_margin_sigma\{bot="b5",variant="slovenian-3p"\} [0-9]'
expect "$a" '^tarock_arena_matches_total\{outcome="done",variant="slovenian-3p"\} 8$'
# The margins of one set sum to about 0 (each bot against the others who held
# the same cards): a gauge that showed something else would not.
sum=$(sed -n 's/^tarock_arena_margin_mu{bot="b[0-5]",variant="slovenian-3p"} //p' "$a" |
  $py -c 'import sys; print(abs(sum(float(x) for x in sys.stdin.read().split())) < 1e-6)')
[ "$sum" = True ] && ok || bad "the six margin means do not sum to 0"

out=$($py "$src/tests/check_metric_names.py" --metrics "$r" "$a" -- \
      "$src/deploy/prometheus/tarock-rules.yml" "$src/deploy/grafana/tarock-arena.json" 2>&1) &&
  ok || bad "metric names of deploy/: $out"

# ... and the check does catch a typo.
sed 's/tarock_arena_queue_depth/tarock_arena_queue_dept/' "$src/deploy/grafana/tarock-arena.json" \
  > "$tmp/typo.json"
out=$($py "$src/tests/check_metric_names.py" --metrics "$r" "$a" -- "$tmp/typo.json" 2>&1)
[ $? -eq 1 ] && case "$out" in *"tarock_arena_queue_dept is not"*) true ;; *) false ;; esac &&
  ok || bad "check_metric_names.py missed a typo: $out"

[ "$with_prometheus" = --prometheus ] || finish

# Debian's Prometheus against the arena, the referee and the dead referee, with
# deploy/'s rules; a 1 s scrape interval so the series arrive within seconds.
prom=$(free_port)
cat > "$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $src/deploy/prometheus/tarock-rules.yml
scrape_configs:
  - job_name: tarock-arena
    static_configs:
      - targets: ['127.0.0.1:$arena_http']
  - job_name: tarock-referee
    static_configs:
      - targets: ['127.0.0.1:$referee_http', '127.0.0.1:$dead']
YML
out=$(/usr/bin/promtool check config "$tmp/prometheus.yml" 2>&1) && ok || bad "promtool check config: $out"
/usr/bin/prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
  --web.listen-address="127.0.0.1:$prom" > "$tmp/prometheus.log" 2>&1 & pids+=($!)
wait_port "$prom" || { bad "prometheus never listened"; tail -20 "$tmp/prometheus.log"; finish; }

# query EXPR: the result vector of an instant query, as JSON.
query() {
  curl -sf --max-time 5 "http://127.0.0.1:$prom/api/v1/query" --data-urlencode "query=$1" |
    $py -c 'import json,sys; d=json.load(sys.stdin); assert d["status"]=="success", d; print(json.dumps(d["data"]["result"]))'
}
# wait_query EXPR CHECK: until CHECK (Python over the result list `r`) holds, 30 s at most.
wait_query() {
  local res=""
  for _ in $(seq 60); do
    res=$(query "$1" 2>/dev/null)
    if [ -n "$res" ] && $py -c "import json,sys; r=json.loads(sys.argv[1]); sys.exit(0 if ($2) else 1)" "$res"; then
      ok; return
    fi
    sleep 0.5
  done
  bad "prometheus: $1 never satisfied $2 (last: $res)"
}
wait_query 'up{job="tarock-arena"}' 'len(r) == 1 and r[0]["value"][1] == "1"'
wait_query "up{job=\"tarock-referee\",instance=\"127.0.0.1:$referee_http\"}" 'len(r) == 1 and r[0]["value"][1] == "1"'
wait_query "up{job=\"tarock-referee\",instance=\"127.0.0.1:$dead\"}" 'len(r) == 1 and r[0]["value"][1] == "0"'
wait_query 'tarock_arena_matches_total{outcome="done"}' 'len(r) == 1 and r[0]["value"][1] == "8"'
wait_query 'sum(tarock_referee_decisions_total)' 'len(r) == 1 and float(r[0]["value"][1]) > 0'
wait_query 'histogram_quantile(0.9, sum by (le) (rate(tarock_referee_decision_seconds_bucket[1m])))' 'len(r) == 1'
wait_query 'tarock_arena_queue_depth' 'len(r) == 1'
wait_query 'grpc_client_handled_total{grpc_method="RunMatch",grpc_code="OK"}' 'len(r) == 1 and r[0]["value"][1] == "8"'
wait_query 'tarock_arena_margin_deals' 'len(r) == 6'
wait_query 'process_resident_memory_bytes' 'len(r) == 2'
# The rules loaded, evaluated without error, and the referee-down alert sees the dead one.
rules=""
for _ in $(seq 60); do
  rules=$(curl -sf --max-time 5 "http://127.0.0.1:$prom/api/v1/rules" | $py -c '
import json, sys
d = json.load(sys.stdin)
rules = [r for g in d["data"]["groups"] for r in g["rules"]]
bad = [r["name"] for r in rules if r.get("health") != "ok"]
down = [r for r in rules if r["name"] == "TarockRefereeDown"]
print(len(rules), ",".join(bad) or "-", down[0]["state"] if down else "missing")')
  case "$rules" in *" - pending"|*" - firing") break ;; esac
  sleep 0.5
done
case "$rules" in
  *" - pending"|*" - firing") ok ;;
  *) bad "prometheus rules: count, unhealthy, TarockRefereeDown state = $rules" ;;
esac
finish
