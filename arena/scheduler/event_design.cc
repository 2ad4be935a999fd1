#include "arena/scheduler/event_design.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "referee/engine/random.h"

namespace tarock::arena {

absl::StatusOr<FinalDesign> MakeFinalDesign(const std::vector<int64_t>& entrant_of,
                                            const FinalDesignOptions& options) {
  const int b = static_cast<int>(entrant_of.size());
  const int n = options.seats;
  if (n < 2) return absl::InvalidArgumentError("a table has at least two seats");
  // Distinct "people": house bots (entrant 0) each count alone.
  std::set<int64_t> people;
  int house = 0;
  for (int64_t e : entrant_of) e == 0 ? ++house : (people.insert(e), 0);
  if (static_cast<int>(people.size()) + house < n)
    return absl::InvalidArgumentError(absl::StrCat(
        "the final needs bots of at least ", n, " different entrants; ",
        static_cast<int>(people.size()) + house, " have entered"));
  FinalDesign out;
  // Groups needed for `a` appearances each: ceil(b * a / n).
  int a = std::max(1, options.appearances_per_bot);
  auto groups_for = [&](int x) { return (b * x + n - 1) / n; };
  while (a > 1 && groups_for(a) > options.max_groups) --a;
  if (groups_for(a) > options.max_groups)
    return absl::InvalidArgumentError(absl::StrCat("a final of ", b, " bots needs at least ",
                                                   groups_for(1), " tables, over the budget of ",
                                                   options.max_groups));
  out.appearances_per_bot = a;
  const int groups = groups_for(a);
  std::vector<int> count(b, 0);
  std::vector<std::vector<int>> met(b, std::vector<int>(b, 0));
  Rng rng(options.seed);
  // A fixed random order breaks ties, so no bot is favoured by its index.
  std::vector<uint64_t> tie(b);
  for (auto& t : tie) t = rng.Next();
  for (int g = 0; g < groups; ++g) {
    std::vector<int> chosen;
    auto allowed = [&](int i) {
      if (std::find(chosen.begin(), chosen.end(), i) != chosen.end()) return false;
      if (entrant_of[i] == 0) return true;
      for (int j : chosen)
        if (entrant_of[j] == entrant_of[i]) return false;
      return true;
    };
    while (static_cast<int>(chosen.size()) < n) {
      int best = -1;
      // Fewest appearances first; then fewest meetings with the table so
      // far (sum, then max); then the fixed random order.
      std::tuple<int, int, int, uint64_t> best_key;
      for (int i = 0; i < b; ++i) {
        if (!allowed(i)) continue;
        int sum = 0, most = 0;
        for (int j : chosen) {
          sum += met[i][j];
          most = std::max(most, met[i][j]);
        }
        auto key = std::make_tuple(count[i], sum, most, tie[i]);
        if (best < 0 || key < best_key) {
          best = i;
          best_key = key;
        }
      }
      if (best < 0)  // cannot happen with enough distinct entrants
        return absl::InternalError("no bot fits the table");
      chosen.push_back(best);
    }
    for (int i : chosen) {
      ++count[i];
      for (int j : chosen)
        if (i != j) ++met[i][j];
    }
    std::sort(chosen.begin(), chosen.end());
    out.groups.push_back(chosen);
  }
  return out;
}

}  // namespace tarock::arena
