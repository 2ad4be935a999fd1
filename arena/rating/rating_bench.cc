// The rating models' cost: one Update() (one match) for tables of 3, 4 and 5
// players, and one Quality() for a candidate table, single thread; the margin
// model's Update() of one rotated duplicate set of n tables x 2n hands
// (BM_MarginUpdate/n).
//
//   ./build/bin/rating_bench
//   ./build/bin/rating_bench --benchmark_filter=Update/4
//
// The inputs cycle through 1024 pregenerated tables of realistic ratings
// (mu around 25, sigma from settled to new) with random results, ties included.

#include <benchmark/benchmark.h>

#include "referee/bench/benchmark_usage.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "arena/rating/margin_rating.h"
#include "arena/rating/rating.h"

namespace tarock::arena {
namespace {

struct Table {
  std::vector<Rating> players;
  std::vector<int> ranks;
};

std::vector<Table> MakeTables(int size) {
  std::mt19937_64 rng(size);
  std::normal_distribution<double> mu(25, 6);
  std::uniform_real_distribution<double> sigma(0.8, 25.0 / 3);
  std::vector<Table> tables(1024);
  for (Table& t : tables) {
    for (int i = 0; i < size; ++i) {
      t.players.push_back({mu(rng), sigma(rng)});
      t.ranks.push_back(static_cast<int>(rng() % size));  // repeats are ties
    }
  }
  return tables;
}

void BM_Update(benchmark::State& state) {
  const RatingModel model;
  const std::vector<Table> tables = MakeTables(static_cast<int>(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    const Table& t = tables[i++ & 1023];
    benchmark::DoNotOptimize(model.Update(t.players, t.ranks));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Update)->Arg(3)->Arg(4)->Arg(5);

void BM_MarginUpdate(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::mt19937_64 rng(n);
  std::normal_distribution<double> score(0, 40);
  DuplicateSet set;
  for (int t = 0; t < n; ++t) {
    DuplicateTable table;
    for (int s = 0; s < n; ++s) table.bots.push_back(1 + (s + t) % n);
    for (int h = 0; h < 2 * n; ++h) {
      std::vector<std::optional<double>> row;
      for (int s = 0; s < n; ++s) row.push_back(std::round(score(rng)));
      table.scores.push_back(row);
    }
    set.tables.push_back(table);
  }
  const MarginRatingModel model;
  std::map<int64_t, MarginRating> current;
  for (int b = 1; b <= n; ++b) current[b] = {1.0 * b, 2.0, 100};
  for (auto _ : state) benchmark::DoNotOptimize(model.Update(set, current, {5000, 400}));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MarginUpdate)->Arg(3)->Arg(4)->Arg(5);

void BM_Quality(benchmark::State& state) {
  const RatingModel model;
  const std::vector<Table> tables = MakeTables(static_cast<int>(state.range(0)));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.Quality(tables[i++ & 1023].players));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Quality)->Arg(3)->Arg(4)->Arg(5);

}  // namespace
}  // namespace tarock::arena

TAROCK_BENCHMARK_MAIN(
    "rating_bench",
    "rating_bench [--benchmark_filter=REGEX]\n"
    "Benchmark: the rating models' cost, one thread: OpenSkill's Update() of one match of 3, 4 "
    "and 5 players and Quality() of a candidate table, and the margin model's Update() of one "
    "duplicate set.");
