// tarock-strength: how much stronger bot A is than bot B, measured with
// duplicate matches played in process (tarock::sdk::PlayLocalMatch, no gRPC).
//
//   tarock-strength --variant slovenian-4p --hands 1000 --seed 1 --a heuristic --b random
//
// Design. The deals come in blocks: block k is a match of n hands (n = seats,
// so every seat deals once) from seed HandSeed(--seed, k). Every block is
// played once per seating of the pattern below, with the same deals, so luck
// of the cards cancels between A and B:
//   start from the alternating pattern A B A B ... (seat i: A if i is even),
//   take all its rotations and all rotations of its complement (B A B A ...),
//   and keep the distinct ones. Each seat is then held by A and by B equally
//   often over the seatings of a deal:
//     4 seats: A B A B, B A B A                                (2 seatings)
//     3 seats: A B A, B A A, A A B and B A B, A B B, B B A      (6 seatings)
//     5 seats: the 5 rotations of A B A B A and of B A B A B    (10 seatings)
// A "deal" is one hand of a block; it is played once per seating. Per deal the
// tool takes the mean score of A's seats and of B's seats over all its
// seatings (seats that sit the hand out, the 5-player dealer, are left out),
// and their difference A - B. It reports the mean of each over the deals with
// a 95% confidence interval (1.96 standard errors, computed over deals, which
// is what makes the duplicate design cancel the deal's luck). Scores are the
// hand scores (radli applied inside the match); the match-end penalty for
// radli left (003) is not counted, as it belongs to no hand.
//
// Within a block the hands run as one match, so radli and forced Klops carry
// from hand to hand as in real play and can differ between seatings; blocks
// are as short as the engine allows (one dealer rotation) to keep that small.
// Results depend only on the flags, not on --threads: each thread plays whole
// blocks (one PlayLocalMatch at a time) into its own slots.
//
// Thread-safety: the worker threads share only the read-only flag values and
// write disjoint result slots.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "referee/tools/program_usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bots/strength/bot_factory.h"
#include "nlohmann/json.hpp"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"
#include "tarock/sdk/local_play.h"

ABSL_FLAG(std::string, variant, "slovenian-4p", "variant to play");
ABSL_FLAG(std::vector<std::string>, option, {}, "variant options as NAME=VALUE, comma separated");
ABSL_FLAG(int, hands, 1000,
          "deals to play (rounded up to whole blocks of one hand per seat); "
          "each deal is played once per seating");
ABSL_FLAG(uint64_t, seed, 1, "seed of the deals (and of the random bots' choices)");
ABSL_FLAG(std::string, a, "heuristic", "bot A");
ABSL_FLAG(std::string, b, "random", "bot B");
ABSL_FLAG(int, threads, 1, "worker threads (each plays whole blocks)");
ABSL_FLAG(bool, json, false, "print JSON instead of the table");

namespace tarock {
namespace {

int Fail(const std::string& message) {
  std::cerr << "tarock-strength: " << message << "\n";
  return 1;
}

// Seatings: seating[s] is true where bot A sits. See the file comment.
std::vector<std::vector<bool>> Seatings(int n) {
  std::set<std::vector<bool>> seen;
  std::vector<std::vector<bool>> out;
  for (int complement = 0; complement < 2; ++complement) {
    for (int r = 0; r < n; ++r) {
      std::vector<bool> s(n);
      for (int i = 0; i < n; ++i) s[i] = ((((i + r) % n) % 2) == 0) != (complement == 1);
      if (seen.insert(s).second) out.push_back(s);
    }
  }
  return out;
}

// "ABAB": who sits where in a seating.
std::string Pattern(const std::vector<bool>& seating) {
  std::string out;
  for (bool a : seating) out += a ? 'A' : 'B';
  return out;
}

struct DealScore {
  double a = 0;  // mean score per hand of A's seats over the deal's seatings
  double b = 0;
};

struct Stat {
  double mean = 0;
  double lo = 0;
  double hi = 0;
  double sd = 0;
};

Stat Summarize(const std::vector<double>& x) {
  Stat s;
  const double n = static_cast<double>(x.size());
  if (x.empty()) return s;
  double sum = 0;
  for (double v : x) sum += v;
  s.mean = sum / n;
  double ss = 0;
  for (double v : x) ss += (v - s.mean) * (v - s.mean);
  s.sd = x.size() > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  const double half = 1.96 * s.sd / std::sqrt(n);
  s.lo = s.mean - half;
  s.hi = s.mean + half;
  return s;
}

uint64_t BotSeed(uint64_t seed, uint64_t block, uint64_t seating, uint64_t seat) {
  uint64_t st = seed ^ (block * 0x9E3779B97F4A7C15ULL) ^ (seating << 48) ^ (seat << 56);
  return SplitMix64(st);
}

int Run() {
  const std::string variant = absl::GetFlag(FLAGS_variant);
  Options options;
  for (const std::string& kv : absl::GetFlag(FLAGS_option)) {
    std::vector<std::string> parts = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    if (parts.size() != 2) return Fail(absl::StrCat("--option wants NAME=VALUE, got '", kv, "'"));
    options[parts[0]] = parts[1];
  }
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(variant, options);
  if (!game.ok()) return Fail(std::string(game.status().message()));
  const int n = (*game)->num_seats();
  const std::string name_a = absl::GetFlag(FLAGS_a);
  const std::string name_b = absl::GetFlag(FLAGS_b);
  for (const std::string& name : {name_a, name_b}) {
    absl::StatusOr<std::unique_ptr<sdk::Bot>> bot = bots::MakeBot(name, 1);
    if (!bot.ok()) return Fail(std::string(bot.status().message()));
  }
  const int hands = absl::GetFlag(FLAGS_hands);
  if (hands <= 0) return Fail("--hands must be positive");
  const int blocks = (hands + n - 1) / n;
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  const int threads = std::clamp(absl::GetFlag(FLAGS_threads), 1, 64);
  const std::vector<std::vector<bool>> seatings = Seatings(n);

  // results[block * n + hand]
  std::vector<DealScore> results(static_cast<size_t>(blocks) * n);
  std::vector<int64_t> decisions(blocks, 0);
  std::vector<std::string> errors(threads);
  std::atomic<bool> failed{false};
  const auto start = std::chrono::steady_clock::now();

  auto worker = [&](int t) {
    for (int k = t; k < blocks && !failed.load(); k += threads) {
      const uint64_t block_seed = HandSeed(seed, static_cast<uint64_t>(k));
      std::vector<double> sum_a(n, 0), sum_b(n, 0);
      std::vector<int> cnt_a(n, 0), cnt_b(n, 0);
      for (size_t si = 0; si < seatings.size(); ++si) {
        std::vector<std::unique_ptr<sdk::Bot>> bots;
        for (int seat = 0; seat < n; ++seat) {
          absl::StatusOr<std::unique_ptr<sdk::Bot>> bot =
              bots::MakeBot(seatings[si][seat] ? name_a : name_b, BotSeed(seed, k, si, seat));
          bots.push_back(std::move(*bot));
        }
        absl::StatusOr<sdk::LocalMatchResult> r =
            sdk::PlayLocalMatch(variant, options, std::move(bots), n, block_seed, 0);
        if (!r.ok()) {
          errors[t] = absl::StrCat("block ", k, " seating ", si, ": ", r.status().message());
          failed = true;
          return;
        }
        decisions[k] += r->decisions;
        // hand_scores has every hand of the block (thrown-in deals score 0;
        // deals dealt again are left out), so hand h here is hand h of the block.
        for (int h = 0; h < n && h < static_cast<int>(r->hand_scores.size()); ++h) {
          // The dealer of hand h is seat h (first dealer 0); in a variant where
          // the dealer sits out his record hand is empty.
          const HandRecord* rec = nullptr;
          for (const HandRecord& hr : r->records)
            if (hr.setup.dealer == h) rec = &hr;
          for (int seat = 0; seat < n; ++seat) {
            // (A record that carries the deck, westfest's, has empty hands
            // because the deal is part of the hand: nobody sits out there.)
            if (rec != nullptr && rec->deal.deck.empty() &&
                seat < static_cast<int>(rec->deal.hands.size()) && rec->deal.hands[seat].empty())
              continue;  // sits out
            const double score = r->hand_scores[h][seat];
            if (seatings[si][seat]) {
              sum_a[h] += score;
              ++cnt_a[h];
            } else {
              sum_b[h] += score;
              ++cnt_b[h];
            }
          }
        }
      }
      for (int h = 0; h < n; ++h) {
        DealScore& d = results[static_cast<size_t>(k) * n + h];
        d.a = cnt_a[h] > 0 ? sum_a[h] / cnt_a[h] : 0.0;
        d.b = cnt_b[h] > 0 ? sum_b[h] / cnt_b[h] : 0.0;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (std::thread& th : pool) th.join();
  for (const std::string& e : errors)
    if (!e.empty()) return Fail(e);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<double> xa, xb, xd;
  for (const DealScore& d : results) {
    xa.push_back(d.a);
    xb.push_back(d.b);
    xd.push_back(d.a - d.b);
  }
  const Stat sa = Summarize(xa), sb = Summarize(xb), sd = Summarize(xd);
  int64_t total_decisions = 0;
  for (int64_t d : decisions) total_decisions += d;
  const int64_t deals = static_cast<int64_t>(results.size());
  const int64_t hands_played = deals * static_cast<int64_t>(seatings.size());

  if (absl::GetFlag(FLAGS_json)) {
    auto stat = [](const Stat& s) {
      return nlohmann::json{{"mean", s.mean}, {"ci95", {s.lo, s.hi}}, {"sd", s.sd}};
    };
    nlohmann::json j;
    j["variant"] = variant;
    j["options"] = options;
    j["seed"] = seed;
    j["deals"] = deals;
    j["seatings"] = seatings.size();
    j["seating_patterns"] = nlohmann::json::array();
    for (const std::vector<bool>& st : seatings) j["seating_patterns"].push_back(Pattern(st));
    j["hands_played"] = hands_played;
    j["decisions"] = total_decisions;
    j["seconds"] = seconds;
    j["a"] = stat(sa);
    j["a"]["name"] = name_a;
    j["b"] = stat(sb);
    j["b"]["name"] = name_b;
    j["diff"] = stat(sd);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << absl::StrFormat(
      "%s: %d deals (%d blocks of %d), %d seatings each, %d hands, seed %d, %.1f s\n", variant,
      deals, blocks, n, seatings.size(), hands_played, seed, seconds);
  std::string patterns;
  for (const std::vector<bool>& st : seatings) {
    if (!patterns.empty()) patterns += ' ';
    patterns += Pattern(st);
  }
  std::cout << "  seatings (A, B by seat): " << patterns << "\n";
  std::cout << absl::StrFormat("  %-22s %10s   %-22s\n", "", "mean/hand", "95% CI");
  auto row = [](const std::string& label, const Stat& s) {
    std::cout << absl::StrFormat("  %-22s %+10.2f   [%+.2f, %+.2f]\n", label, s.mean, s.lo, s.hi);
  };
  row("A " + name_a, sa);
  row("B " + name_b, sb);
  row("A - B per deal", sd);
  return 0;
}

}  // namespace
}  // namespace tarock

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "tarock-strength --variant V --hands N --seed S --a BOT --b BOT [--threads T] [--json]\n"
      "Duplicate matches of bot A against bot B in process: every deal is played once per\n"
      "seating of the two bots, so the luck of the cards cancels; prints the mean score per hand\n"
      "of each and of the difference with 95% confidence intervals. BOT: random, heuristic, search.");
  tarock::ParseCommandLine(argc, argv);
  return tarock::Run();
}
