#include "arena/cli/test_command.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "absl/flags/declare.h"
#include "arena/cli/cli_output.h"
#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "referee/server/grpc_status.h"
#include "tarock/transport/transport.h"

// Shared with the other commands (arena_cli.cc).
ABSL_DECLARE_FLAG(std::string, admin_token);
ABSL_DECLARE_FLAG(std::string, variant);
ABSL_DECLARE_FLAG(int64_t, per_decision_ms);
ABSL_DECLARE_FLAG(int, max_faults);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(bool, wait);
ABSL_DECLARE_FLAG(int, limit);
ABSL_DECLARE_FLAG(bool, json);

ABSL_FLAG(std::string, candidate, "", "test: the candidate bot (registered)");
ABSL_FLAG(std::string, baseline, "", "test: the baseline bot (registered)");
ABSL_FLAG(std::vector<std::string>, opponents, {},
          "test: fixed opponents (registered bots; empty: head to head)");
ABSL_FLAG(double, h0, 0, "test: H0, the candidate is better by at most this per deal");
ABSL_FLAG(double, h1, 5, "test: H1, the candidate is better by at least this per deal");
ABSL_FLAG(double, alpha, 0.05, "test: the rate of accepting H1 when H0 holds");
ABSL_FLAG(double, beta, 0.05, "test: the rate of accepting H0 when H1 holds");
ABSL_FLAG(int64_t, max_deals, 20000, "test: inconclusive after this many deals");
ABSL_FLAG(int64_t, min_deals, 20, "test: no decision before this many deals");
ABSL_FLAG(std::vector<std::string>, options, {}, "test: variant options KEY=VALUE,...");
ABSL_FLAG(bool, path, false, "test show: the per-deal differences and the LLR path too (with --json)");
ABSL_FLAG(int, wait_unreachable_s, 120,
          "test run --wait: give up (exit 3) when the arena is unreachable this long");

namespace tarock::arena {
namespace {

using cli::Context;
using cli::Fail;
using cli::PrintJson;





std::string Signed(double x) { return absl::StrFormat("%+.2f", x); }

int Faults(const v1::TestInfo& t, int role) {
  return role < t.bots_size() ? t.bots(role).faults() : 0;
}

// One line, as `tarock compare` prints its progress.
std::string ProgressLine(const v1::TestInfo& t) {
  return absl::StrFormat(
      "test %d: deals %d  mean %s [%s, %s]  LLR %+.2f in [%+.2f, %+.2f]  matches %d/%d  "
      "faults C %d B %d",
      t.id(), t.deals(), Signed(t.mean()), Signed(t.ci_low()), Signed(t.ci_high()), t.llr(),
      t.lower_bound(), t.upper_bound(), t.matches_done(), t.matches_total(), Faults(t, 0),
      Faults(t, 1));
}

void PrintSummary(const v1::TestInfo& t) {
  const v1::TestConfig& c = t.config();
  std::printf("test %lld %s: candidate %s against baseline %s, %s (%s), %s\n",
              static_cast<long long>(t.id()), c.variant().c_str(), c.candidate().c_str(),
              c.baseline().c_str(),
              c.opponents().empty()
                  ? "head to head"
                  : absl::StrCat("against ", absl::StrJoin(c.opponents(), ", ")).c_str(),
              absl::StrJoin(t.seatings(), " ").c_str(),
              c.seed() ? absl::StrCat("seed ", c.seed()).c_str() : "seed secret until the test ends");
  std::printf("  H0: better by at most %g per deal; H1: by at least %g (alpha %g, beta %g)\n", c.h0(),
              c.h1(), c.alpha(), c.beta());
  std::printf("  status %s  deals %lld (%d/%d matches done, %lld hands)\n", t.status().c_str(),
              static_cast<long long>(t.deals()), t.matches_done(), t.matches_total(),
              static_cast<long long>(t.hands()));
  if (t.deals() >= 2)
    std::printf("  mean difference %s per deal, 95%% CI [%s, %s]\n", Signed(t.mean()).c_str(),
                Signed(t.ci_low()).c_str(), Signed(t.ci_high()).c_str());
  std::printf("  LLR %+.3f, bounds [%+.3f, %+.3f]\n", t.llr(), t.lower_bound(), t.upper_bound());
  std::string bots;
  for (const v1::TestBot& b : t.bots()) {
    std::string kinds;
    for (const v1::FaultCount& f : b.faults_by_kind())
      absl::StrAppend(&kinds, kinds.empty() ? "" : ", ", f.kind(), " ", f.count());
    absl::StrAppend(&bots, bots.empty() ? "" : "; ", b.role(), " ", b.bot());
    if (!b.hello_name().empty() || !b.hello_version().empty())
      absl::StrAppend(&bots, " (hello ", b.hello_name(),
                      b.hello_version().empty() ? "" : absl::StrCat(" ", b.hello_version()), ")");
    absl::StrAppend(&bots, " faults ", b.faults(), kinds.empty() ? "" : absl::StrCat(" (", kinds, ")"));
  }
  std::printf("  bots: %s\n", bots.c_str());
  if (t.result().empty()) {
    std::printf("  result: running\n");
  } else if (t.result() == "error") {
    std::printf("  result: error (exit 3): %s\n", t.error().c_str());
  } else if (t.result() == "H1") {
    std::printf("  result: H1 accepted (exit 0): the candidate is better by at least %g per deal\n",
                c.h1());
  } else if (t.result() == "H0") {
    std::printf("  result: H0 accepted (exit 1): the candidate is not better by %g per deal\n",
                c.h1());
  } else if (t.result() == "stopped") {
    std::printf("  result: stopped at %lld deals (exit 2)\n", static_cast<long long>(t.deals()));
  } else {
    std::printf("  result: inconclusive at %lld deals (exit 2)\n", static_cast<long long>(t.deals()));
  }
  std::fflush(stdout);
}

int64_t ParseId(const std::string& arg) {
  int64_t id = 0;
  return absl::SimpleAtoi(arg, &id) ? id : 0;
}

}  // namespace

std::vector<std::string> TestCommandFlags() {
  return {"variant", "candidate", "baseline", "opponents", "h0", "h1", "alpha", "beta",
          "max_deals", "min_deals", "seed", "options", "per_decision_ms", "max_faults",
          "admin_token", "wait", "wait_unreachable_s", "path", "limit"};
}

int RunTestCommand(v1::Arena::Stub* stub, const std::vector<std::string>& a) {
  const std::string sub = a.size() > 1 ? a[1] : "";
  const std::string arg = a.size() > 2 ? a[2] : "";
  const bool json = absl::GetFlag(FLAGS_json);
  if (sub == "run") {
    v1::StartTestRequest r;
    r.set_admin_token(transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_admin_token), "TAROCK_ADMIN_TOKEN"));
    v1::TestConfig* c = r.mutable_config();
    c->set_variant(absl::GetFlag(FLAGS_variant));
    c->set_candidate(absl::GetFlag(FLAGS_candidate));
    c->set_baseline(absl::GetFlag(FLAGS_baseline));
    for (const std::string& o : absl::GetFlag(FLAGS_opponents)) c->add_opponents(o);
    for (const std::string& kv : absl::GetFlag(FLAGS_options)) {
      std::vector<std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
      if (p.size() != 2) return Fail(absl::StrCat("--options wants KEY=VALUE, got '", kv, "'"), 3);
      (*c->mutable_options())[p[0]] = p[1];
    }
    c->set_h0(absl::GetFlag(FLAGS_h0));
    c->set_h1(absl::GetFlag(FLAGS_h1));
    c->set_alpha(absl::GetFlag(FLAGS_alpha));
    c->set_beta(absl::GetFlag(FLAGS_beta));
    c->set_max_deals(absl::GetFlag(FLAGS_max_deals));
    c->set_min_deals(absl::GetFlag(FLAGS_min_deals));
    c->set_seed(absl::GetFlag(FLAGS_seed));
    c->mutable_time_control()->set_per_decision_ms(absl::GetFlag(FLAGS_per_decision_ms));
    c->set_max_faults(absl::GetFlag(FLAGS_max_faults));
    v1::TestInfo out;
    grpc::Status s = stub->StartTest(Context().get(), r, &out);
    if (!s.ok()) return Fail(s, 3);
    if (!absl::GetFlag(FLAGS_wait)) {
      if (json) PrintJson(out);
      else std::cout << "test " << out.id() << " started\n";
      return 0;
    }
    // Poll until it ends; through an arena restart too.
    const bool tty = isatty(2);
    auto last_print = std::chrono::steady_clock::now() - std::chrono::hours(1);
    auto last_reached = std::chrono::steady_clock::now();
    int64_t last_deals = -1;
    while (out.status() == "running") {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      v1::GetTestRequest g;
      g.set_id(out.id());
      v1::TestInfo next;
      s = stub->GetTest(Context().get(), g, &next);
      const auto now = std::chrono::steady_clock::now();
      if (!s.ok()) {
        // An arena shutting down cancels the call; a restarting one is unavailable.
        const bool restarting = s.error_code() == grpc::StatusCode::UNAVAILABLE ||
                                s.error_code() == grpc::StatusCode::CANCELLED;
        if (!restarting ||
            now - last_reached > std::chrono::seconds(absl::GetFlag(FLAGS_wait_unreachable_s)))
          return Fail(s, 3);
        continue;
      }
      last_reached = now;
      out = std::move(next);
      if (json) continue;
      if (tty) {
        std::fprintf(stderr, "\r%s   ", ProgressLine(out).c_str());
      } else if (out.deals() != last_deals &&
                 (now - last_print >= std::chrono::seconds(5) || out.status() != "running")) {
        std::fprintf(stderr, "%s\n", ProgressLine(out).c_str());
        last_print = now;
        last_deals = out.deals();
      }
    }
    if (!json && tty) std::fprintf(stderr, "\n");
    if (json) PrintJson(out);
    else PrintSummary(out);
    return out.exit_status() < 0 ? 3 : out.exit_status();
  }
  if (sub == "show") {
    v1::GetTestRequest g;
    g.set_id(ParseId(arg));
    g.set_with_path(absl::GetFlag(FLAGS_path));
    v1::TestInfo out;
    grpc::Status s = stub->GetTest(Context().get(), g, &out);
    if (!s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else PrintSummary(out);
    return 0;
  }
  if (sub == "list") {
    v1::ListTestsRequest r;
    r.set_limit(absl::GetFlag(FLAGS_limit));
    v1::ListTestsResponse out;
    grpc::Status s = stub->ListTests(Context().get(), r, &out);
    if (!s.ok()) return Fail(s);
    if (json) {
      PrintJson(out);
      return 0;
    }
    for (const v1::TestInfo& t : out.tests())
      std::cout << absl::StrFormat("test %d  %s  %s vs %s  %s  deals %d  mean %s  LLR %+.2f  %s\n",
                                   t.id(), t.config().variant(), t.config().candidate(),
                                   t.config().baseline(), t.status(), t.deals(), Signed(t.mean()),
                                   t.llr(), t.result().empty() ? "-" : t.result());
    return 0;
  }
  if (sub == "stop") {
    v1::StopTestRequest r;
    r.set_id(ParseId(arg));
    r.set_admin_token(transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_admin_token), "TAROCK_ADMIN_TOKEN"));
    v1::TestInfo out;
    grpc::Status s = stub->StopTest(Context().get(), r, &out);
    if (!s.ok()) return Fail(s);
    if (json) PrintJson(out);
    else PrintSummary(out);
    return 0;
  }
  return Fail("test run|list|show|stop");
}

}  // namespace tarock::arena
