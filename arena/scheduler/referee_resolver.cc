#include "arena/scheduler/referee_resolver.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"

namespace tarock::arena {

absl::StatusOr<std::vector<std::string>> ResolveHostSystem(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc == EAI_NONAME || rc == EAI_NODATA) return std::vector<std::string>{};  // no such name now
  if (rc != 0) return absl::UnavailableError(absl::StrCat(host, ": ", ::gai_strerror(rc)));
  std::vector<std::string> out;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw = a->ai_family == AF_INET
                          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr)
                          : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
    if ((a->ai_family != AF_INET && a->ai_family != AF_INET6) ||
        ::inet_ntop(a->ai_family, raw, text, sizeof text) == nullptr)
      continue;
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
  }
  ::freeaddrinfo(found);
  return out;
}

std::string JoinHostPort(const std::string& host, int port) {
  return absl::StrContains(host, ':') ? absl::StrCat("[", host, "]:", port) : absl::StrCat(host, ":", port);
}

absl::StatusOr<RefereeResolver> RefereeResolver::Create(const std::vector<std::string>& entries,
                                                        HostResolver resolve) {
  std::vector<std::string> fixed;
  std::vector<Name> names;
  for (const std::string& entry : entries) {
    absl::string_view rest = entry;
    if (!absl::ConsumePrefix(&rest, "dns:")) {
      // Plain entries go to gRPC as they are, as before names existed.
      if (std::find(fixed.begin(), fixed.end(), entry) == fixed.end()) fixed.push_back(entry);
      continue;
    }
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("--referees: '", entry, "' ", why, " (want dns:///NAME:PORT)"));
    };
    if (absl::ConsumePrefix(&rest, "//")) {
      // dns://AUTHORITY/NAME:PORT: only the empty authority (the system resolver).
      if (!absl::ConsumePrefix(&rest, "/")) return bad("names a DNS server, which is not supported");
    }
    const size_t colon = rest.rfind(':');
    if (colon == absl::string_view::npos) return bad("has no port");
    Name name;
    name.entry = entry;
    name.host = std::string(rest.substr(0, colon));
    if (name.host.size() >= 2 && name.host.front() == '[' && name.host.back() == ']')
      name.host = name.host.substr(1, name.host.size() - 2);
    if (name.host.empty() || absl::StrContains(name.host, '/')) return bad("has no host name");
    if (!absl::SimpleAtoi(rest.substr(colon + 1), &name.port) || name.port <= 0 || name.port > 65535)
      return bad("has no valid port");
    names.push_back(std::move(name));
  }
  return RefereeResolver(std::move(fixed), std::move(names), std::move(resolve));
}

std::vector<std::string> RefereeResolver::Resolve(std::vector<std::string>* errors) {
  std::vector<std::string> pool = fixed_;
  std::set<std::string> seen(pool.begin(), pool.end());
  for (Name& name : names_) {
    absl::StatusOr<std::vector<std::string>> hosts = resolve_(name.host);
    if (hosts.ok()) {
      name.last.clear();
      for (const std::string& host : *hosts) name.last.push_back(JoinHostPort(host, name.port));
      std::sort(name.last.begin(), name.last.end());
    } else if (errors != nullptr) {
      errors->push_back(absl::StrCat(name.entry, ": ", hosts.status().message(),
                                     " (keeping its ", name.last.size(), " addresses)"));
    }
    for (const std::string& address : name.last)
      if (seen.insert(address).second) pool.push_back(address);
  }
  return pool;
}

}  // namespace tarock::arena
