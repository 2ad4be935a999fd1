// Scheduler: hosted bots (docs/hosting.md). Each seat a host played names the
// version in its Hello ("hosted:vID sha256:..."); the seat records it when it
// is a version of the seat's own bot (a bot cannot claim another's).

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/numbers.h"
#include "arena/scheduler/scheduler.h"

namespace tarock::arena {

int64_t HostedVersionOfHello(const std::string& hello_version) {
  absl::string_view v = hello_version;
  if (!absl::ConsumePrefix(&v, "hosted:v")) return 0;
  v = v.substr(0, v.find(' '));
  int64_t id = 0;
  return absl::SimpleAtoi(v, &id) && id > 0 ? id : 0;
}

void Scheduler::RecordHostedVersions(const v1::MatchFinished& finished, MatchResultRow* result) {
  if (!hosted_versions_) return;
  for (SeatRow& seat : result->seats) {
    if (seat.seat < 0 || seat.seat >= finished.seats_size()) continue;
    const int64_t id = HostedVersionOfHello(finished.seats(seat.seat).hello_version());
    if (id > 0 && hosted_versions_(id, seat.bot_id)) seat.version_id = id;
  }
}

}  // namespace tarock::arena
