#include "arena/scheduler/test_job.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "arena/scheduler/deal_seal.h"
#include "arena/scheduler/scheduler.h"
#include "nlohmann/json.hpp"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"

namespace tarock::arena {
namespace {

using json = nlohmann::json;

std::string ToJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

v1::TestConfig ConfigOf(const TestRow& row) {
  v1::TestConfig c;
  (void)google::protobuf::util::JsonStringToMessage(row.config, &c);
  return c;
}

std::string RoleName(int role) {
  return role == 0 ? "candidate" : role == 1 ? "baseline" : absl::StrCat("opponent-", role - 2);
}

int RoleOf(int seating_role) {
  return seating_role == kCandidate ? 0 : seating_role == kBaseline ? 1 : 2 + seating_role;
}

std::vector<Seating> SeatingsOf(const v1::TestConfig& c, int n) {
  return c.opponents().empty() ? HeadToHeadSeatings(n)
                               : OpponentSeatings(n, c.opponents_size());
}

}  // namespace

absl::StatusOr<v1::TestConfig> NormalizeTestConfig(v1::TestConfig c) {
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(c.variant());
  if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat("unknown variant '", c.variant(), "'"));
  absl::StatusOr<Options> options = Registry::Global().CompleteOptions(
      c.variant(), Options(c.options().begin(), c.options().end()));
  if (!options.ok()) return absl::InvalidArgumentError(options.status().message());
  if (c.candidate().empty() || c.baseline().empty())
    return absl::InvalidArgumentError("name the candidate and the baseline bot");
  if (c.opponents_size() > info->num_seats - 1)
    return absl::InvalidArgumentError(absl::StrCat(c.variant(), " seats at most ",
                                                   info->num_seats - 1, " opponents"));
  if (c.h0() == 0 && c.h1() == 0) c.set_h1(5);
  if (c.alpha() == 0) c.set_alpha(0.05);
  if (c.beta() == 0) c.set_beta(0.05);
  if (c.max_deals() == 0) c.set_max_deals(20000);
  if (c.min_deals() == 0) c.set_min_deals(20);
  if (c.seed() == 0) {
    // A secret seed (deal_seal.h): the deals of a test stay unknown to its
    // bots; TestInfo shows it once the test has ended.
    absl::StatusOr<SealedSeed> sealed = NewSealedSeed();
    if (!sealed.ok()) return sealed.status();
    c.set_seed(sealed->seed);
  }
  if (c.max_deals() < 0 || c.max_deals() > 1000000)
    return absl::InvalidArgumentError("max_deals must be 1..1000000");
  if (c.max_faults() < 0) return absl::InvalidArgumentError("max_faults must be >= 0");
  if (absl::Status s = ValidateSprtParams(SprtParamsOf(c)); !s.ok()) return s;
  return c;
}

SprtParams SprtParamsOf(const v1::TestConfig& c) {
  SprtParams p;
  p.h0 = c.h0();
  p.h1 = c.h1();
  p.alpha = c.alpha();
  p.beta = c.beta();
  p.min_deals = c.min_deals();
  p.max_deals = c.max_deals();
  return p;
}

int TestExitStatus(const std::string& result) {
  if (result.empty()) return -1;
  if (result == "H1") return 0;
  if (result == "H0") return 1;
  if (result == "inconclusive" || result == "stopped") return 2;
  return 3;
}

TestJob::TestJob(int64_t id, v1::TestConfig config, std::vector<BotRow> bots, int num_seats)
    : id_(id),
      config_(std::move(config)),
      bots_(std::move(bots)),
      n_(num_seats),
      seatings_(SeatingsOf(config_, num_seats)),
      sprt_(SprtParamsOf(config_)),
      faults_(bots_.size(), 0),
      fault_kinds_(bots_.size()),
      hello_names_(bots_.size()),
      hello_versions_(bots_.size()) {}

std::string TestJob::InitialState() { return json{{"blocks", 0}}.dump(); }

absl::StatusOr<TestJob> TestJob::FromRow(const TestRow& row, std::vector<BotRow> bots) {
  const v1::TestConfig config = ConfigOf(row);
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(config.variant());
  if (!info.ok()) return info.status();
  if (bots.size() != static_cast<size_t>(2 + config.opponents_size()))
    return absl::InvalidArgumentError("a bot per role");
  TestJob job(row.id, config, std::move(bots), info->num_seats);
  json s = json::parse(row.state, nullptr, false);
  if (!s.is_object()) return absl::DataLossError(absl::StrCat("test ", row.id, ": unreadable state"));
  job.blocks_ = s.value("blocks", int64_t{0});
  job.hands_ = s.value("hands", int64_t{0});
  job.left_out_ = s.value("deals_left_out", int64_t{0});
  job.result_ = s.value("result", std::string());
  job.error_ = s.value("error", std::string());
  if (s.contains("differences"))
    for (const json& d : s["differences"]) {
      job.differences_.push_back(d.get<double>());
      job.sprt_.Add(d.get<double>());
    }
  if (s.contains("bots")) {
    for (size_t r = 0; r < s["bots"].size() && r < job.bots_.size(); ++r) {
      const json& b = s["bots"][r];
      job.faults_[r] = b.value("faults", int64_t{0});
      job.hello_names_[r] = b.value("hello_name", std::string());
      job.hello_versions_[r] = b.value("hello_version", std::string());
      if (b.contains("faults_by_kind"))
        for (const auto& [k, v] : b["faults_by_kind"].items()) job.fault_kinds_[r][k] = v.get<int64_t>();
    }
  }
  return job;
}

std::string TestJob::StateJson() const {
  json s;
  s["blocks"] = blocks_;
  s["hands"] = hands_;
  s["deals_left_out"] = left_out_;
  s["result"] = result_;
  s["error"] = error_;
  s["differences"] = differences_;
  s["bots"] = json::array();
  for (size_t r = 0; r < bots_.size(); ++r) {
    json kinds = json::object();
    for (const auto& [k, v] : fault_kinds_[r]) kinds[k] = v;
    s["bots"].push_back({{"role", RoleName(static_cast<int>(r))},
                         {"bot", bots_[r].name},
                         {"hello_name", hello_names_[r]},
                         {"hello_version", hello_versions_[r]},
                         {"faults", faults_[r]},
                         {"faults_by_kind", kinds}});
  }
  return s.dump();
}

int64_t TestJob::max_blocks() const { return (config_.max_deals() + n_ - 1) / n_; }

std::string TestJob::MatchId(int64_t block, int seating) const {
  return absl::StrCat("S", id_, "-", block, "-", seating);
}

std::vector<TestMatch> TestJob::MakeBlock(int64_t block) const {
  std::vector<TestMatch> out;
  const uint64_t seed = HandSeed(config_.seed(), static_cast<uint64_t>(block));
  for (int si = 0; si < per_block(); ++si) {
    TestMatch m;
    m.match.id = MatchId(block, si);
    m.match.variant = config_.variant();
    m.match.kind = "test";
    m.match.test_id = id_;
    m.match.seed = seed;
    // Sealed like every deal. The salt is derived from the test's secret seed
    // (MakeBlock cannot fail, and a block made again after a restart must
    // commit to the same salt).
    const SealedSeed sealed = SealDerivedSeed(seed);
    m.match.seed_salt = sealed.salt;
    m.match.seed_commitment = sealed.commitment;
    v1::MatchSpec& spec = m.spec;
    spec.set_match_id(m.match.id);
    spec.set_variant(config_.variant());
    *spec.mutable_options() = config_.options();
    for (int seat = 0; seat < n_; ++seat) {
      const BotRow& b = bots_[RoleOf(seatings_[si][seat])];
      v1::SeatSpec* s = spec.add_seats();
      s->set_name(b.name);
      s->set_endpoint(b.endpoint);
      m.match.bot_ids.push_back(b.id);
    }
    spec.set_num_hands(n_);
    spec.set_seed(seed);
    spec.set_seed_salt(m.match.seed_salt);
    spec.set_withhold_hand_records(true);  // the block's other seatings play the deal too
    *spec.mutable_time_control() = config_.time_control();
    spec.mutable_fault_policy()->set_max_faults(0);  // never forfeit: every deal stays comparable
    spec.set_result_only(true);
    m.match.spec = ToJson(spec);
    out.push_back(std::move(m));
  }
  return out;
}

void TestJob::ConsumeBlock(const std::vector<std::string>& records) {
  if (done()) return;
  std::vector<std::vector<PlayedHand>> hands;
  for (int si = 0; si < per_block() && si < static_cast<int>(records.size()); ++si) {
    absl::StatusOr<std::vector<PlayedHand>> h = HandsOfRecord(records[si]);
    if (!h.ok()) {
      Fail(absl::StrCat("match ", MatchId(blocks_, si), ": ", h.status().message()));
      return;
    }
    hands.push_back(std::move(*h));
    json record = json::parse(records[si], nullptr, false);
    hands_ += record.value("hands_played", int64_t{0});
    if (record.contains("seats"))
      for (int seat = 0; seat < n_ && seat < static_cast<int>(record["seats"].size()); ++seat) {
        const json& s = record["seats"][seat];
        const int r = RoleOf(seatings_[si][seat]);
        faults_[r] += s.value("faults", int64_t{0});
        if (hello_names_[r].empty()) hello_names_[r] = s.value("hello_name", std::string());
        if (hello_versions_[r].empty()) hello_versions_[r] = s.value("hello_version", std::string());
      }
    if (record.contains("faults"))
      for (const json& f : record["faults"]) {
        const int seat = f.value("seat", -1);
        if (seat < 0 || seat >= n_) continue;
        ++fault_kinds_[RoleOf(seatings_[si][seat])][f.value("kind", std::string("?"))];
      }
  }
  if (static_cast<int>(hands.size()) < per_block()) {
    Fail(absl::StrCat("block ", blocks_, " lacks a match"));
    return;
  }
  const std::vector<double> diffs = BlockDifferences(seatings_, hands, n_);
  left_out_ += n_ - static_cast<int64_t>(diffs.size());
  for (double d : diffs) {
    differences_.push_back(d);
    sprt_.Add(d);
    if (sprt_.decision() != SprtDecision::kContinue) break;
  }
  ++blocks_;
  if (sprt_.decision() != SprtDecision::kContinue) {
    result_ = SprtDecisionName(sprt_.decision());
  } else if (config_.max_faults() > 0 &&
             std::max(faults_[0], faults_[1]) > config_.max_faults()) {
    const int r = faults_[0] > config_.max_faults() ? 0 : 1;
    Fail(absl::StrCat("the ", RoleName(r), " made ", faults_[r], " faults (more than max_faults ",
                      config_.max_faults(), ")"));
  } else if (blocks_ >= max_blocks()) {
    result_ = "inconclusive";
  }
}

void TestJob::Fail(const std::string& error) {
  if (done()) return;
  result_ = "error";
  error_ = error;
}

void TestJob::Stop() {
  if (!done()) result_ = "stopped";
}

v1::TestInfo TestInfoOf(const TestRow& row, int64_t matches_done, int64_t matches_total,
                        bool with_path) {
  v1::TestInfo out;
  const v1::TestConfig config = ConfigOf(row);
  out.set_id(row.id);
  *out.mutable_config() = config;
  // The seed of a test's deals is secret while its matches are played.
  if (row.status == "running") out.mutable_config()->set_seed(0);
  out.set_status(row.status);
  out.set_created_at(row.created_at);
  out.set_finished_at(row.finished_at);
  out.set_matches_done(static_cast<int32_t>(matches_done));
  out.set_matches_total(static_cast<int32_t>(matches_total));
  out.set_design(config.opponents().empty() ? "head-to-head" : "opponents");
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(config.variant());
  if (info.ok())
    for (const Seating& s : SeatingsOf(config, info->num_seats)) out.add_seatings(SeatingName(s));
  json s = json::parse(row.state, nullptr, false);
  if (!s.is_object()) s = json::object();
  out.set_result(s.value("result", std::string()));
  out.set_exit_status(TestExitStatus(out.result()));
  out.set_error(s.value("error", std::string()));
  out.set_blocks(s.value("blocks", int64_t{0}));
  out.set_hands(s.value("hands", int64_t{0}));
  out.set_deals_left_out(s.value("deals_left_out", int64_t{0}));
  // The Sprt's figures from replaying the differences (the stored state keeps
  // only those).
  Sprt sprt(SprtParamsOf(config));
  if (s.contains("differences"))
    for (const json& d : s["differences"]) {
      sprt.Add(d.get<double>());
      if (with_path) {
        out.add_differences(d.get<double>());
        out.add_llr_path(sprt.llr());
      }
    }
  out.set_deals(sprt.deals());
  out.set_mean(sprt.mean());
  const double hw = sprt.HalfWidth95();
  out.set_ci_low(std::isfinite(hw) ? sprt.mean() - hw : sprt.mean());
  out.set_ci_high(std::isfinite(hw) ? sprt.mean() + hw : sprt.mean());
  out.set_sd(std::sqrt(sprt.variance()));
  out.set_llr(sprt.llr());
  out.set_lower_bound(sprt.lower_bound());
  out.set_upper_bound(sprt.upper_bound());
  std::vector<std::string> names = {config.candidate(), config.baseline()};
  names.insert(names.end(), config.opponents().begin(), config.opponents().end());
  for (size_t r = 0; r < names.size(); ++r) {
    v1::TestBot* b = out.add_bots();
    b->set_role(RoleName(static_cast<int>(r)));
    b->set_bot(names[r]);
    if (!s.contains("bots") || r >= s["bots"].size()) continue;
    const json& x = s["bots"][r];
    b->set_hello_name(x.value("hello_name", std::string()));
    b->set_hello_version(x.value("hello_version", std::string()));
    b->set_faults(static_cast<int32_t>(x.value("faults", int64_t{0})));
    if (x.contains("faults_by_kind"))
      for (const auto& [k, v] : x["faults_by_kind"].items()) {
        v1::FaultCount* f = b->add_faults_by_kind();
        f->set_kind(k);
        f->set_count(v.get<int32_t>());
      }
  }
  return out;
}

// ---------------------------------------------------------------------------
// The scheduler's side: starting, showing and stopping tests, and the
// dispatcher's round for the running ones.

namespace {

// The bots of a config's roles: candidate, baseline, opponents. With
// `for_start`, each must be active and play the variant.
absl::StatusOr<std::vector<BotRow>> RoleBots(Store* store, const v1::TestConfig& c, bool for_start) {
  std::vector<std::string> names = {c.candidate(), c.baseline()};
  names.insert(names.end(), c.opponents().begin(), c.opponents().end());
  std::vector<BotRow> out;
  for (const std::string& name : names) {
    absl::StatusOr<BotRow> b = store->FindBot(name);
    if (!b.ok()) return absl::InvalidArgumentError(b.status().message());
    if (for_start && b->retired)
      return absl::FailedPreconditionError(absl::StrCat("bot '", name, "' is retired"));
    if (for_start &&
        std::find(b->variants.begin(), b->variants.end(), c.variant()) == b->variants.end())
      return absl::InvalidArgumentError(absl::StrCat("bot '", name, "' does not play ", c.variant()));
    out.push_back(*b);
  }
  return out;
}

// Block k of "S<test>-<k>-<i>"; -1 for another id.
int64_t BlockOfMatchId(const std::string& id) {
  std::vector<std::string> parts = absl::StrSplit(id, '-');
  int64_t k = -1;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[1], &k)) return -1;
  return k;
}

}  // namespace

absl::StatusOr<v1::TestInfo> Scheduler::StartTest(const v1::StartTestRequest& request) {
  if (absl::Status s = CheckAdmin(request.admin_token()); !s.ok()) return s;
  if (Shared())
    return absl::FailedPreconditionError(
        "tests run on a single arena: this one shares its database with others (--lease_s)");
  absl::StatusOr<v1::TestConfig> config = NormalizeTestConfig(request.config());
  if (!config.ok()) return config.status();
  absl::StatusOr<std::vector<BotRow>> bots = RoleBots(store_, *config, /*for_start=*/true);
  if (!bots.ok()) return bots.status();
  TestRow row;
  row.variant = config->variant();
  row.config = ToJson(*config);
  row.status = "running";
  row.state = TestJob::InitialState();
  absl::StatusOr<int64_t> id = store_->InsertTest(row);
  if (!id.ok()) return id.status();
  {
    absl::MutexLock lock(&mu_);
    tests_started_.push_back(*id);
    refill_ = true;
  }
  return GetTest(*id, false);
}

absl::StatusOr<v1::TestInfo> Scheduler::GetTest(int64_t id, bool with_path) {
  absl::StatusOr<TestRow> row = store_->GetTest(id);
  if (!row.ok()) return row.status();
  return TestInfoOf(*row, store_->CountTestMatches(id, "done"), store_->CountTestMatches(id, ""),
                    with_path);
}

v1::ListTestsResponse Scheduler::ListTests(const v1::ListTestsRequest& request) {
  v1::ListTestsResponse out;
  const int limit = request.limit() > 0 ? std::min(request.limit(), 1000) : 100;
  for (const TestRow& row : store_->ListTests("", limit))
    *out.add_tests() = TestInfoOf(row, store_->CountTestMatches(row.id, "done"),
                                  store_->CountTestMatches(row.id, ""), false);
  return out;
}

absl::StatusOr<v1::TestInfo> Scheduler::StopTest(const v1::StopTestRequest& request) {
  if (absl::Status s = CheckAdmin(request.admin_token()); !s.ok()) return s;
  absl::StatusOr<TestRow> row = store_->GetTest(request.id());
  if (!row.ok()) return row.status();
  if (row->status != "running")
    return absl::FailedPreconditionError(absl::StrCat("test ", request.id(), " has ended"));
  bool dispatching = false;
  {
    absl::MutexLock lock(&mu_);
    dispatching = !stopping_ && !threads_.empty();
    tests_to_stop_.insert(request.id());
    refill_ = true;
  }
  // The dispatcher owns a running test's state: it records the stop within
  // a round. Without a dispatcher (not started), the row is ended here.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (dispatching && absl::Now() < deadline) {
    row = store_->GetTest(request.id());
    if (!row.ok() || row->status != "running") break;
    absl::SleepFor(absl::Milliseconds(20));
  }
  if (row.ok() && row->status == "running") {
    json state = json::parse(row->state, nullptr, false);
    if (state.is_object()) {
      state["result"] = "stopped";
      store_->UpdateTest(request.id(), state.dump(), "done").IgnoreError();
    }
  }
  return GetTest(request.id(), false);
}

void Scheduler::LoadRunningTests() {
  for (const TestRow& row : store_->ListTests("running", 1000000)) {
    if (tests_.count(row.id)) continue;
    const v1::TestConfig config = ConfigOf(row);
    absl::StatusOr<std::vector<BotRow>> bots = RoleBots(store_, config, /*for_start=*/false);
    absl::StatusOr<TestJob> job =
        bots.ok() ? TestJob::FromRow(row, std::move(*bots)) : absl::StatusOr<TestJob>(bots.status());
    if (!job.ok()) {
      json state = json::parse(row.state, nullptr, false);
      if (!state.is_object()) state = json::object();
      state["result"] = "error";
      state["error"] = std::string(job.status().message());
      store_->UpdateTest(row.id, state.dump(), "done").IgnoreError();
      continue;
    }
    // Blocks made before (their matches are stored; the unfinished ones are
    // queued again by Start like any other).
    int64_t made = job->blocks_consumed();
    for (const MatchRow& m : store_->TestMatches(row.id))
      made = std::max(made, BlockOfMatchId(m.id) + 1);
    test_blocks_made_[row.id] = made;
    tests_.emplace(row.id, std::move(*job));
  }
}

std::vector<Scheduler::Job> Scheduler::RunTests() {
  std::vector<int64_t> started;
  std::set<int64_t> stop;
  {
    absl::MutexLock lock(&mu_);
    started.swap(tests_started_);
    stop.swap(tests_to_stop_);
  }
  if (!started.empty()) LoadRunningTests();
  std::vector<Job> jobs;
  // Matches a test keeps queued or running ahead of the evidence it consumed.
  const int64_t window_matches = 2 * std::max(1, options_.max_parallel);
  std::vector<int64_t> ended;
  for (auto& [id, job] : tests_) {
    const int64_t before = job.blocks_consumed();
    if (stop.count(id)) job.Stop();
    while (!job.done() && job.blocks_consumed() < test_blocks_made_[id]) {
      const int64_t k = job.blocks_consumed();
      std::vector<std::string> records;
      bool complete = true;
      for (int si = 0; si < job.per_block() && complete && !job.done(); ++si) {
        absl::StatusOr<MatchRow> m = store_->GetMatch(job.MatchId(k, si));
        if (!m.ok()) {
          job.Fail(absl::StrCat("match ", job.MatchId(k, si), ": ", m.status().message()));
        } else if (m->status == "failed" && DealPublic(*m)) {
          job.Fail(absl::StrCat("match ", m->id, " failed: ", m->error));
        } else if (m->status != "done") {
          // (A failed table whose deal its block's other tables still play
          // fails the test once they have ended: the test's status is public,
          // and a table's end is sealed with its deal, docs/security.md.)
          complete = false;
        } else {
          absl::StatusOr<std::string> record = store_->RecordOf(m->id);
          if (record.ok()) records.push_back(std::move(*record));
          else job.Fail(std::string(record.status().message()));
        }
      }
      if (!complete || job.done()) break;
      job.ConsumeBlock(records);
    }
    if (job.blocks_consumed() != before || job.done()) {
      absl::StatusOr<bool> updated = store_->UpdateTest(id, job.StateJson(), job.status());
      // Not running any more (ended by StopTest without a dispatcher): drop it.
      if (updated.ok() && !*updated) job.Stop();
    }
    if (job.done()) {
      ended.push_back(id);
      continue;
    }
    int64_t& made = test_blocks_made_[id];
    const int64_t window_blocks =
        std::max<int64_t>(2, (window_matches + job.per_block() - 1) / job.per_block());
    std::vector<Job> fresh;
    for (int64_t k = made; k < std::min(job.blocks_consumed() + window_blocks, job.max_blocks()); ++k)
      for (TestMatch& m : job.MakeBlock(k)) fresh.push_back(Job{std::move(m.match), std::move(m.spec)});
    if (fresh.empty()) continue;
    std::vector<MatchRow> rows;
    for (const Job& j : fresh) rows.push_back(j.match);
    if (!store_->InsertMatches(rows).ok()) continue;  // nothing written: next round
    made += static_cast<int64_t>(fresh.size()) / job.per_block();
    for (Job& j : fresh) jobs.push_back(std::move(j));
  }
  for (int64_t id : ended) {
    tests_.erase(id);
    test_blocks_made_.erase(id);
    // Its matches not yet started go; those running finish and are stored.
    std::vector<std::string> spares;
    {
      absl::MutexLock lock(&mu_);
      for (auto j = queue_.begin(); j != queue_.end();) {
        if (j->match.test_id != id) {
          ++j;
          continue;
        }
        spares.push_back(j->match.id);
        resumed_.erase(j->match.id);
        for (int64_t b : j->match.bot_ids) --busy_by_bot_[b];
        j = queue_.erase(j);
      }
    }  // (the dispatcher sets the queue depth at the end of its round)
    store_->DeletePendingMatches(spares).IgnoreError();
  }
  return jobs;
}

}  // namespace tarock::arena
