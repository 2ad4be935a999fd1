// Transport security for every gRPC connection of Tarock Arena: the referee,
// the arena, the tools and every bot built on the C++ SDK make their listening
// credentials and their channels here (the library tarock_transport, below
// both the referee and the SDK), so one set of flags means the same in every
// program:
//
//   --tls_cert=FILE --tls_key=FILE   this process's certificate chain and key
//                                    (PEM): servers present it; clients present
//                                    it when a server asks (mutual TLS)
//   --tls_ca=FILE                    roots that verify the servers this process
//                                    dials; setting it makes every connection
//                                    this process opens TLS
//   --tls_client_ca=FILE             servers: require a client certificate
//                                    signed by these roots (mutual TLS)
//   --tls_server_name=NAME           clients: the name to verify in a server's
//                                    certificate instead of the target's host
//   --allow_plaintext                plaintext on addresses other than loopback
//
// The policy: TLS wherever it is configured; plaintext remains for loopback
// development (127.0.0.0/8, ::1, localhost, unix sockets) and is refused on
// every other address, listening or dialing, unless --allow_plaintext says
// the network is trusted. A server that listens on 0.0.0.0 without a
// certificate is refused, with an error that names the flags.
//
// Thread-safety: a Transport is immutable after construction; its methods
// are thread-safe.

#ifndef TAROCK_TRANSPORT_TRANSPORT_H_
#define TAROCK_TRANSPORT_TRANSPORT_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tarock/transport/referee_proof.h"

namespace tarock::transport {

struct TransportOptions {
  std::string cert_file;         // PEM certificate chain of this process ("": none)
  std::string key_file;          // PEM private key of cert_file
  std::string ca_file;           // PEM roots verifying servers; non-empty turns client TLS on
  std::string client_ca_file;    // servers: require client certificates from these roots
  std::string server_name;       // clients: override of the name verified ("": target host)
  bool allow_plaintext = false;  // plaintext also on non-loopback addresses
};

// The options the flags above give.
TransportOptions TransportOptionsFromFlags();

// True for addresses that never leave the machine: 127.0.0.0/8, ::1,
// localhost (with or without a port, IPv6 in brackets), and unix: sockets.
// 0.0.0.0 and [::] (every interface) are not loopback.
bool IsLoopbackAddress(absl::string_view address);

class Transport {
 public:
  // Reads the PEM files. Errors: INVALID_ARGUMENT for a key without a
  // certificate (or the reverse), NOT_FOUND/PERMISSION_DENIED for a file that
  // cannot be read.
  static absl::StatusOr<Transport> Create(const TransportOptions& options);
  // Create(TransportOptionsFromFlags()).
  static absl::StatusOr<Transport> FromFlags();
  // Plaintext everywhere, loopback only unless allow_plaintext.
  Transport() = default;

  // Credentials to listen on `address` (HOST:PORT). TLS when a certificate is
  // configured (asking for and verifying client certificates when
  // client_ca_file is set); else plaintext, which is FAILED_PRECONDITION on a
  // non-loopback address without allow_plaintext.
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
      absl::string_view address) const;

  // Credentials to dial `target`; may set the server-name override in `args`.
  // TLS when ca_file is set; else plaintext, FAILED_PRECONDITION on a
  // non-loopback target without allow_plaintext.
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
      absl::string_view target, grpc::ChannelArguments* args) const;

  // A channel to `target` with ChannelCredentials and `args`.
  absl::StatusOr<std::shared_ptr<grpc::Channel>> Channel(
      const std::string& target, grpc::ChannelArguments args = {}) const;

  bool server_tls() const { return !cert_.empty(); }
  bool client_tls() const { return !ca_.empty(); }

 private:
  std::string cert_, key_, ca_, client_ca_, server_name_;
  bool allow_plaintext_ = false;
};

// Bearer tokens, the alternative to client certificates where those are not
// used (the referee's --referee_token): the client sends
// "authorization: Bearer TOKEN" metadata; the server compares in constant time.
void AddBearerToken(grpc::ClientContext* context, absl::string_view token);
// True when `token` is empty (none required) or the call carries it.
bool HasBearerToken(const grpc::ServerContextBase& context, absl::string_view token);
// `flag_value`, or else the environment variable `env` ("" when neither).
std::string SecretFromFlagOrEnv(const std::string& flag_value, const char* env);

}  // namespace tarock::transport

#endif  // TAROCK_TRANSPORT_TRANSPORT_H_
