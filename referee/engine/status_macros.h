// Small local status macros: Debian's Abseil (20220623) ships none.

#ifndef TAROCK_REFEREE_ENGINE_STATUS_MACROS_H_
#define TAROCK_REFEREE_ENGINE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TAROCK_CONCAT_INNER_(a, b) a##b
#define TAROCK_CONCAT_(a, b) TAROCK_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function if `expr` is not OK.
#define RETURN_IF_ERROR(expr)                         \
  do {                                                \
    ::absl::Status tarock_status_ = (expr);           \
    if (!tarock_status_.ok()) return tarock_status_;  \
  } while (0)

// ASSIGN_OR_RETURN(auto x, FunctionReturningStatusOr());
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  ASSIGN_OR_RETURN_IMPL_(TAROCK_CONCAT_(tarock_statusor_, __LINE__), lhs, rexpr)
#define ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                           \
  if (!tmp.ok()) return tmp.status();           \
  lhs = std::move(tmp).value()

#endif  // TAROCK_REFEREE_ENGINE_STATUS_MACROS_H_
