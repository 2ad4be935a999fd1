// ladder_bench: how many deals a ladder needs before its leaderboard orders a
// field of known strengths correctly, for today's place-rated ladder and for
// the margin-rated duplicate ladder (issue 33; docs/ratings.md), in process
// (tarock::sdk::PlayLocalMatch, no gRPC, no store).
//
//   nice -n 10 ladder_bench --variants slovenian-4p,slovenian-3p,tapp-tarock,westfest \
//       --runs 20 --sets 10 --threads 1
//
// The field (--field; by default search, search-weak, heuristic, random):
// search (--search_iterations), search-weak (the same bot with
// --weak_iterations), heuristic, random; a trailing number makes a second bot
// of a kind (heuristic2). Known order (the pairs judged): search > heuristic >
// random (the issue's goal, "S>H>R"), and with it search > search-weak >
// random ("all": every pair whose order is known; search-weak against
// heuristic and two bots of a kind are not judged).
//
// One run is one ladder history from its own seed. Each step is a duplicate
// set of the rotated design (arena/scheduler/duplicate_design.h): the set's
// n bots (the whole field when it has n; otherwise n consecutive ones of the
// field, starting one further each set, so every bot sits out in turn) are seated in a shuffled order, and the set is n tables of
// one match each, 2n hands (today's default hands_per_match), the same deals
// at every table, table t seating the order rotated by t. Both ladders see
// the same tables:
//   place   every table is a ladder match rated as today (rating.h, ranks
//           from match totals), booked one after the other; the leaderboard
//           is ordered by the conservative display rating, as today's.
//   margin  the set is rated at once by the margin model (margin_rating.h)
//           on hand scores; ordered by mu.
// With --format bridge a set is 2 tables of the bridge design instead (2n
// bots in a shuffled order, no bot at two tables), for fields of bots that
// may not see a deal twice. The main job's field (scripts/run.sh; issue 47):
//
//   nice -n 10 ladder_bench --variants slovenian-4p --format bridge \
//       --field search,search2,search3,search4,heuristic,heuristic2,heuristic3,heuristic4 \
//       --search_iterations 400 --hands 8 --runs 20 --sets 100 --threads 1 \
//       --compare search,heuristic
//
// --compare A,B also reports, per checkpoint, the leaderboard's head-to-head
// line for the two kinds (MarginRatingModel::HeadToHead): its mean, in how
// many runs it separates them and in how many its interval holds the mean.
// Matchmaking is not what is compared (both see the same tables, the field is
// small); the place ladder is, if anything, helped by the rotation (its
// matches of one set share deals, so a lucky seat is held by everybody).
//
// A checkpoint follows each set. The report gives, per variant and ladder,
// the number of runs whose leaderboard is correct at each checkpoint, and the
// first checkpoint from which at least --need of --runs are correct at every
// checkpoint up to the cap (--sets), in hands played at the tables (the cost)
// and in distinct deals; "not reached" when none.
//
// Deterministic: the results depend on the flags only, not on --threads (a
// worker plays whole runs into its own slot).
//
// Thread-safety: worker threads share only the read-only configuration and
// write disjoint result slots.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "arena/rating/margin_rating.h"
#include "arena/rating/rating.h"
#include "arena/scheduler/duplicate_design.h"
#include "bots/heuristic/heuristic_bot.h"
#include "bots/search/search_bot.h"
#include "bots/strength/bot_factory.h"
#include "nlohmann/json.hpp"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"
#include "referee/tools/program_usage.h"
#include "tarock/sdk/local_play.h"

ABSL_FLAG(std::vector<std::string>, variants,
          std::vector<std::string>({"slovenian-4p", "slovenian-3p", "tapp-tarock", "westfest"}),
          "variants to run, comma separated");
ABSL_FLAG(std::vector<std::string>, field,
          std::vector<std::string>({"search", "search-weak", "heuristic", "random"}),
          "the field: search, search-weak, heuristic, random (a trailing number makes a second "
          "bot of a kind, e.g. heuristic2); at least as many as the variants' seats");
ABSL_FLAG(std::string, format, "rotated",
          "the duplicate design: rotated (n bots, n tables) or bridge (2n bots, 2 tables, no "
          "bot plays a deal twice)");
ABSL_FLAG(double, clip, 30,
          "the margin model's clip, points (MarginRatingOptions::clip); inf: none");
ABSL_FLAG(int, runs, 20, "independent ladder histories (seeds) per variant");
ABSL_FLAG(int, need, 19, "runs that must be correct at a checkpoint");
ABSL_FLAG(int, sets, 10, "the cap: duplicate sets per run (each n tables of 2n hands)");
ABSL_FLAG(int, search_iterations, 50,
          "iterations of the `search` bot (scripts/run.sh's tarock-bot-search: 400, its default, "
          "which its --budget_ms 40 does not cut on this machine)");
ABSL_FLAG(int, hands, 0,
          "hands per table (a multiple of the seats); 0: 2 per seat, today's hands_per_match "
          "(scripts/run.sh: 8)");
ABSL_FLAG(std::vector<std::string>, compare, std::vector<std::string>({}),
          "two kinds, e.g. search,heuristic: also report, at the cap, how far apart the two "
          "kinds' bots are head to head (MarginRatingModel::HeadToHead, as `tarock-arena-cli "
          "leaderboard --compare` prints it), and in how many runs its interval holds the mean");
ABSL_FLAG(int, weak_iterations, 10, "iterations of the `search-weak` bot");
ABSL_FLAG(uint64_t, seed, 1, "master seed (deals, seatings and bots' choices)");
ABSL_FLAG(int, threads, 1, "worker threads (each plays whole runs)");
ABSL_FLAG(std::string, json, "", "also write the per-checkpoint counts to this file");
ABSL_FLAG(std::string, boards, "",
          "also write every board to this file, one line each: B RUN SET DEAL SEAT "
          "BOT:SCORE... (BOT: 0 search, 1 search-weak, 2 heuristic, 3 random)");

namespace tarock {
namespace {

using arena::DuplicateSet;
using arena::DuplicateTable;
using arena::MarginNoise;
using arena::MarginRating;
using arena::MarginRatingModel;
using arena::MarginRatingOptions;
using arena::Rating;
using arena::RatingModel;

enum Kind { kSearch = 0, kWeak = 1, kHeuristic = 2, kRandom = 3 };

// The field (--field): names, their kinds, and the pairs whose order is known.
struct Field {
  std::vector<std::string> names;
  std::vector<Kind> kinds;
  std::vector<std::pair<int, int>> goal;  // (better, worse) among search, heuristic, random
  std::vector<std::pair<int, int>> all;   // every pair whose order is known
};
Field kField_;
const std::vector<std::string>& kFieldNames() { return kField_.names; }

// Known: search > search-weak, search > heuristic > random, search-weak > random.
bool KnownBetter(Kind a, Kind b, bool goal_only) {
  if (a == kSearch && (b == kHeuristic || b == kRandom)) return true;
  if (a == kHeuristic && b == kRandom) return true;
  if (goal_only) return false;
  return (a == kSearch && b == kWeak) || (a == kWeak && b == kRandom);
}

absl::Status MakeField(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    std::string base = name;
    while (!base.empty() && base.back() >= '0' && base.back() <= '9') base.pop_back();
    Kind k;
    if (base == "search") k = kSearch;
    else if (base == "search-weak") k = kWeak;
    else if (base == "heuristic") k = kHeuristic;
    else if (base == "random") k = kRandom;
    else
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown field bot '", name, "' (valid: search, search-weak, heuristic, random, "
          "each optionally with a number to have two of a kind)"));
    kField_.names.push_back(name);
    kField_.kinds.push_back(k);
  }
  const int f = static_cast<int>(names.size());
  for (int a = 0; a < f; ++a)
    for (int b = 0; b < f; ++b) {
      if (KnownBetter(kField_.kinds[a], kField_.kinds[b], true)) kField_.goal.push_back({a, b});
      if (KnownBetter(kField_.kinds[a], kField_.kinds[b], false)) kField_.all.push_back({a, b});
    }
  return absl::OkStatus();
}

std::unique_ptr<sdk::Bot> MakeFieldBot(int index, uint64_t seed) {
  const Kind who = kField_.kinds[index];
  if (who == kSearch || who == kWeak) {
    bots::SearchOptions o;
    o.iterations = absl::GetFlag(who == kSearch ? FLAGS_search_iterations : FLAGS_weak_iterations);
    return bots::MakeSearchBot(o, seed | 1);
  }
  if (who == kHeuristic) return std::make_unique<bots::HeuristicBot>();
  return *bots::MakeBot("random", seed);
}

uint64_t Mix(uint64_t a, uint64_t b) {
  uint64_t s = a ^ (b * 0x9E3779B97F4A7C15ULL);
  return SplitMix64(s);
}

struct Checkpoint {
  bool place_goal = false, place_all = false, margin_goal = false, margin_all = false;
  // --compare: the first kind's bots minus the second's, head to head.
  arena::MarginDifference versus;
};

// --compare: the two kinds compared (-1: none).
int compare_a = -1, compare_b = -1;

struct RunResult {
  std::vector<Checkpoint> checkpoints;  // after each set
  std::vector<double> margin_mu;        // per field bot, at the cap
  std::vector<double> margin_sigma;
  std::vector<double> place_display;
  double noise_sd = 0;
  std::string boards;  // --boards lines
  std::string error;
};

bool Correct(const std::vector<double>& key, const std::vector<std::pair<int, int>>& pairs) {
  for (auto [better, worse] : pairs)
    if (!(key[better] > key[worse])) return false;
  return true;
}

RunResult PlayRun(const std::string& variant, int n, int run) {
  RunResult out;
  const uint64_t run_seed = Mix(Mix(absl::GetFlag(FLAGS_seed), std::hash<std::string>{}(variant)),
                                static_cast<uint64_t>(run));
  const int hands = absl::GetFlag(FLAGS_hands) > 0 ? absl::GetFlag(FLAGS_hands) : 2 * n;
  const int sets = absl::GetFlag(FLAGS_sets);
  RatingModel place_model;
  MarginRatingOptions margin_options;
  margin_options.clip = absl::GetFlag(FLAGS_clip);
  MarginRatingModel margin_model(margin_options);
  std::vector<Rating> place(kFieldNames().size(), place_model.Initial());
  std::map<int64_t, MarginRating> margin;
  MarginNoise noise;
  const bool bridge = absl::GetFlag(FLAGS_format) == "bridge";
  const int per_set = bridge ? 2 * n : n;
  for (int set = 0; set < sets; ++set) {
    const uint64_t set_seed = Mix(run_seed, static_cast<uint64_t>(set));
    // The set's bots: the whole field, or per_set consecutive ones.
    // (With a field of n + 1, rotated: everybody but bot (set + run) mod (n + 1).)
    std::vector<int> chosen;
    const int f = static_cast<int>(kFieldNames().size());
    for (int i = 0; i < per_set; ++i)
      chosen.push_back((set + run + (f > per_set ? 1 : 0) + i) % f);
    std::sort(chosen.begin(), chosen.end());
    // A public shuffle of the set's bots. Bridge: which bots are compared
    // (consecutive ones after the shuffle) changes from set to set; grouped by
    // strength instead, two bots of a kind would be compared with each other
    // set after set and the groups never connect (measured: docs/benchmarks.md).
    Rng rng(Mix(set_seed, 1));
    for (int i = per_set - 1; i > 0; --i) std::swap(chosen[i], chosen[rng.Below(i + 1)]);
    // (The arena also permutes which seat each comparison group holds; on a
    // list already shuffled uniformly that changes no distribution.)
    absl::StatusOr<arena::DuplicateDesign> design =
        bridge ? arena::BridgeDesign(per_set, n, 0) : arena::RotatedDesign(n, n);
    const uint64_t deal_seed = Mix(set_seed, 2);

    DuplicateSet dup;
    for (size_t t = 0; t < design->tables.size(); ++t) {
      std::vector<int> seated;
      std::vector<std::unique_ptr<sdk::Bot>> bots;
      for (int s = 0; s < n; ++s) {
        seated.push_back(chosen[design->tables[t][s]]);
        bots.push_back(MakeFieldBot(seated.back(), Mix(set_seed, 100 + t * 16 + s)));
      }
      absl::StatusOr<sdk::LocalMatchResult> r =
          sdk::PlayLocalMatch(variant, {}, std::move(bots), hands, deal_seed, 0);
      if (!r.ok()) {
        out.error = absl::StrCat(variant, " run ", run, " set ", set, " table ", t, ": ",
                                 r.status().message());
        return out;
      }
      // Today's ladder: this table is a match, rated on places.
      std::vector<Rating> players;
      for (int b : seated) players.push_back(place[b]);
      const std::vector<int> ranks =
          arena::RanksFromTotals(r->totals, std::vector<bool>(n, false));
      const std::vector<Rating> updated = place_model.Update(players, ranks);
      for (int s = 0; s < n; ++s) place[seated[s]] = updated[s];
      // The duplicate table: hand scores, seats that sit a hand out left out.
      DuplicateTable table;
      for (int b : seated) table.bots.push_back(b);
      for (int h = 0; h < hands; ++h) {
        std::vector<std::optional<double>> row(n);
        if (h < static_cast<int>(r->hand_scores.size())) {
          const HandRecord* rec = nullptr;
          for (const HandRecord& hr : r->records)
            if (hr.setup.dealer == h % n) rec = &hr;
          for (int s = 0; s < n; ++s) {
            if (rec != nullptr && rec->deal.deck.empty() &&
                s < static_cast<int>(rec->deal.hands.size()) && rec->deal.hands[s].empty())
              continue;
            row[s] = r->hand_scores[h][s];
          }
        }
        table.scores.push_back(row);
      }
      dup.tables.push_back(std::move(table));
    }
    if (!absl::GetFlag(FLAGS_boards).empty()) {
      for (int d = 0; d < hands; ++d)
        for (int s = 0; s < n; ++s) {
          absl::StrAppend(&out.boards, "B ", run, " ", set, " ", d, " ", s);
          for (const DuplicateTable& t : dup.tables)
            if (t.scores[d][s]) absl::StrAppend(&out.boards, " ", t.bots[s], ":", *t.scores[d][s]);
          out.boards += "\n";
        }
    }
    absl::StatusOr<arena::MarginSetUpdate> u = margin_model.Update(dup, margin, noise);
    if (!u.ok()) {
      out.error = std::string(u.status().message());
      return out;
    }
    for (const auto& [bot, rating] : u->ratings) margin[bot] = rating;
    noise = u->noise;

    std::vector<double> place_key, margin_key;
    for (int b = 0; b < static_cast<int>(kFieldNames().size()); ++b) {
      place_key.push_back(place_model.Display(place[b]));
      auto it = margin.find(b);
      margin_key.push_back(it == margin.end() ? margin_model.options().mu : it->second.mu);
    }
    Checkpoint c;
    c.place_goal = Correct(place_key, kField_.goal);
    c.place_all = Correct(place_key, kField_.all);
    c.margin_goal = Correct(margin_key, kField_.goal);
    c.margin_all = Correct(margin_key, kField_.all);
    if (compare_a >= 0) {
      std::vector<MarginRating> a, b;
      for (int i = 0; i < static_cast<int>(kFieldNames().size()); ++i) {
        auto it = margin.find(i);
        const MarginRating r = it == margin.end() ? margin_model.Initial() : it->second;
        if (kField_.kinds[i] == compare_a) a.push_back(r);
        if (kField_.kinds[i] == compare_b) b.push_back(r);
      }
      absl::StatusOr<arena::MarginDifference> d = margin_model.HeadToHead(a, b);
      if (!d.ok()) {
        out.error = std::string(d.status().message());
        return out;
      }
      c.versus = *d;
    }
    out.checkpoints.push_back(c);
    if (set + 1 == sets) {
      out.place_display = place_key;
      out.margin_mu = margin_key;
      for (int b = 0; b < static_cast<int>(kFieldNames().size()); ++b)
        out.margin_sigma.push_back(margin.count(b) ? margin[b].sigma : 0);
      out.noise_sd = margin_model.NoiseSd(noise);
    }
  }
  return out;
}

int Run() {
  const std::vector<std::string> variants = absl::GetFlag(FLAGS_variants);
  const int runs = absl::GetFlag(FLAGS_runs);
  const int sets = absl::GetFlag(FLAGS_sets);
  const int need = absl::GetFlag(FLAGS_need);
  if (absl::GetFlag(FLAGS_format) != "rotated" && absl::GetFlag(FLAGS_format) != "bridge") {
    std::cerr << "ladder_bench: unknown --format '" << absl::GetFlag(FLAGS_format)
              << "' (valid: rotated, bridge)\n";
    return 1;
  }
  if (!(absl::GetFlag(FLAGS_clip) > 0)) {
    std::cerr << "ladder_bench: --clip must be positive (inf: no clip)\n";
    return 1;
  }
  if (runs < 1 || sets < 1 || need < 1 || need > runs) {
    std::cerr << "ladder_bench: --runs and --sets must be positive, 1 <= --need <= --runs\n";
    return 1;
  }
  if (absl::Status st = MakeField(absl::GetFlag(FLAGS_field)); !st.ok()) {
    std::cerr << "ladder_bench: " << st.message() << "\n";
    return 1;
  }
  if (const std::vector<std::string> kinds = absl::GetFlag(FLAGS_compare); !kinds.empty()) {
    const char* names[] = {"search", "search-weak", "heuristic", "random"};
    for (int k = 0; k < 4; ++k) {
      if (kinds.size() == 2 && kinds[0] == names[k]) compare_a = k;
      if (kinds.size() == 2 && kinds[1] == names[k]) compare_b = k;
    }
    const auto in_field = [](int k) {
      return std::find(kField_.kinds.begin(), kField_.kinds.end(), k) != kField_.kinds.end();
    };
    if (compare_a < 0 || compare_b < 0 || compare_a == compare_b || !in_field(compare_a) ||
        !in_field(compare_b)) {
      std::cerr << "ladder_bench: --compare takes two different kinds of the field, e.g. "
                   "search,heuristic\n";
      return 1;
    }
  }
  std::vector<int> seats;
  for (const std::string& v : variants) {
    absl::StatusOr<VariantInfo> info = Registry::Global().Info(v);
    if (!info.ok()) {
      std::cerr << "ladder_bench: " << info.status().message() << "\n";
      return 1;
    }
    const int want = info->num_seats * (absl::GetFlag(FLAGS_format) == "bridge" ? 2 : 1);
    if (want > static_cast<int>(kFieldNames().size())) {
      std::cerr << "ladder_bench: a " << absl::GetFlag(FLAGS_format) << " set of " << v
                << " needs " << want << " bots, the field has " << kFieldNames().size() << "\n";
      return 1;
    }
    seats.push_back(info->num_seats);
  }
  struct Job {
    int variant;
    int run;
  };
  std::vector<Job> jobs;
  for (int r = 0; r < runs; ++r)
    for (int v = 0; v < static_cast<int>(variants.size()); ++v) jobs.push_back({v, r});
  std::vector<RunResult> results(jobs.size());
  std::atomic<size_t> next{0};
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (size_t j; (j = next.fetch_add(1)) < jobs.size();)
      results[j] = PlayRun(variants[jobs[j].variant], seats[jobs[j].variant], jobs[j].run);
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::clamp(absl::GetFlag(FLAGS_threads), 1, 64); ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  for (const RunResult& r : results)
    if (!r.error.empty()) {
      std::cerr << "ladder_bench: " << r.error << "\n";
      return 1;
    }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  nlohmann::json report;
  report["seconds"] = seconds;
  report["runs"] = runs;
  report["need"] = need;
  report["sets"] = sets;
  report["search_iterations"] = absl::GetFlag(FLAGS_search_iterations);
  report["weak_iterations"] = absl::GetFlag(FLAGS_weak_iterations);
  std::cout << absl::StrFormat(
      "ladder_bench: %d runs per variant, cap %d sets per run, search %d / search-weak %d "
      "iterations, %.0f s\n",
      runs, sets, absl::GetFlag(FLAGS_search_iterations), absl::GetFlag(FLAGS_weak_iterations),
      seconds);
  for (int v = 0; v < static_cast<int>(variants.size()); ++v) {
    const int n = seats[v];
    const int tables = absl::GetFlag(FLAGS_format) == "bridge" ? 2 : n;
    const int hands = absl::GetFlag(FLAGS_hands) > 0 ? absl::GetFlag(FLAGS_hands) : 2 * n;
    const int hands_per_set = tables * hands;
    const int deals_per_set = hands;
    std::cout << absl::StrFormat(
        "\n%s (%s): %d seats; a set = %d tables x %d hands (%d hands played, %d deals); cap %d "
        "hands played (%d deals)\n",
        variants[v], absl::GetFlag(FLAGS_format), n, tables, hands, hands_per_set, deals_per_set,
        sets * hands_per_set, sets * deals_per_set);
    nlohmann::json& jv = report["variants"][variants[v]];
    jv["hands_per_set"] = hands_per_set;
    jv["deals_per_set"] = deals_per_set;
    struct Series {
      const char* name;
      bool Checkpoint::*field;
    };
    const Series series[] = {{"place S>H>R", &Checkpoint::place_goal},
                             {"margin S>H>R", &Checkpoint::margin_goal},
                             {"place all", &Checkpoint::place_all},
                             {"margin all", &Checkpoint::margin_all}};
    for (const Series& s : series) {
      std::vector<int> counts(sets, 0);
      for (size_t j = 0; j < jobs.size(); ++j)
        if (jobs[j].variant == v)
          for (int c = 0; c < sets; ++c) counts[c] += results[j].checkpoints[c].*s.field;
      int reached = -1;  // first checkpoint from which every later one has >= need
      for (int c = sets - 1; c >= 0 && counts[c] >= need; --c) reached = c;
      std::string where =
          reached < 0 ? absl::StrCat("not reached within ", sets * hands_per_set, " hands")
                      : absl::StrFormat("%d hands played (%d deals)", (reached + 1) * hands_per_set,
                                        (reached + 1) * deals_per_set);
      std::cout << absl::StrFormat("  %-13s correct runs per set: %-40s -> %s\n", s.name,
                                   absl::StrJoin(counts, " "), where);
      jv[s.name]["counts"] = counts;
      jv[s.name]["reached_hands"] = reached < 0 ? nlohmann::json() : nlohmann::json((reached + 1) * hands_per_set);
    }
    // The field's mean ratings at the cap, over the runs.
    std::vector<double> mu(kFieldNames().size(), 0), sd(kFieldNames().size(), 0), disp(kFieldNames().size(), 0);
    double noise = 0;
    for (size_t j = 0; j < jobs.size(); ++j)
      if (jobs[j].variant == v)
        for (size_t b = 0; b < kFieldNames().size(); ++b) {
          mu[b] += results[j].margin_mu[b] / runs;
          sd[b] += results[j].margin_sigma[b] / runs;
          disp[b] += results[j].place_display[b] / runs;
          if (b == 0) noise += results[j].noise_sd / runs;
        }
    std::cout << "  at the cap, mean over runs: margin mu +- 1.96 sigma (points a deal vs the "
                 "field) | place display\n";
    for (size_t b = 0; b < kFieldNames().size(); ++b) {
      std::cout << absl::StrFormat("    %-12s %+7.2f +- %5.2f | %6.2f\n", kFieldNames()[b], mu[b],
                                   1.96 * sd[b], disp[b]);
      jv["margin_mu"][kFieldNames()[b]] = mu[b];
      jv["place_display"][kFieldNames()[b]] = disp[b];
    }
    std::cout << absl::StrFormat("    sd of a board residual (pooled): %.1f\n", noise);
    if (compare_a >= 0) {
      // How far apart the two kinds are head to head, per checkpoint: the
      // mean over runs, and in how many runs the interval excludes 0 (the
      // leaderboard's line calls them separated) and holds the mean over
      // the runs at the cap (a stand-in for the truth: is the interval honest?).
      double truth = 0;
      for (size_t j = 0; j < jobs.size(); ++j)
        if (jobs[j].variant == v) truth += results[j].checkpoints[sets - 1].versus.diff / runs;
      std::cout << absl::StrFormat(
          "  %s - %s head to head (points a deal; per checkpoint: mean diff, mean 95%% "
          "half-width, runs separated, runs whose interval holds %+.2f):\n",
          kFieldNames()[std::find(kField_.kinds.begin(), kField_.kinds.end(), compare_a) -
                        kField_.kinds.begin()],
          kFieldNames()[std::find(kField_.kinds.begin(), kField_.kinds.end(), compare_b) -
                        kField_.kinds.begin()],
          truth);
      for (int c = 0; c < sets; ++c) {
        double diff = 0, half = 0;
        int separated = 0, holds = 0;
        for (size_t j = 0; j < jobs.size(); ++j) {
          if (jobs[j].variant != v) continue;
          const arena::MarginDifference& d = results[j].checkpoints[c].versus;
          diff += d.diff / runs;
          half += (d.high - d.low) / 2 / runs;
          separated += d.low > 0 || d.high < 0;
          holds += d.low <= truth && truth <= d.high;
        }
        std::cout << absl::StrFormat("    set %3d (%4d tables): %+6.2f +- %5.2f  separated %2d  "
                                     "holds %2d\n",
                                     c + 1, (c + 1) * tables, diff, half, separated, holds);
        jv["versus"]["diff"].push_back(diff);
        jv["versus"]["half_width"].push_back(half);
        jv["versus"]["separated"].push_back(separated);
        jv["versus"]["holds"].push_back(holds);
      }
    }
  }
  if (!absl::GetFlag(FLAGS_boards).empty()) {
    std::ofstream f(absl::GetFlag(FLAGS_boards));
    for (const RunResult& r : results) f << r.boards;
  }
  const std::string json_path = absl::GetFlag(FLAGS_json);
  if (!json_path.empty()) std::ofstream(json_path) << report.dump(2) << "\n";
  return 0;
}

}  // namespace
}  // namespace tarock

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "ladder_bench [--variants V,...] [--runs 20] [--sets 10] [--threads 1] [--json FILE]\n"
      "Ladders of a field of known strengths (search, search-weak, heuristic, random) in\n"
      "process: after how many deals the place-rated and the margin-rated duplicate ladder\n"
      "order the field correctly in --need of --runs runs.");
  tarock::ParseCommandLine(argc, argv);
  return tarock::Run();
}
