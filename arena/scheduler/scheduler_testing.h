// Test support for the scheduler's tests (scheduler_test.cc, events_test.cc):
// referees in this process (the referee's MatchRunner between in-process bots:
// random, the heuristic, a bot that always passes), one of which can play a
// referee that is down, with a gate that holds matches at their start until
// released, and a fixture with a fresh SQLite store per test.
// Test-only; not part of the arena.

#ifndef TAROCK_ARENA_SCHEDULER_SCHEDULER_TESTING_H_
#define TAROCK_ARENA_SCHEDULER_SCHEDULER_TESTING_H_

#include "arena/scheduler/scheduler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "arena/store/sqlite_store.h"
#include "bots/heuristic/heuristic_bot.h"
#include "nlohmann/json.hpp"
#include "tests/inproc/in_process_connector.h"
#include "referee/core/match_runner.h"
#include "referee/metrics/exposition.h"

namespace tarock::arena {
namespace testing_internal {

namespace fs = std::filesystem;

class RandomBot : public sdk::Bot {
 public:
  void StartMatch(const sdk::MatchInfo& match) override { rng_.seed(match.seat + 1); }
  std::string Decide(const sdk::Situation& s) override {
    std::uniform_int_distribution<size_t> pick(0, s.legal().size() - 1);
    return s.legal()[pick(rng_)];
  }

 private:
  std::mt19937_64 rng_;
};

// Passes whenever it may: the first bot a student writes.
class AlwaysPassBot : public sdk::Bot {
 public:
  std::string Decide(const sdk::Situation& s) override {
    for (const std::string& a : s.legal())
      if (a == "pass") return a;
    return s.legal().front();
  }
};

// Referees in this process: every address runs the match on the calling
// thread, except the addresses marked down, which answer UNAVAILABLE.
class InProcessReferees : public RefereeClient {
 public:
  InProcessReferees() : runner_(RefereeOptions(), &connector_, nullptr) {
    connector_.Register("random", [] { return std::make_unique<RandomBot>(); });
    connector_.Register("heuristic", [] { return std::make_unique<bots::HeuristicBot>(); });
    connector_.Register("pass", [] { return std::make_unique<AlwaysPassBot>(); });
  }
  absl::StatusOr<v1::MatchFinished> RunMatch(const std::string& address, const v1::MatchSpec& spec,
                                             const std::atomic<bool>* cancel) override {
    if (on_start_) on_start_(spec.match_id());
    {
      absl::MutexLock lock(&mu_);
      calls_.push_back(address);
      seeds_[spec.match_id()].push_back(spec.seed());
      if (down_.count(address)) return absl::UnavailableError(absl::StrCat(address, " is down"));
      started_.push_back(spec.match_id());
      // The gate: as a bot that holds its first decision until told.
      const std::string& id = spec.match_id();
      auto open = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !hold_ || released_.count(id) > 0 || (cancel != nullptr && cancel->load());
      };
      held_.insert(id);
      while (!open()) mu_.AwaitWithTimeout(absl::Condition(&open), absl::Milliseconds(20));
      held_.erase(id);
    }
    absl::StatusOr<v1::MatchFinished> out =
        runner_.Run(spec, [](const v1::MatchEvent&) {},
                    [cancel] { return cancel != nullptr && cancel->load(); });
    if (out.ok()) {
      absl::MutexLock lock(&mu_);
      ++finished_[spec.match_id()];
    }
    return out;
  }
  // Matches played to their end, by id (a cancelled one is not).
  std::map<std::string, int> finished() {
    absl::MutexLock lock(&mu_);
    return finished_;
  }
  void SetDown(const std::string& address) {
    absl::MutexLock lock(&mu_);
    down_.insert(address);
  }
  void SetUp(const std::string& address) {
    absl::MutexLock lock(&mu_);
    down_.erase(address);
  }
  std::vector<std::string> calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  // While holding, every match waits at its start until Release(its id),
  // HoldAll(false) or its cancellation.
  void HoldAll(bool hold) {
    absl::MutexLock lock(&mu_);
    hold_ = hold;
  }
  void Release(const std::string& match_id) {
    absl::MutexLock lock(&mu_);
    released_.insert(match_id);
  }
  // Called with the match id as each call begins, on the calling thread
  // (set before the scheduler starts).
  void OnStart(std::function<void(const std::string&)> f) { on_start_ = std::move(f); }
  // The matches waiting at the gate now.
  std::set<std::string> held() {
    absl::MutexLock lock(&mu_);
    return held_;
  }
  // The match id of every call that reached a referee up, in order.
  std::vector<std::string> started() {
    absl::MutexLock lock(&mu_);
    return started_;
  }
  // The seed of each call, by match id, in order.
  std::map<std::string, std::vector<uint64_t>> seeds() {
    absl::MutexLock lock(&mu_);
    return seeds_;
  }

 private:
  InProcessConnector connector_;
  MatchRunner runner_;
  absl::Mutex mu_;
  std::set<std::string> down_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<uint64_t>> seeds_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> finished_ ABSL_GUARDED_BY(mu_);
  std::function<void(const std::string&)> on_start_;
  bool hold_ ABSL_GUARDED_BY(mu_) = false;
  std::set<std::string> released_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> held_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> started_ ABSL_GUARDED_BY(mu_);
};

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           absl::StrCat("scheduler_test_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    absl::StatusOr<std::unique_ptr<Store>> s = SqliteStore::Open((dir_ / "arena.db").string());
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
    options_.referees = {"ref-a:1", "ref-b:1"};
    options_.max_parallel = 3;
    options_.referee_rest = absl::Seconds(60);
  }
  void TearDown() override {
    scheduler_.reset();
    store_.reset();
    fs::remove_all(dir_);
  }
  void StartScheduler() {
    scheduler_ = std::make_unique<Scheduler>(store_.get(), &referees_, options_, &registry_);
    ASSERT_TRUE(scheduler_->Start().ok());
  }
  void AddBot(const std::string& name, const std::string& kind,
              const std::string& variant = "slovenian-3p") {
    v1::AddBotRequest r;
    r.set_name(name);
    r.set_endpoint(absl::StrCat("inproc:", kind));
    r.set_owner(name);
    r.add_variants(variant);
    absl::StatusOr<v1::AddBotResponse> added = scheduler_->AddBot(r);
    ASSERT_TRUE(added.ok()) << added.status();
    bot_tokens_[name] = added->token();
  }
  // Waits (bounded) until the tournament has no match left to run.
  v1::TournamentInfo WaitForTournament(int64_t id) {
    const absl::Time deadline = absl::Now() + absl::Seconds(120);
    absl::StatusOr<v1::TournamentInfo> t = scheduler_->GetTournament(id);
    while (t.ok() && !t->finished() && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
      t = scheduler_->GetTournament(id);
    }
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : v1::TournamentInfo();
  }
  // A ladder of matches (format "match": no duplicate sets) of `variant`;
  // max_matches 0: no limit.
  static v1::StartLadderRequest MatchLadder(const std::string& variant, int hands,
                                            int max_matches = 0) {
    v1::StartLadderRequest r;
    r.mutable_config()->set_variant(variant);
    r.mutable_config()->set_format("match");
    r.mutable_config()->set_hands_per_match(hands);
    r.mutable_config()->set_max_matches(max_matches);
    return r;
  }

  v1::RunTournamentRequest Tournament(int deals, int hands = 3) {
    v1::RunTournamentRequest r;
    r.set_variant("slovenian-3p");
    for (const char* b : {"h1", "r1", "r2"}) r.add_bots(b);
    r.set_deals(deals);
    r.set_hands_per_match(hands);
    r.set_seed(11);
    return r;
  }

  // Waits (bounded) until the test has ended.
  v1::TestInfo WaitForTest(int64_t id) {
    const absl::Time deadline = absl::Now() + absl::Seconds(120);
    absl::StatusOr<v1::TestInfo> t = scheduler_->GetTest(id, true);
    while (t.ok() && t->status() == "running" && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
      t = scheduler_->GetTest(id, true);
    }
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : v1::TestInfo();
  }
  v1::StartTestRequest Test(const std::string& candidate, const std::string& baseline) {
    v1::StartTestRequest r;
    v1::TestConfig* c = r.mutable_config();
    c->set_variant("slovenian-3p");
    c->set_candidate(candidate);
    c->set_baseline(baseline);
    c->set_h0(0);
    c->set_h1(3);
    c->set_max_deals(600);
    c->set_seed(5);
    return r;
  }

  fs::path dir_;
  std::unique_ptr<Store> store_;
  SchedulerOptions options_;
  InProcessReferees referees_;
  prometheus::Registry registry_;
  std::unique_ptr<Scheduler> scheduler_;
  std::map<std::string, std::string> bot_tokens_;  // AddBot's, by bot name
};

}  // namespace testing_internal
}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_SCHEDULER_TESTING_H_
