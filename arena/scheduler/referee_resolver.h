// The arena's referee list as given by --referees: plain HOST:PORT entries,
// used as they are, and dns:///NAME:PORT entries, each standing for every
// address NAME resolves to (a Kubernetes headless Service lists one address
// per ready referee pod). Resolve() turns the list into the pool of referee
// addresses the scheduler picks from; the arena calls it again every
// --referee_resolve_interval, so referees that appear join the pool and those
// that vanish stop getting new matches (Scheduler::SetReferees).
//
// A name that fails to resolve keeps the addresses it had (a DNS hiccup must
// not empty the pool); a name that resolves to no address empties its share.
// The resolution itself is injectable (a function of host and port), so the
// tests need no DNS; the default uses getaddrinfo. No gRPC here.
//
// Thread-safety: not thread-safe; one thread (the arena's main loop) owns it.

#ifndef TAROCK_ARENA_SCHEDULER_REFEREE_RESOLVER_H_
#define TAROCK_ARENA_SCHEDULER_REFEREE_RESOLVER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tarock::arena {

// Resolves `host` (a name or a literal address) to its addresses, each as it
// goes into HOST:PORT (IPv6 without brackets). An empty result is not an error.
using HostResolver = std::function<absl::StatusOr<std::vector<std::string>>(const std::string& host)>;

// getaddrinfo (TCP, IPv4 and IPv6), addresses deduplicated in the order given.
absl::StatusOr<std::vector<std::string>> ResolveHostSystem(const std::string& host);

// "HOST:PORT", with brackets around an IPv6 address.
std::string JoinHostPort(const std::string& host, int port);

class RefereeResolver {
 public:
  // Checks the syntax of every entry: HOST:PORT ([V6]:PORT) or
  // dns:///NAME:PORT (also dns:NAME:PORT; an authority, dns://SERVER/, is
  // refused: the system resolver is used). Errors: INVALID_ARGUMENT naming the
  // entry. No lookup happens here.
  static absl::StatusOr<RefereeResolver> Create(const std::vector<std::string>& entries,
                                                HostResolver resolve = ResolveHostSystem);

  // Whether any entry is a dns: name (else Resolve() always gives the same).
  bool has_names() const { return !names_.empty(); }

  // The pool: the plain entries, then the addresses of every name, without
  // duplicates, in a stable order (sorted per name). `errors` (may be null)
  // receives one line per name that failed to resolve (it kept its previous
  // addresses, none at the first call).
  std::vector<std::string> Resolve(std::vector<std::string>* errors = nullptr);

 private:
  struct Name {
    std::string entry;  // as given, for messages
    std::string host;
    int port = 0;
    std::vector<std::string> last;  // HOST:PORT from the last successful lookup
  };
  RefereeResolver(std::vector<std::string> fixed, std::vector<Name> names, HostResolver resolve)
      : fixed_(std::move(fixed)), names_(std::move(names)), resolve_(std::move(resolve)) {}

  std::vector<std::string> fixed_;
  std::vector<Name> names_;
  HostResolver resolve_;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_REFEREE_RESOLVER_H_
