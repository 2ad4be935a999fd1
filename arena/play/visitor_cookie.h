// The play cookie: who may start play matches ("Play against bots",
// play_api.h). A person's browser gets it from the /play page (API clients
// from GET /api/play/variants) and sends it with POST /api/play; the arena
// caps and rate-limits play matches per visitor as well as per client network,
// and a page on another site cannot start matches with it (SameSite=Strict).
//
// A cookie is "v1.ID.MAC": ID 32 random hex characters, MAC the first 128
// bits of HMAC-SHA256(the arena's key, ID) in hex. The key is drawn at start
// and never stored, so the arena keeps no table of visitors (a flood of page
// views costs no memory) and a restart makes old cookies invalid (the page
// issues a new one). It is a capability for starting play matches, nothing
// more: it names no person and unlocks no session (a session's own id does).
//
// Thread-safety: immutable after Create; every method is thread-safe.

#ifndef TAROCK_ARENA_PLAY_VISITOR_COOKIE_H_
#define TAROCK_ARENA_PLAY_VISITOR_COOKIE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace tarock::arena::play {

inline constexpr char kVisitorCookieName[] = "tarock_play";

class VisitorCookies {
 public:
  // A fresh key from the system's random source; fails (closed) when it
  // cannot be read.
  static absl::StatusOr<std::unique_ptr<VisitorCookies>> Create();

  // A new cookie value. Fails when no random value can be drawn.
  absl::StatusOr<std::string> Issue() const;

  // The visitor id of a cookie value this arena issued, or nullopt for
  // anything else (another arena's, a tampered or malformed one).
  std::optional<std::string> Verify(absl::string_view value) const;

  // The visitor id from the request's Cookie header (`headers` by lower-case
  // name), or nullopt when it has no valid play cookie.
  std::optional<std::string> VisitorOf(const std::map<std::string, std::string>& headers) const;

  // The Set-Cookie header value for `value`: HttpOnly, SameSite=Strict,
  // Path=/, kept for `max_age`; Secure when `secure` (an HTTPS listener).
  static std::string SetCookie(absl::string_view value, absl::Duration max_age, bool secure);

 private:
  explicit VisitorCookies(std::string key) : key_(std::move(key)) {}
  std::string Mac(absl::string_view id) const;

  const std::string key_;  // 32 random bytes
};

}  // namespace tarock::arena::play

#endif  // TAROCK_ARENA_PLAY_VISITOR_COOKIE_H_
