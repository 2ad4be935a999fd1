#!/usr/bin/env bash
# Process-level tests of the `tarock` tool: deal, replay (files and stdin, hand
# and match records), variants, demo, and one-line errors with a non-zero exit
# on bad input. Usage: cli_test.sh BUILD_DIR
set -uo pipefail
tarock="$1/bin/tarock"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/testlib.sh
source "$(dirname "${BASH_SOURCE[0]}")/testlib.sh"

# variants lists all four Slovenian variants with options.
out=$("$tarock" variants)
for v in slovenian-3p slovenian-4p slovenian-5p slovenian-tapp; do
  case "$out" in *"$v"*) ok ;; *) bad "variants lacks $v" ;; esac
done
case "$out" in *"option difference_rounding"*) ok ;; *) bad "variants lacks options" ;; esac
# ... and the Austrian ones (the name is followed by two spaces and the title).
for v in tapp-tarock tapp-tarock-classic; do
  case "$out" in *"$v  "*) ok ;; *) bad "variants lacks $v" ;; esac
done
case "$out" in *"option counting = traditional"*) ok ;; *) bad "variants lacks tapp-tarock's counting option" ;; esac

# deal is deterministic and replays to a partial state with to_act and legal.
a=$("$tarock" deal --variant slovenian-4p --seed 11)
b=$("$tarock" deal --variant slovenian-4p --seed 11)
[ "$a" = "$b" ] && ok || bad "deal not deterministic"
c=$("$tarock" deal --variant slovenian-4p --seed 12)
[ "$a" != "$c" ] && ok || bad "different seeds gave the same deal"
r=$(printf '%s' "$a" | "$tarock" replay -)
case "$r" in *'"to_act":1'*'"legal":["pass","bid two"'*|*'"legal":["pass","bid two"'*'"to_act":1'*) ok ;; *) bad "partial replay: $r" ;; esac
"$tarock" deal --variant slovenian-5p --seed 3 --dealer 2 > "$tmp/d5.json" && ok || bad "deal 5p"
grep -qF '],[],[' "$tmp/d5.json" && ok || bad "5p dealer's hand not empty: $(cat "$tmp/d5.json")"

# demo plays every variant to the end, and its records replay to the same scores.
"$tarock" demo --seed 5 > "$tmp/demo.txt" && ok || bad "demo failed"
n=0
while IFS= read -r line; do
  rec=${line#record: }
  printf '%s' "$rec" > "$tmp/rec.json"
  res=$("$tarock" replay "$tmp/rec.json") || { bad "replay of demo record failed"; continue; }
  case "$res" in *'"finished":true'*) n=$((n + 1)) ;; *) bad "demo record did not finish: $res" ;; esac
done < <(grep '^record: ' "$tmp/demo.txt")
[ "$n" -ge 4 ] && ok || bad "only $n demo records replayed"

# A match record ({"deals": [...]}) replays hand by hand; tampered scores are caught.
rec=$(grep '^record: ' "$tmp/demo.txt" | grep slovenian-4p | head -1); rec=${rec#record: }
printf '{"variant":"slovenian-4p","deals":[%s,%s]}' "$rec" "$rec" > "$tmp/match.json"
[ "$("$tarock" replay "$tmp/match.json" | wc -l)" -eq 2 ] && ok || bad "match record replay"
sed 's/"scores":\[[^]]*\]/"scores":[1,2,3,4]/' "$tmp/match.json" > "$tmp/tampered.json"
expect_error tampered "replayed scores differ" "$tarock" replay "$tmp/tampered.json"

# selfplay plays a whole match; the hand count must let every seat deal equally.
out=$("$tarock" selfplay --variant slovenian-5p --hands 20 --seed 2)
case "$out" in *"20 hands"*"seat  total"*) ok ;; *) bad "selfplay: $out" ;; esac
expect_error selfplay-hands "positive multiple of 3" "$tarock" selfplay --variant slovenian-3p --hands 4

# westfest: the hand begins with the deal (the deck in the record, the cutter first);
# selfplay prints the chip accounts (004: 100 each, borrowing from the bank).
w=$("$tarock" deal --variant westfest --seed 4 --dealer 1)
case "$w" in *'"deck":['*'"hands":[[],[],[],[]]'*) ok ;; *) bad "westfest deal: $w" ;; esac
r=$(printf '%s' "$w" | "$tarock" replay -)
case "$r" in *'"legal":["cut","tap 1","tap 2","tap 3","tap 4","tap 12","tap stacks"]'*) ok ;; *) bad "westfest partial replay: $r" ;; esac
case "$r" in *'"to_act":0'*) ok ;; *) bad "westfest cutter: $r" ;; esac
out=$("$tarock" selfplay --variant westfest --hands 8 --seed 2)
case "$out" in *"chips (from 100)"*) ok ;; *) bad "westfest selfplay: $out" ;; esac

# Bad input: a clear one-line error and a non-zero exit, never a crash.
printf '{"variant": ' > "$tmp/m.json"
expect_error malformed "malformed JSON" "$tarock" replay "$tmp/m.json"
expect_error missing-file "cannot read" "$tarock" replay "$tmp/nope.json"
printf '%s' "$a" | sed 's/"T22"/"T23"/' > "$tmp/u.json"
expect_error unknown-card "unknown card 'T23'" "$tarock" replay "$tmp/u.json"
printf '%s' "$a" | sed 's/"T22"/"T21"/' > "$tmp/dup.json"
expect_error duplicate "dealt twice" "$tarock" replay "$tmp/dup.json"
printf '%s' "$a" | sed 's/"actions":\[\]/"actions":["pass","pass","jump"]/' > "$tmp/v.json"
expect_error unknown-verb "action 2 ('jump')" "$tarock" replay "$tmp/v.json"
printf '%s' "$a" | sed 's/"actions":\[\]/"actions":["pass","bid klop"]/' > "$tmp/i.json"
expect_error illegal "action 1 ('bid klop'): illegal action 'bid klop' for seat 2" "$tarock" replay "$tmp/i.json"
expect_error unknown-variant "unknown variant 'whist'" "$tarock" deal --variant whist --seed 1
expect_error bad-option "is not one of" "$tarock" deal --variant slovenian-4p --option=imperator=maybe
expect_error bad-house "option house=nowhere of variant 'slovenian-4p' is not one of: " \
  "$tarock" deal --variant slovenian-4p --option=house=nowhere
expect_error unknown-option "has no option 'bogus' (options: red_pip_order, " \
  "$tarock" deal --variant slovenian-4p --option=bogus=1
printf '%s' "$a" | sed 's/"options":{/"options":{"bogus":"1",/' > "$tmp/o.json"
expect_error record-option "has no option 'bogus'" "$tarock" replay "$tmp/o.json"

# A record written before issue 11 (its options lack the new ones) replays under
# today's defaults, and the old way with --option house=legacy.
"$tarock" match --variant slovenian-4p --hands 8 --seed 4 --quiet --option house=legacy \
  --record "$tmp/legacy.json" a="$1/bin/tarock-bot-random" b="$1/bin/tarock-bot-random" \
  c="$1/bin/tarock-bot-random" d="$1/bin/tarock-bot-random" >/dev/null && ok || bad "legacy match"
/usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
before = {"red_pip_order", "difference_rounding", "imperator", "radl_for_beggar"}
for d in [r] + r["deals"]:
    d["options"] = {k: v for k, v in d["options"].items() if k in before}
json.dump(r, open(sys.argv[2], "w"))
' "$tmp/legacy.json" "$tmp/old.json" && ok || bad "making an old record"
expect_error old-record-new-rules "tarock: hand " "$tarock" replay "$tmp/old.json"
"$tarock" replay --option house=legacy "$tmp/old.json" >/dev/null && ok || bad "old record, house=legacy"

# --help of every program says what it does and lists its own flags (source-tree paths).
for prog in tarock:--option tarock-referee:--metrics_listen tarock-arena:--http_listen \
            tarock-arena-cli:--admin_token tarock-stdio-bridge:--listen tarock-strength:--threads \
            tarock-bot-random:--listen tarock-bot-heuristic:--listen tarock-bot-search:--listen; do
  name=${prog%%:*} flag=${prog#*:}
  help=$("$1/bin/$name" --help 2>&1)
  case "$help" in *"No flags matched"*|*"/work/"*|*"$(pwd)"/*) bad "$name --help: $help" ;;
                  *"$flag ("*) ok ;; *) bad "$name --help lacks $flag: $help" ;; esac
done

# `help COMMAND`: the command's usage and the flags it reads.
out=$("$tarock" help compare)
case "$out" in *"compare --variant V --candidate SPEC"*"--h1 (default: 5)"*) ok ;; *) bad "tarock help compare: $out" ;; esac
out=$("$1/bin/tarock-arena-cli" help ladder)
case "$out" in *"ladder start --variant=V"*"--max_matches (default: 0)"*) ok ;; *) bad "arena-cli help ladder: $out" ;; esac
expect_error help-unknown "no command 'fly' (commands: " "$tarock" help fly
expect_error cli-help-unknown "no command 'fly' (commands: " "$1/bin/tarock-arena-cli" help fly

expect_error no-plugin "cannot load plugin" "$tarock" --plugin=/nonexistent.so variants
expect_error bad-command "unknown command" "$tarock" fly

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
