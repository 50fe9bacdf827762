#pragma once

// Status propagation macros; Abseil 20220623 ships none.
//
//   KV_RETURN_IF_ERROR(DoThing());
//   KV_ASSIGN_OR_RETURN(auto value, ComputeValue());
//   KV_ASSIGN_OR_RETURN(std::unique_ptr<Foo> foo, Foo::Create(...));

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define KV_STATUS_CONCAT_INNER_(a, b) a##b
#define KV_STATUS_CONCAT_(a, b) KV_STATUS_CONCAT_INNER_(a, b)

#define KV_RETURN_IF_ERROR(expr)                        \
  do {                                                  \
    ::absl::Status kv_status_ = (expr);                 \
    if (!kv_status_.ok()) return kv_status_;            \
  } while (false)

#define KV_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                              \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = *std::move(statusor)

#define KV_ASSIGN_OR_RETURN(lhs, rexpr) \
  KV_ASSIGN_OR_RETURN_IMPL_(KV_STATUS_CONCAT_(kv_statusor_, __LINE__), lhs, rexpr)
