#include "arena/cli/leaderboard_print.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "arena/rating/margin_rating.h"
#include "arena/scheduler/bot_rules.h"

namespace tarock::arena {

std::string FormatLeaderboard(const v1::LeaderboardResponse& l) {
  std::string out;
  if (l.rating_model() == "margin") {
    // Points (chips) a deal with the 95% interval; "vs next": how far the
    // bot is above the next one head to head, with that difference's 95%
    // interval; "~" marks a bot whose interval overlaps the next one's: the
    // two are not separated yet.
    absl::StrAppend(&out, "leaderboard ", l.variant(), " (margin ratings, ", l.unit(),
                    ", 95% interval; vs next: above the next bot head to head; ~ not yet "
                    "separated from the next)\n");
    absl::StrAppend(&out, absl::StrFormat("%4s  %-20s %-12s %8s %-19s %-25s %6s %6s %6s\n", "rank",
                                          "bot", "owner", "mean", "95% interval", "vs next",
                                          "deals", "sets", "faults"));
    for (const v1::LeaderboardEntry& e : l.entries()) {
      const v1::MarginRatingInfo& m = e.margin();
      std::string vs_next;
      if (e.has_vs_next())
        vs_next = absl::StrFormat("%+6.2f [%+6.2f, %+6.2f]", e.vs_next().diff(), e.vs_next().low(),
                                  e.vs_next().high());
      absl::StrAppend(
          &out, absl::StrFormat("%4d  %-20s %-12s %+8.2f [%+7.2f, %+7.2f] %-25s %6d %6d %6d%s%s\n",
                                e.rank(), ForTerminal(e.bot()), ForTerminal(e.owner()), m.mu(),
                                m.low(), m.high(), vs_next, m.deals(), m.sets(),
                                e.rating().faults(), e.unseparated_from_next() ? "  ~" : "",
                                e.provisional() ? "  (provisional)" : ""));
    }
    return out;
  }
  absl::StrAppend(&out, "leaderboard ", l.variant(),
                  " (place ratings: OpenSkill on each match's places; display = mu - 3 sigma, the rank's key)\n");
  absl::StrAppend(&out, absl::StrFormat("%4s  %-20s %-12s %8s %7s %6s %8s %6s\n", "rank", "bot",
                                        "owner", "display", "mu", "sigma", "matches", "faults"));
  for (const v1::LeaderboardEntry& e : l.entries()) {
    const v1::RatingInfo& r = e.rating();
    absl::StrAppend(&out, absl::StrFormat("%4d  %-20s %-12s %8.2f %7.2f %6.2f %8d %6d\n", e.rank(),
                                          ForTerminal(e.bot()), ForTerminal(e.owner()), r.display(),
                                          r.mu(), r.sigma(), r.matches(), r.faults()));
  }
  return out;
}

bool InGroup(const std::string& bot, const std::string& group) {
  return !group.empty() && (bot == group || (bot.size() > group.size() &&
                                             bot.compare(0, group.size(), group) == 0 &&
                                             bot[group.size()] == '-'));
}

absl::StatusOr<std::string> HeadToHeadLine(const v1::LeaderboardResponse& board,
                                           const std::string& a, const std::string& b) {
  if (board.rating_model() != "margin")
    return absl::FailedPreconditionError(
        "a head-to-head comparison needs margin ratings (a duplicate ladder)");
  std::vector<MarginRating> in_a, in_b;
  for (const v1::LeaderboardEntry& e : board.entries()) {
    const bool is_a = InGroup(e.bot(), a), is_b = InGroup(e.bot(), b);
    const MarginRating r{e.margin().mu(), e.margin().sigma(), e.margin().deals()};
    if (is_a && (!is_b || a.size() >= b.size())) in_a.push_back(r);
    else if (is_b) in_b.push_back(r);
  }
  for (const auto& [group, bots] : {std::make_pair(&a, &in_a), std::make_pair(&b, &in_b)})
    if (bots->empty())
      return absl::FailedPreconditionError(absl::StrCat(
          "no bot named ", ForTerminal(*group), " or ", ForTerminal(*group), "-... is rated in ",
          board.variant(), " yet"));
  const MarginRatingModel model;
  absl::StatusOr<MarginDifference> d = model.HeadToHead(in_a, in_b);
  if (!d.ok()) return d.status();
  const std::string unit = board.unit().empty() ? "points a deal" : board.unit();
  auto bots = [](const std::string& name, size_t n) {
    return n == 1 ? name : absl::StrCat(name, " (", n, " bots)");
  };
  const bool separated = d->low > 0 || d->high < 0;
  return absl::StrFormat(
      "%s is %.2f %s %s %s head to head, 95%% interval of the difference [%+.2f, %+.2f]%s "
      "(each deal's difference counted at most +-%.0f)",
      bots(ForTerminal(a), in_a.size()), std::fabs(d->diff), unit,
      d->diff >= 0 ? "above" : "below", bots(ForTerminal(b), in_b.size()), d->low, d->high,
      separated ? "" : ", not separated yet", model.options().clip);
}

}  // namespace tarock::arena
