// The rating model's cost: one Update() (one match) for tables of 3, 4 and 5
// players, and one Quality() for a candidate table, single thread.
//
//   ./build/bin/rating_bench
//   ./build/bin/rating_bench --benchmark_filter=Update/4
//
// The inputs cycle through 1024 pregenerated tables of realistic ratings
// (mu around 25, sigma from settled to new) with random results, ties included.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

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

BENCHMARK_MAIN();
