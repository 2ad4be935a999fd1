#include "tarock/transport/transport.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain of this process: servers present it, clients present it when "
          "a server asks (mutual TLS)");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM roots that verify the servers this process dials; turns TLS on for every "
          "connection it opens");
ABSL_FLAG(std::string, tls_client_ca, "",
          "servers: require a client certificate signed by these PEM roots (mutual TLS)");
ABSL_FLAG(std::string, tls_server_name, "",
          "clients: the name to verify in a server's certificate instead of the target's host");
ABSL_FLAG(bool, allow_plaintext, false,
          "allow plaintext gRPC on addresses other than loopback (a trusted network only)");

namespace tarock::transport {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, absl::string_view what) {
  if (path.empty()) return std::string();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string reason = std::strerror(errno);
    if (errno == EACCES)
      return absl::PermissionDeniedError(absl::StrCat("cannot read ", what, " ", path, ": ", reason));
    return absl::NotFoundError(absl::StrCat("cannot read ", what, " ", path, ": ", reason));
  }
  std::stringstream text;
  text << in.rdbuf();
  if (!absl::StrContains(text.str(), "-----BEGIN "))
    return absl::InvalidArgumentError(absl::StrCat(what, " ", path, " is not PEM"));
  return text.str();
}

// The host part of HOST:PORT, [V6]:PORT, a bare host, or a gRPC URI target
// (ipv4:, ipv6:, dns:///).
std::string HostOf(absl::string_view address) {
  for (absl::string_view scheme : {"dns:///", "ipv4:", "ipv6:", "dns:"}) {
    if (absl::StartsWith(address, scheme)) {
      address.remove_prefix(scheme.size());
      break;
    }
  }
  if (absl::StartsWith(address, "[")) {
    size_t close = address.find(']');
    return std::string(address.substr(1, close == absl::string_view::npos ? address.npos : close - 1));
  }
  size_t colon = address.rfind(':');
  // One colon: HOST:PORT; several without brackets: a bare IPv6 address.
  if (colon != absl::string_view::npos && address.find(':') == colon)
    address = address.substr(0, colon);
  return std::string(address);
}

}  // namespace

TransportOptions TransportOptionsFromFlags() {
  TransportOptions o;
  o.cert_file = absl::GetFlag(FLAGS_tls_cert);
  o.key_file = absl::GetFlag(FLAGS_tls_key);
  o.ca_file = absl::GetFlag(FLAGS_tls_ca);
  o.client_ca_file = absl::GetFlag(FLAGS_tls_client_ca);
  o.server_name = absl::GetFlag(FLAGS_tls_server_name);
  o.allow_plaintext = absl::GetFlag(FLAGS_allow_plaintext);
  return o;
}

bool IsLoopbackAddress(absl::string_view address) {
  if (absl::StartsWith(address, "unix:") || absl::StartsWith(address, "unix-abstract:")) return true;
  std::string host = absl::AsciiStrToLower(HostOf(address));
  if (host == "localhost" || absl::EndsWith(host, ".localhost")) return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6;
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&v6)) return v6.s6_addr[12] == 127;
  }
  return false;
}

absl::StatusOr<Transport> Transport::Create(const TransportOptions& options) {
  if (options.cert_file.empty() != options.key_file.empty())
    return absl::InvalidArgumentError("--tls_cert and --tls_key go together");
  Transport t;
  auto cert = ReadPem(options.cert_file, "certificate");
  if (!cert.ok()) return cert.status();
  auto key = ReadPem(options.key_file, "key");
  if (!key.ok()) return key.status();
  auto ca = ReadPem(options.ca_file, "CA certificates");
  if (!ca.ok()) return ca.status();
  auto client_ca = ReadPem(options.client_ca_file, "client CA certificates");
  if (!client_ca.ok()) return client_ca.status();
  if (!client_ca->empty() && cert->empty())
    return absl::InvalidArgumentError("--tls_client_ca needs --tls_cert and --tls_key");
  t.cert_ = *std::move(cert);
  t.key_ = *std::move(key);
  t.ca_ = *std::move(ca);
  t.client_ca_ = *std::move(client_ca);
  t.server_name_ = options.server_name;
  t.allow_plaintext_ = options.allow_plaintext;
  return t;
}

absl::StatusOr<Transport> Transport::FromFlags() { return Create(TransportOptionsFromFlags()); }

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Transport::ServerCredentials(
    absl::string_view address) const {
  if (cert_.empty()) {
    if (!allow_plaintext_ && !IsLoopbackAddress(address))
      return absl::FailedPreconditionError(absl::StrCat(
          "refusing to listen in plaintext on ", address,
          ", which is not a loopback address: give --tls_cert and --tls_key (see "
          "scripts/dev-certs.sh), or --allow_plaintext on a trusted network"));
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions ssl(
      client_ca_.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                         : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = client_ca_;
  ssl.pem_key_cert_pairs.push_back({key_, cert_});
  return grpc::SslServerCredentials(ssl);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> Transport::ChannelCredentials(
    absl::string_view target, grpc::ChannelArguments* args) const {
  if (ca_.empty()) {
    if (!allow_plaintext_ && !IsLoopbackAddress(target))
      return absl::FailedPreconditionError(absl::StrCat(
          "refusing to connect in plaintext to ", target,
          ", which is not a loopback address: give --tls_ca (the roots that signed its "
          "certificate), or --allow_plaintext on a trusted network"));
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = ca_;
  if (!cert_.empty()) {
    ssl.pem_private_key = key_;
    ssl.pem_cert_chain = cert_;
  }
  if (!server_name_.empty() && args != nullptr) args->SetSslTargetNameOverride(server_name_);
  return grpc::SslCredentials(ssl);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> Transport::Channel(const std::string& target,
                                                                  grpc::ChannelArguments args) const {
  auto credentials = ChannelCredentials(target, &args);
  if (!credentials.ok()) return credentials.status();
  return grpc::CreateCustomChannel(target, *credentials, args);
}

void AddBearerToken(grpc::ClientContext* context, absl::string_view token) {
  if (!token.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
}

bool HasBearerToken(const grpc::ServerContextBase& context, absl::string_view token) {
  if (token.empty()) return true;
  const std::string expected = absl::StrCat("Bearer ", token);
  auto [begin, end] = context.client_metadata().equal_range("authorization");
  for (auto it = begin; it != end; ++it) {
    if (ConstantTimeEquals(absl::string_view(it->second.data(), it->second.size()), expected))
      return true;
  }
  return false;
}

std::string SecretFromFlagOrEnv(const std::string& flag_value, const char* env) {
  if (!flag_value.empty()) return flag_value;
  const char* value = std::getenv(env);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace tarock::transport
