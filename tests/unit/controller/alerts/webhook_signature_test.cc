// Standard Webhooks signing against the specification's published vector and an independent
// HMAC from the openssl command line: a round trip through our own verifier would pass just as
// well with the delimiter, the base64 alphabet or the key decoding wrong.

#include "controller/alerts/webhook_signature.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace kvbench::controller {
namespace {

// The specification's test vector: TestWebhookSign in libraries/go/webhook_test.go of
// github.com/standard-webhooks/standard-webhooks (the same values pin the JavaScript, Python,
// PHP and other reference libraries' tests).
constexpr absl::string_view kSpecSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr absl::string_view kSpecId = "msg_p5jXN8AQM9LWM0D4loKWxJek";
constexpr int64_t kSpecTimestamp = 1614265330;
constexpr absl::string_view kSpecBody = R"({"test": 2432232314})";
constexpr absl::string_view kSpecSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

WebhookKey Key(absl::string_view secret) {
  absl::StatusOr<WebhookKey> key = WebhookKey::FromSecret(secret);
  REQUIRE(key.ok());
  return *key;
}

std::optional<std::string> HeaderValue(const HttpHeaders& headers, absl::string_view name) {
  for (const auto& [header_name, value] : headers) {
    if (header_name == name) return value;
  }
  return std::nullopt;
}

TEST_CASE("the specification test vector signs to its published webhook signature",
          "[alerts][webhook_signature]") {
  CHECK(SignWebhook(Key(kSpecSecret), kSpecId, kSpecTimestamp, kSpecBody) == kSpecSignature);
  CHECK(
      VerifyWebhookSignature(Key(kSpecSecret), kSpecId, kSpecTimestamp, kSpecBody, kSpecSignature));
}

TEST_CASE("a raw webhook secret signs as the openssl command line computes",
          "[alerts][webhook_signature]") {
  // printf '%s' 'alert_0001.1767225600.{"alert":"regression","job":"nightly"}' |
  //   openssl dgst -sha256 -mac HMAC -macopt key:kvbench-raw-secret -binary | base64
  // (OpenSSL 3.0.19) prints SYK+7JJcDOriRxo2jxw9vnaGpSZpznjY7VhdPMX0Gqw=
  CHECK(SignWebhook(Key("kvbench-raw-secret"), "alert_0001", 1767225600,
                    R"({"alert":"regression","job":"nightly"})") ==
        "v1,SYK+7JJcDOriRxo2jxw9vnaGpSZpznjY7VhdPMX0Gqw=");
}

TEST_CASE("the key of a whsec_ webhook secret is its base64 decoding",
          "[alerts][webhook_signature]") {
  // The spec vector's key as raw bytes ("MfKQ..." decoded): the same signature.
  absl::StatusOr<WebhookKey> key = WebhookKey::FromSecret(kSpecSecret);
  REQUIRE(key.ok());
  CHECK(key->bytes().size() == 24);
  CHECK(SignWebhook(Key(key->bytes()), kSpecId, kSpecTimestamp, kSpecBody) == kSpecSignature);
  // Without the prefix the text itself is the key: a different signature.
  CHECK(SignWebhook(Key("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), kSpecId, kSpecTimestamp, kSpecBody) !=
        kSpecSignature);
  // Unpadded base64 decodes too.
  absl::StatusOr<WebhookKey> unpadded = WebhookKey::FromSecret("whsec_AAA");
  REQUIRE(unpadded.ok());
  CHECK(unpadded->bytes() == std::string(2, '\0'));
}

TEST_CASE("bad webhook secrets are refused with the reason and without the secret",
          "[alerts][webhook_signature]") {
  struct BadSecret {
    std::string secret;
    std::string expected_message;
  };
  const BadSecret cases[] = {
      {"", "webhook secret: empty"},
      {"whsec_", "webhook secret: nothing after \"whsec_\" (expected the key in base64)"},
      {"whsec_AAAA AAAA",
       "webhook secret: character 11 is not base64 (after \"whsec_\" come only A-Z a-z 0-9 + / "
       "=)"},
      // The URL-safe alphabet is not the specification's.
      {"whsec_-_-_",
       "webhook secret: character 7 is not base64 (after \"whsec_\" come only A-Z a-z 0-9 + / "
       "=)"},
      {"whsec_A",
       "webhook secret: the part after \"whsec_\" is not valid base64 (check its "
       "length and '=' padding)"},
      {"whsec_AA=A",
       "webhook secret: the part after \"whsec_\" is not valid base64 (check its "
       "length and '=' padding)"},
  };
  for (const BadSecret& bad : cases) {
    INFO("secret: " << bad.secret);
    absl::StatusOr<WebhookKey> key = WebhookKey::FromSecret(bad.secret);
    REQUIRE_FALSE(key.ok());
    CHECK(key.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(key.status().message() == bad.expected_message);
  }
}

TEST_CASE("webhook verification rejects any change to the signed parts",
          "[alerts][webhook_signature]") {
  const WebhookKey key = Key(kSpecSecret);
  const std::string signature(kSpecSignature);
  CHECK_FALSE(
      VerifyWebhookSignature(key, kSpecId, kSpecTimestamp, R"({"test": 2432232315})", signature));
  CHECK_FALSE(
      VerifyWebhookSignature(key, kSpecId, kSpecTimestamp, R"({"test":2432232314})", signature));
  CHECK_FALSE(VerifyWebhookSignature(key, "msg_p5jXN8AQM9LWM0D4loKWxJel", kSpecTimestamp, kSpecBody,
                                     signature));
  CHECK_FALSE(VerifyWebhookSignature(key, kSpecId, kSpecTimestamp + 1, kSpecBody, signature));
  CHECK_FALSE(
      VerifyWebhookSignature(Key("whsec_AAAA"), kSpecId, kSpecTimestamp, kSpecBody, signature));
  // The right bytes under another version tag, or cut short, are no signature.
  CHECK_FALSE(VerifyWebhookSignature(key, kSpecId, kSpecTimestamp, kSpecBody,
                                     "v1a,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
  CHECK_FALSE(VerifyWebhookSignature(key, kSpecId, kSpecTimestamp, kSpecBody,
                                     "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE"));
  CHECK_FALSE(VerifyWebhookSignature(key, kSpecId, kSpecTimestamp, kSpecBody, ""));
  CHECK_FALSE(VerifyWebhookSignature(key, kSpecId, kSpecTimestamp, kSpecBody,
                                     "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
}

TEST_CASE("webhook verification accepts a matching signature among several",
          "[alerts][webhook_signature]") {
  // A key rotation: the old key's signature, an asymmetric one, then ours (the Go library's
  // "valid multi sig is valid" case).
  const std::string header = absl::StrCat("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= ",
                                          "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/"
                                          "enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg== ",
                                          " ", kSpecSignature);
  CHECK(VerifyWebhookSignature(Key(kSpecSecret), kSpecId, kSpecTimestamp, kSpecBody, header));
}

TEST_CASE("webhook headers carry the id the time and a verifiable signature",
          "[alerts][webhook_signature]") {
  const WebhookKey key = Key(kSpecSecret);
  // Signed at the whole second, rounded down.
  const absl::Time at = absl::FromUnixSeconds(kSpecTimestamp) + absl::Milliseconds(999);
  const HttpHeaders headers = WebhookHeaders(key, kSpecId, at, kSpecBody);
  CHECK(headers.size() == 4);
  CHECK(HeaderValue(headers, "webhook-id") == std::string(kSpecId));
  CHECK(HeaderValue(headers, "webhook-timestamp") == std::string("1614265330"));
  CHECK(HeaderValue(headers, "webhook-signature") == std::string(kSpecSignature));
  CHECK(HeaderValue(headers, "content-type") == std::string("application/json"));
}

TEST_CASE("webhook ids are visible ASCII without dots", "[alerts][webhook_signature]") {
  CHECK(ValidateWebhookId("alert_01J9ZQ-3").ok());
  CHECK(ValidateWebhookId(std::string(kMaxWebhookIdBytes, 'a')).ok());
  CHECK(ValidateWebhookId("").message() == "webhook id: empty");
  CHECK(ValidateWebhookId(std::string(kMaxWebhookIdBytes + 1, 'a')).message() ==
        "webhook id: 257 bytes; at most 256");
  CHECK(ValidateWebhookId("job.1").message() ==
        "webhook id \"job.1\": character 4 is not allowed (visible ASCII other than '.' only)");
  CHECK(ValidateWebhookId("a b").code() == absl::StatusCode::kInvalidArgument);
  CHECK(ValidateWebhookId("a\nb").code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kvbench::controller
