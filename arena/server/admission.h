// Who may call the arena how often: rate limits per client address and per
// token on every API call, and a stricter one on bot registration
// (docs/security.md, "Limits"). The gRPC service and the HTTP server ask it
// before doing any work; a refusal is RESOURCE_EXHAUSTED (HTTP 429) with the
// time to wait, which they send as Retry-After. Clients in the exempt ranges
// (by default loopback: the operator's own tools and the tests) are never
// limited, unless the call came through a trusted proxy. No gRPC here.
//
// Thread-safety: thread-safe.

#ifndef TAROCK_ARENA_SERVER_ADMISSION_H_
#define TAROCK_ARENA_SERVER_ADMISSION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "referee/net/endpoint_policy.h"
#include "referee/net/rate_limiter.h"

namespace tarock::arena {

struct AdmissionOptions {
  // Every API call (gRPC and HTTP), per client address and per token; bursts
  // of twice as many. 0: no limit.
  double calls_per_second = 20;
  // Bot registrations (AddBot), per client address, per minute; bursts of 5.
  double registrations_per_minute = 10;
  // Clients never limited (CIDR ranges or addresses).
  std::vector<std::string> exempt_ranges = {"127.0.0.0/8", "::1"};
};

class Admission {
 public:
  enum class Kind { kCall, kRegistration };

  // INVALID_ARGUMENT for a malformed exempt range.
  static absl::StatusOr<std::unique_ptr<Admission>> Create(const AdmissionOptions& options);

  // May the client at `address` (numeric, no port; "" when unknown) make a
  // call of `kind` with `token` ("" for none)? OK, or RESOURCE_EXHAUSTED
  // saying who is limited and when to retry; `*retry_after` (may be null) is
  // then the wait, rounded up to whole seconds. A refused call uses up nothing.
  // `proxied`: the call came through a trusted reverse proxy, so the exempt
  // ranges do not apply (behind a local proxy every client would look like
  // loopback).
  absl::Status Admit(absl::string_view address, absl::string_view token, Kind kind,
                     absl::Duration* retry_after = nullptr, absl::Time now = absl::Now(),
                     bool proxied = false);

  // The address of a gRPC peer: "ipv4:10.0.0.7:5123" -> "10.0.0.7",
  // "ipv6:[::1]:5123" -> "::1" (percent-decoded); "" for other forms.
  static std::string AddressOfGrpcPeer(absl::string_view peer);

 private:
  explicit Admission(const AdmissionOptions& options);
  bool Exempt(absl::string_view address) const;

  std::vector<net::AddressRange> exempt_;
  net::RateLimiter calls_by_address_;
  net::RateLimiter calls_by_token_;
  net::RateLimiter registrations_;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_ADMISSION_H_
