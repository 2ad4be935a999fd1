#include "arena/bothost/bothost.h"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>

#include <chrono>
#include <deque>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "arena/bothost/package.h"
#include "sdk/stdio/stdio_bot.h"
#include "tarock/sdk/bot.h"
#include "tarock/sdk/serve.h"
#include "tarock/v1/hosting.grpc.pb.h"

namespace tarock::bothost {
namespace {

std::string ReadAll(const std::string& path, size_t max = 64 << 10) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (s.size() > max) s = s.substr(0, max) + "\n[cut]\n";
  return s;
}

// The last `max` bytes of a file (a seat's standard error).
std::string ReadTail(const std::string& path, size_t max) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(max) ? size - max : 0;
  in.seekg(from);
  std::string s(static_cast<size_t>(size - from), '\0');
  in.read(s.data(), s.size());
  s.resize(static_cast<size_t>(in.gcount()));
  return from > 0 ? absl::StrCat("[the first ", from, " bytes cut]\n", s) : s;
}

void Log(const std::string& text) {
  std::fprintf(stderr, "tarock-bothost: %s\n", text.c_str());
  std::fflush(stderr);
}

// A version unpacked (and built) on this host.
struct LocalVersion {
  int64_t id = 0;
  Package package;
  std::string dir;  // the package's files (bound read-only at /bot)
  bool ok = false;
  std::string log;
  bool fetch_failed = false;
  std::atomic<bool> done{false};  // the builder thread is finished: the fields above are final
  bool reported = false;          // the main loop's
};

}  // namespace

// One held bot: its gateway connection, with the version it plays.
class BotHost::Player {
 public:
  // A seat's report to the arena: its standard error, and the host's account
  // of its decisions (ReportSeatLogRequest).
  using ReportLog = std::function<void(v1::ReportSeatLogRequest report)>;
  Player(const BotHostOptions& options, const Sandbox* sandbox, const StallClock* stall_clock,
         std::string bot, std::shared_ptr<LocalVersion> version, ReportLog report_log)
      : options_(options), sandbox_(sandbox), stall_clock_(stall_clock), bot_(std::move(bot)),
        version_(std::move(version)), report_log_(std::move(report_log)) {
    logs_ = absl::StrCat(options_.work_dir, "/logs/", bot_);
    std::error_code ec;
    std::filesystem::create_directories(logs_, ec);
    if (ec) Log(absl::StrCat(bot_, ": cannot create ", logs_, ": ", ec.message()));
    refiller_ = std::thread([this] { Refill(); });
    thread_ = std::thread([this] { Play(); });
  }
  ~Player() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    {
      absl::MutexLock lock(&spare_mu_);
      stopping_ = true;
    }
    if (refiller_.joinable()) refiller_.join();
    // Spares never seated: stopped unreleased (their program never ran), and
    // their empty logs go.
    absl::MutexLock lock(&spare_mu_);
    for (Spare& spare : spare_) {
      std::error_code ec;
      if (std::filesystem::file_size(spare.log, ec) == 0 && !ec) std::filesystem::remove(spare.log, ec);
    }
    spare_.clear();
  }
  int64_t version_id() const { return version_->id; }
  int seats() const { return seats_.load(); }
  bool ended() const { return ended_.load(); }

 private:
  void Play() {
    sdk::ConnectOptions connect;
    connect.arena = options_.arena;
    connect.token = options_.token;
    connect.name = bot_;
    connect.version = absl::StrCat("hosted:v", version_->id, " sha256:",
                                   version_->package.sha256.substr(0, 16));
    connect.transport = options_.transport;
    connect.metadata = {{"x-tarock-hosted-bot", bot_}};
    connect.stop = &stop_;
    // Joined at the referee (the arena offers it unless its --dial_in_route
    // is relay): a restarted host gets its seats in progress again either
    // way (the arena resends the JoinReferee, or the relayed seat).
    connect.direct_route = options_.direct_route;
    Log(absl::StrCat("plays ", bot_, " with version ", version_->id));
    absl::Status s = sdk::ConnectSeats(connect, [this]() -> sdk::SeatHandler {
      const int n = ++seat_counter_;
      stdio::StdioOptions o;
      // The Python SDK's stdio mode reads every message; a stdio program
      // gets the bridge's default lines (decision requests only).
      o.events = version_->package.kind != "stdio";
      // The SDKs read binary lines: no JSON on the decision's path.
      o.binary = o.events;
      o.label = absl::StrCat(bot_, "[", n, "]");
      o.one_cpu_turns = options_.one_cpu_turns;
      // A decision this host was stopped through is not the bot's slow answer.
      o.stalled = [clock = stall_clock_] { return clock->Stalled(); };
      o.command = PackageCommand(version_->package, "/bot");
      // A process started ahead of time (it has seen no card), else a new one.
      auto log_path = std::make_shared<std::string>();
      o.start = [this, log_path]() -> absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> {
        {
          absl::MutexLock lock(&spare_mu_);
          while (!spare_.empty()) {
            Spare ready = std::move(spare_.front());
            spare_.pop_front();
            if (ready.run.child().exited()) continue;
            // Its program starts now, with a seat.
            absl::StatusOr<std::unique_ptr<stdio::ChildProcess>> child = ready.run.Release();
            if (child.ok()) {
              *log_path = ready.log;
              return child;
            }
          }
        }
        SandboxSpec spec = Spec();
        *log_path = spec.stderr_path;
        return sandbox_->Start(spec);
      };
      auto bot = std::make_unique<stdio::StdioBot>(o);
      stdio::StdioBot* stdio = bot.get();
      const absl::Time started_at = absl::Now();
      absl::Status started = stdio->Start();
      struct Seat {
        Seat(std::unique_ptr<stdio::StdioBot> b, stdio::StdioBot* s, std::atomic<int>* count,
             std::string label)
            : session(std::move(b)), stdio(s), count(count), label(std::move(label)) {
          ++*count;
        }
        ~Seat() {
          stdio->Finish();
          --*count;
          // The seat's standard error to the arena, for the bot's owner.
          // The seat's standard error and the decisions its bot was slow on,
          // to the arena (a timeout not among them was this host's).
          if (report && !match_id.empty()) {
            v1::ReportSeatLogRequest r;
            r.set_match_id(match_id);
            r.set_seat(seat);
            if (!log_path->empty()) r.set_log(ReadTail(*log_path, max_log));
            r.set_decisions_reported(true);
            for (const auto& [hand, action] : slow) {
              v1::DecisionPlace* p = r.add_slow();
              p->set_hand_index(hand);
              p->set_action_index(action);
            }
            report(std::move(r));
          }
          // The pipe hop and the bot's thinking, as the host sees them (the
          // referee's decision time adds the network and this host's gRPC).
          if (decisions > 0)
            Log(absl::StrCat(label, ": seat ended, ", decisions, " decisions, ",
                             absl::StrFormat("%.3f", absl::ToDoubleMilliseconds(in_bot) / decisions),
                             " ms each in the bot process (pipes included; ",
                             absl::StrFormat("%.3f", absl::ToDoubleMilliseconds(stdio->answer_wait()) / decisions),
                             " ms waiting for the answer); first answer ",
                             absl::StrFormat("%.1f", absl::ToDoubleMilliseconds(first_answer)),
                             " ms after the program's start (its start cost: imports and "
                             "model loading included)"));
        }
        sdk::BotSession session;
        stdio::StdioBot* stdio;
        std::atomic<int>* count;
        std::string label;
        std::optional<std::string> failure;
        int decisions = 0;
        absl::Duration in_bot;
        // The program's start (its release from the spare, or a new sandbox)
        // to its first answer: the start cost of the seat, the program's
        // imports and a learned bot's model loading included.
        absl::Time started_at;
        absl::Duration first_answer = absl::InfiniteDuration();
        std::string match_id;  // from the MatchStart
        int seat = 0;
        std::shared_ptr<std::string> log_path;
        size_t max_log = 0;
        std::function<void(v1::ReportSeatLogRequest)> report;
        // Decisions the bot took more than half its time on, or never
        // answered (StdioBot::slow): (hand_index, action_index).
        std::vector<std::pair<int, int>> slow;
      };
      auto seat = std::make_shared<Seat>(std::move(bot), stdio, &seats_, o.label);
      seat->log_path = log_path;
      seat->started_at = started_at;
      seat->max_log = options_.seat_log_bytes;
      if (report_log_)
        seat->report = [this](v1::ReportSeatLogRequest r) {
          r.set_bot(bot_);
          report_log_(std::move(r));
        };
      if (!started.ok()) seat->failure = std::string(started.message());
      const bool events = o.events;
      return [seat, events](const v1::RefereeMessage& m) -> std::optional<v1::BotMessage> {
        if (m.has_match_start()) {
          seat->match_id = m.match_start().match_id();
          seat->seat = m.match_start().seat();
        }
        if (!seat->failure) {
          if (events && !m.has_decision_request()) seat->stdio->Forward(m);
          const absl::Time start = absl::Now();
          std::optional<v1::BotMessage> reply = seat->session.Handle(m);
          if (m.has_decision_request()) {
            ++seat->decisions;
            const absl::Time now = absl::Now();
            seat->in_bot += now - start;
            if (seat->decisions == 1) seat->first_answer = now - seat->started_at;
            // The request's place: its hand, and the actions of the hand so
            // far (the referee's Fault.action_index).
            if (seat->stdio->slow() && seat->slow.size() < 4096)
              seat->slow.emplace_back(m.decision_request().hand_index(),
                                      m.decision_request().observation().history_size());
          }
          if (seat->stdio->failure()) seat->failure = *seat->stdio->failure();
          if (!seat->failure) {
            if (seat->stdio->timed_out()) return std::nullopt;
            return reply;
          }
        }
        if (!m.has_decision_request()) return std::nullopt;
        v1::BotMessage absent;  // the program is gone: a disconnect fault at once
        absent.mutable_absent()->set_request_id(m.decision_request().request_id());
        absent.mutable_absent()->set_detail(seat->failure->substr(0, 200));
        return absent;
      };
    });
    if (!s.ok()) Log(absl::StrCat(bot_, ": ", s.message()));
    ended_.store(true);
  }

  // A fresh sandbox for one run of the version; its stderr goes to a file of
  // its own, logs/BOT/vID-TIME-PID-N.log (the version, the host's start in
  // ms since 1970 and process, and the run's number in this host's life).
  SandboxSpec Spec() {
    SandboxSpec spec;
    spec.argv = PackageCommand(version_->package, "/bot");
    spec.ro_binds = {{version_->dir, "/bot"}};
    if (!options_.python_sdk.empty()) spec.ro_binds.push_back({options_.python_sdk, "/sdk/python"});
    if (version_->package.kind == "cpp" && !options_.cpp_sdk.empty())
      spec.ro_binds.push_back({options_.cpp_sdk, "/sdk/cpp"});
    spec.env = {"PYTHONPATH=/sdk/python", "PYTHONDONTWRITEBYTECODE=1", "LD_LIBRARY_PATH=/sdk/cpp/lib"};
    // The dynamic linker binds every symbol at the start of a process (started
    // ahead, off the decision's path), not at the first call of each function
    // during the seat's first decisions (docs/benchmarks.md, "Hosted bots").
    spec.env.push_back("LD_BIND_NOW=1");
    static const std::string host_run = absl::StrCat(absl::ToUnixMillis(absl::Now()), "-", getpid());
    static std::atomic<int64_t> runs{0};
    spec.stderr_path = absl::StrCat(logs_, "/v", version_->id, "-", host_run, "-", ++runs, ".log");
    std::error_code ec;
    std::filesystem::remove(spec.stderr_path, ec);  // one run, one file: never appended to
    spec.limits = options_.bot_limits;
    return spec;
  }

  // Keeps `spares` processes started ahead of time (its start cost, e.g. Python's
  // imports, is then paid off the decision's path).
  void Refill() {
    auto empty = [this]() ABSL_SHARED_LOCKS_REQUIRED(spare_mu_) {
      return stopping_ || static_cast<int>(spare_.size()) < options_.spares;
    };
    while (true) {
      spare_mu_.LockWhen(absl::Condition(&empty));
      const bool stopping = stopping_;
      spare_mu_.Unlock();
      if (stopping) return;
      SandboxSpec spec = Spec();
      // Held before the program: uploaded code runs only with a seat.
      absl::StatusOr<Sandbox::HeldRun> child = sandbox_->StartHeld(spec);
      absl::MutexLock lock(&spare_mu_);
      if (child.ok() && !stopping_) {
        spare_.push_back(Spare{*std::move(child), spec.stderr_path});
      } else if (!child.ok()) {
        Log(absl::StrCat(bot_, ": cannot start a process ahead: ", child.status().message()));
        spare_mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Seconds(1));
      }
    }
  }

  const BotHostOptions& options_;
  const Sandbox* sandbox_;
  const StallClock* stall_clock_;
  const std::string bot_;
  const std::shared_ptr<LocalVersion> version_;
  const ReportLog report_log_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> ended_{false};
  std::atomic<int> seats_{0};
  std::atomic<int> seat_counter_{0};
  std::string logs_;
  absl::Mutex spare_mu_;
  struct Spare {
    Sandbox::HeldRun run;  // held at its program's exec until seated
    std::string log;       // its standard error's file
  };
  std::deque<Spare> spare_ ABSL_GUARDED_BY(spare_mu_);
  bool stopping_ ABSL_GUARDED_BY(spare_mu_) = false;
  std::thread refiller_;
  std::thread thread_;
};

namespace {

// Checks (and for C++ compiles) an unpacked version in the sandbox with the
// build limits. Fills `v->ok` and `v->log`.
void Build(const BotHostOptions& options, const Sandbox& sandbox, LocalVersion* v) {
  const Package& p = v->package;
  SandboxSpec spec;
  spec.ro_binds = {{v->dir, "/bot"}};
  if (!options.python_sdk.empty()) spec.ro_binds.push_back({options.python_sdk, "/sdk/python"});
  spec.env = {"PYTHONPATH=/sdk/python", "PYTHONDONTWRITEBYTECODE=1"};
  spec.limits = options.build_limits;
  const std::string entry = absl::StrCat("/bot/", p.entry);
  std::string build_dir;
  if (p.kind == "python") {
    spec.argv = {"/usr/bin/python3", "-c",
                 "import sys\nfrom tarock_bot.__main__ import load_module, find_bot\n"
                 "factory, name = find_bot(load_module(sys.argv[1]))\n"
                 "print('python bot', name, 'found in', sys.argv[1])\n",
                 entry};
  } else if (p.kind == "cpp") {
    if (options.cpp_sdk.empty()) {
      v->ok = false;
      v->log = "this host builds no C++ bots (it was started without --cpp_sdk)";
      return;
    }
    build_dir = v->dir + "/.build";
    // The package never holds .build (ParsePackage refuses it); whatever is
    // there goes, and the folder is made new.
    std::error_code ec;
    std::filesystem::remove_all(build_dir, ec);
    if (!ec) std::filesystem::create_directory(build_dir, ec);
    if (ec) {
      v->ok = false;
      v->log = absl::StrCat("the build failed: cannot make the build folder: ", ec.message());
      return;
    }
    // The project: every .cc/.cpp at the top of the upload, on the installed
    // SDK; the upload's root is on the include path, so headers may sit in
    // folders (`#include "mybot/eval.h"`, as the repository's bots include theirs).
    std::ofstream(build_dir + "/CMakeLists.txt")
        << "cmake_minimum_required(VERSION 3.25)\nproject(hosted_bot LANGUAGES CXX)\n"
           "set(CMAKE_CXX_STANDARD 20)\nset(CMAKE_CXX_STANDARD_REQUIRED ON)\n"
           "find_package(TarockSDK REQUIRED)\n"
           "file(GLOB SOURCES /bot/*.cc /bot/*.cpp)\n"
           "add_executable(bot ${SOURCES})\n"
           "target_include_directories(bot PRIVATE /bot)\n"
           "target_link_libraries(bot PRIVATE tarock::sdk)\n";
    chmod((build_dir + "/CMakeLists.txt").c_str(), 0644);
    spec.rw_binds = {{build_dir, "/bot/.build"}};
    spec.ro_binds.push_back({options.cpp_sdk, "/sdk/cpp"});
    spec.argv = {"/bin/sh", "-c",
                 "set -e; cmake -S /bot/.build -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release "
                 "-DCMAKE_PREFIX_PATH=/sdk/cpp >/tmp/configure.log 2>&1 || "
                 "{ tail -40 /tmp/configure.log; exit 1; }; cmake --build /tmp/b 2>&1 | tail -60; "
                 "cp /tmp/b/bot /bot/.build/bot && echo built /bot/.build/bot"};
  } else if (p.interpreter == "python3") {
    spec.argv = {"/usr/bin/python3", "-c",
                 "import ast,sys\nast.parse(open(sys.argv[1],encoding='utf-8').read(),sys.argv[1])\n"
                 "print('python3 script parses')\n",
                 entry};
  } else if (p.interpreter == "node") {
    spec.argv = {"/usr/bin/node", "--check", entry};
  } else if (p.interpreter == "sh") {
    spec.argv = {"/bin/sh", "-n", entry};
  } else if (p.interpreter == "awk") {
    spec.argv = {"/usr/bin/awk", "-f", entry};  // input is empty: a syntax check
  } else {
    spec.argv = {"/bin/true"};  // a static executable: nothing to build
  }
  const std::string log_path = v->dir + ".build.log";
  { std::ofstream(log_path, std::ios::trunc); }
  spec.stderr_path = log_path;
  std::string out;
  absl::StatusOr<SandboxOutcome> o =
      sandbox.Run(spec, p.kind == "cpp" ? options.build_timeout : options.check_timeout, &out);
  std::string log = out + ReadAll(log_path);
  if (!o.ok()) {
    v->ok = false;
    v->log = absl::StrCat(log, "\nthe build could not start: ", o.status().message());
    return;
  }
  v->ok = o->cause == SandboxCause::kExited && o->code == 0;
  v->log = absl::StrCat(log, v->ok ? "" : absl::StrCat("\nbuild failed: ", o->text));
  std::error_code ec;
  if (v->ok && p.kind == "cpp" && !std::filesystem::is_regular_file(build_dir + "/bot", ec)) {
    v->ok = false;
    v->log += "\nthe build made no /bot/.build/bot";
  }
}

// Builds and checks waiting for a slot: at most `per_host` at once on this
// host and `per_owner` of one owner's bots. Thread-safe.
class BuildSlots {
 public:
  BuildSlots(int per_host, int per_owner)
      : per_host_(std::max(1, per_host)), per_owner_(std::max(1, per_owner)) {}
  // Waits for a slot; false when `stop` was set first. Logs the start.
  bool Acquire(const std::string& owner, const std::string& what, const std::atomic<bool>& stop) {
    absl::MutexLock lock(&mu_);
    auto free = [this, &owner]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      auto it = by_owner_.find(owner);
      return running_ < per_host_ && (it == by_owner_.end() || it->second < per_owner_);
    };
    while (!free()) {
      if (stop.load()) return false;
      mu_.AwaitWithTimeout(absl::Condition(&free), absl::Milliseconds(200));
    }
    ++running_;
    const int mine = ++by_owner_[owner];
    Log(absl::StrCat("build starts: ", what, " (", running_, " of ", per_host_,
                     " running on this host, ", mine, " of ", per_owner_, " for its owner)"));
    return true;
  }
  void Release(const std::string& owner, const std::string& what) {
    absl::MutexLock lock(&mu_);
    --running_;
    if (--by_owner_[owner] <= 0) by_owner_.erase(owner);
    Log(absl::StrCat("build ends: ", what, " (", running_, " running on this host)"));
  }

 private:
  const int per_host_;
  const int per_owner_;
  absl::Mutex mu_;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> by_owner_ ABSL_GUARDED_BY(mu_);
};

// Fetches, unpacks and builds (in a build slot) one version. Every path the
// upload names is checked (ParsePackage, UnpackPackage), every file system
// call on them takes an error_code: a bad upload fails its version, with the
// reason in `v->log`, and nothing else.
void BuildVersion(const BotHostOptions& options, const Sandbox& sandbox, LocalVersion* v,
                  const v1::VersionInfo& info, const std::string& owner, v1::Hosting::Stub* stub,
                  const std::function<void(grpc::ClientContext*)>& call, BuildSlots* slots,
                  const std::atomic<bool>& stop) {
  // In pieces (FetchVersion with offsets): no message holds more than the
  // arena's piece (1.5 MiB), whatever the upload's size; the whole is checked
  // against the upload's SHA-256.
  std::string bytes;
  std::string filename;
  int64_t total = -1;
  while (total < 0 || static_cast<int64_t>(bytes.size()) < total) {
    grpc::ClientContext c;
    call(&c);
    v1::FetchVersionRequest r;
    r.set_id(info.id());
    r.set_offset(static_cast<int64_t>(bytes.size()));
    v1::VersionContent content;
    grpc::Status s = stub->FetchVersion(&c, r, &content);
    if (!s.ok()) {
      v->log = absl::StrCat("cannot fetch version ", info.id(), ": ", s.error_message());
      v->fetch_failed = true;
      return;
    }
    if (total < 0) {
      total = content.total_bytes() > 0 ? content.total_bytes()
                                        : static_cast<int64_t>(content.content().size());
      if (total > options.package.max_upload_bytes) {
        v->log = absl::StrCat("the host refuses this upload: ", total, " bytes, more than its ",
                              options.package.max_upload_bytes, " (--max_upload_bytes)");
        return;
      }
      bytes.reserve(total);
      filename = content.filename();
    }
    if (content.content().empty() || content.offset() != static_cast<int64_t>(bytes.size()) ||
        static_cast<int64_t>(bytes.size() + content.content().size()) > total) {
      v->log = absl::StrCat("cannot fetch version ", info.id(), ": a piece out of order");
      v->fetch_failed = true;
      return;
    }
    bytes.append(content.content());
    if (stop) {
      v->log = "the host stopped during the fetch";
      v->fetch_failed = true;
      return;
    }
  }
  absl::StatusOr<Package> p = ParsePackage(filename, bytes, info.kind(), info.entry(),
                                           options.package);
  bytes.clear();
  bytes.shrink_to_fit();
  if (p.ok() && !info.sha256().empty() && p->sha256 != info.sha256()) {
    v->log = absl::StrCat("cannot fetch version ", info.id(), ": its SHA-256 differs from the upload's");
    v->fetch_failed = true;
    return;
  }
  // Built before this host restarted: the same upload, built, is kept.
  const std::string marker = v->dir + ".built";
  std::error_code ec;
  if (p.ok() && ReadAll(marker) == p->sha256 && std::filesystem::is_directory(v->dir, ec)) {
    v->package = *std::move(p);
    v->ok = true;
    v->log = "built before (kept in the work dir)";
    return;
  }
  if (!p.ok()) {
    v->log = absl::StrCat("the host refuses this upload: ", p.status().message());
    return;
  }
  v->package = *std::move(p);
  std::filesystem::remove_all(v->dir, ec);
  std::filesystem::remove(marker, ec);
  if (absl::Status u = UnpackPackage(v->package, v->dir); !u.ok()) {
    v->log = absl::StrCat("the host cannot unpack this upload: ", u.message());
    return;
  }
  const std::string what = absl::StrCat("version ", info.id(), " of ", info.bot(), " (",
                                        v->package.kind, ")");
  const std::string owner_key = owner.empty() ? "bot:" + info.bot() : owner;
  if (!slots->Acquire(owner_key, what, stop)) {
    v->log = "the host stopped before the build";
    v->fetch_failed = true;  // not reported: the next host builds it
    return;
  }
  struct Slot {
    BuildSlots* slots;
    const std::string& owner;
    const std::string& what;
    ~Slot() { slots->Release(owner, what); }
  } slot{slots, owner_key, what};
  Build(options, sandbox, v);
  if (v->ok) std::ofstream(marker, std::ios::trunc) << v->package.sha256;
}

// Deletes from the work dir the versions not in `needed` (folders ID,
// ID.build.log, ID.built) and the seat logs of bots not in `held` or of
// versions not in `needed` (logs/BOT/vID-...).
void RemoveUnneeded(const std::string& work_dir, const std::set<int64_t>& needed,
                    const std::set<std::string>& held) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto version_of = [](const std::string& name, size_t from) -> int64_t {
    size_t end = from;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    int64_t id = -1;
    if (end == from || !absl::SimpleAtoi(name.substr(from, end - from), &id)) return -1;
    return id;
  };
  std::vector<fs::path> gone;
  for (const fs::directory_entry& e : fs::directory_iterator(work_dir + "/versions", ec)) {
    const int64_t id = version_of(e.path().filename().string(), 0);
    if (id >= 0 && !needed.count(id)) gone.push_back(e.path());
  }
  for (const fs::directory_entry& bot : fs::directory_iterator(work_dir + "/logs", ec)) {
    if (!held.count(bot.path().filename().string())) {
      gone.push_back(bot.path());
      continue;
    }
    std::error_code ec2;
    for (const fs::directory_entry& e : fs::directory_iterator(bot.path(), ec2)) {
      const std::string name = e.path().filename().string();
      const int64_t id = name.size() > 1 && name[0] == 'v' ? version_of(name, 1) : -1;
      if (id < 0 || !needed.count(id)) gone.push_back(e.path());
    }
  }
  for (const fs::path& p : gone) {
    std::error_code ec2;
    fs::remove_all(p, ec2);
  }
}

}  // namespace

BotHost::BotHost(BotHostOptions options, std::unique_ptr<Sandbox> sandbox)
    : options_(std::move(options)), sandbox_(std::move(sandbox)) {}

BotHost::~BotHost() { players_.clear(); }

absl::Status BotHost::Run(const std::atomic<bool>& stop) {
  absl::StatusOr<transport::Transport> transport = transport::Transport::Create(options_.transport);
  if (!transport.ok()) return transport.status();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = transport->Channel(options_.arena, args);
  if (!channel.ok()) return channel.status();
  auto stub = v1::Hosting::NewStub(*channel);
  {
    std::error_code ec;
    std::filesystem::create_directories(options_.work_dir + "/versions", ec);
    if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", options_.work_dir,
                                                       "/versions: ", ec.message()));
  }
  // The Python SDK is copied into the work dir (links followed): the sandbox
  // sees only what is bound, and a build tree's files are links into the source.
  if (!options_.python_sdk.empty()) {
    const std::string copy = options_.work_dir + "/sdk/python";
    std::error_code ec;
    std::filesystem::remove_all(copy, ec);
    std::filesystem::create_directories(copy + "/tarock_bot", ec);
    std::filesystem::copy(options_.python_sdk + "/tarock_bot", copy + "/tarock_bot",
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return absl::UnavailableError(absl::StrCat("cannot copy the Python SDK from ",
                                                       options_.python_sdk, ": ", ec.message()));
    // The engine module (docs/python.md) beside it, when the build made it: a
    // hosted Python bot imports tarock_engine as it imports tarock_bot.
    if (std::filesystem::is_directory(options_.python_sdk + "/tarock_engine")) {
      std::filesystem::copy(options_.python_sdk + "/tarock_engine", copy + "/tarock_engine",
                            std::filesystem::copy_options::recursive |
                                std::filesystem::copy_options::overwrite_existing, ec);
      if (ec) return absl::UnavailableError(absl::StrCat("cannot copy the engine module from ",
                                                         options_.python_sdk, ": ", ec.message()));
    }
    for (auto& e : std::filesystem::recursive_directory_iterator(options_.work_dir + "/sdk"))
      chmod(e.path().c_str(), e.is_directory() ? 0755 : 0644);
    chmod((options_.work_dir + "/sdk").c_str(), 0755);
    options_.python_sdk = copy;
  }
  chmod(options_.work_dir.c_str(), 0755);
  chmod((options_.work_dir + "/versions").c_str(), 0755);
  std::map<int64_t, std::shared_ptr<LocalVersion>> versions;
  std::map<std::string, absl::Time> pending_switch;  // bot -> since when a newer version waits
  auto call = [this](grpc::ClientContext* c) {
    c->AddMetadata("authorization", absl::StrCat("Bearer ", options_.token));
    c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  };
  // Fetches, unpacks and builds a version on a thread of its own (a build
  // may take minutes; the syncs go on meanwhile, so the host keeps its bots).
  // Returns the version once it is built, null while it is not.
  std::vector<std::thread> builders;
  BuildSlots slots(options_.max_builds, options_.max_builds_per_owner);
  auto prepare = [&](const v1::VersionInfo& info,
                     const std::string& owner) -> std::shared_ptr<LocalVersion> {
    auto found = versions.find(info.id());
    if (found != versions.end()) return found->second->done.load() ? found->second : nullptr;
    auto v = std::make_shared<LocalVersion>();
    v->id = info.id();
    v->dir = absl::StrCat(options_.work_dir, "/versions/", info.id());
    versions[info.id()] = v;
    builders.emplace_back([this, v, info, owner, &stub, call, &slots, &stop] {
      // The last line: nothing an upload does may end the host. Whatever
      // throws fails this version alone, with the reason in its log.
      try {
        BuildVersion(options_, *sandbox_, v.get(), info, owner, stub.get(), call, &slots, stop);
      } catch (const std::exception& e) {
        v->ok = false;
        v->log += absl::StrCat("\nthe build failed on the host: ", e.what());
      } catch (...) {
        v->ok = false;
        v->log += "\nthe build failed on the host";
      }
      v->done.store(true);
    });
    return nullptr;
  };

  // Reports a finished build (again at the next sync when the report fails).
  auto report = [&](const v1::VersionInfo& info, LocalVersion* v) {
    if (v->reported || v->fetch_failed) return;
    grpc::ClientContext rc;
    call(&rc);
    v1::ReportBuildRequest rb;
    rb.set_id(info.id());
    rb.set_ok(v->ok);
    rb.set_log(v->log);
    v1::VersionInfo out;
    grpc::Status rs = stub->ReportBuild(&rc, rb, &out);
    v->reported = rs.ok() || rs.error_code() == grpc::StatusCode::FAILED_PRECONDITION;
    Log(absl::StrCat("version ", info.id(), " of ", info.bot(), ": ", v->ok ? "ready" : "failed",
                     rs.ok() ? "" : absl::StrCat(" (report: ", rs.error_message(), ")")));
  };
  // Seats' standard error go to the arena from a thread of their own (a
  // seat ends on its connection's threads, which must not wait for the call).
  struct LogQueue {
    absl::Mutex mu;
    std::deque<v1::ReportSeatLogRequest> queue ABSL_GUARDED_BY(mu);
    bool done ABSL_GUARDED_BY(mu) = false;
  };
  auto logs = std::make_shared<LogQueue>();
  Player::ReportLog report_log = [logs](v1::ReportSeatLogRequest r) {
    absl::MutexLock lock(&logs->mu);
    if (logs->queue.size() < 256) logs->queue.push_back(std::move(r));  // else dropped
  };
  std::thread log_sender([logs, &stub, call] {
    auto ready = [logs]() ABSL_SHARED_LOCKS_REQUIRED(logs->mu) {
      return logs->done || !logs->queue.empty();
    };
    while (true) {
      logs->mu.LockWhen(absl::Condition(&ready));
      if (logs->queue.empty()) {  // done
        logs->mu.Unlock();
        return;
      }
      v1::ReportSeatLogRequest r = std::move(logs->queue.front());
      logs->queue.pop_front();
      logs->mu.Unlock();
      grpc::ClientContext c;
      call(&c);
      c.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
      v1::ReportSeatLogResponse out;
      grpc::Status s = stub->ReportSeatLog(&c, r, &out);
      if (!s.ok())
        Log(absl::StrCat(r.bot(), ": the standard error of seat ", r.seat(), " of ", r.match_id(),
                         " was not kept: ", s.error_message()));
    }
  });
  auto stop_sender = [&] {
    {
      absl::MutexLock lock(&logs->mu);
      logs->done = true;
    }
    if (log_sender.joinable()) log_sender.join();
  };
  bool first = true;
  absl::Duration every = absl::Seconds(2);
  while (!stop.load()) {
    grpc::ClientContext c;
    call(&c);
    v1::HostSyncRequest r;
    r.set_host(options_.name);
    r.set_capacity(options_.capacity);
    v1::HostSyncResponse sync;
    grpc::Status s = stub->HostSync(&c, r, &sync);
    if (!s.ok()) {
      if (s.error_code() == grpc::StatusCode::UNAUTHENTICATED || (first && s.error_code() != grpc::StatusCode::UNAVAILABLE)) {
        players_.clear();
        stop_sender();
        for (std::thread& t : builders) t.join();
        return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                            absl::StrCat("the arena refused the sync: ", s.error_message()));
      }
      Log(absl::StrCat("sync failed: ", s.error_message(), "; again in 2 s"));
    } else {
      if (first) {
        // The arena names this host by its token (`hosts add NAME`); --name
        // only labels this host's requests.
        const std::string known = sync.host().empty() ? options_.name : sync.host();
        Log(absl::StrCat("connected to ", options_.arena, " as host ", known,
                         !options_.name.empty() && options_.name != known
                             ? absl::StrCat(" (the name its token was issued to; --name ", options_.name,
                                            " is not what the arena calls it)")
                             : ""));
      }
      first = false;
      if (sync.sync_ms() > 0) every = absl::Milliseconds(sync.sync_ms());
      for (auto it = versions.begin(); it != versions.end();)
        it = it->second->done.load() && it->second->fetch_failed ? versions.erase(it) : std::next(it);
      std::set<std::string> held;
      for (const v1::HostedBot& b : sync.bots()) {
        held.insert(b.bot());
        if (b.has_version() && b.version().status() == "building") {
          std::shared_ptr<LocalVersion> built = prepare(b.version(), b.owner());
          if (built != nullptr) report(b.version(), built.get());
        }
        if (!b.has_ready()) continue;
        std::shared_ptr<LocalVersion> v = prepare(b.ready(), b.owner());
        if (v == nullptr || !v->ok) continue;
        auto it = players_.find(b.bot());
        if (it != players_.end() && it->second->version_id() == v->id && !it->second->ended()) {
          pending_switch.erase(b.bot());
          continue;
        }
        if (it != players_.end() && !it->second->ended()) {
          // A newer version: switch when the bot holds no seat, or after switch_wait.
          auto [since, inserted] = pending_switch.try_emplace(b.bot(), absl::Now());
          if (it->second->seats() > 0 && absl::Now() - since->second < options_.switch_wait)
            continue;
          pending_switch.erase(b.bot());
        }
        players_[b.bot()] = nullptr;  // the old connection ends first
        players_[b.bot()] = std::make_unique<Player>(options_, sandbox_.get(), &stall_clock_, b.bot(), v,
                                                    report_log);
      }
      for (auto it = players_.begin(); it != players_.end();) {
        if (!held.count(it->first)) {
          Log(absl::StrCat("no longer holds ", it->first));
          it = players_.erase(it);
        } else {
          ++it;
        }
      }
      // What the arena no longer needs here goes: versions it names for no
      // bot this host holds (retired, replaced, the bot gone), with their
      // seat logs (each seat's log went to the arena when the seat ended).
      std::set<int64_t> needed;
      for (const v1::HostedBot& b : sync.bots()) {
        if (b.has_version()) needed.insert(b.version().id());
        if (b.has_ready()) needed.insert(b.ready().id());
      }
      for (const auto& [name, player] : players_)
        if (player != nullptr) needed.insert(player->version_id());
      for (auto it = versions.begin(); it != versions.end();) {
        if (!it->second->done.load()) needed.insert(it->first);  // its builder still runs
        it = needed.count(it->first) ? std::next(it) : versions.erase(it);
      }
      RemoveUnneeded(options_.work_dir, needed, held);
    }
    const absl::Time until = absl::Now() + (pending_switch.empty() ? every : absl::Milliseconds(200));
    while (!stop.load() && absl::Now() < until) absl::SleepFor(absl::Milliseconds(50));
  }
  players_.clear();
  stop_sender();
  for (std::thread& t : builders) t.join();
  return absl::OkStatus();
}

}  // namespace tarock::bothost
