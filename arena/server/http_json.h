// JSON error responses of the arena's HTTP handlers (the API, http_api.h, and
// the play API, arena/play/play_api.h): {"error": "..."} with the HTTP status
// that matches an absl::Status, in one place.
//
// Thread-safety: free functions on values.

#ifndef TAROCK_ARENA_SERVER_HTTP_JSON_H_
#define TAROCK_ARENA_SERVER_HTTP_JSON_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "referee/metrics/http_server.h"

namespace tarock::arena {

// {"error": message} with `code`.
inline metrics::HttpResponse JsonError(int code, absl::string_view message) {
  metrics::HttpResponse r;
  r.status = code;
  // Messages may quote the request (a bot name, a path), which need not be
  // UTF-8: replace bad bytes instead of throwing (found by http_api_fuzz).
  r.body = nlohmann::json{{"error", std::string(message)}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

// The error response of a failed status: 400 bad input, 403 a wrong token, 404 not
// found, 409 a state that forbids it (a request no longer waiting, a retired bot,
// a name taken),
// 503 too busy or stopping, 500 anything else.
inline metrics::HttpResponse JsonFromStatus(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
      return JsonError(400, s.message());
    case absl::StatusCode::kPermissionDenied:
      return JsonError(403, s.message());
    case absl::StatusCode::kNotFound:
      return JsonError(404, s.message());
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
      return JsonError(409, s.message());
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kUnavailable:
      return JsonError(503, s.message());
    default:
      return JsonError(500, s.message());
  }
}

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_HTTP_JSON_H_
