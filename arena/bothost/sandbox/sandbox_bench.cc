// The start cost of a sandboxed process (docs/benchmarks.md, "Hosted bots"):
// each program run to its end with empty input, directly and in the sandbox,
// 10 runs each, the median wall time. Needs root and bwrap.
//   sandbox_bench PYTHON_SDK_DIR CPP_BOT PYTHON_BOT

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "arena/bothost/sandbox/sandbox.h"

namespace {

using tarock::bothost::Sandbox;
using tarock::bothost::SandboxSpec;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double Direct(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
  const absl::Time start = absl::Now();
  auto child = tarock::stdio::ChildProcess::Start(argv, "/dev/null");
  if (!child.ok()) return -1;
  (*child)->CloseInput();
  std::string line;
  while ((*child)->ReadLine(absl::Now() + absl::Seconds(30), 4096, &line) ==
         tarock::stdio::ChildProcess::Io::kOk) {
  }
  while (!(*child)->exited()) absl::SleepFor(absl::Microseconds(200));
  return absl::ToDoubleMilliseconds(absl::Now() - start);
}

// Round trips of one short line through `cat` (the pipe hop of a hosted
// decision with nothing to think): microseconds per round trip, each sample
// the mean of `rounds` trips; `child` is already started.
std::vector<double> RoundTrips(tarock::stdio::ChildProcess& child, int samples, int rounds) {
  std::vector<double> out;
  std::string line;
  const std::string ping(200, 'x');
  for (int s = 0; s < samples; ++s) {
    const absl::Time start = absl::Now();
    for (int r = 0; r < rounds; ++r) {
      const absl::Time deadline = absl::Now() + absl::Seconds(10);
      if (child.WriteLine(ping, deadline) != tarock::stdio::ChildProcess::Io::kOk ||
          child.ReadLine(deadline, 4096, &line) != tarock::stdio::ChildProcess::Io::kOk)
        return {};
    }
    out.push_back(absl::ToDoubleMicroseconds(absl::Now() - start) / rounds);
  }
  return out;
}

// The same round trip after `gap_us` of idleness on both sides, as a hosted
// decision comes after the other seats' turns: microseconds per trip, one
// sample per trip (the gap not counted).
std::vector<double> GappedTrips(tarock::stdio::ChildProcess& child, int trips, int gap_us) {
  std::vector<double> out;
  std::string line;
  const std::string ping(200, 'x');
  for (int r = 0; r < trips; ++r) {
    absl::SleepFor(absl::Microseconds(gap_us));
    const absl::Time start = absl::Now();
    const absl::Time deadline = start + absl::Seconds(10);
    if (child.WriteLine(ping, deadline) != tarock::stdio::ChildProcess::Io::kOk ||
        child.ReadLine(deadline, 4096, &line) != tarock::stdio::ChildProcess::Io::kOk)
      return {};
    out.push_back(absl::ToDoubleMicroseconds(absl::Now() - start));
  }
  return out;
}

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / v.size();
}

double Boxed(const Sandbox& sandbox, SandboxSpec spec) {
  const absl::Time start = absl::Now();
  if (!sandbox.Run(spec, absl::Seconds(30)).ok()) return -1;
  return absl::ToDoubleMilliseconds(absl::Now() - start);
}

// A held run (a bot host's spare, Sandbox::StartHeld) made ahead and
// released: the wall time from the release to the program's end, the part of
// a start a seat still waits for.
double HeldThenReleased(const Sandbox& sandbox, const SandboxSpec& spec) {
  absl::StatusOr<Sandbox::HeldRun> held = sandbox.StartHeld(spec);
  if (!held.ok()) return -1;
  absl::SleepFor(absl::Milliseconds(300));  // its sandbox is made meanwhile
  const absl::Time start = absl::Now();
  absl::StatusOr<std::unique_ptr<tarock::stdio::ChildProcess>> child = held->Release();
  if (!child.ok()) return -1;
  (*child)->CloseInput();
  std::string line;
  while ((*child)->ReadLine(absl::Now() + absl::Seconds(30), 4096, &line) ==
         tarock::stdio::ChildProcess::Io::kOk) {
  }
  while (!(*child)->exited()) absl::SleepFor(absl::Microseconds(200));
  return absl::ToDoubleMilliseconds(absl::Now() - start);
}

}  // namespace

int main(int argc, char** argv) {
  static const char kUsage[] =
      "sandbox_bench PYTHON_SDK_DIR CPP_BOT PYTHON_BOT\n"
      "Benchmark: the start cost of a sandboxed process. Runs each program (a C++ bot, a Python\n"
      "bot with the SDK at PYTHON_SDK_DIR) to its end with empty input, directly and in the\n"
      "hosted-bot sandbox, 10 times each, and prints the median wall times. Needs root and\n"
      "bwrap (docs/benchmarks.md, \"Hosted bots\").\n";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-help" || a == "-h" || a == "--helpfull") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s", kUsage);
    return 2;
  }
  const std::string sdk = argv[1], cpp = argv[2], py = argv[3];
  absl::StatusOr<std::unique_ptr<Sandbox>> sandbox = Sandbox::Create();
  if (!sandbox.ok()) {
    std::fprintf(stderr, "%s\n", std::string(sandbox.status().message()).c_str());
    return 1;
  }
  const std::string pydir = py.substr(0, py.rfind('/'));
  const std::string pyname = py.substr(py.rfind('/') + 1);
  const std::string cppdir = cpp.substr(0, cpp.rfind('/'));
  const std::string cppname = cpp.substr(cpp.rfind('/') + 1);
  struct Case {
    const char* name;
    std::vector<std::string> direct;
    std::vector<std::string> boxed;
  };
  std::vector<Case> cases = {
      {"/bin/true", {"/bin/true"}, {"/bin/true"}},
      {"python3 -c pass", {"/usr/bin/python3", "-c", "pass"}, {"/usr/bin/python3", "-c", "pass"}},
      {"Python template (stdio, SDK import)",
       {"/usr/bin/python3", "-m", "tarock_bot", "stdio", py},
       {"/usr/bin/python3", "-m", "tarock_bot", "stdio", "/bot/" + pyname}},
      {"C++ bot (--stdio)    ", {cpp, "--stdio"}, {"/cbot/" + cppname, "--stdio"}},
  };
  const std::string pythonpath = "PYTHONPATH=" + sdk;
  std::printf("%-40s %12s %12s %10s %12s\n", "program (empty input, to its end)", "direct ms",
              "sandbox ms", "extra ms", "held ms");
  for (const Case& c : cases) {
    std::vector<double> d, b, h;
    for (int i = 0; i < 10; ++i) {
      d.push_back(Direct(c.direct, {pythonpath}));
      SandboxSpec spec;
      spec.argv = c.boxed;
      spec.ro_binds = {{pydir, "/bot"}, {sdk, "/sdk/python"}, {cppdir, "/cbot"}};
      spec.env = {"PYTHONPATH=/sdk/python", "PYTHONDONTWRITEBYTECODE=1"};
      b.push_back(Boxed(**sandbox, spec));
      h.push_back(HeldThenReleased(**sandbox, spec));
    }
    // held: from the release of a run made ahead (a spare) to its end.
    std::printf("%-40s %12.1f %12.1f %10.1f %12.1f\n", c.name, Median(d), Median(b),
                Median(b) - Median(d), Median(h));
  }
  // The pipe hop: one line to `cat` and back, directly, in the sandbox with
  // its CPU quota (--bot_cpus 1), and in the sandbox with no quota; the three
  // interleaved so that they share the machine's load.
  std::printf("\n%-40s %12s %12s\n", "round trip of a line through cat", "median us", "mean us");
  {
    auto direct = tarock::stdio::ChildProcess::Start({"/bin/cat"}, "/dev/null");
    SandboxSpec spec;
    spec.argv = {"/bin/cat"};
    auto quota = (*sandbox)->Start(spec);
    spec.limits.cpus = 0;  // no quota
    auto free = (*sandbox)->Start(spec);
    if (!direct.ok() || !quota.ok() || !free.ok()) {
      std::fprintf(stderr, "cannot start cat\n");
      return 1;
    }
    std::vector<double> d, q, f;
    for (int i = 0; i < 20; ++i) {
      for (double x : RoundTrips(**direct, 5, 100)) d.push_back(x);
      for (double x : RoundTrips(**quota, 5, 100)) q.push_back(x);
      for (double x : RoundTrips(**free, 5, 100)) f.push_back(x);
    }
    std::printf("%-40s %12.1f %12.1f\n", "direct", Median(d), Mean(d));
    std::printf("%-40s %12.1f %12.1f\n", "sandbox, CPU quota 1 core", Median(q), Mean(q));
    std::printf("%-40s %12.1f %12.1f\n", "sandbox, no CPU quota", Median(f), Mean(f));
    // After 1 ms idle (a decision's turn comes back after the other seats'):
    // the wake-ups of two sleeping processes, not the pipe, set the time.
    std::printf("\n%-40s %12s %12s %12s\n", "the same after 1 ms idle, each trip", "median us",
                "p90 us", "mean us");
    std::vector<double> gd, gq, gf;
    for (int i = 0; i < 20; ++i) {
      for (double x : GappedTrips(**direct, 25, 1000)) gd.push_back(x);
      for (double x : GappedTrips(**quota, 25, 1000)) gq.push_back(x);
      for (double x : GappedTrips(**free, 25, 1000)) gf.push_back(x);
    }
    std::printf("%-40s %12.1f %12.1f %12.1f\n", "direct", Median(gd), Pct(gd, 0.9), Mean(gd));
    std::printf("%-40s %12.1f %12.1f %12.1f\n", "sandbox, CPU quota 1 core", Median(gq), Pct(gq, 0.9), Mean(gq));
    std::printf("%-40s %12.1f %12.1f %12.1f\n", "sandbox, no CPU quota", Median(gf), Pct(gf, 0.9), Mean(gf));
  }
  return 0;
}
