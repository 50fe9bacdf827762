#include "agent/runner/request_record.h"

#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace kvbench::runner {
namespace {

RequestRecord FullRecord() {
  RequestRecord r;
  r.user_id = "u-1";
  r.session_id = "s-7";
  r.round = 3;
  r.scheduled_s = 10.1;
  r.sent_s = 10.125;
  r.first_token_s = 10.7;
  r.end_s = 12.3;
  r.ttft_s = 0.6000000000000001;
  r.prompt_tokens = 12345;
  r.output_tokens = 77;
  r.cached_tokens = 12000;
  r.http_status = 200;
  r.loop_lag_s = 0.00025;
  return r;
}

void CheckEqual(const RequestRecord& a, const RequestRecord& b) {
  CHECK(a.user_id == b.user_id);
  CHECK(a.session_id == b.session_id);
  CHECK(a.round == b.round);
  CHECK(a.scheduled_s == b.scheduled_s);
  CHECK(a.sent_s == b.sent_s);
  CHECK(a.first_token_s == b.first_token_s);
  CHECK(a.end_s == b.end_s);
  CHECK(a.ttft_s == b.ttft_s);
  CHECK(a.prompt_tokens == b.prompt_tokens);
  CHECK(a.output_tokens == b.output_tokens);
  CHECK(a.cached_tokens == b.cached_tokens);
  CHECK(a.http_status == b.http_status);
  CHECK(a.error == b.error);
  CHECK(a.attempts == b.attempts);
  CHECK(a.loop_lag_s == b.loop_lag_s);
}

TEST_CASE("RequestRecord round-trips a successful record exactly", "[results]") {
  const RequestRecord record = FullRecord();
  const std::string line = ToJsonLine(record);
  CHECK(line.find('\n') == std::string::npos);
  const auto parsed = ParseJsonLine(line);
  REQUIRE(parsed.ok());
  CheckEqual(*parsed, record);
  CHECK(parsed->ok());
}

TEST_CASE("RequestRecord writes null for unset optionals and round-trips them", "[results]") {
  RequestRecord record = FullRecord();
  record.first_token_s.reset();
  record.ttft_s.reset();
  record.cached_tokens.reset();
  record.loop_lag_s.reset();
  record.http_status = 0;
  record.error = "timeout";
  const std::string line = ToJsonLine(record);
  const nlohmann::json json = nlohmann::json::parse(line);
  CHECK(json.size() == 15);
  CHECK(json["attempts"] == 1);
  for (const char* key : {"first_token_s", "ttft_s", "cached_tokens", "loop_lag_s"}) {
    INFO(key);
    REQUIRE(json.contains(key));
    CHECK(json[key].is_null());
  }
  CHECK(json["error"] == "timeout");
  const auto parsed = ParseJsonLine(line);
  REQUIRE(parsed.ok());
  CheckEqual(*parsed, record);
  CHECK_FALSE(parsed->ok());
}

TEST_CASE("RequestRecord uses exactly the documented keys", "[results]") {
  const nlohmann::json json = nlohmann::json::parse(ToJsonLine(FullRecord()));
  for (const char* key : {"user_id", "session_id", "round", "scheduled_s", "sent_s",
                          "first_token_s", "end_s", "ttft_s", "prompt_tokens", "output_tokens",
                          "cached_tokens", "http_status", "error", "attempts", "loop_lag_s"}) {
    INFO(key);
    CHECK(json.contains(key));
  }
  CHECK(json.size() == 15);
  CHECK(json["error"].is_null());
}

// The line as nlohmann::json dumped it before ToJsonLine formatted it by hand: consumers (jq,
// other tools, diffs of requests.jsonl) see the same bytes.
std::string DumpedLine(const RequestRecord& r) {
  using Json = nlohmann::json;
  const auto optional = [](const auto& value) { return value ? Json(*value) : Json(nullptr); };
  Json out = {{"user_id", r.user_id},
              {"session_id", r.session_id},
              {"round", r.round},
              {"scheduled_s", r.scheduled_s},
              {"sent_s", r.sent_s},
              {"first_token_s", optional(r.first_token_s)},
              {"end_s", r.end_s},
              {"ttft_s", optional(r.ttft_s)},
              {"prompt_tokens", r.prompt_tokens},
              {"output_tokens", r.output_tokens},
              {"cached_tokens", optional(r.cached_tokens)},
              {"http_status", r.http_status},
              {"error", optional(r.error)},
              {"attempts", r.attempts},
              {"loop_lag_s", optional(r.loop_lag_s)}};
  return out.dump(-1, ' ', false, Json::error_handler_t::replace);
}

TEST_CASE("RequestRecord lines are byte for byte what nlohmann::json dumps", "[results]") {
  std::vector<RequestRecord> records = {FullRecord(), RequestRecord()};
  RequestRecord odd = FullRecord();
  odd.scheduled_s = 0;
  odd.sent_s = 1e-7;
  odd.end_s = 123456789012345678.0;
  odd.first_token_s = -0.0;
  odd.ttft_s = std::numeric_limits<double>::infinity();
  odd.loop_lag_s = std::numeric_limits<double>::quiet_NaN();
  odd.user_id = "quote\" back\\slash \x01 tab\t";
  odd.session_id = "caf\xc3\xa9 \xff invalid";
  odd.error = "transport: POST http://h/v1: \"reset\"";
  odd.round = -3;
  odd.prompt_tokens = std::numeric_limits<int>::max();
  odd.output_tokens = std::numeric_limits<int>::min();
  records.push_back(odd);
  for (double x : {0.1, 0.000126867, 10.125, 1.0 / 3, 5e-324, 1e21, 1e15, 99.99999999999999}) {
    RequestRecord r = FullRecord();
    r.end_s = x;
    records.push_back(r);
  }
  for (const RequestRecord& record : records) {
    CHECK(ToJsonLine(record) == DumpedLine(record));
  }
}

TEST_CASE("RequestRecord parse errors name the key", "[results]") {
  nlohmann::json base = nlohmann::json::parse(ToJsonLine(FullRecord()));
  struct Case {
    const char* key;
    nlohmann::json value;  // null with erase=true means: remove the key
    bool erase;
  };
  const Case cases[] = {
      {"end_s", nullptr, true}, {"user_id", nullptr, true},        {"round", "three", false},
      {"round", 1.5, false},    {"prompt_tokens", nullptr, false}, {"cached_tokens", "many", false},
      {"error", 5, false},      {"sent_s", "soon", false},         {"attempts", "two", false},
  };
  for (const Case& c : cases) {
    nlohmann::json json = base;
    if (c.erase) {
      json.erase(c.key);
    } else {
      json[c.key] = c.value;
    }
    INFO(json.dump());
    const auto parsed = ParseJsonLine(json.dump());
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(parsed.status().message()).find(c.key) != std::string::npos);
  }
}

TEST_CASE("RequestRecord rejects non-JSON and non-objects", "[results]") {
  CHECK(ParseJsonLine("{not json").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ParseJsonLine("[1]").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ParseJsonLine("").status().code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kvbench::runner

namespace kvbench::runner {
namespace {

TEST_CASE("RequestRecord reads lines without attempts as one attempt", "[results]") {
  RequestRecord retried;
  retried.attempts = 3;
  nlohmann::json json = nlohmann::json::parse(ToJsonLine(retried));
  CHECK(json["attempts"] == 3);
  CHECK(ParseJsonLine(json.dump())->attempts == 3);
  json.erase("attempts");
  auto old = ParseJsonLine(json.dump());
  REQUIRE(old.ok());
  CHECK(old->attempts == 1);
}

TEST_CASE("RequestRecord reads lines without loop_lag_s as not measured", "[results]") {
  nlohmann::json json = nlohmann::json::parse(ToJsonLine(FullRecord()));
  CHECK(json["loop_lag_s"] == 0.00025);
  json.erase("loop_lag_s");  // written before the loop-lag probe
  auto old = ParseJsonLine(json.dump());
  REQUIRE(old.ok());
  CHECK_FALSE(old->loop_lag_s.has_value());
  json["loop_lag_s"] = "late";
  const auto bad = ParseJsonLine(json.dump());
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).find("loop_lag_s") != std::string::npos);
}

}  // namespace
}  // namespace kvbench::runner
