#!/usr/bin/env bash
# The Debian packages (scripts/package.sh, docs/packages.md), built and then used
# the way a user without this build uses them, from a root file system that holds
# nothing of this machine but what the packages declare:
#
#   scratch (the default, offline, ~1 minute): the root is the Essential packages of
#     Debian 12 (what every installation has), the packages' Depends and theirs,
#     recursively, copied from this machine's installed packages (dpkg -L), and the
#     two .deb files unpacked (dpkg -x). The Depends are checked against the
#     installed versions (dpkg --compare-versions).
#   clean (--clean: network, ~3 minutes): mmdebstrap makes a fresh Debian 12
#     (variant apt: Essential and apt) from the mirror and installs the packages in
#     it with apt, which resolves their Depends from the archive, as
#     `apt install ./tarock-*.deb` does.
#
# Then, inside that root (bubblewrap: its own network namespace with only loopback,
# its own /tmp): `tarock match` with the reference bots, a Python bot and a stdio
# bot; `tarock check-bot`; `tarock compare`; tarock-referee and tarock-arena started
# and probed with tarock-health-probe; a match on that referee; --help of the
# arena's CLI and the bot host.
#
# Usage: package_test.sh SOURCE_DIR BUILD_DIR [--clean]
set -u
src=$1
build=$2
mode=scratch
[ "${3:-}" = "--clean" ] && mode=clean
# shellcheck source=testlib.sh
source "$src/tests/testlib.sh"

tmp=$(mktemp -d /tmp/package_test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

# 1. The packages.
if ! "$src/scripts/package.sh" "$build" "$tmp/debs" >"$tmp/package.out" 2>&1; then
  cat "$tmp/package.out"
  echo "0 passed, 1 failed"
  exit 1
fi
tools=$(echo "$tmp"/debs/tarock-tools_*.deb)
arena=$(echo "$tmp"/debs/tarock-arena_*.deb)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -f "$tools" ] && [ -f "$arena" ] && ok || bad "packages missing: $(cat "$tmp/package.out")"
case "$tools" in *"_${version}_$(dpkg --print-architecture).deb") ok ;; *) bad "name $tools" ;; esac

# 2. Control fields and contents.
tools_depends=$(dpkg-deb -f "$tools" Depends)
arena_depends=$(dpkg-deb -f "$arena" Depends)
for dep in libc6 libgrpc++1.51 libabsl20220623 libprotobuf32 libssl3 python3 python3-grpcio \
           python3-protobuf; do
  case ", $tools_depends," in *", $dep "*|*", $dep,"*) ok ;; *) bad "tarock-tools lacks Depends $dep: $tools_depends" ;; esac
done
for dep in "tarock-tools (= $version)" bubblewrap libsqlite3-0 libzip4 libseccomp2 \
           libprometheus-cpp-core1.0 libgrpc++1.51; do
  case ", $arena_depends," in *", $dep "*|*", $dep,"*) ok ;; *) bad "tarock-arena lacks Depends $dep: $arena_depends" ;; esac
done
dpkg-deb -c "$tools" | awk '{print $6}' >"$tmp/tools.list"
dpkg-deb -c "$arena" | awk '{print $6}' >"$tmp/arena.list"
for f in usr/bin/tarock usr/bin/tarock-bot-random usr/bin/tarock-bot-heuristic \
         usr/bin/tarock-bot-search usr/bin/tarock-stdio-bridge usr/lib/libtarock_engine.so \
         usr/share/tarock/python/tarock_bot/__init__.py \
         usr/share/tarock/python/tarock_bot/_generated/tarock_pb2.py; do
  grep -qx "\./$f" "$tmp/tools.list" && ok || bad "tarock-tools lacks /$f"
done
for f in usr/bin/tarock-arena usr/bin/tarock-arena-cli usr/bin/tarock-referee \
         usr/bin/tarock-bothost usr/bin/tarock-health-probe \
         usr/lib/systemd/system/tarock-arena.service usr/lib/systemd/system/tarock-referee.service \
         usr/lib/systemd/system/tarock-bothost.service; do
  grep -qx "\./$f" "$tmp/arena.list" && ok || bad "tarock-arena lacks /$f"
done
# No SDK headers, static libraries or CMake files; no file in both packages.
grep -E '^\./usr/include/|\.a$|/cmake/' "$tmp/tools.list" "$tmp/arena.list" && bad "SDK files packaged" || ok
sort "$tmp/tools.list" "$tmp/arena.list" | grep -v '/$' | uniq -d | grep . && bad "files in both" || ok
dpkg-deb --fsys-tarfile "$arena" | tar -xO ./usr/lib/systemd/system/tarock-arena.service >"$tmp/unit"
grep -q '^ExecStart=/usr/bin/tarock-arena ' "$tmp/unit" && ok || bad "unit: $(grep ExecStart "$tmp/unit")"
grep -q 'opt/tarock' "$tmp/unit" && bad "unit names /opt/tarock" || ok

# 3. The root file system.
mkdir -p "$root"
if [ "$mode" = clean ]; then
  if ! command -v mmdebstrap >/dev/null; then
    echo "--clean needs mmdebstrap (apt-get install mmdebstrap)"; echo "0 passed, 1 failed"; exit 1
  fi
  # The hook makes the .deb files visible inside the root for dpkg.
  if ! timeout 600 mmdebstrap --quiet --variant=apt --mode=root --include="$tools" --include="$arena" \
      --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
      bookworm "$root" http://deb.debian.org/debian >"$tmp/mmdebstrap.log" 2>&1; then
    tail -20 "$tmp/mmdebstrap.log"; bad "mmdebstrap with the packages failed"
    echo "$pass passed, $fail failed ($mode root)"
    exit 1
  else
    ok
  fi
else
  # Essential packages and the closure of the Depends, from dpkg's database.
  if ! /usr/bin/python3 - "$tools" "$arena" >"$tmp/closure" 2>"$tmp/closure.err" <<'EOF'
import subprocess, sys

def field(deb, name):
    return subprocess.run(["dpkg-deb", "-f", deb, name], capture_output=True, text=True).stdout.strip()

installed, provides = {}, {}
out = subprocess.run(["dpkg-query", "-W", "-f",
                      "${Package}\t${db:Status-Abbrev}\t${Version}\t${Essential}\t${Depends}\t"
                      "${Pre-Depends}\t${Provides}\n"], capture_output=True, text=True).stdout
for line in out.splitlines():
    name, status, version, essential, depends, predepends, provided = line.split("\t")
    if not status.startswith("ii"):
        continue
    installed[name] = (version, essential == "yes", ", ".join(d for d in (depends, predepends) if d))
    for p in filter(None, (x.strip() for x in provided.split(","))):
        virtual, _, version = p.partition(" ")  # "libgcc1 (= 1:12.2.0-14)"
        provides.setdefault(virtual, []).append((name, version.strip("()= ") or None))

def satisfies(have, constraint):
    if not constraint:
        return True
    if have is None:
        return False
    op, version = constraint.strip("()").split()
    op = {">=": "ge", "<=": "le", ">>": "gt", "<<": "lt", "=": "eq"}[op]
    return subprocess.run(["dpkg", "--compare-versions", have, op, version]).returncode == 0

def resolve(clause):  # "a (>= 1) | b" -> the first installed alternative that fits
    for alternative in clause.split("|"):
        parts = alternative.strip().split(None, 1)
        name, constraint = parts[0].split(":")[0], parts[1] if len(parts) > 1 else ""
        if name in installed and satisfies(installed[name][0], constraint):
            return name
        for provider, version in provides.get(name, []):
            if satisfies(version, constraint):
                return provider
    return None

ours = {field(deb, "Package") for deb in sys.argv[1:]}
todo = [c for deb in sys.argv[1:] for c in field(deb, "Depends").split(",") if c.strip()]
todo += [name for name, (_, essential, _) in installed.items() if essential]
seen, missing = set(), []
while todo:
    clause = todo.pop().strip()
    if clause.split()[0] in ours:
        continue
    name = resolve(clause)
    if name is None:
        missing.append(clause)
    elif name not in seen:
        seen.add(name)
        todo += [c for c in installed[name][2].split(",") if c.strip()]
if missing:
    sys.exit("not installed here in a version that fits: " + ", ".join(sorted(set(missing))))
print("\n".join(sorted(seen)))
EOF
  then
    bad "dependency closure: $(cat "$tmp/closure.err")"
    echo "$pass passed, $fail failed ($mode root)"
    exit 1
  fi
  # usrmerge, as on every Debian 12 installation, then the packages' files.
  mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib" "$root/usr/lib64" "$root/etc" "$root/srv"
  for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done
  # shellcheck disable=SC2046
  dpkg -L $(cat "$tmp/closure") 2>/dev/null | sort -u | while read -r f; do
    [ -L "$f" ] || [ -f "$f" ] && printf '%s\n' "${f#/}"
  done >"$tmp/files"
  tar -C / --no-recursion -cf - -T "$tmp/files" 2>/dev/null |
    tar -C "$root" --keep-directory-symlink -xf - && ok || bad "copying the closure"
  dpkg -x "$tools" "$root" && dpkg -x "$arena" "$root" && ok || bad "dpkg -x"
  echo "scratch root: $(wc -l <"$tmp/closure") packages, $(wc -l <"$tmp/files") files, $(du -sm "$root" | cut -f1) MB"
fi

# 4. Inside the root: only its files, loopback only.
mkdir -p "$root/srv"
cp "$src/sdk/templates/python/my_bot.py" "$root/srv/my_bot.py"
cat >"$root/srv/first.py" <<'EOF'
import json, sys
for line in sys.stdin:
    print(json.loads(line)["legal_actions"][0], flush=True)
EOF
cat >"$root/srv/smoke.sh" <<'EOF'
#!/bin/bash
# Runs in the packaged root: prints "ok NAME" or "FAIL NAME: ..." per check.
cd /srv
check() { local name=$1; shift; if out=$("$@" 2>&1); then echo "ok $name"; else echo "FAIL $name: $out" | head -c 3000; echo; fi; }
has() { local name=$1 want=$2; shift 2; out=$("$@" 2>&1); case "$out" in *"$want"*) echo "ok $name" ;; *) echo "FAIL $name: $out" | head -c 3000; echo ;; esac; }
wait_health() { for _ in $(seq 300); do tarock-health-probe --addr="$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }

has match "4 hands" timeout 120 tarock match --variant slovenian-4p --hands 4 --seed 3 \
  r=tarock-bot-random h=tarock-bot-heuristic s=tarock-bot-search p=py:/srv/my_bot.py
has stdio_match "3 hands" timeout 120 tarock match --variant slovenian-3p --hands 3 --seed 2 \
  me="stdio:python3 -u /srv/first.py" r=tarock-bot-random h=tarock-bot-heuristic
check check_bot timeout 120 tarock check-bot --variants slovenian-3p --hands 3 py:/srv/my_bot.py
timeout 300 tarock compare --variant slovenian-3p --candidate tarock-bot-heuristic \
  --baseline tarock-bot-random --h0 0 --h1 200 --seed 9 --max_deals 8 --quiet --report /srv/compare.json \
  >/srv/compare.out 2>&1
rc=$?
if [ $rc -le 2 ] && python3 -c "import json; d=json.load(open('/srv/compare.json')); assert d['differences']"; then
  echo "ok compare"; else echo "FAIL compare: exit $rc $(cat /srv/compare.out)"; fi

tarock-referee --listen=127.0.0.1:7701 --metrics_listen=127.0.0.1:9701 --allow_bot_ranges=127.0.0.0/8 >/srv/referee.log 2>&1 &
referee=$!
tarock-arena --listen=127.0.0.1:7700 --http_listen=127.0.0.1:8700 --data_dir=/srv/arena \
  --referees=127.0.0.1:7701 >/srv/arena.log 2>&1 &
arena=$!
if wait_health 127.0.0.1:7701; then echo "ok referee"; else echo "FAIL referee: $(cat /srv/referee.log)"; fi
if wait_health 127.0.0.1:7700; then echo "ok arena"; else echo "FAIL arena: $(cat /srv/arena.log)"; fi
has remote_match "3 hands" timeout 120 tarock match --referee 127.0.0.1:7701 --variant slovenian-3p \
  --hands 3 --seed 1 a=tarock-bot-random b=tarock-bot-random c=tarock-bot-heuristic
# Failed once in CI (the client could not connect although the health probe
# had answered; not seen again in 7 runs): say whether the referee was there.
case "$out" in *"3 hands"*) ;; *)
  echo "(the referee: $(kill -0 $referee 2>/dev/null && echo running || echo ended); $(tarock-health-probe --addr=127.0.0.1:7701 2>&1 | head -c 300); its log: $(tail -c 1500 /srv/referee.log))" ;;
esac
has arena_cli "bots" tarock-arena-cli --help
has bothost "--arena" tarock-bothost --help
kill $referee $arena
wait
EOF
chmod +x "$root/srv/smoke.sh"
timeout 900 bwrap --bind "$root" / --proc /proc --dev /dev --tmpfs /tmp --unshare-net --unshare-pid \
  --die-with-parent --clearenv --setenv PATH /usr/bin:/bin --setenv HOME /srv --setenv LANG C.UTF-8 \
  /srv/smoke.sh >"$tmp/smoke.out" 2>&1
while read -r line; do
  case "$line" in
    "ok "*) ok ;;
    "FAIL "*) bad "in the packaged root: $line" ;;
  esac
done <"$tmp/smoke.out"
n=$(grep -c '^ok ' "$tmp/smoke.out")
[ "$n" -eq 9 ] && ok || bad "$n of 9 checks in the root passed: $(cat "$tmp/smoke.out")"

echo "$pass passed, $fail failed ($mode root)"
[ $fail -eq 0 ]
