#!/usr/bin/env python3
"""Static checks of deploy/ (tests/deploy_test.sh, ctest `deploy`): what can be
checked without a container engine or a cluster.

- every YAML file under deploy/ parses;
- every Tarock program that the Compose file, the Kubernetes manifests or the
  systemd units run is a build target that `cmake --install` installs, and
  every flag given to it is in its `--helpfull` (PENDING_FLAGS lists flags
  being added elsewhere);
- ports agree: a program's --listen/--http_listen/--metrics_listen against
  its health checks and probes, published ports, containerPorts, Services'
  targetPorts, NetworkPolicies, the addresses other programs dial
  (--referees, --endpoint, --arena, --public_address, --database) and
  Prometheus' targets;
- the Kubernetes base builds with `kubectl kustomize` when kubectl is here
  (else its resource list resolves), its HPA targets a Deployment whose pods
  request CPU, and its copy of the alerting rules is deploy/prometheus's;
- the Dockerfile: both stages on debian:12, the build stage runs
  scripts/setup.sh, the runtime stage runs as a non-root user, and its
  packages provide every shared library the built programs load (ldd);
- `promtool check config` on both Prometheus configurations, laid out as the
  containers see them;
- `nginx -t` on deploy/nginx/tarock-arena.conf inside a throwaway nginx.conf
  (with a throwaway certificate) when nginx is installed, and that it sets
  the limits and timeouts docs/security.md promises.

    check_deploy.py --source SOURCE_DIR --build BUILD_DIR

Prints one line per failure and a summary; exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Optional

import yaml

# Flags being added to a program in parallel work, passed here already.
PENDING_FLAGS: dict[str, set[str]] = {
    # Flags a deploy file may name before the program has them (none now).
}
# Shared libraries every Debian image has (Essential or required packages).
BASE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}

failures: list[str] = []
checks = 0


def check(condition: bool, message: str) -> bool:
    global checks
    checks += 1
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}")
    return condition


def load_yaml(path: Path) -> list:
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


# --- programs and flags ------------------------------------------------------


class Programs:
    """The build's programs: targets, installed targets, --helpfull flags."""

    def __init__(self, source: Path, build: Path) -> None:
        text = "\n".join(p.read_text() for p in [source / "CMakeLists.txt"])
        self.targets = set(re.findall(r"add_executable\(([\w.+-]+)", text))
        self.installed: set[str] = set()
        for block in re.findall(r"install\(TARGETS([^)]*)\)", text):
            self.installed.update(block.split())
        self.build = build
        self._flags: dict[str, Optional[set[str]]] = {}

    def flags(self, program: str) -> Optional[set[str]]:
        if program not in self._flags:
            binary = self.build / "bin" / program
            if not binary.exists():
                self._flags[program] = None
            else:
                out = subprocess.run([str(binary), "--helpfull"], capture_output=True, text=True,
                                     timeout=30)
                self._flags[program] = set(
                    re.findall(r"^\s+--([A-Za-z0-9_]+)", out.stdout + out.stderr, re.MULTILINE))
        return self._flags[program]


def invocations(argv: list[str]) -> Iterable[list[str]]:
    """The command lines in argv: argv itself, or each command of `sh -c SCRIPT`."""
    if len(argv) >= 3 and os.path.basename(argv[0]) in ("sh", "bash") and argv[1] == "-c":
        for line in argv[2].splitlines():
            for part in re.split(r"\|\||&&|;", line):
                words = shlex.split(part, comments=True)
                if words:
                    yield words
    else:
        yield argv


def check_invocation(programs: Programs, argv: list[str], where: str) -> None:
    program = os.path.basename(argv[0])
    if not program.startswith("tarock"):
        return
    check(program in programs.targets, f"{where}: {program} is no build target (add_executable)")
    check(program in programs.installed, f"{where}: {program} is not installed (install(TARGETS))")
    flags = programs.flags(program)
    if not check(flags is not None, f"{where}: {programs.build}/bin/{program} is not built"):
        return
    for word in argv[1:]:
        if not word.startswith("--"):
            continue
        name = word[2:].split("=", 1)[0]
        check(name in flags or name in PENDING_FLAGS.get(program, set()),
              f"{where}: {program} has no flag --{name}")


def flag_values(argv: list[str], name: str) -> list[str]:
    prefix = f"--{name}="
    out = [w[len(prefix):] for w in argv if w.startswith(prefix)]
    for i, w in enumerate(argv[:-1]):
        if w == f"--{name}":
            out.append(argv[i + 1])
    return out


def port_of(address: str) -> Optional[int]:
    m = re.search(r":(\d+)$", address)
    return int(m.group(1)) if m else None


def host_of(address: str) -> str:
    address = re.sub(r"^dns:(//[^/]*)?/?", "", address)
    return address.rsplit(":", 1)[0].strip("[]")


def listen_ports(argv: list[str]) -> dict[str, int]:
    """{flag: port} of a program's listening flags."""
    out = {}
    for flag in ("listen", "http_listen", "metrics_listen"):
        for v in flag_values(argv, flag):
            if port_of(v) is not None:
                out[flag] = port_of(v)
    return out


def dialed(argv: list[str]) -> list[tuple[str, str, int]]:
    """(flag, host, port) of the addresses a program dials."""
    out = []
    for flag in ("referees", "endpoint", "arena", "public_address", "addr"):
        for value in flag_values(argv, flag):
            for entry in value.split(","):
                if port_of(entry) is not None:
                    out.append((flag, host_of(entry), port_of(entry)))
    for url in flag_values(argv, "database"):
        m = re.match(r"postgres(?:ql)?://[^@/]*@([^:/]+):(\d+)/", url)
        if check(m is not None, f"--database={url} names no HOST:PORT"):
            out.append(("database", m.group(1), int(m.group(2))))
    return out


# --- Compose -------------------------------------------------------------------


def compose_argv(service: dict) -> list[str]:
    command = service.get("command", [])
    return shlex.split(command) if isinstance(command, str) else [str(c) for c in command]


def check_compose(programs: Programs, path: Path) -> dict[str, dict[str, int]]:
    """Checks the Compose file; returns {service: {listen flag: port}}."""
    doc = load_yaml(path)[0]
    services = doc["services"]
    # Network aliases: a name several services share resolves to all of them.
    aliases: dict[str, list[str]] = {}
    for name, svc in services.items():
        networks = svc.get("networks") or {}
        for net in networks.values() if isinstance(networks, dict) else []:
            for alias in (net or {}).get("aliases", []):
                aliases.setdefault(alias, []).append(name)
    listens: dict[str, dict[str, int]] = {}
    for name, svc in services.items():
        argv = compose_argv(svc)
        if argv:
            for inv in invocations(argv):
                check_invocation(programs, inv, f"compose {name}")
        listens[name] = listen_ports(argv)
        if str(svc.get("image", "")).startswith("postgres"):
            listens[name] = {"postgres": 5432}
        if str(svc.get("image", "")).startswith("prom/prometheus"):
            listens[name] = {"web": 9090}
    for name, svc in services.items():
        argv = compose_argv(svc)
        mine = set(listens[name].values())
        test = svc.get("healthcheck", {}).get("test", [])
        if isinstance(test, list) and any("tarock-health-probe" in str(t) for t in test):
            addr = [p for p in flag_values([str(t) for t in test], "addr")]
            check(len(addr) == 1 and port_of(addr[0]) == listens[name].get("listen"),
                  f"compose {name}: health check {addr} is not its --listen port "
                  f"{listens[name].get('listen')}")
        for mapping in svc.get("ports", []):
            container = int(str(mapping).rsplit(":", 1)[-1].split("/")[0])
            check(container in mine, f"compose {name}: publishes {container}, listens on {sorted(mine)}")
        for inv in invocations(argv) if argv else []:
            for flag, host, port in dialed(inv):
                if flag == "addr" or host in ("127.0.0.1", "localhost"):
                    continue
                targets = [host] if host in services else aliases.get(host, [])
                check(bool(targets), f"compose {name}: --{flag} names no service or alias {host}")
                for target in targets:
                    key = "postgres" if flag == "database" else "listen"
                    want = listens[target].get(key)
                    check(port == want, f"compose {name}: --{flag} dials {host}:{port}, "
                                        f"{target} listens on {want}")
    for alias, names in aliases.items():
        listens.setdefault(alias, {})
        for n in names:  # Prometheus' dns_sd on an alias reaches every service's ports
            for flag, port in listens[n].items():
                listens[alias].setdefault(flag, port)
    return listens


def check_prometheus_targets(config: Path, port_of_host, where: str) -> None:
    doc = load_yaml(config)[0]
    for job in doc.get("scrape_configs", []):
        for sc in job.get("static_configs", []):
            for target in sc.get("targets", []):
                host, port = host_of(target), port_of(target)
                if host in ("127.0.0.1", "localhost"):
                    continue
                ports = port_of_host(host)
                check(ports is not None and port in ports,
                      f"{where} job {job['job_name']}: target {target}, {host} serves {ports}")
        for sd in job.get("dns_sd_configs", []):
            for host in sd.get("names", []):
                ports = port_of_host(host, direct=True)
                check(ports is not None and sd.get("port") in ports,
                      f"{where} job {job['job_name']}: dns_sd {host}:{sd.get('port')}, pods serve {ports}")


# --- Kubernetes ------------------------------------------------------------------


def kustomize(base: Path) -> Optional[list]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return None
    out = subprocess.run([kubectl, "kustomize", str(base)], capture_output=True, text=True, timeout=60)
    if not check(out.returncode == 0, f"kubectl kustomize {base}: {out.stderr.strip()}"):
        return []
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def check_kubernetes(programs: Programs, base: Path, rules: Path) -> None:
    kustomization = load_yaml(base / "kustomization.yaml")[0]
    for resource in kustomization.get("resources", []):
        check((base / resource).is_file(), f"kustomization: resource {resource} does not exist")
    for generator in kustomization.get("configMapGenerator", []):
        for f in generator.get("files", []):
            check((base / f.split("=")[-1]).is_file(), f"kustomization: file {f} does not exist")
    check((base / "prometheus" / "tarock-rules.yml").read_bytes() == rules.read_bytes(),
          f"{base}/prometheus/tarock-rules.yml differs from {rules}")
    objects = kustomize(base)
    if objects is None:
        print("note: no kubectl here; checked the raw resources instead of `kubectl kustomize`")
        objects = [d for r in kustomization.get("resources", []) for d in load_yaml(base / r)]
    by_kind: dict[str, list] = {}
    for o in objects:
        by_kind.setdefault(o["kind"], []).append(o)

    # Pods: labels, container ports (name -> port), listening flags.
    pods = []
    for kind in ("Deployment", "StatefulSet"):
        for o in by_kind.get(kind, []):
            template = o["spec"]["template"]
            for c in template["spec"]["containers"]:
                argv = [str(x) for x in c.get("command", []) + c.get("args", [])]
                where = f"{kind} {o['metadata']['name']}/{c['name']}"
                for inv in invocations(argv) if argv else []:
                    check_invocation(programs, inv, where)
                ports = {p.get("name", str(p["containerPort"])): p["containerPort"] for p in c.get("ports", [])}
                listens = listen_ports(argv)
                for flag, port in listens.items():
                    check(port in ports.values(), f"{where}: --{flag} port {port} is no containerPort")
                for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                    grpc = c.get(probe, {}).get("grpc")
                    if grpc is not None:
                        check(grpc["port"] == listens.get("listen"),
                              f"{where}: {probe} grpc port {grpc['port']} is not --listen {listens.get('listen')}")
                if argv and os.path.basename(argv[0]) in ("tarock-referee", "tarock-arena"):
                    check(c.get("readinessProbe", {}).get("grpc") is not None,
                          f"{where}: no grpc readinessProbe")
                pods.append({"kind": kind, "name": o["metadata"]["name"], "where": where,
                             "labels": template["metadata"].get("labels", {}), "ports": ports,
                             "argv": argv, "container": c})

    def selected(selector: dict) -> list:
        return [p for p in pods if selector and all(p["labels"].get(k) == v for k, v in selector.items())]

    services = {s["metadata"]["name"]: s for s in by_kind.get("Service", [])}
    for name, s in services.items():
        chosen = selected(s["spec"].get("selector", {}))
        check(bool(chosen), f"Service {name} selects no pod")
        for p in s["spec"]["ports"]:
            target = p.get("targetPort", p["port"])
            ok = any(target in pod["ports"] or target in pod["ports"].values() for pod in chosen)
            check(ok, f"Service {name}: targetPort {target} is no port of its pods")

    def service_target(host: str, port: int, direct: bool = False) -> Optional[set[int]]:
        """Container ports reached through Service `host` at `port` (direct: pod IPs)."""
        s = services.get(host.split(".")[0])
        if s is None:
            return None
        out = set()
        for pod in selected(s["spec"].get("selector", {})):
            for p in s["spec"]["ports"]:
                if direct or p["port"] == port:
                    t = p.get("targetPort", p["port"])
                    out.add(pod["ports"].get(t, t) if isinstance(t, str) else t)
        return out

    for pod in pods:
        for flag, host, port in dialed(pod["argv"]):
            if host in ("127.0.0.1", "localhost"):
                continue
            targets = service_target(host, port)
            if not check(targets is not None, f"{pod['where']}: --{flag} names no Service {host}"):
                continue
            s = services[host.split(".")[0]]
            want = set()  # where the Service's pods listen
            for other in selected(s["spec"].get("selector", {})):
                want |= set(listen_ports(other["argv"]).values()) or set(other["ports"].values())
            if flag == "referees":
                # Headless: the name gives the pods' addresses, so PORT is the pods' port.
                check(s["spec"].get("clusterIP") == "None",
                      f"{pod['where']}: --referees dns:///{host} should be a headless Service")
                direct = service_target(host, port, direct=True) or set()
                check(port in want and port in direct,
                      f"{pod['where']}: --referees dials port {port}; its pods listen on {want}")
            else:
                check(bool(targets & want),
                      f"{pod['where']}: --{flag} dials {host}:{port}, which reaches {targets}; "
                      f"its pods listen on {want}")

    for np in by_kind.get("NetworkPolicy", []):
        chosen = selected(np["spec"]["podSelector"].get("matchLabels", {}))
        check(bool(chosen), f"NetworkPolicy {np['metadata']['name']} selects no pod")
        for rule in np["spec"].get("ingress", []):
            for p in rule.get("ports", []):
                ok = any(p["port"] in pod["ports"].values() or p["port"] in pod["ports"] for pod in chosen)
                check(ok, f"NetworkPolicy {np['metadata']['name']}: port {p['port']} is no port of its pods")
            for peer in rule.get("from", []):
                labels = peer.get("podSelector", {}).get("matchLabels")
                if labels:
                    check(bool(selected(labels)),
                          f"NetworkPolicy {np['metadata']['name']}: peer {labels} selects no pod")

    workloads = {(o["kind"], o["metadata"]["name"]): o for k in ("Deployment", "StatefulSet")
                 for o in by_kind.get(k, [])}
    for hpa in by_kind.get("HorizontalPodAutoscaler", []):
        ref = hpa["spec"]["scaleTargetRef"]
        target = workloads.get((ref["kind"], ref["name"]))
        if check(target is not None, f"HPA {hpa['metadata']['name']}: no {ref['kind']} {ref['name']}"):
            for c in target["spec"]["template"]["spec"]["containers"]:
                check("cpu" in c.get("resources", {}).get("requests", {}),
                      f"HPA {hpa['metadata']['name']}: container {c['name']} requests no CPU")

    config = base / "prometheus" / "prometheus.yml"

    def k8s_ports(host: str, direct: bool = False) -> Optional[set[int]]:
        s = services.get(host)
        if s is None:
            return None
        if direct:
            return service_target(host, 0, direct=True)
        return {p["port"] for p in s["spec"]["ports"]}

    check_prometheus_targets(config, k8s_ports, "kubernetes prometheus.yml")


# --- systemd units, Dockerfile, Prometheus -------------------------------------------


def check_units(programs: Programs, deploy: Path) -> None:
    for unit in sorted(deploy.glob("*.service")):
        text = unit.read_text().replace("\\\n", " ")
        for line in text.splitlines():
            if line.startswith("ExecStart="):
                check_invocation(programs, shlex.split(line[len("ExecStart="):]), unit.name)


def dockerfile_packages(text: str) -> list[str]:
    runtime = text.split("\nFROM ")[-1]
    install = re.search(r"apt-get install -y --no-install-recommends(.*?)&&", runtime.replace("\\\n", " "), re.S)
    return install.group(1).split() if install else []


def check_dockerfile(programs: Programs, source: Path, dockerfile: Path) -> None:
    text = dockerfile.read_text()
    stages = re.findall(r"^FROM\s+(\S+)", text, re.MULTILINE)
    check(len(stages) == 2 and all(s == "debian:12" for s in stages),
          f"Dockerfile: stages {stages}, want two on debian:12")
    build_stage = text.split("\nFROM ")[1] if "\nFROM " in text else ""
    check("scripts/setup.sh" in build_stage, "Dockerfile: the build stage does not run scripts/setup.sh")
    users = re.findall(r"^USER\s+(\S+)", text, re.MULTILINE)
    check(bool(users) and users[-1].split(":")[0] not in ("0", "root"), f"Dockerfile: runs as {users}")
    check((source / ".dockerignore").is_file() and "build" in (source / ".dockerignore").read_text(),
          ".dockerignore does not leave out build trees")
    packages = dockerfile_packages(text)
    check(bool(packages), "Dockerfile: no apt-get install in the runtime stage")
    for p in packages:
        out = subprocess.run(["apt-cache", "show", "--no-all-versions", p], capture_output=True, text=True)
        check(out.returncode == 0 and out.stdout.strip() != "", f"Dockerfile: no Debian package {p}")
    # The packages and everything they depend on must provide every library.
    deps = subprocess.run(
        ["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
         "--no-breaks", "--no-replaces", "--no-enhances", *packages],
        capture_output=True, text=True)
    closure = set(packages) | BASE_PACKAGES | {
        line.split(":", 1)[-1].strip().strip("<>").split(":")[0]
        for line in deps.stdout.splitlines()}
    libs: dict[str, set[str]] = {}
    for program in sorted(programs.installed & programs.targets):
        binary = programs.build / "bin" / program
        if not binary.exists():
            continue
        out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True)
        for m in re.finditer(r"=>\s+(/\S+)", out.stdout):
            lib = os.path.realpath(m.group(1))
            if str(programs.build) in lib:
                continue
            libs.setdefault(lib, set()).add(program)
    check(bool(libs), "Dockerfile: no built program to compare the runtime packages with")
    for lib, users_of in sorted(libs.items()):
        owner = None
        for candidate in (lib, "/usr" + lib, lib.removeprefix("/usr")):
            out = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
            if out.returncode == 0:
                owner = out.stdout.split(":", 1)[0].split(",")[0].strip()
                break
        if check(owner is not None, f"Dockerfile: no package owns {lib}"):
            check(owner in closure,
                  f"Dockerfile: {lib} ({owner}, loaded by {', '.join(sorted(users_of))}) "
                  f"is not in the runtime stage's packages")


def promtool_check(config: Path, rules: Path, where: str) -> None:
    promtool = shutil.which("promtool")
    if not check(promtool is not None, "promtool is not installed (Debian: prometheus)"):
        return
    with tempfile.TemporaryDirectory() as tmp:
        # As the containers see it: the rules beside the configuration.
        shutil.copy(config, Path(tmp) / "prometheus.yml")
        shutil.copy(rules, Path(tmp) / "tarock-rules.yml")
        out = subprocess.run([promtool, "check", "config", str(Path(tmp) / "prometheus.yml")],
                             capture_output=True, text=True)
        check(out.returncode == 0, f"promtool check config {where}: {out.stdout}{out.stderr}")


def nginx_check(conf: Path) -> None:
    text = conf.read_text()
    for directive in ("limit_conn_zone", "limit_req_zone", "limit_conn ", "limit_req ",
                      "client_header_timeout", "client_body_timeout", "send_timeout",
                      "client_max_body_size", "proxy_set_header X-Forwarded-For",
                      "proxy_buffering off"):
        check(directive in text, f"deploy/nginx/tarock-arena.conf sets no {directive.strip()}")
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    openssl = shutil.which("openssl")
    if nginx is None or openssl is None:
        print("note: nginx or openssl not installed: deploy/nginx/tarock-arena.conf not run through nginx -t")
        return
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=check", "-keyout", str(t / "k.pem"), "-out", str(t / "c.pem")],
                       capture_output=True, check=False)
        site = text.replace("/etc/tarock/tls/arena.pem", str(t / "c.pem")).replace(
            "/etc/tarock/tls/arena.key", str(t / "k.pem"))
        (t / "site.conf").write_text(site)
        (t / "logs").mkdir()
        (t / "nginx.conf").write_text(
            f"pid {t}/nginx.pid;\nerror_log {t}/logs/error.log;\nevents {{}}\n"
            f"http {{\n  access_log off;\n  client_body_temp_path {t}/body;\n"
            f"  proxy_temp_path {t}/proxy;\n  include {t}/site.conf;\n}}\n")
        out = subprocess.run([nginx, "-t", "-c", str(t / "nginx.conf"), "-p", tmp],
                             capture_output=True, text=True, check=False)
        check(out.returncode == 0, f"nginx -t deploy/nginx/tarock-arena.conf: {out.stdout}{out.stderr}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", required=True, type=Path)
    parser.add_argument("--build", required=True, type=Path)
    args = parser.parse_args()
    source, deploy = args.source.resolve(), args.source.resolve() / "deploy"
    programs = Programs(source, args.build.resolve())

    for path in sorted(list(deploy.rglob("*.yml")) + list(deploy.rglob("*.yaml"))):
        try:
            load_yaml(path)
            check(True, "")
        except yaml.YAMLError as e:
            check(False, f"{path.relative_to(source)} does not parse: {e}")

    rules = deploy / "prometheus" / "tarock-rules.yml"
    listens = check_compose(programs, deploy / "compose" / "compose.yaml")

    def compose_ports(host: str, direct: bool = False) -> Optional[set[int]]:
        return set(listens[host].values()) if host in listens else None

    check_prometheus_targets(deploy / "compose" / "prometheus.yml", compose_ports, "compose prometheus.yml")
    check_kubernetes(programs, deploy / "kubernetes" / "base", rules)
    check_units(programs, deploy)
    check_dockerfile(programs, source, deploy / "container" / "Dockerfile")
    promtool_check(deploy / "compose" / "prometheus.yml", rules, "compose")
    promtool_check(deploy / "kubernetes" / "base" / "prometheus" / "prometheus.yml", rules, "kubernetes")
    promtool_check(deploy / "prometheus" / "prometheus.yml", rules, "systemd")
    nginx_check(deploy / "nginx" / "tarock-arena.conf")

    print(f"{checks - len(failures)} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
