#include "agent/runner/replay.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/fakes/fake_async_http_client.h"

namespace kvbench::runner {
namespace {

using Json = nlohmann::json;
using testing::FakeAsyncHttpClient;

// A dataset of `users` virtual users with `rounds` rounds each; round k's last user message is
// "<user> q<k>".
struct Fixture {
  Fixture(int users, int rounds) {
    sessions.resize(users);
    for (int u = 0; u < users; ++u) {
      Json messages = Json::array();
      for (int r = 1; r <= rounds; ++r) {
        messages.push_back({{"role", "user"}, {"content", absl::StrCat("u", u, " q", r)}});
        datasets::Round round;
        round.messages = messages;
        round.output_tokens = 4;
        sessions[u].rounds.push_back(round);
        messages.push_back({{"role", "assistant"}, {"content", "a"}});
      }
    }
    for (int u = 0; u < users; ++u) {
      datasets::VirtualUser user;
      user.user_id = absl::StrCat("user-", u);
      user.session_id = absl::StrCat("s", u);
      for (const datasets::Round& round : sessions[u].rounds) user.rounds.push_back(&round);
      virtual_users.push_back(user);
    }
    options.base_url = "http://server";
    options.model = "m";
    options.concurrency = 2;
    options.warmup = 0;
  }

  std::vector<datasets::Session> sessions;
  std::vector<datasets::VirtualUser> virtual_users;
  RunnerOptions options;
  StopSource stop;
  FakeAsyncHttpClient client;
};

// A vLLM-shaped stream: role chunk, one content chunk, usage chunk, [DONE].
FakeAsyncHttpClient::Reply Stream(int prompt_tokens = 10, bool done = true) {
  FakeAsyncHttpClient::Reply reply;
  reply.chunks = {
      R"(data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})"
      "\n\n",
      R"(data: {"choices":[{"index":0,"delta":{"content":"hi"}}]})"
      "\n\n",
      absl::StrCat(R"(data: {"choices":[],"usage":{"prompt_tokens":)", prompt_tokens,
                   R"(,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":3}}})",
                   "\n\n")};
  if (done) reply.chunks.push_back("data: [DONE]\n\n");
  return reply;
}

std::string LastUserText(const std::string& body) {
  Json messages = Json::parse(body)["messages"];
  return messages.back()["content"];
}

bool IsChat(const FakeAsyncHttpClient::Request& r) {
  return r.url == "http://server/v1/chat/completions";
}

TEST_CASE("Replay sends each user's rounds in order, chained on the previous end", "[Runner]") {
  Fixture f(3, 3);
  f.client.SetResponder([](const auto&) { return Stream(); });
  Replay replay(&f.client, f.options, nullptr, &f.stop);
  auto result = replay.Run(f.virtual_users, /*count_prompts=*/false);
  REQUIRE(result.ok());
  REQUIRE(result->records.size() == 9);
  CHECK_FALSE(result->stopped);
  CHECK_FALSE(result->reuse.has_value());
  std::map<std::string, const RequestRecord*> last;
  for (const RequestRecord& record : result->records) {
    INFO(record.user_id << " round " << record.round);
    CHECK(record.ok());
    CHECK(record.http_status == 200);
    CHECK(record.prompt_tokens == 10);
    CHECK(record.output_tokens == 2);
    CHECK(record.cached_tokens == 3);
    CHECK(record.attempts == 1);
    REQUIRE(record.ttft_s.has_value());
    CHECK(*record.first_token_s >= record.sent_s);
    CHECK(record.end_s >= *record.first_token_s);
    auto previous = last.find(record.user_id);
    if (previous == last.end()) {
      CHECK(record.round == 1);
    } else {
      CHECK(record.round == previous->second->round + 1);
      CHECK(record.scheduled_s == previous->second->end_s);
    }
    last[record.user_id] = &record;
  }
  // Every request carried its user's id and that round's recorded messages.
  for (const auto& request : f.client.requests()) {
    REQUIRE(IsChat(request));
    std::string user = request.Header("x-user-id");
    REQUIRE(user.rfind("user-", 0) == 0);
    CHECK(LastUserText(request.body).rfind("u" + user.substr(5) + " q", 0) == 0);
    CHECK(Json::parse(request.body)["stream"] == true);
  }
}

TEST_CASE("Replay ends a user at its first failed request and keeps the others", "[Runner]") {
  Fixture f(2, 3);
  f.client.SetResponder([](const FakeAsyncHttpClient::Request& request) {
    if (LastUserText(request.body) == "u1 q2") {
      FakeAsyncHttpClient::Reply busy;
      busy.http_status = 503;
      return busy;
    }
    if (LastUserText(request.body) == "u0 q3") return Stream(10, /*done=*/false);
    return Stream();
  });
  Replay replay(&f.client, f.options, nullptr, &f.stop);
  auto result = replay.Run(f.virtual_users, false);
  REQUIRE(result.ok());
  std::map<std::string, std::vector<std::string>> outcomes;
  for (const RequestRecord& record : result->records) {
    outcomes[record.user_id].push_back(record.error.value_or("ok"));
  }
  CHECK(outcomes["user-0"] == std::vector<std::string>{"ok", "ok", "truncated_stream"});
  CHECK(outcomes["user-1"] == std::vector<std::string>{"ok", "http_503"});
}

TEST_CASE("Replay counts prompts first: ISL ends users unsent, reuse is computed", "[Runner]") {
  Fixture f(2, 4);
  f.options.isl = 700;
  // Round k's prompt: 256 * k tokens, the same ids for both users (shared prefix).
  f.client.SetResponder([](const FakeAsyncHttpClient::Request& request) {
    if (IsChat(request)) return Stream();
    std::string text = LastUserText(request.body);
    int round = text.back() - '0';
    Json tokens = Json::array();
    for (int i = 0; i < 256 * round; ++i) tokens.push_back(i);
    FakeAsyncHttpClient::Reply reply;
    reply.chunks = {Json{{"count", tokens.size()}, {"tokens", tokens}}.dump()};
    return reply;
  });
  Replay replay(&f.client, f.options, nullptr, &f.stop);
  auto result = replay.Run(f.virtual_users, false);  // ISL forces counting
  REQUIRE(result.ok());
  // Rounds 1 and 2 (256, 512 tokens) go; round 3 (768) is over ISL: the users end there.
  REQUIRE(result->records.size() == 4);
  for (const RequestRecord& record : result->records) CHECK(record.round <= 2);
  REQUIRE(result->reuse.has_value());
  // Sent prompts: 256, 512 (user 0) and 256, 512 (user 1): same user reuses 256 of 1536 each
  // user's second round; any user also reuses the other user's chunks.
  CHECK(result->reuse->same_user_pct.value() == Approx(512.0 / 1536 * 100));
  CHECK(result->reuse->any_user_pct.value() > *result->reuse->same_user_pct);
  // Counting happened before the clock: every /tokenize precedes every chat request.
  auto requests = f.client.requests();
  REQUIRE(requests.size() == 8 + 4);
  for (size_t i = 0; i < 8; ++i) CHECK(requests[i].url == "http://server/tokenize");
}

TEST_CASE("Replay without /tokenize: ISL is refused before any request", "[Runner]") {
  Fixture f(1, 2);
  f.client.SetResponder([](const FakeAsyncHttpClient::Request& request) {
    if (IsChat(request)) return Stream();
    FakeAsyncHttpClient::Reply missing;
    missing.http_status = 404;
    missing.chunks = {R"({"detail":"Not Found"})"};
    return missing;
  });
  SECTION("with ISL the run fails, naming /tokenize") {
    f.options.isl = 100;
    Replay replay(&f.client, f.options, nullptr, &f.stop);
    auto result = replay.Run(f.virtual_users, true);
    REQUIRE(result.status().code() == absl::StatusCode::kUnavailable);
    CHECK_THAT(std::string(result.status().message()),
               Catch::Contains("/tokenize") && Catch::Contains("404"));
    for (const auto& request : f.client.requests()) CHECK_FALSE(IsChat(request));
  }
  SECTION("without ISL the run goes on and reuse is unknown") {
    Replay replay(&f.client, f.options, nullptr, &f.stop);
    auto result = replay.Run(f.virtual_users, true);
    REQUIRE(result.ok());
    CHECK(result->records.size() == 2);
    CHECK_FALSE(result->reuse.has_value());
  }
}

TEST_CASE("Replay counts which users fit under ISL, and cuts a user where ISL ends it",
          "[Runner]") {
  // 3 users of 3 rounds; user k's round r prompt has 100 * (k + r) tokens. ISL 350: user 0
  // (100..300) fits, user 1 (200..400) is cut after round 2, user 2 (300..500) after round 1.
  Fixture f(3, 3);
  f.options.isl = 350;
  f.client.SetResponder([](const FakeAsyncHttpClient::Request& request) {
    if (IsChat(request)) return Stream();
    const std::string text = LastUserText(request.body);  // "u<k> q<r>"
    const int k = text[1] - '0';
    const int r = text.back() - '0';
    Json tokens = Json::array();
    for (int i = 0; i < 100 * (k + r); ++i) tokens.push_back(i);
    FakeAsyncHttpClient::Reply reply;
    reply.chunks = {Json{{"count", tokens.size()}, {"tokens", tokens}}.dump()};
    return reply;
  });
  // Which users fit whole, counted before any is chosen: only user 0.
  Replay replay(&f.client, f.options, nullptr, &f.stop);
  absl::StatusOr<std::vector<bool>> fits = replay.FitUnderIsl(f.virtual_users);
  REQUIRE(fits.ok());
  CHECK(*fits == std::vector<bool>{true, false, false});
  // Users 1 and 2 run all the same (a caller that chose them): each is cut where ISL ends it.
  const std::vector<datasets::VirtualUser> chosen = {f.virtual_users[1], f.virtual_users[2]};
  std::vector<agent::results::CountedPrompt> at_clock;
  size_t chat_requests_at_clock = 99;
  auto result = replay.Run(chosen, false, [&](const auto& prompts) {
    at_clock = prompts;
    chat_requests_at_clock = 0;
    for (const auto& request : f.client.requests()) chat_requests_at_clock += IsChat(request);
    return absl::OkStatus();
  });
  REQUIRE(result.ok());
  REQUIRE(result->planned_users.size() == 2);
  CHECK(result->planned_users[0].user_id == "user-1");
  CHECK(result->planned_users[0].session_id == "s1");
  CHECK(result->planned_users[0].sendable_rounds == 2);
  CHECK(result->planned_users[1].sendable_rounds == 1);
  CHECK(result->records.size() == 3);
  // The hook ran before any replayed request, with the chosen users' counted prompts.
  CHECK(chat_requests_at_clock == 0);
  REQUIRE(at_clock.size() == 6);
  CHECK(at_clock[0].user_id == "user-1");
  CHECK(at_clock[0].round == 1);
  CHECK(at_clock[0].tokens == 200);
  CHECK(at_clock[0].chunk_keys.empty());  // 200 tokens: no full 256-token chunk
}

TEST_CASE("Replay retries harmony-shaped failures only with agentic tools", "[Runner]") {
  Fixture f(1, 2);
  int chat_requests = 0;
  f.client.SetResponder([&](const FakeAsyncHttpClient::Request&) {
    // Every round fails once with an in-stream error, then succeeds.
    if (++chat_requests % 2 == 1) {
      FakeAsyncHttpClient::Reply error;
      error.chunks = {"data: {\"error\":{\"message\":\"unexpected token\"}}\n\n",
                      "data: [DONE]\n\n"};
      return error;
    }
    return Stream();
  });
  SECTION("with agentic tools and 3 attempts the rounds succeed on their second attempt") {
    f.options.enable_agentic_tools = true;
    Replay replay(&f.client, f.options, nullptr, &f.stop);
    auto result = replay.Run(f.virtual_users, false);
    REQUIRE(result.ok());
    REQUIRE(result->records.size() == 2);
    for (const RequestRecord& record : result->records) {
      CHECK(record.ok());
      CHECK(record.attempts == 2);
    }
    CHECK(result->records[1].scheduled_s == result->records[0].end_s);
  }
  SECTION("without them the first failure ends the user") {
    Replay replay(&f.client, f.options, nullptr, &f.stop);
    auto result = replay.Run(f.virtual_users, false);
    REQUIRE(result.ok());
    REQUIRE(result->records.size() == 1);
    CHECK(result->records[0].error.value_or("") == "stream_error: unexpected token");
  }
}

TEST_CASE("Replay stop drops the request in flight and launches nothing more", "[Runner]") {
  Fixture f(3, 3);
  f.options.concurrency = 1;
  int chat_requests = 0;
  f.client.SetResponder([&](const FakeAsyncHttpClient::Request&) {
    if (++chat_requests == 2) f.stop.RequestStop();  // the signal lands during request 2
    return Stream();
  });
  Replay replay(&f.client, f.options, nullptr, &f.stop);
  auto result = replay.Run(f.virtual_users, false);
  REQUIRE(result.ok());
  CHECK(result->stopped);
  REQUIRE(result->records.size() == 1);
  CHECK(result->records[0].round == 1);
  CHECK(f.client.requests().size() == 2);
  CHECK(result->planned_users.size() == 3);
}

}  // namespace
}  // namespace kvbench::runner
