#include "arena/scheduler/scheduler.h"

#include <google/protobuf/util/json_util.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "arena/scheduler/bot_rules.h"
#include "arena/scheduler/deal_seal.h"
#include "referee/net/secure_random.h"
#include "arena/scheduler/match_stats.h"
#include "arena/scheduler/record_split.h"
#include "nlohmann/json.hpp"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "referee/core/stats.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"
#include "tarock/sdk/referee_proof.h"
#include "referee/logging/log.h"
#include "referee/metrics/buckets.h"

namespace tarock::arena {
namespace {

// A store commit (one batch of finished matches, with their ratings) slower
// than this is logged as a warning (docs/logging.md).
constexpr absl::Duration kSlowCommit = absl::Milliseconds(500);

// The seats' bot names, comma separated, for the log.
std::string SeatNames(const v1::MatchSpec& spec) {
  std::string out;
  for (const v1::SeatSpec& seat : spec.seats()) absl::StrAppend(&out, out.empty() ? "" : ",", seat.name());
  return out;
}

using json = nlohmann::json;

std::string ToJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

template <typename T>
T FromJson(const std::string& s) {
  T m;
  (void)google::protobuf::util::JsonStringToMessage(s, &m);
  return m;
}

// Referee failures worth another referee: the referee is down, died mid-match
// or broke the stream. Everything else is about the match itself.
bool IsRefereeFailure(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s) || absl::IsInternal(s) ||
         absl::IsUnknown(s) || absl::IsAborted(s) || absl::IsResourceExhausted(s) ||
         absl::IsCancelled(s);
}

// All k-element subsets of [0, n), in lexicographic order.
void Combinations(int n, int k, std::vector<int>& cur, std::vector<std::vector<int>>* out) {
  if (static_cast<int>(cur.size()) == k) {
    out->push_back(cur);
    return;
  }
  for (int i = cur.empty() ? 0 : cur.back() + 1; i < n; ++i) {
    cur.push_back(i);
    Combinations(n, k, cur, out);
    cur.pop_back();
  }
}

}  // namespace

struct Scheduler::Metrics {
  explicit Metrics(prometheus::Registry* r)
      : rating_mu(Gauges(r, "tarock_arena_rating_mu", "Rating mean per bot and variant.")),
        rating_sigma(Gauges(r, "tarock_arena_rating_sigma", "Rating uncertainty per bot and variant.")),
        bot_matches(Gauges(r, "tarock_arena_bot_matches", "Rated matches per bot and variant.")),
        bot_faults(Gauges(r, "tarock_arena_bot_faults", "Faults per bot and variant.")),
        matches(Counters(r, "tarock_arena_matches_total", "Matches by variant and outcome.")),
        hands(Counters(r, "tarock_arena_hands_total", "Hands by variant and outcome.")),
        queue_depth(Gauges(r, "tarock_arena_queue_depth", "Matches waiting for a referee.").Add({})),
        running(Gauges(r, "tarock_arena_matches_running", "Matches in flight.").Add({})),
        duration(prometheus::BuildHistogram()
                     .Name("tarock_arena_match_duration_seconds")
                     .Help("Match duration.")
                     .Register(*r)),
        duration_buckets(metrics::ExponentialBuckets(0.05, 2, 14)),
        referees_available(Gauges(r, "tarock_arena_referees_available",
                                  "Referees not resting after a failure.").Add({})),
        retries(Counters(r, "tarock_arena_referee_failures_total",
                         "Matches moved to another referee after a failure.")) {}
  static prometheus::Family<prometheus::Gauge>& Gauges(prometheus::Registry* r, const char* name,
                                                       const char* help) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(*r);
  }
  static prometheus::Family<prometheus::Counter>& Counters(prometheus::Registry* r,
                                                           const char* name, const char* help) {
    return prometheus::BuildCounter().Name(name).Help(help).Register(*r);
  }
  prometheus::Family<prometheus::Gauge>& rating_mu;
  prometheus::Family<prometheus::Gauge>& rating_sigma;
  prometheus::Family<prometheus::Gauge>& bot_matches;
  prometheus::Family<prometheus::Gauge>& bot_faults;
  prometheus::Family<prometheus::Counter>& matches;
  prometheus::Family<prometheus::Counter>& hands;
  prometheus::Gauge& queue_depth;
  prometheus::Gauge& running;
  prometheus::Family<prometheus::Histogram>& duration;
  const prometheus::Histogram::BucketBoundaries duration_buckets;
  prometheus::Gauge& referees_available;
  prometheus::Family<prometheus::Counter>& retries;
};

bool ValidBotName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return true;
}

Scheduler::Scheduler(Store* store, RefereeClient* client, SchedulerOptions options,
                     prometheus::Registry* registry)
    : store_(store), client_(client), options_(std::move(options)), model_(options_.rating) {
  static prometheus::Registry unused;
  metrics_ = std::make_unique<Metrics>(registry ? registry : &unused);
  referees_ = options_.referees;
  metrics_->referees_available.Set(referees_.size());
}

void Scheduler::SetReferees(std::vector<std::string> referees) {
  absl::MutexLock lock(&mu_);
  if (referees == referees_) return;
  std::vector<std::string> joined, left;
  for (const std::string& r : referees)
    if (std::find(referees_.begin(), referees_.end(), r) == referees_.end()) joined.push_back(r);
  for (const std::string& r : referees_)
    if (std::find(referees.begin(), referees.end(), r) == referees.end()) {
      left.push_back(r);
      resting_until_.erase(r);  // a referee that comes back starts afresh
    }
  logging::Info("scheduler", "referee pool changed",
                {{"referees", absl::StrJoin(referees, ",")}, {"joined", absl::StrJoin(joined, ",")},
                 {"left", absl::StrJoin(left, ",")}});
  referees_ = std::move(referees);
  // Round robin goes on from about where it was; the index must stay in range.
  next_referee_ = referees_.empty() ? 0 : next_referee_ % referees_.size();
  int available = 0;
  const absl::Time now = absl::Now();
  for (const std::string& r : referees_) {
    auto it = resting_until_.find(r);
    if (it == resting_until_.end() || it->second <= now) ++available;
  }
  metrics_->referees_available.Set(available);
}

Scheduler::~Scheduler() { Stop(); }

absl::Status Scheduler::Start() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = false;
    cancel_.store(false);
    // Several arenas: unfinished matches are claimed from the database (those
    // of a dead arena once their leases expire), not queued here, and play
    // matches may be another arena's live sessions.
    for (const MatchRow& m : Shared() ? std::vector<MatchRow>{} : store_->UnfinishedMatches()) {
      if (m.kind == "play") {
        // The person's seat lived in this process's memory: it cannot resume.
        store_->MarkFailed(m.id, "the arena restarted during the play session").IgnoreError();
        continue;
      }
      if (m.test_id) {
        absl::StatusOr<TestRow> test = store_->GetTest(m.test_id);
        if (!test.ok() || test->status != "running") {
          store_->DeletePendingMatches({m.id}).IgnoreError();  // the test ended without it
          continue;
        }
      }
      if (m.status == "running") store_->MarkPending(m.id).IgnoreError();
      Job job{m, FromJson<v1::MatchSpec>(m.spec)};
      job.match.status = "pending";
      if (m.ladder_id) ++queued_by_ladder_[m.ladder_id];
      Enqueue(std::move(job));
    }
    for (const LadderRow& l : store_->ListLadders()) {
      if (!l.running) continue;
      Ladder ladder;
      ladder.id = l.id;
      ladder.config = FromJson<v1::LadderConfig>(l.config);
      ladder.created = store_->CountLadderMatches(l.id, "done") +
                       store_->CountLadderMatches(l.id, "failed") +
                       store_->CountLadderMatches(l.id, "pending") +
                       store_->CountLadderMatches(l.id, "running");
      ladders_[l.variant] = ladder;
    }
    metrics_->queue_depth.Set(queue_.size());
  }
  tests_.clear();
  test_blocks_made_.clear();
  if (!Shared()) LoadRunningTests();
  for (const BotRow& bot : store_->ListBots(/*include_retired=*/false))
    for (const RatingRow& r : store_->RatingsOfBot(bot.id)) SetBotMetrics(bot.name, r);
  {
    absl::MutexLock lock(&commit_mu_);
    commits_closed_ = false;
  }
  // Named, so profiles and top -H tell them apart.
  writer_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "arena-writer");
    // Commits can wait a few milliseconds; the referees and bots on the same
    // machine answer decisions and should not be preempted by them.
    setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 5);
    WriterLoop();
  });
  for (int i = 0; i < std::max(1, options_.max_parallel); ++i)
    threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "arena-worker");
      WorkerLoop();
    });
  threads_.emplace_back([this] {
    pthread_setname_np(pthread_self(), "arena-dispatch");
    DispatcherLoop();
  });
  return absl::OkStatus();
}

void Scheduler::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ && threads_.empty() && !writer_.joinable()) return;
    stopping_ = true;
  }
  cancel_.store(true);
  client_->CancelAll();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  std::map<std::string, std::thread> play;
  {
    absl::MutexLock lock(&mu_);
    play.swap(play_threads_);
    play_ended_.clear();
  }
  for (auto& [id, t] : play) t.join();
  // The workers are done: the writer commits what they finished, then ends.
  {
    absl::MutexLock lock(&commit_mu_);
    commits_closed_ = true;
  }
  if (writer_.joinable()) writer_.join();
  // What this arena claimed and did not finish goes back to the others at
  // once, instead of when its leases expire.
  if (Shared()) {
    if (absl::Status s = store_->ReleaseLeases(options_.lease_owner); !s.ok())
      logging::Warning("scheduler", "cannot release leases", {{"error", s.ToString()}});
    absl::MutexLock lock(&mu_);
    queue_.clear();
    busy_by_bot_.clear();
    queued_by_ladder_.clear();
  }
}

absl::Status Scheduler::CheckAdmin(const std::string& token) const {
  if (options_.admin_token.empty()) {
    if (options_.refuse_admin_without_token)
      return absl::PermissionDeniedError(
          "this arena listens beyond loopback and has no admin token: administrative calls "
          "are refused (start it with --admin_token or $TAROCK_ADMIN_TOKEN)");
    return absl::OkStatus();
  }
  if (!IsAdminToken(token))
    return absl::PermissionDeniedError("this operation needs the arena's admin token");
  return absl::OkStatus();
}

bool Scheduler::IsAdminToken(const std::string& token) const {
  return !options_.admin_token.empty() &&
         sdk::ConstantTimeEquals(token, options_.admin_token);
}

absl::StatusOr<v1::ListAuditResponse> Scheduler::ListAudit(const v1::ListAuditRequest& r) {
  if (absl::Status s = CheckAdmin(r.admin_token()); !s.ok()) return s;
  if (r.limit() < 0 || r.limit() > 1000)
    return absl::InvalidArgumentError("limit must be 0..1000 (0: 100)");
  v1::ListAuditResponse out;
  for (const AuditRow& row :
       store_->ListAudit(r.target(), r.before_id(), r.limit() ? r.limit() : 100)) {
    v1::AuditEntry* e = out.add_entries();
    e->set_id(row.id);
    e->set_at(row.at);
    e->set_actor(row.actor);
    e->set_client(row.client);
    e->set_action(row.action);
    e->set_target(row.target);
    e->set_outcome(row.outcome);
    e->set_detail(row.detail);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Bots.

absl::StatusOr<v1::AddBotResponse> Scheduler::AddBot(const v1::AddBotRequest& request) {
  if (absl::Status s = CheckNewBotName(request.name()); !s.ok()) return s;  // bot_rules.h
  if (request.dial_in() && !request.endpoint().empty())
    return absl::InvalidArgumentError("a dial-in bot has no endpoint: give one or the other");
  if (!request.dial_in() &&
      (request.endpoint().empty() || request.endpoint().find(':') == std::string::npos))
    return absl::InvalidArgumentError("the endpoint must be HOST:PORT");
  if (!request.dial_in())
    if (auto checked = options_.endpoint_policy.Check(request.endpoint()); !checked.ok())
      return checked.status();
  if (request.variants().empty()) return absl::InvalidArgumentError("name at least one variant");
  for (const std::string& v : request.variants())
    if (!Registry::Global().Info(v).ok())
      return absl::InvalidArgumentError(absl::StrCat("unknown variant '", v, "'"));
  if (absl::Status s = CheckOwner(request.owner()); !s.ok()) return s;
  for (const BotRow& b : store_->ListBots(true))  // names are unique whatever their case
    if (SameBotName(b.name, request.name()))
      return absl::AlreadyExistsError(absl::StrCat("a bot named '", b.name, "' exists"));
  BotRow row;
  row.name = request.name();
  row.endpoint = request.dial_in() ? kDialInEndpoint : request.endpoint();
  row.owner = request.owner();
  row.variants.assign(request.variants().begin(), request.variants().end());
  absl::StatusOr<std::string> token = NewToken();
  if (!token.ok()) return token.status();
  row.token_hash = HashToken(*token);
  absl::StatusOr<BotRow> added = store_->AddBot(row);
  if (!added.ok()) return added.status();
  v1::AddBotResponse out;
  *out.mutable_bot() = BotInfoOf(*added, false);
  out.set_token(*token);
  if (!options_.referee_secret_key.empty())
    out.set_referee_secret(sdk::BotRefereeSecret(options_.referee_secret_key, added->name));
  return out;
}

absl::StatusOr<v1::BotInfo> Scheduler::UpdateBot(const v1::UpdateBotRequest& request) {
  absl::StatusOr<BotRow> bot = store_->FindBot(request.name());
  if (!bot.ok()) return bot.status();
  if (HashToken(request.token()) != bot->token_hash)
    return absl::PermissionDeniedError(absl::StrCat("wrong token for bot '", request.name(), "'"));
  if (bot->retired)
    return absl::FailedPreconditionError(absl::StrCat("bot '", request.name(), "' is retired"));
  if (!request.endpoint().empty()) {
    if (request.endpoint().find(':') == std::string::npos)
      return absl::InvalidArgumentError("the endpoint must be HOST:PORT");
    if (auto checked = options_.endpoint_policy.Check(request.endpoint()); !checked.ok())
      return checked.status();
    bot->endpoint = request.endpoint();
  }
  if (!request.variants().empty()) {
    for (const std::string& v : request.variants())
      if (!Registry::Global().Info(v).ok())
        return absl::InvalidArgumentError(absl::StrCat("unknown variant '", v, "'"));
    bot->variants.assign(request.variants().begin(), request.variants().end());
  }
  if (absl::Status s = store_->UpdateBot(*bot); !s.ok()) return s;
  return BotInfoOf(*bot, false);
}

absl::StatusOr<v1::BotInfo> Scheduler::RetireBot(const v1::RetireBotRequest& request) {
  absl::StatusOr<BotRow> bot = store_->FindBot(request.name());
  if (!bot.ok()) return bot.status();
  if (HashToken(request.token()) != bot->token_hash)
    return absl::PermissionDeniedError(absl::StrCat("wrong token for bot '", request.name(), "'"));
  bot->retired = true;
  if (absl::Status s = store_->UpdateBot(*bot); !s.ok()) return s;
  return BotInfoOf(*bot, false);
}

v1::ListBotsResponse Scheduler::ListBots(const v1::ListBotsRequest& request) {
  v1::ListBotsResponse out;
  for (const BotRow& b : store_->ListBots(request.include_retired()))
    *out.add_bots() = BotInfoOf(b, false);
  return out;
}

absl::StatusOr<v1::BotInfo> Scheduler::GetBot(const std::string& name, bool with_history) {
  absl::StatusOr<BotRow> bot = store_->FindBot(name);
  if (!bot.ok()) return bot.status();
  return BotInfoOf(*bot, with_history);
}

v1::BotInfo Scheduler::BotInfoOf(const BotRow& bot, bool with_history) {
  v1::BotInfo info;
  info.set_name(bot.name);
  info.set_endpoint(bot.endpoint);
  for (const std::string& v : bot.variants) info.add_variants(v);
  info.set_owner(bot.owner);
  info.set_retired(bot.retired);
  info.set_dial_in(bot.endpoint == kDialInEndpoint);
  info.set_online(info.dial_in() && dial_in_ && dial_in_->Online(bot.id));
  if (info.online())
    info.set_dial_in_route(direct_dial_in_ && dial_in_->CanJoinReferee(bot.id) ? "direct" : "relay");
  for (const RatingRow& r : store_->RatingsOfBot(bot.id)) {
    v1::RatingInfo* ri = info.add_ratings();
    ri->set_variant(r.variant);
    ri->set_mu(r.mu);
    ri->set_sigma(r.sigma);
    ri->set_display(model_.Display({r.mu, r.sigma}));
    ri->set_matches(r.matches);
    ri->set_faults(r.faults);
  }
  if (with_history) {
    for (const HistoryRow& h : store_->HistoryOfBot(bot.id)) {
      v1::RatingPoint* p = info.add_history();
      p->set_match_seq(h.match_seq);
      p->set_match_id(h.match_id);
      p->set_variant(h.variant);
      p->set_mu(h.mu);
      p->set_sigma(h.sigma);
    }
  }
  return info;
}

// ---------------------------------------------------------------------------
// Ladders.

absl::StatusOr<v1::LadderInfo> Scheduler::StartLadder(const v1::StartLadderRequest& request) {
  if (absl::Status s = CheckAdmin(request.admin_token()); !s.ok()) return s;
  v1::LadderConfig config = request.config();
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(config.variant());
  if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat("unknown variant '", config.variant(), "'"));
  absl::StatusOr<Options> options = Registry::Global().CompleteOptions(
      config.variant(), Options(config.options().begin(), config.options().end()));
  if (!options.ok()) return absl::InvalidArgumentError(options.status().message());
  if (config.hands_per_match() == 0) config.set_hands_per_match(2 * info->num_seats);
  if (config.hands_per_match() < 0 || config.hands_per_match() % info->num_seats != 0)
    return absl::InvalidArgumentError(absl::StrCat("hands_per_match must be a positive multiple of ",
                                                   info->num_seats));
  if (config.max_matches() < 0) return absl::InvalidArgumentError("max_matches must not be negative");
  absl::MutexLock lock(&mu_);
  if (ladders_.count(config.variant()))
    return absl::AlreadyExistsError(absl::StrCat("a ladder for ", config.variant(), " is running"));
  LadderRow row;
  row.variant = config.variant();
  row.config = ToJson(config);
  row.running = true;
  absl::StatusOr<int64_t> id = store_->InsertLadder(row);
  if (!id.ok()) return id.status();
  Ladder ladder;
  ladder.id = *id;
  ladder.config = config;
  ladders_[config.variant()] = ladder;
  refill_ = true;
  v1::LadderInfo out;
  out.set_id(*id);
  *out.mutable_config() = config;
  out.set_running(true);
  return out;
}

absl::StatusOr<v1::LadderInfo> Scheduler::StopLadder(const v1::StopLadderRequest& request) {
  if (absl::Status s = CheckAdmin(request.admin_token()); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  auto it = ladders_.find(request.variant());
  if (it == ladders_.end())
    return absl::NotFoundError(absl::StrCat("no ladder is running for '", request.variant(), "'"));
  if (absl::Status s = store_->SetLadderRunning(it->second.id, false); !s.ok()) return s;
  // Its matches made ahead and not yet started go: a stopped ladder plays
  // only what is already running.
  const int64_t ladder_id = it->second.id;
  std::vector<std::string> spares;
  if (Shared()) {
    // Made ahead by whichever arena holds the dispatcher lease, pending in the
    // database; those claimed already (queued here or elsewhere) run.
    MatchFilter pending;
    pending.ladder_id = ladder_id;
    pending.status = "pending";
    for (const MatchRow& m : store_->ListMatchesPage(pending, 0, 100000, nullptr))
      spares.push_back(m.id);
  }
  for (auto j = queue_.begin(); j != queue_.end() && !Shared();) {
    if (j->match.ladder_id != ladder_id) {
      ++j;
      continue;
    }
    spares.push_back(j->match.id);
    for (int64_t b : j->match.bot_ids) --busy_by_bot_[b];
    --queued_by_ladder_[ladder_id];
    j = queue_.erase(j);
  }
  metrics_->queue_depth.Set(queue_.size());
  store_->DeletePendingMatches(spares).IgnoreError();  // left over, they would run after a restart
  v1::LadderInfo out;
  out.set_id(it->second.id);
  *out.mutable_config() = it->second.config;
  out.set_running(false);
  out.set_matches_done(store_->CountLadderMatches(it->second.id, "done"));
  ladders_.erase(it);
  return out;
}

v1::ListLaddersResponse Scheduler::ListLadders() {
  v1::ListLaddersResponse out;
  for (const LadderRow& l : store_->ListLadders()) {
    v1::LadderInfo* info = out.add_ladders();
    info->set_id(l.id);
    *info->mutable_config() = FromJson<v1::LadderConfig>(l.config);
    info->set_running(l.running);
    info->set_matches_done(store_->CountLadderMatches(l.id, "done"));
  }
  return out;
}

std::vector<Scheduler::LadderCandidate> Scheduler::LadderCandidates(const std::string& variant) {
  std::vector<LadderCandidate> out;
  for (const BotRow& b : store_->ListBots(false)) {
    if (std::find(b.variants.begin(), b.variants.end(), variant) == b.variants.end()) continue;
    if (b.endpoint == kDialInEndpoint && !(dial_in_ && dial_in_->Online(b.id))) continue;
    LadderCandidate c;
    c.bot = b;
    std::optional<RatingRow> r = store_->GetRating(b.id, variant);
    c.rating = r ? Rating{r->mu, r->sigma} : model_.Initial();
    c.matches = r ? r->matches : 0;
    out.push_back(c);
  }
  return out;
}

absl::StatusOr<Scheduler::Job> Scheduler::MakeLadderJob(Ladder& ladder,
                                                        std::vector<LadderCandidate> candidates) {
  const v1::LadderConfig& config = ladder.config;
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(config.variant());
  if (!info.ok()) return info.status();
  const int n = info->num_seats;
  if (candidates.empty() || (!config.allow_self_play() && static_cast<int>(candidates.size()) < n))
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", config.variant(), " ladder needs ", n, " bots, ", candidates.size(), " play it"));
  // The anchor: least known, least busy.
  std::sort(candidates.begin(), candidates.end(), [](const LadderCandidate& a,
                                                     const LadderCandidate& b) {
    if (a.busy != b.busy) return a.busy < b.busy;
    if (a.rating.sigma != b.rating.sigma) return a.rating.sigma > b.rating.sigma;
    if (a.matches != b.matches) return a.matches < b.matches;
    return a.bot.name < b.bot.name;
  });
  std::vector<int> chosen = {0};
  auto owner_taken = [&](const std::string& owner) {
    for (int i : chosen)
      if (candidates[i].bot.owner == owner) return true;
    return false;
  };
  const Rating anchor = candidates[0].rating;
  // Fill: most information first (uncertain, close to the anchor, not busy).
  for (int pass = 0; static_cast<int>(chosen.size()) < n && pass < 3; ++pass) {
    // pass 0: distinct bots, owners apart (if asked); 1: distinct bots; 2: self-play.
    if (pass == 2 && !config.allow_self_play()) break;
    if (pass == 0 && !config.separate_owners()) continue;
    while (static_cast<int>(chosen.size()) < n) {
      int best = -1;
      double best_score = -1e300;
      for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
        const bool taken = std::find(chosen.begin(), chosen.end(), i) != chosen.end();
        if (taken && pass < 2) continue;
        if (pass == 0 && owner_taken(candidates[i].bot.owner)) continue;
        const LadderCandidate& c = candidates[i];
        double score = c.rating.sigma - 0.25 * std::fabs(c.rating.mu - anchor.mu) -
                       2.0 * c.busy - 0.01 * c.matches;
        if (score > best_score) {
          best_score = score;
          best = i;
        }
      }
      if (best < 0) break;
      chosen.push_back(best);
    }
  }
  if (static_cast<int>(chosen.size()) < n)
    return absl::FailedPreconditionError("not enough bots for a ladder match");
  // A secret deal (deal_seal.h): never a function of the public match id.
  absl::StatusOr<SealedSeed> sealed = NewSealedSeed();
  if (!sealed.ok()) return sealed.status();
  absl::StatusOr<SealedSeed> shuffle = NewSealedSeed();
  if (!shuffle.ok()) return shuffle.status();
  const int64_t number = ++ladder.created;
  const uint64_t seed = sealed->seed;
  // Shuffle the seats, so no bot keeps a position (from other random bits
  // than the deal's: the seating is public).
  Rng rng(shuffle->seed);
  for (int i = n - 1; i > 0; --i) std::swap(chosen[i], chosen[rng.Below(i + 1)]);

  Job job;
  job.match.id = absl::StrCat("L", ladder.id, "-", number);
  job.match.variant = config.variant();
  job.match.kind = "ladder";
  job.match.ladder_id = ladder.id;
  job.match.seed = seed;
  job.match.seed_salt = sealed->salt;
  job.match.seed_commitment = sealed->commitment;
  v1::MatchSpec& spec = job.spec;
  spec.set_match_id(job.match.id);
  spec.set_variant(config.variant());
  *spec.mutable_options() = config.options();
  for (int i : chosen) {
    v1::SeatSpec* seat = spec.add_seats();
    seat->set_name(candidates[i].bot.name);
    seat->set_endpoint(candidates[i].bot.endpoint);
    job.match.bot_ids.push_back(candidates[i].bot.id);
  }
  spec.set_num_hands(config.hands_per_match());
  spec.set_seed(seed);
  spec.set_result_only(true);  // the arena needs the result, not the progress
  *spec.mutable_time_control() = config.time_control();
  *spec.mutable_fault_policy() = config.fault_policy();
  job.match.spec = ToJson(spec);
  return job;
}

// ---------------------------------------------------------------------------
// Tournaments.

absl::StatusOr<v1::TournamentInfo> Scheduler::RunTournament(const v1::RunTournamentRequest& r) {
  if (absl::Status s = CheckAdmin(r.admin_token()); !s.ok()) return s;
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(r.variant());
  if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat("unknown variant '", r.variant(), "'"));
  absl::StatusOr<Options> options = Registry::Global().CompleteOptions(
      r.variant(), Options(r.options().begin(), r.options().end()));
  if (!options.ok()) return absl::InvalidArgumentError(options.status().message());
  const int n = info->num_seats;
  const int hands = r.hands_per_match() ? r.hands_per_match() : 2 * n;
  if (hands < 0 || hands % n != 0)
    return absl::InvalidArgumentError(absl::StrCat("hands_per_match must be a multiple of ", n));
  const int deals = r.deals() ? r.deals() : 4;
  if (deals < 0 || deals > 1000) return absl::InvalidArgumentError("deals must be 1..1000");
  std::vector<BotRow> field;
  std::set<std::string> seen;
  for (const std::string& name : r.bots()) {
    if (!seen.insert(name).second)
      return absl::InvalidArgumentError(absl::StrCat("bot '", name, "' is named twice"));
    absl::StatusOr<BotRow> b = store_->FindBot(name);
    if (!b.ok()) return absl::InvalidArgumentError(b.status().message());
    if (b->retired) return absl::FailedPreconditionError(absl::StrCat("bot '", name, "' is retired"));
    if (std::find(b->variants.begin(), b->variants.end(), r.variant()) == b->variants.end())
      return absl::InvalidArgumentError(absl::StrCat("bot '", name, "' does not play ", r.variant()));
    field.push_back(*b);
  }
  std::vector<std::vector<int>> groups;  // indices into `field`, n each
  std::string format = "round-robin";
  if (r.format() == v1::RunTournamentRequest::GAUNTLET) {
    format = "gauntlet";
    absl::StatusOr<BotRow> challenger = store_->FindBot(r.challenger());
    if (!challenger.ok()) return absl::InvalidArgumentError("a gauntlet needs a registered challenger");
    int ci = -1;
    for (int i = 0; i < static_cast<int>(field.size()); ++i)
      if (field[i].id == challenger->id) ci = i;
    if (ci < 0) {
      field.push_back(*challenger);
      ci = static_cast<int>(field.size()) - 1;
    }
    std::vector<int> rest;
    for (int i = 0; i < static_cast<int>(field.size()); ++i)
      if (i != ci) rest.push_back(i);
    if (static_cast<int>(rest.size()) < n - 1)
      return absl::InvalidArgumentError(absl::StrCat("a gauntlet in ", r.variant(), " needs ",
                                                     n - 1, " bots besides the challenger"));
    std::vector<std::vector<int>> combos;
    std::vector<int> cur;
    Combinations(static_cast<int>(rest.size()), n - 1, cur, &combos);
    for (const auto& c : combos) {
      std::vector<int> g = {ci};
      for (int i : c) g.push_back(rest[i]);
      groups.push_back(g);
    }
  } else {
    if (static_cast<int>(field.size()) < n)
      return absl::InvalidArgumentError(
          absl::StrCat(r.variant(), " needs a field of at least ", n, " bots"));
    std::vector<int> cur;
    Combinations(static_cast<int>(field.size()), n, cur, &groups);
  }
  const bool duplicate = !r.no_duplicate();
  const int64_t total = static_cast<int64_t>(groups.size()) * deals * (duplicate ? n : 1);
  if (total > 20000)
    return absl::InvalidArgumentError(absl::StrCat("the tournament would have ", total,
                                                   " matches; the limit is 20000"));
  TournamentRow row;
  row.name = r.name().empty() ? absl::StrCat(format, " ", r.variant()) : r.name();
  row.variant = r.variant();
  row.format = absl::StrCat(format, duplicate ? " (duplicate)" : "");
  row.config = ToJson(r);
  absl::StatusOr<int64_t> tid = store_->InsertTournament(row);
  if (!tid.ok()) return tid.status();

  std::vector<Job> jobs;
  int64_t k = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (int d = 0; d < deals; ++d) {
      // One sealed seed per duplicate set (every rotation of this deal):
      // fresh random bits, or derived from the organiser's seed when given.
      absl::StatusOr<SealedSeed> sealed =
          r.seed() != 0 ? SealSeed(HandSeed(r.seed() ^ (static_cast<uint64_t>(*tid) << 32), g * 1000 + d))
                        : NewSealedSeed();
      if (!sealed.ok()) return sealed.status();
      const uint64_t seed = sealed->seed;
      for (int rot = 0; rot < (duplicate ? n : 1); ++rot) {
        const int shift = duplicate ? rot : d % n;
        Job job;
        job.match.id = absl::StrCat("T", *tid, "-", ++k);
        job.match.variant = r.variant();
        job.match.kind = "tournament";
        job.match.tournament_id = *tid;
        job.match.seed = seed;
        job.match.seed_salt = sealed->salt;
        job.match.seed_commitment = sealed->commitment;
        v1::MatchSpec& spec = job.spec;
        spec.set_match_id(job.match.id);
        spec.set_variant(r.variant());
        *spec.mutable_options() = r.options();
        for (int s = 0; s < n; ++s) {
          const BotRow& b = field[groups[g][(s + shift) % n]];
          v1::SeatSpec* seat = spec.add_seats();
          seat->set_name(b.name);
          seat->set_endpoint(b.endpoint);
          job.match.bot_ids.push_back(b.id);
        }
        spec.set_num_hands(hands);
        spec.set_seed(seed);
        spec.set_result_only(true);
        // Other tables play the same deal: no hand record to the bots.
        spec.set_withhold_hand_records(duplicate);
        *spec.mutable_time_control() = r.time_control();
        *spec.mutable_fault_policy() = r.fault_policy();
        job.match.spec = ToJson(spec);
        jobs.push_back(std::move(job));
      }
    }
  }
  {
    std::vector<MatchRow> rows;
    rows.reserve(jobs.size());
    for (const Job& j : jobs) rows.push_back(j.match);
    if (absl::Status s = store_->InsertMatches(rows); !s.ok()) return s;
  }
  {
    absl::MutexLock lock(&mu_);
    if (Shared()) {
      refill_ = true;  // every arena claims them; the dispatcher here at once
    } else {
      for (Job& j : jobs) Enqueue(std::move(j));
    }
    metrics_->queue_depth.Set(queue_.size());
  }
  return GetTournament(*tid);
}

absl::StatusOr<v1::TournamentInfo> Scheduler::GetTournament(int64_t id) {
  absl::StatusOr<TournamentRow> t = store_->GetTournament(id);
  if (!t.ok()) return t.status();
  v1::TournamentInfo info;
  info.set_id(t->id);
  info.set_name(t->name);
  info.set_variant(t->variant);
  info.set_format(t->format);
  struct Tally {
    int64_t total = 0;
    std::vector<double> per_hand;
    int faults = 0;
    double rank_sum = 0;
    int matches = 0;
  };
  std::map<std::string, Tally> tally;
  std::vector<MatchRow> matches = store_->TournamentMatches(id);
  info.set_matches_total(static_cast<int>(matches.size()));
  int done = 0, failed = 0;
  for (const MatchRow& m : matches) {
    if (m.status == "failed") ++failed;
    if (m.status != "done") continue;
    ++done;
    std::vector<SeatRow> seats = store_->SeatsOf(m.id);
    // Per-hand scores as stored with the seats; results stored before schema
    // version 2 have them only in the record.
    json rec;
    if (std::any_of(seats.begin(), seats.end(), [](const SeatRow& s) { return !s.hand_scores; })) {
      absl::StatusOr<std::string> record = store_->RecordOf(m.id);
      if (record.ok()) rec = json::parse(*record, nullptr, false);
    }
    for (const SeatRow& s : seats) {
      Tally& x = tally[s.bot];
      x.total += s.total;
      x.faults += s.faults;
      x.rank_sum += s.rank;
      ++x.matches;
      if (s.hand_scores) {
        x.per_hand.insert(x.per_hand.end(), s.hand_scores->begin(), s.hand_scores->end());
      } else if (rec.is_object() && rec.contains("deals")) {
        for (const json& deal : rec["deals"]) {
          if ((deal.value("redeal", false) && !deal.value("counts_as_hand", false)) ||
              !deal.contains("scores"))
            continue;
          x.per_hand.push_back(deal["scores"][s.seat].get<double>());
        }
      }
    }
  }
  info.set_matches_done(done);
  info.set_matches_failed(failed);
  info.set_finished(done + failed == static_cast<int>(matches.size()));
  std::vector<v1::TournamentStanding> standings;
  for (const auto& [bot, x] : tally) {
    v1::TournamentStanding s;
    s.set_bot(bot);
    s.set_total(x.total);
    s.set_hands(static_cast<int>(x.per_hand.size()));
    MeanCI ci = ComputeMeanCI(x.per_hand);
    s.set_mean_per_hand(ci.mean);
    s.set_ci95(std::isfinite(ci.half_width) ? ci.half_width : -1);
    s.set_faults(x.faults);
    s.set_mean_rank(x.matches ? x.rank_sum / x.matches : 0);
    // Every bot today runs on its own machine (listening or dial-in); hosted
    // bots in a fresh sandbox per match will be the exception.
    s.set_runs_elsewhere(true);
    standings.push_back(s);
  }
  std::sort(standings.begin(), standings.end(), [](const auto& a, const auto& b) {
    if (a.mean_per_hand() != b.mean_per_hand()) return a.mean_per_hand() > b.mean_per_hand();
    return a.bot() < b.bot();
  });
  for (auto& s : standings) *info.add_standings() = s;
  return info;
}

// ---------------------------------------------------------------------------
// Queries.

absl::StatusOr<v1::LeaderboardResponse> Scheduler::Leaderboard(const std::string& variant) {
  if (!Registry::Global().Info(variant).ok())
    return absl::InvalidArgumentError(absl::StrCat("unknown variant '", variant, "'"));
  struct Row {
    BotRow bot;
    RatingRow rating;
    double display;
  };
  std::vector<Row> rows;
  std::map<std::string, double> trend;
  // One query (bots joined, each bot's rating 10 rated matches ago).
  for (LeaderRow& l : store_->LeaderboardRows(variant, 10)) {
    const double display = model_.Display({l.rating.mu, l.rating.sigma});
    const Rating before = l.earlier ? Rating{l.earlier->first, l.earlier->second} : model_.Initial();
    trend[l.name] = display - model_.Display(before);
    BotRow b;
    b.name = std::move(l.name);
    b.owner = std::move(l.owner);
    rows.push_back({std::move(b), l.rating, display});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.display != b.display) return a.display > b.display;
    return a.bot.name < b.bot.name;
  });
  v1::LeaderboardResponse out;
  out.set_variant(variant);
  for (size_t i = 0; i < rows.size(); ++i) {
    v1::LeaderboardEntry* e = out.add_entries();
    e->set_rank(static_cast<int>(i) + 1);
    e->set_bot(rows[i].bot.name);
    e->set_owner(rows[i].bot.owner);
    v1::RatingInfo* ri = e->mutable_rating();
    ri->set_variant(variant);
    ri->set_mu(rows[i].rating.mu);
    ri->set_sigma(rows[i].rating.sigma);
    ri->set_display(rows[i].display);
    ri->set_matches(rows[i].rating.matches);
    ri->set_faults(rows[i].rating.faults);
    e->set_trend(trend[rows[i].bot.name]);
  }
  return out;
}

v1::ListTournamentsResponse Scheduler::ListTournaments(int limit) {
  v1::ListTournamentsResponse out;
  for (const TournamentSummaryRow& t : store_->ListTournaments(limit)) {
    v1::TournamentInfo* info = out.add_tournaments();
    info->set_id(t.tournament.id);
    info->set_name(t.tournament.name);
    info->set_variant(t.tournament.variant);
    info->set_format(t.tournament.format);
    info->set_matches_total(t.matches);
    info->set_matches_done(t.done);
    info->set_matches_failed(t.failed);
    info->set_finished(t.done + t.failed == t.matches);
    info->set_created_at(t.created_at);
  }
  return out;
}

absl::StatusOr<v1::BotStatsResponse> Scheduler::BotStats(const std::string& name) {
  absl::StatusOr<BotRow> bot = store_->FindBot(name);
  if (!bot.ok()) return bot.status();
  v1::BotStatsResponse out;
  out.set_bot(bot->name);
  std::map<std::string, int> faults;
  int64_t decisions = 0;
  double decision_ms = 0;
  for (const BotVariantStatsRow& r : store_->BotStats(bot->id)) {
    v1::VariantStats* v = out.add_variants();
    v->set_variant(r.variant);
    v->set_matches(r.matches);
    v->set_wins(r.wins);
    v->set_mean_rank(r.matches ? r.rank_sum / r.matches : 0);
    v->set_total(r.total);
    v->set_hands(r.hands);
    v->set_declarer_hands(r.sums.declarer_hands);
    v->set_declarer_won(r.sums.declarer_won);
    v->set_declarer_score(r.sums.declarer_score);
    v->set_defender_hands(r.sums.defender_hands);
    v->set_defender_won(r.sums.defender_won);
    v->set_defender_score(r.sums.defender_score);
    v->set_decisions(r.sums.decisions);
    v->set_mean_decision_ms(r.sums.decisions ? r.sums.decision_ms / r.sums.decisions : 0);
    v->set_faults(r.sums.faults);
    decisions += r.sums.decisions;
    decision_ms += r.sums.decision_ms;
    for (const auto& [k, c] : r.fault_kinds) faults[k] += c;
  }
  out.set_decisions(decisions);
  out.set_mean_decision_ms(decisions ? decision_ms / decisions : 0);
  for (const auto& [k, c] : faults) {
    v1::FaultCount* f = out.add_faults();
    f->set_kind(k);
    f->set_count(c);
  }
  return out;
}

absl::StatusOr<v1::ArenaMatch> Scheduler::GetMatch(const std::string& id, bool with_record) {
  absl::StatusOr<MatchRow> m = store_->GetMatch(id);
  if (!m.ok()) return m.status();
  if (m->status == "pending" || m->status == "running") {
    // Running is a state in memory (see the header).
    absl::MutexLock lock(&mu_);
    auto it = in_flight_.find(id);
    m->status = "pending";
    if (it != in_flight_.end() && !it->second.referee.empty()) {
      m->status = "running";
      m->referee = it->second.referee;
      m->attempts = it->second.attempts;
    }
  }
  v1::ArenaMatch out;
  out.set_id(m->id);
  out.set_variant(m->variant);
  out.set_status(m->status);
  out.set_kind(m->kind);
  out.set_seq(m->seq);
  out.set_hands(m->hands);
  out.set_duration_s(m->duration_s);
  out.set_referee(m->referee);
  out.set_attempts(m->attempts);
  out.set_error(m->error);
  // Secret deals (deal_seal.h): the seed, its salt and the record only once
  // every table of the deal has finished it; the commitment always.
  const bool finished = m->status == "done" || m->status == "failed";
  const bool deal_public = finished && store_->CountUnfinishedWithSeed(m->seed) == 0;
  out.set_deal_public(deal_public);
  out.set_seed_commitment(m->seed_commitment);
  if (deal_public) {
    out.set_seed(m->seed);
    out.set_seed_salt(m->seed_salt);
  }
  out.set_ladder_id(m->ladder_id);
  out.set_tournament_id(m->tournament_id);
  out.set_finished_at(m->finished_at);
  out.set_test_id(m->test_id);
  std::vector<SeatRow> seats = store_->SeatsOf(m->id);
  if (seats.empty()) {
    v1::MatchSpec spec = FromJson<v1::MatchSpec>(m->spec);
    for (int s = 0; s < spec.seats_size(); ++s) {
      v1::ArenaSeat* seat = out.add_seats();
      seat->set_seat(s);
      seat->set_bot(spec.seats(s).name());
    }
  }
  for (const SeatRow& s : seats) {
    v1::ArenaSeat* seat = out.add_seats();
    seat->set_seat(s.seat);
    seat->set_bot(s.bot);
    seat->set_total(s.total);
    seat->set_faults(s.faults);
    seat->set_forfeited(s.forfeited);
    seat->set_rank(s.rank);
  }
  if (with_record && m->status == "done" && deal_public) {
    absl::StatusOr<std::string> record = store_->RecordOf(m->id);
    if (record.ok()) out.set_record_json(*record);
  }
  return out;
}

absl::StatusOr<v1::ListMatchesResponse> Scheduler::ListMatches(const v1::ListMatchesRequest& r) {
  int64_t bot_id = 0;
  if (!r.bot().empty()) {
    absl::StatusOr<BotRow> b = store_->FindBot(r.bot());
    if (!b.ok()) return b.status();
    bot_id = b->id;
  }
  if (r.limit() < 0 || r.limit() > 10000) return absl::InvalidArgumentError("limit must be 0..10000");
  if (r.offset() < 0) return absl::InvalidArgumentError("offset must be non-negative");
  MatchFilter filter{r.variant(), bot_id, r.kind(), r.ladder_id(), r.tournament_id(), r.status(),
                     r.test_id()};
  v1::ListMatchesResponse out;
  int64_t total = 0;
  out.set_offset(r.offset());
  if (r.status() == "running") {
    // Running is a state in memory (GetMatch); the store has these matches
    // as pending. At most --max_parallel of them: filtered here.
    std::vector<std::string> ids;
    {
      absl::MutexLock lock(&mu_);
      for (const auto& [id, flight] : in_flight_)
        if (!flight.referee.empty()) ids.push_back(id);
    }
    std::vector<v1::ArenaMatch> running;
    for (const std::string& id : ids) {
      absl::StatusOr<v1::ArenaMatch> m = GetMatch(id, false);
      if (!m.ok() || m->status() != "running") continue;
      if ((!r.variant().empty() && m->variant() != r.variant()) ||
          (!r.kind().empty() && m->kind() != r.kind()) ||
          (r.ladder_id() && m->ladder_id() != r.ladder_id()) ||
          (r.tournament_id() && m->tournament_id() != r.tournament_id()) ||
          (r.test_id() && m->test_id() != r.test_id()) ||
          (!r.bot().empty() && std::none_of(m->seats().begin(), m->seats().end(),
                                            [&](const v1::ArenaSeat& x) { return x.bot() == r.bot(); })))
        continue;
      running.push_back(*std::move(m));
    }
    out.set_total(static_cast<int64_t>(running.size()));
    const size_t limit = r.limit() ? r.limit() : 50;
    for (size_t i = r.offset(); i < running.size() && i < r.offset() + limit; ++i)
      *out.add_matches() = running[i];
    return out;
  }
  std::vector<MatchRow> page =
      store_->ListMatchesPage(filter, r.offset(), r.limit() ? r.limit() : 50, &total);
  out.set_total(total);
  for (const MatchRow& m : page) {
    absl::StatusOr<v1::ArenaMatch> match = GetMatch(m.id, false);
    // A pending row may be running by now: it is listed under "running".
    if (match.ok() && (r.status().empty() || match->status() == r.status()))
      *out.add_matches() = *match;
  }
  return out;
}

v1::StatusResponse Scheduler::GetStatus() {
  v1::StatusResponse out;
  // The store first, without mu_: a commit can hold the store for
  // milliseconds, and workers need mu_ to start their next match.
  out.set_matches_done(store_->CountMatches("done"));
  out.set_matches_failed(store_->CountMatches("failed"));
  out.set_matches_per_minute(store_->CountDoneSince(300) / 5.0);
  for (const VariantInfo& v : Registry::Global().List()) out.add_variants(v.name);
  absl::MutexLock lock(&mu_);
  out.set_queue_depth(static_cast<int>(queue_.size()));
  out.set_running(static_cast<int>(in_flight_.size()));
  int available = 0;
  for (const std::string& r : referees_)
    if (!resting_until_.count(r) || resting_until_[r] <= absl::Now()) ++available;
  out.set_referees_available(available);
  out.set_referees_total(static_cast<int>(referees_.size()));
  for (const auto& [match, bot] : waiting_) out.add_waiting_for_dial_in(absl::StrCat(match, ": ", bot));
  return out;
}

// ---------------------------------------------------------------------------
// Running matches.

std::string Scheduler::PickReferee() {
  const absl::Time now = absl::Now();
  const size_t n = referees_.size();
  int available = 0;
  std::string pick;
  for (size_t i = 0; i < n; ++i) {
    const std::string& r = referees_[(next_referee_ + i) % n];
    auto it = resting_until_.find(r);
    if (it != resting_until_.end() && it->second > now) continue;
    ++available;
    if (pick.empty()) {
      pick = r;
      next_referee_ = (next_referee_ + i + 1) % n;
    }
  }
  metrics_->referees_available.Set(available);
  return pick;
}

void Scheduler::DispatcherLoop() {
  // What one round does for a ladder, decided under mu_ and carried out
  // (matchmaking reads, the insert) without it: workers need mu_ to start
  // their next match, and the store can be busy with a commit.
  struct Refill {
    Ladder ladder;  // a copy; `created` advances as matches are made
    int wanted = 0;
    bool ended = false;  // max_matches made and all done: mark it stopped
    std::vector<Job> made;
  };
  for (;;) {
    std::vector<Refill> refills;
    std::map<int64_t, int> busy;
    // Several arenas: only the holder of the dispatcher lease makes matches.
    const bool dispatcher = !Shared() || SharedRound();
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      refill_ = false;  // a worker that frees a slot from here on wakes the next round
      // A few matches beyond the slots wait made, so a worker that finishes
      // finds its next match ready instead of waiting for matchmaking.
      const int target = LadderQueueTarget();
      for (auto& [variant, ladder] : ladders_) {
        if (!dispatcher) break;
        Refill r;
        r.ladder = ladder;
        const int queued =
            Shared() ? shared_queued_[ladder.id] : queued_by_ladder_[ladder.id];
        const int max = ladder.config.max_matches();
        r.wanted = target - queued;
        if (max > 0) r.wanted = static_cast<int>(std::min<int64_t>(r.wanted, max - ladder.created));
        // Ended once its last result is committed, not just played.
        const int64_t ladder_id = ladder.id;  // clang 14 cannot capture a structured binding
        r.ended = max > 0 && ladder.created >= max && queued == 0 &&
                  (Shared() ||  // (queued counts the running matches of every arena)
                   std::none_of(in_flight_.begin(), in_flight_.end(), [&](const auto& f) {
                     return f.second.ladder_id == ladder_id;
                   }));
        if (r.wanted > 0 || r.ended) refills.push_back(std::move(r));
      }
      busy = Shared() ? shared_busy_ : busy_by_bot_;
    }
    std::vector<Job> test_jobs = Shared() ? std::vector<Job>{} : RunTests();
    for (Refill& r : refills) {
      if (r.ended) {
        store_->SetLadderRunning(r.ladder.id, false).IgnoreError();
        continue;
      }
      std::vector<LadderCandidate> candidates = LadderCandidates(r.ladder.config.variant());
      for (int i = 0; i < r.wanted; ++i) {
        for (LadderCandidate& c : candidates) c.busy = busy.count(c.bot.id) ? busy[c.bot.id] : 0;
        absl::StatusOr<Job> job = MakeLadderJob(r.ladder, candidates);
        if (!job.ok()) break;  // not enough bots yet: try again later
        // Busy at once, so the next one of this round is matched around it.
        for (int64_t b : job->match.bot_ids) ++busy[b];
        r.made.push_back(std::move(*job));
      }
      if (r.made.empty()) continue;
      std::vector<MatchRow> rows;
      for (const Job& j : r.made) rows.push_back(j.match);
      if (!store_->InsertMatches(rows).ok()) r.made.clear();  // nothing written: next round
    }
    // Several arenas: this arena's free slots take the oldest claimable
    // matches, whoever made them (those just made included).
    if (Shared()) ClaimForFreeSlots();
    absl::MutexLock lock(&mu_);
    for (Job& j : test_jobs) Enqueue(std::move(j));
    for (Refill& r : refills) {
      auto it = ladders_.find(r.ladder.config.variant());
      const bool current = it != ladders_.end() && it->second.id == r.ladder.id;
      if (r.ended) {
        if (current) ladders_.erase(it);
        continue;
      }
      if (r.made.empty()) continue;
      if (!current) {
        // Stopped while these were made: they go, as StopLadder's spares did.
        std::vector<std::string> ids;
        for (const Job& j : r.made) ids.push_back(j.match.id);
        store_->DeletePendingMatches(ids).IgnoreError();
        continue;
      }
      // Only the dispatcher makes ladder matches, so nothing else moved `created`.
      it->second.created = r.ladder.created;
      if (Shared()) continue;  // claimed from the database, by any arena
      for (Job& j : r.made) {
        ++queued_by_ladder_[r.ladder.id];
        Enqueue(std::move(j));
      }
    }
    metrics_->queue_depth.Set(queue_.size());
    if (!refill_)
      mu_.AwaitWithTimeout(absl::Condition(+[](Scheduler* s) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                             return s->stopping_ || s->refill_;
                           }, this),
                           absl::Milliseconds(100));
  }
}

int Scheduler::LadderQueueTarget() const {
  return 2 * std::max(1, options_.max_parallel);
}

int Scheduler::LeaseSeconds() const {
  return std::max<int>(1, static_cast<int>(absl::ToInt64Seconds(options_.lease)));
}

bool Scheduler::SharedRound() {
  const absl::Time now = absl::Now();
  if (now - leases_renewed_ >= options_.lease / 3) {
    if (absl::Status s = store_->RenewLeases(options_.lease_owner, LeaseSeconds()); !s.ok())
      logging::Warning("scheduler", "cannot renew leases", {{"error", s.ToString()}});
    else
      leases_renewed_ = now;
  }
  absl::StatusOr<bool> dispatcher =
      store_->AcquireLease("dispatcher", options_.lease_owner, LeaseSeconds());
  if (!dispatcher.ok()) {
    logging::Warning("scheduler", "cannot take the dispatcher lease",
                     {{"error", dispatcher.status().ToString()}});
    return false;
  }
  // The running ladders as the database has them (started or stopped by any
  // arena), with what every arena has made, queued and running of each.
  std::map<std::string, Ladder> ladders;
  std::map<int64_t, int> queued;
  std::map<int64_t, int> busy;
  for (const LadderRow& l : store_->ListLadders()) {
    if (!l.running) continue;
    Ladder ladder;
    ladder.id = l.id;
    ladder.config = FromJson<v1::LadderConfig>(l.config);
    const int64_t open =
        store_->CountLadderMatches(l.id, "pending") + store_->CountLadderMatches(l.id, "running");
    ladder.created = store_->CountLadderMatches(l.id, "done") +
                     store_->CountLadderMatches(l.id, "failed") + open;
    queued[l.id] = static_cast<int>(open);
    ladders[l.variant] = ladder;
  }
  // Matchmaking's busy bots: only ladders need them (reading every unfinished
  // match of a large tournament each round would not be free).
  if (*dispatcher && !ladders.empty())
    for (const MatchRow& m : store_->UnfinishedMatches())
      for (int64_t b : m.bot_ids) ++busy[b];
  absl::MutexLock lock(&mu_);
  ladders_ = std::move(ladders);
  shared_queued_ = std::move(queued);
  shared_busy_ = std::move(busy);
  return *dispatcher;
}

void Scheduler::ClaimForFreeSlots() {
  int free = 0;
  {
    absl::MutexLock lock(&mu_);
    free = std::max(1, options_.max_parallel) - static_cast<int>(in_flight_.size()) -
           static_cast<int>(queue_.size());
  }
  if (free <= 0) return;
  absl::StatusOr<std::vector<MatchRow>> claimed =
      store_->ClaimMatches(options_.lease_owner, LeaseSeconds(), free);
  if (!claimed.ok()) {
    logging::Warning("scheduler", "cannot claim matches", {{"error", claimed.status().ToString()}});
    return;
  }
  absl::MutexLock lock(&mu_);
  for (const MatchRow& m : *claimed) {
    Job job{m, FromJson<v1::MatchSpec>(m.spec)};
    if (m.ladder_id) ++queued_by_ladder_[m.ladder_id];
    Enqueue(std::move(job));
  }
  metrics_->queue_depth.Set(queue_.size());
}

void Scheduler::Enqueue(Job job) {
  for (int64_t b : job.match.bot_ids) ++busy_by_bot_[b];
  queue_.push_back(std::move(job));
}

void Scheduler::WorkerLoop() {
  for (;;) {
    Job job;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !queue_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      in_flight_[job.match.id] = InFlight{"", job.match.attempts, job.match.ladder_id};
      metrics_->queue_depth.Set(queue_.size());
      metrics_->running.Set(in_flight_.size());
    }
    const int64_t ladder = job.match.ladder_id;
    const std::vector<int64_t> bots = job.match.bot_ids;
    const std::string id = job.match.id;
    const bool committing = RunJob(std::move(job));
    absl::MutexLock lock(&mu_);
    if (!committing) in_flight_.erase(id);  // else the writer does, once committed
    for (int64_t b : bots) --busy_by_bot_[b];
    if (Shared()) refill_ = true;  // a slot is free: the dispatcher claims the next match
    if (ladder) {
      // The dispatcher tops the ladder up when its spare matches are gone (and
      // every 100 ms anyway).
      if (--queued_by_ladder_[ladder] <= LadderQueueTarget() - std::max(1, options_.max_parallel) / 2)
        refill_ = true;
    }
    metrics_->running.Set(in_flight_.size());
  }
}

bool Scheduler::RunJob(Job job) {
  {
    absl::MutexLock lock(&commit_mu_);
    ++jobs_running_;
  }
  const bool committing = RunOnReferees(std::move(job));
  if (!committing) {
    absl::MutexLock lock(&commit_mu_);
    --jobs_running_;  // (EnqueueCommit counts the others down)
  }
  return committing;
}

bool Scheduler::RunOnReferees(Job job) {
  std::vector<int> dial_in;
  if (absl::Status s = PrepareDialIn(job, &dial_in); !s.ok()) {
    ReleaseDialIn(job.match.id, dial_in);
    if (cancel_.load()) return false;  // stopping: runs again after a restart
    store_->MarkFailed(job.match.id, std::string(s.message())).IgnoreError();
    metrics_->matches.Add({{"variant", job.match.variant}, {"outcome", "failed"}}).Increment();
    return false;
  }
  struct Release {
    Scheduler* s;
    const std::string match_id;
    const std::vector<int>& seats;
    ~Release() { s->ReleaseDialIn(match_id, seats); }
  } release{this, job.match.id, dial_in};
  // Seats the referee reaches through the arena's relay: a dial-in bot's
  // (relayed unless it joins the referee) and a play match's person.
  std::vector<int> relayed = dial_in;
  if (job.match.kind == "play")
    for (int s = 0; s < job.spec.seats_size(); ++s)
      if (job.spec.seats(s).name() == kHumanBotName) relayed.push_back(s);
  if (!options_.referee_secret_key.empty()) {
    // Computed here, not stored: the stored spec stays free of secrets.
    // Relayed seats get their attempt's capability below instead.
    for (int s = 0; s < job.spec.seats_size(); ++s) {
      v1::SeatSpec* seat = job.spec.mutable_seats(s);
      seat->set_referee_proof(sdk::RefereeProof(
          sdk::BotRefereeSecret(options_.referee_secret_key, seat->name()), job.spec.match_id(), s));
    }
  }
  int attempts = job.match.attempts;
  std::string last_error = "no referee configured";
  while (attempts < options_.max_attempts) {
    std::string referee;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return false;  // stays pending: runs again after a restart
      referee = PickReferee();
      if (referee.empty()) {
        mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Milliseconds(200));
        continue;
      }
      ++attempts;
      in_flight_[job.match.id] = InFlight{referee, attempts, job.match.ladder_id};
    }
    logging::Info("scheduler", "match started",
                  {{"match", job.match.id}, {"variant", job.match.variant}, {"kind", job.match.kind},
                   {"ladder", job.match.ladder_id}, {"tournament", job.match.tournament_id},
                   {"referee", referee}, {"attempt", attempts}, {"bots", SeatNames(job.spec)}});
    RouteDialIn(job, dial_in, referee);
    absl::StatusOr<v1::MatchFinished> finished;
    if (absl::Status gate = AuthorizeRelayedSeats(job, relayed); !gate.ok()) {
      finished = gate;
    } else {
      finished = client_->RunMatch(referee, job.spec, &cancel_);
    }
    if (finished.ok()) {
      logging::Info("scheduler", "match finished",
                    {{"match", job.match.id}, {"variant", job.match.variant},
                     {"ladder", job.match.ladder_id}, {"tournament", job.match.tournament_id},
                     {"referee", referee}, {"hands", finished->hands()},
                     {"duration_s", finished->duration_s()},
                     {"ended_early", finished->ended_early()}});
      for (int s = 0; s < finished->seats_size(); ++s) {
        const v1::SeatSummary& seat = finished->seats(s);
        if (seat.faults() == 0 && !seat.forfeited()) continue;
        logging::Warning("scheduler", "bot faulted in a match",
                         {{"match", job.match.id}, {"ladder", job.match.ladder_id},
                          {"tournament", job.match.tournament_id}, {"seat", s},
                          {"bot", seat.name()}, {"faults", seat.faults()},
                          {"forfeited", seat.forfeited()}});
      }
      EnqueueCommit(Finished{std::move(job), std::move(*finished), referee, attempts});
      return true;
    }
    if (cancel_.load()) return false;  // stopping: the match runs again after a restart
    last_error = absl::StrCat("referee ", referee, ": ", finished.status().ToString());
    if (!IsRefereeFailure(finished.status())) break;
    logging::Warning("scheduler",
                     attempts < options_.max_attempts ? "referee failed; the match is retried"
                                                      : "referee failed; no attempts left",
                     {{"match", job.match.id}, {"ladder", job.match.ladder_id},
                      {"tournament", job.match.tournament_id}, {"referee", referee},
                      {"attempt", attempts}, {"max_attempts", options_.max_attempts},
                      {"error", finished.status().ToString()}});
    store_->RecordAttempt(job.match.id, referee, attempts).IgnoreError();
    metrics_->retries.Add({{"referee", referee}}).Increment();
    absl::MutexLock lock(&mu_);
    resting_until_[referee] = absl::Now() + options_.referee_rest;
  }
  logging::Error("scheduler", "match failed",
                 {{"match", job.match.id}, {"variant", job.match.variant},
                  {"ladder", job.match.ladder_id}, {"tournament", job.match.tournament_id},
                  {"attempts", attempts}, {"error", last_error}});
  store_->MarkFailed(job.match.id, last_error).IgnoreError();
  metrics_->matches.Add({{"variant", job.match.variant}, {"outcome", "failed"}}).Increment();
  return false;
}

// ---------------------------------------------------------------------------
// Bots that dial in (docs/dial-in.md).

void Scheduler::SetDialIn(DialInSeats* seats, std::string relay_endpoint, absl::Duration wait) {
  dial_in_ = seats;
  relay_endpoint_ = std::move(relay_endpoint);
  dial_in_wait_ = wait;
}

absl::Status Scheduler::PrepareDialIn(Job& job, std::vector<int>* prepared) {
  for (int s = 0; s < job.spec.seats_size(); ++s) {
    v1::SeatSpec* seat = job.spec.mutable_seats(s);
    if (seat->endpoint() != kDialInEndpoint) continue;
    if (dial_in_ == nullptr)
      return absl::FailedPreconditionError("this arena has no gateway for dial-in bots");
    const int64_t bot = s < static_cast<int>(job.match.bot_ids.size()) ? job.match.bot_ids[s] : 0;
    if (!dial_in_->Online(bot)) {
      {
        absl::MutexLock lock(&mu_);
        waiting_[job.match.id] = seat->name();
      }
      std::fprintf(stderr, "tarock-arena: match %s waits up to %lld s for dial-in bot '%s'\n",
                   job.match.id.c_str(),
                   static_cast<long long>(absl::ToInt64Seconds(dial_in_wait_)), seat->name().c_str());
      const absl::Time deadline = absl::Now() + dial_in_wait_;
      while (!cancel_.load() && absl::Now() < deadline &&
             !dial_in_->AwaitOnline(bot, std::min(deadline, absl::Now() + absl::Milliseconds(200)))) {
      }
      absl::MutexLock lock(&mu_);
      waiting_.erase(job.match.id);
    }
    if (cancel_.load()) return absl::CancelledError("the arena is stopping");
    if (!dial_in_->Online(bot))
      return absl::FailedPreconditionError(absl::StrCat(
          "dial-in bot '", seat->name(), "' did not connect within ",
          absl::ToInt64Seconds(dial_in_wait_), " s"));
    if (absl::Status st = dial_in_->Prepare(job.match.id, s, bot, seat->name()); !st.ok()) return st;
    prepared->push_back(s);
    seat->set_endpoint(relay_endpoint_);
  }
  return absl::OkStatus();
}

void Scheduler::SetDirectDialIn(std::map<std::string, std::string> bot_addresses,
                                absl::Duration join_wait) {
  direct_dial_in_ = true;
  referee_bot_addresses_ = std::move(bot_addresses);
  dial_in_join_wait_ = join_wait;
}

void Scheduler::RouteDialIn(Job& job, const std::vector<int>& prepared, const std::string& referee) {
  for (int s : prepared) {
    v1::SeatSpec* seat = job.spec.mutable_seats(s);
    seat->clear_dial_in_ticket();
    seat->clear_dial_in_join_wait_ms();
    if (!direct_dial_in_) continue;
    const int64_t bot = s < static_cast<int>(job.match.bot_ids.size()) ? job.match.bot_ids[s] : 0;
    if (!dial_in_->CanJoinReferee(bot)) continue;  // an older SDK: relayed
    auto mapped = referee_bot_addresses_.find(referee);
    const std::string& address = mapped != referee_bot_addresses_.end() ? mapped->second : referee;
    absl::StatusOr<std::string> ticket = NewToken();
    if (!ticket.ok()) continue;  // no ticket: the seat stays relayed
    if (dial_in_->RouteToReferee(job.match.id, s, address, *ticket).ok()) {
      seat->set_dial_in_ticket(*ticket);
      // The seat's endpoint stays the relay: the referee's fallback.
      seat->set_dial_in_join_wait_ms(
          static_cast<int32_t>(absl::ToInt64Milliseconds(dial_in_join_wait_)));
    }
  }
}

absl::Status Scheduler::AuthorizeRelayedSeats(Job& job, const std::vector<int>& relayed) {
  for (int s : relayed) {
    if (relay_gate_ == nullptr)
      return absl::FailedPreconditionError("this arena has no seat relay for relayed seats");
    absl::StatusOr<std::string> capability = net::SecureRandomHex(32);
    if (!capability.ok()) return capability.status();
    if (absl::Status st = relay_gate_->Authorize(job.match.id, s, *capability); !st.ok()) return st;
    job.spec.mutable_seats(s)->set_referee_proof(*capability);
  }
  return absl::OkStatus();
}

void Scheduler::ReleaseDialIn(const std::string& match_id, const std::vector<int>& prepared) {
  for (int s : prepared) dial_in_->Release(match_id, s);
}

// ---------------------------------------------------------------------------
// Play matches: one seat relayed to a person (arena/play).

absl::StatusOr<v1::ArenaMatch> Scheduler::StartPlayMatch(const PlayMatchRequest& r) {
  if (r.match_id.empty() || r.match_id.size() > 64 || !ValidBotName(r.match_id))
    return absl::InvalidArgumentError("a play match id is 1-64 of [A-Za-z0-9._-]");
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(r.variant);
  if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat("unknown variant '", r.variant, "'"));
  absl::StatusOr<Options> options =
      Registry::Global().CompleteOptions(r.variant, Options(r.options.begin(), r.options.end()));
  if (!options.ok()) return absl::InvalidArgumentError(options.status().message());
  const int n = info->num_seats;
  if (static_cast<int>(r.seats.size()) != n)
    return absl::InvalidArgumentError(absl::StrCat(r.variant, " has ", n, " seats"));
  if (std::count(r.seats.begin(), r.seats.end(), "") != 1)
    return absl::InvalidArgumentError("exactly one seat is the person's");
  if (r.relay_endpoint.find(':') == std::string::npos)
    return absl::InvalidArgumentError("the relay endpoint must be HOST:PORT");
  const int hands = r.num_hands ? r.num_hands : n;
  if (hands < 0 || hands % n != 0 || hands > 100 * n)
    return absl::InvalidArgumentError(absl::StrCat("hands must be a multiple of ", n, " (at most ",
                                                   100 * n, ")"));
  // The person's seat is stored as the reserved, retired bot "human".
  absl::StatusOr<BotRow> human = store_->FindBot(kHumanBotName);
  if (!human.ok()) {
    BotRow row;
    row.name = kHumanBotName;
    row.endpoint = "(browser)";
    row.owner = "arena";
    absl::StatusOr<std::string> unheld = NewToken();  // nobody holds it
    if (!unheld.ok()) return unheld.status();
    row.token_hash = HashToken(*unheld);
    human = store_->AddBot(row);
    if (!human.ok()) human = store_->FindBot(kHumanBotName);  // made meanwhile
    if (!human.ok()) return human.status();
  }
  if (!human->retired) {  // AddBot stores every bot active
    human->retired = true;
    if (absl::Status s = store_->UpdateBot(*human); !s.ok()) return s;
  }
  Job job;
  job.match.id = r.match_id;
  job.match.variant = r.variant;
  job.match.kind = "play";
  {
    absl::StatusOr<SealedSeed> sealed = r.seed != 0 ? SealSeed(r.seed) : NewSealedSeed();
    if (!sealed.ok()) return sealed.status();
    job.match.seed = sealed->seed;
    job.match.seed_salt = sealed->salt;
    job.match.seed_commitment = sealed->commitment;
  }
  v1::MatchSpec& spec = job.spec;
  spec.set_match_id(r.match_id);
  spec.set_variant(r.variant);
  for (const auto& [k, v] : r.options) (*spec.mutable_options())[k] = v;
  for (const std::string& name : r.seats) {
    v1::SeatSpec* seat = spec.add_seats();
    if (name.empty()) {
      seat->set_name(kHumanBotName);
      seat->set_endpoint(r.relay_endpoint);
      job.match.bot_ids.push_back(human->id);
      continue;
    }
    absl::StatusOr<BotRow> b = store_->FindBot(name);
    if (!b.ok()) return absl::InvalidArgumentError(b.status().message());
    if (b->retired) return absl::InvalidArgumentError(absl::StrCat("bot '", name, "' is retired"));
    if (std::find(b->variants.begin(), b->variants.end(), r.variant) == b->variants.end())
      return absl::InvalidArgumentError(absl::StrCat("bot '", name, "' does not play ", r.variant));
    seat->set_name(b->name);
    seat->set_endpoint(b->endpoint);
    job.match.bot_ids.push_back(b->id);
  }
  spec.set_num_hands(hands);
  spec.set_seed(job.match.seed);
  spec.set_result_only(true);
  *spec.mutable_time_control() = r.time_control;
  *spec.mutable_fault_policy() = r.fault_policy;
  job.match.spec = ToJson(spec);
  std::vector<std::thread> ended;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return absl::UnavailableError("the arena is stopping");
    for (const std::string& id : play_ended_) {
      auto it = play_threads_.find(id);
      if (it == play_threads_.end()) continue;
      ended.push_back(std::move(it->second));
      play_threads_.erase(it);
    }
    play_ended_.clear();
    if (static_cast<int>(play_threads_.size()) >= std::max(1, options_.max_play_matches))
      return absl::ResourceExhaustedError(absl::StrCat(
          "the arena runs ", play_threads_.size(), " play matches already; try again later"));
    if (absl::Status s = store_->InsertMatch(job.match); !s.ok()) return s;
    in_flight_[job.match.id] = InFlight{"", 0, 0};
    metrics_->running.Set(in_flight_.size());
    const std::string id = job.match.id;
    play_threads_[id] = std::thread([this, job = std::move(job)]() mutable {
      pthread_setname_np(pthread_self(), "arena-play");
      RunPlayJob(std::move(job));
    });
  }
  for (std::thread& t : ended) t.join();
  return GetMatch(r.match_id, false);
}

void Scheduler::RunPlayJob(Job job) {
  const std::string id = job.match.id;
  const bool committing = RunJob(std::move(job));
  absl::MutexLock lock(&mu_);
  if (!committing) in_flight_.erase(id);  // else the writer does, once committed
  play_ended_.push_back(id);
  metrics_->running.Set(in_flight_.size());
}

void Scheduler::EnqueueCommit(Finished finished) {
  absl::MutexLock lock(&commit_mu_);
  auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_) {
    return commits_closed_ || commits_.size() < kMaxQueuedCommits;
  };
  commit_mu_.Await(absl::Condition(&room));
  commits_.push_back(std::move(finished));
  --jobs_running_;
}

void Scheduler::WriterLoop() {
  for (;;) {
    std::vector<Finished> batch;
    {
      absl::MutexLock lock(&commit_mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_) {
        return commits_closed_ || !commits_.empty();
      };
      commit_mu_.Await(absl::Condition(&ready));
      if (commits_.empty()) return;  // closed, and everything committed
      const size_t max_batch = static_cast<size_t>(std::max(1, options_.max_commit_batch));
      auto full = [this, max_batch]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_) {
        return commits_closed_ || commits_.size() >= max_batch || jobs_running_ == 0;
      };
      if (options_.commit_delay > absl::ZeroDuration())
        commit_mu_.AwaitWithTimeout(absl::Condition(&full), options_.commit_delay);
      while (!commits_.empty() && batch.size() < max_batch) {
        batch.push_back(std::move(commits_.front()));
        commits_.pop_front();
      }
    }
    CommitBatch(std::move(batch));
  }
}

void Scheduler::CommitBatch(std::vector<Finished> batch) {
  std::vector<MatchCommit> commits;
  commits.reserve(batch.size());
  for (const Finished& f : batch)
    commits.push_back(
        {f.job.match.id, MatchResultOf(f.result, f.job.match.bot_ids, f.referee, f.attempts)});
  // Several arenas: committed only while this arena holds the lease.
  if (Shared())
    for (MatchCommit& c : commits) c.result.lease_owner = options_.lease_owner;
  Store::RateFn rate = [this](const MatchRow& match, const MatchResultRow& result,
                              const std::vector<std::optional<RatingRow>>& current) {
    if (match.kind == "play" || match.kind == "test") return std::vector<RatingRow>{};  // never rated
    return RateMatch(model_, match.variant, result.seats, current);
  };
  const absl::Time commit_start = absl::Now();
  const std::vector<CommitOutcome> outcomes = store_->CommitMatches(commits, rate);
  if (const absl::Duration took = absl::Now() - commit_start; took > kSlowCommit)
    logging::Warning("store", "slow commit",
                     {{"matches", commits.size()}, {"ms", absl::ToDoubleMilliseconds(took)},
                      {"threshold_ms", absl::ToInt64Milliseconds(kSlowCommit)},
                      {"first_match", commits.empty() ? std::string() : commits.front().id}});
  for (size_t i = 0; i < batch.size(); ++i) {
    const Job& job = batch[i].job;
    const CommitOutcome& o = outcomes[i];
    if (!o.status.ok()) {
      logging::Error("store", "match commit failed",
                     {{"match", job.match.id}, {"ladder", job.match.ladder_id},
                      {"tournament", job.match.tournament_id}, {"error", o.status.ToString()}});
      store_->MarkFailed(job.match.id, std::string(o.status.message())).IgnoreError();
      metrics_->matches.Add({{"variant", job.match.variant}, {"outcome", "failed"}}).Increment();
      continue;
    }
    if (!o.committed) continue;  // already counted
    metrics_->matches.Add({{"variant", job.match.variant}, {"outcome", "done"}}).Increment();
    metrics_->hands.Add({{"variant", job.match.variant}, {"outcome", "played"}})
        .Increment(batch[i].result.hands());
    metrics_->duration.Add({{"variant", job.match.variant}}, metrics_->duration_buckets)
        .Observe(batch[i].result.duration_s());
    // The committed ratings, without reading them back: the seat names of the
    // spec are the bots' names.
    for (const RatingRow& r : o.ratings) {
      for (int s = 0; s < job.spec.seats_size() && s < static_cast<int>(job.match.bot_ids.size());
           ++s) {
        if (job.match.bot_ids[s] != r.bot_id) continue;
        SetBotMetrics(job.spec.seats(s).name(), r);
        break;
      }
    }
  }
  absl::MutexLock lock(&mu_);
  for (const Finished& f : batch) {
    in_flight_.erase(f.job.match.id);
    if (f.job.match.ladder_id) refill_ = true;  // a ladder may have ended: the dispatcher looks
    if (f.job.match.test_id) refill_ = true;    // a test's block may be complete
  }
  metrics_->running.Set(in_flight_.size());
}

MatchResultRow MatchResultOf(const v1::MatchFinished& finished, const std::vector<int64_t>& bot_ids,
                             const std::string& referee, int attempts) {
  const int n = std::min(finished.seats_size(), static_cast<int>(bot_ids.size()));
  std::vector<int64_t> totals;
  std::vector<bool> forfeited;
  for (int s = 0; s < n; ++s) {
    totals.push_back(finished.seats(s).total());
    forfeited.push_back(finished.seats(s).forfeited());
  }
  const std::vector<int> ranks = RanksFromTotals(totals, forfeited);
  MatchResultRow result;
  result.record_json = finished.record_json();
  result.duration_s = finished.duration_s();
  result.hands = finished.hands();
  result.referee = referee;
  result.attempts = attempts;
  for (int s = 0; s < n; ++s) {
    SeatRow seat;
    seat.seat = s;
    seat.bot_id = bot_ids[s];
    seat.total = totals[s];
    seat.faults = finished.seats(s).faults();
    seat.forfeited = forfeited[s];
    seat.rank = ranks[s];
    seat.hand_scores.emplace();
    for (const v1::HandFinished& h : finished.hand_results())
      if ((!h.redeal() || h.counts_as_hand()) && s < h.scores_size())
        seat.hand_scores->push_back(h.scores(s));
    result.seats.push_back(seat);
  }
  if (std::optional<std::vector<std::string_view>> deals =
          TopLevelArrayElements(finished.record_json(), "deals"))
    result.hand_records.assign(deals->begin(), deals->end());
  AddSeatStats(finished, &result);  // declarer/defender, decisions, faults by kind
  return result;
}

std::vector<RatingRow> RateMatch(const RatingModel& model, const std::string& variant,
                                 const std::vector<SeatRow>& seats,
                                 const std::vector<std::optional<RatingRow>>& current) {
  std::vector<int64_t> bot_order;
  std::map<int64_t, std::vector<int>> seats_of;
  for (int s = 0; s < static_cast<int>(seats.size()); ++s) {
    if (!seats_of.count(seats[s].bot_id)) bot_order.push_back(seats[s].bot_id);
    seats_of[seats[s].bot_id].push_back(s);
  }
  std::vector<Rating> players;
  std::vector<int64_t> mean_totals;
  std::vector<bool> lost;
  std::vector<RatingRow> base;
  for (int64_t bot : bot_order) {
    const std::vector<int>& ss = seats_of[bot];
    const std::optional<RatingRow>& cur = current[ss[0]];
    RatingRow row = cur ? *cur
                        : RatingRow{bot, variant, model.Initial().mu, model.Initial().sigma, 0, 0};
    int64_t sum = 0;
    bool forfeited = false;
    for (int s : ss) {
      sum += seats[s].total;
      row.faults += seats[s].faults;
      forfeited = forfeited || seats[s].forfeited;
    }
    mean_totals.push_back(sum / static_cast<int64_t>(ss.size()));
    lost.push_back(forfeited);
    players.push_back({row.mu, row.sigma});
    base.push_back(row);
  }
  std::vector<RatingRow> out;
  if (players.size() < 2) return out;  // a bot alone against itself teaches nothing
  std::vector<Rating> updated = model.Update(players, RanksFromTotals(mean_totals, lost));
  for (size_t i = 0; i < base.size(); ++i) {
    RatingRow row = base[i];
    row.mu = updated[i].mu;
    row.sigma = updated[i].sigma;
    ++row.matches;
    out.push_back(row);
  }
  return out;
}

absl::Status VerifyRatings(Store& store, const RatingModel& model) {
  std::map<std::pair<int64_t, std::string>, RatingRow> rebuilt;
  store.ForEachDoneMatch([&](const MatchRow& m, const std::vector<SeatRow>& seats) {
    if (m.kind == "play" || m.kind == "test") return;  // never rated
    std::vector<std::optional<RatingRow>> current;
    for (const SeatRow& s : seats) {
      auto it = rebuilt.find({s.bot_id, m.variant});
      current.push_back(it == rebuilt.end() ? std::nullopt : std::optional<RatingRow>(it->second));
    }
    for (const RatingRow& r : RateMatch(model, m.variant, seats, current))
      rebuilt[{r.bot_id, r.variant}] = r;
  });
  size_t stored_count = 0;
  for (const BotRow& b : store.ListBots(true)) {
    for (const RatingRow& r : store.RatingsOfBot(b.id)) {
      ++stored_count;
      auto it = rebuilt.find({b.id, r.variant});
      if (it == rebuilt.end())
        return absl::DataLossError(absl::StrCat("bot ", b.name, " has a stored ", r.variant,
                                                " rating that no result explains"));
      const RatingRow& x = it->second;
      if (x.mu != r.mu || x.sigma != r.sigma || x.matches != r.matches || x.faults != r.faults)
        return absl::DataLossError(absl::StrFormat(
            "bot %s %s: stored mu %.17g sigma %.17g matches %d faults %d, rebuilt mu %.17g "
            "sigma %.17g matches %d faults %d",
            b.name, r.variant, r.mu, r.sigma, r.matches, r.faults, x.mu, x.sigma, x.matches,
            x.faults));
    }
  }
  if (stored_count != rebuilt.size())
    return absl::DataLossError(absl::StrCat(rebuilt.size(), " ratings rebuilt, ", stored_count,
                                            " stored"));
  return absl::OkStatus();
}

void Scheduler::SetBotMetrics(const std::string& bot, const RatingRow& r) {
  prometheus::Labels labels = {{"bot", bot}, {"variant", r.variant}};
  metrics_->rating_mu.Add(labels).Set(r.mu);
  metrics_->rating_sigma.Add(labels).Set(r.sigma);
  metrics_->bot_matches.Add(labels).Set(r.matches);
  metrics_->bot_faults.Add(labels).Set(r.faults);
}

}  // namespace tarock::arena
