// The Prometheus text format 0.0.4, line by line: declarations, comments, labels and their
// escapes, values and timestamps as Prometheus reads them, and broken lines reported by number
// while the rest of the scrape still parses.

#include "common/prometheus/exposition.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/support/prometheus_text.h"

namespace kvbench::prometheus_text {
namespace {

// The parse of `text`, which must have no errors.
Exposition ParseClean(const std::string& text) {
  Exposition exposition = Parse(text);
  for (const ParseError& error : exposition.errors) {
    INFO("line " << error.line << ": " << error.message);
    CHECK(false);
  }
  return exposition;
}

// The lines of `errors`, in order.
std::vector<int> ErrorLines(const Exposition& exposition) {
  std::vector<int> lines;
  for (const ParseError& error : exposition.errors) lines.push_back(error.line);
  return lines;
}

TEST_CASE("Prometheus text: HELP and TYPE declare families of every type") {
  const Exposition e = ParseClean(
      "# HELP requests_total Requests served.\n"
      "# TYPE requests_total counter\n"
      "# TYPE temperature gauge\n"
      "# HELP temperature Degrees, \\\\ and a\\nsecond line.\n"
      "# TYPE latency_seconds histogram\n"
      "# TYPE rpc_seconds summary\n"
      "# TYPE legacy untyped\n"
      "# TYPE shouting COUNTER\n"
      "# HELP no_help\n");
  REQUIRE(e.families.size() == 7);
  CHECK(e.families.at("requests_total").type == MetricType::kCounter);
  CHECK(e.families.at("requests_total").help == "Requests served.");
  CHECK(e.families.at("temperature").type == MetricType::kGauge);
  CHECK(e.families.at("temperature").help == "Degrees, \\ and a\nsecond line.");
  CHECK(e.families.at("latency_seconds").type == MetricType::kHistogram);
  CHECK(e.families.at("rpc_seconds").type == MetricType::kSummary);
  CHECK(e.families.at("legacy").type == MetricType::kUntyped);
  CHECK(e.families.at("shouting").type == MetricType::kCounter);  // Prometheus ignores case
  CHECK(e.families.at("no_help").help.empty());
  CHECK(e.families.at("no_help").type == MetricType::kUntyped);
  CHECK(e.samples.empty());
  CHECK(MetricTypeName(MetricType::kHistogram) == "histogram");
  CHECK(MetricTypeName(MetricType::kUntyped) == "untyped");
}

TEST_CASE("Prometheus text: comments, blank lines and CRLF are skipped") {
  const Exposition e = ParseClean(
      "# A free comment, even with a { and a \" in it\n"
      "#\n"
      "\n"
      "   \t \n"
      "#HELPER not a declaration\n"
      "# HELP\n"
      "# TYPE cut_short\n"
      "  up 1\r\n"
      "\n");
  REQUIRE(e.samples.size() == 1);
  CHECK(e.samples[0].name == "up");
  CHECK(e.samples[0].value == 1);
  CHECK(e.families.empty());
}

TEST_CASE("Prometheus text: label values unescape backslash, quote and newline") {
  const Exposition e = ParseClean(R"(m{path="C:\\dir\\",quote="say \"hi\"",nl="a\nb",plain="x"} 1)"
                                  "\n");
  REQUIRE(e.samples.size() == 1);
  const Sample& s = e.samples[0];
  REQUIRE(s.labels.size() == 4);
  CHECK(s.labels[0] == std::make_pair(std::string("path"), std::string("C:\\dir\\")));
  CHECK(s.Label("quote") == "say \"hi\"");
  CHECK(s.Label("nl") == "a\nb");
  CHECK(s.Label("plain") == "x");
  CHECK_FALSE(s.Label("absent").has_value());
}

TEST_CASE("Prometheus text: empty label sets, trailing commas and blanks inside braces") {
  const Exposition e = ParseClean(
      "a{} 1\n"
      "b{x=\"1\",} 2\n"
      "c { x = \"1\" , y=\"\" , } 3\n"
      "d{x=\"1\"}4\n"
      "e\t5\n");
  REQUIRE(e.samples.size() == 5);
  CHECK(e.samples[0].labels.empty());
  CHECK(e.samples[1].labels == Labels{{"x", "1"}});
  CHECK(e.samples[2].labels == Labels{{"x", "1"}, {"y", ""}});
  CHECK(e.samples[2].value == 3);
  CHECK(e.samples[3].value == 4);
  CHECK(e.samples[4].value == 5);
}

TEST_CASE("Prometheus text: values as Go's ParseFloat reads them") {
  struct Case {
    const char* text;
    double value;
  };
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<Case> cases = {
      {"+Inf", inf},   {"-Inf", -inf},     {"Inf", inf},
      {"inf", inf},    {"+infinity", inf}, {"1e-3", 1e-3},
      {"1.5E+2", 150}, {"-0.25", -0.25},   {".5", 0.5},
      {"7.", 7},       {"+3", 3},          {"1.7526e+09", 1.7526e9},
      {"0", 0},        {"1e-400", 0},      {"12345678901234567890", 12345678901234567890.0},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const Exposition e = ParseClean(std::string("m ") + c.text + "\n");
    REQUIRE(e.samples.size() == 1);
    CHECK(e.samples[0].value == c.value);
  }
  for (const char* nan : {"NaN", "nan", "-NaN"}) {
    INFO(nan);
    const Exposition e = ParseClean(std::string("m ") + nan + "\n");
    REQUIRE(e.samples.size() == 1);
    CHECK(std::isnan(e.samples[0].value));
  }
  for (const char* bad :
       {"1e400", "0x10", "-0X1p3", "nan(1)", "1,5", "++1", "+-1", "1_000", "one", "-"}) {
    INFO(bad);
    const Exposition e = Parse(std::string("m ") + bad + "\n");
    CHECK(e.samples.empty());
    CHECK(ErrorLines(e) == std::vector<int>{1});
  }
}

TEST_CASE("Prometheus text: optional integer timestamps in milliseconds") {
  const Exposition e = ParseClean(
      "a 1 1712345678901\n"
      "b{x=\"y\"} 2 -5\n"
      "c 3\n"
      "d NaN   +42   \n");
  REQUIRE(e.samples.size() == 4);
  CHECK(e.samples[0].timestamp_ms == 1712345678901);
  CHECK(e.samples[0].value == 1);
  CHECK(e.samples[1].timestamp_ms == -5);
  CHECK_FALSE(e.samples[2].timestamp_ms.has_value());
  CHECK(e.samples[3].timestamp_ms == 42);
}

TEST_CASE("Prometheus text: metric names with colons, digits and underscores") {
  const Exposition e = ParseClean(
      "vllm:prefix_cache_hits_total{engine=\"0\"} 7\n"
      ":leading:colon 1\n"
      "_under_9 2\n"
      "# TYPE vllm:kv_cache_usage_perc gauge\n");
  REQUIRE(e.samples.size() == 3);
  CHECK(e.samples[0].name == "vllm:prefix_cache_hits_total");
  CHECK(e.samples[1].name == ":leading:colon");
  CHECK(e.samples[2].name == "_under_9");
  CHECK(e.families.count("vllm:kv_cache_usage_perc") == 1);
}

TEST_CASE("Prometheus text: the last line may lack its newline, and empty text is empty") {
  CHECK(ParseClean("a 1\nb 2").samples.size() == 2);
  const Exposition empty = Parse("");
  CHECK(empty.samples.empty());
  CHECK(empty.families.empty());
  CHECK(empty.errors.empty());
}

TEST_CASE("Prometheus text: a broken line is reported by number and the rest still parses") {
  const std::string text =
      "# HELP good_total Fine.\n"             // 1
      "# TYPE good_total counter\n"           // 2
      "good_total 1\n"                        // 3
      "bad_value{a=\"b\"} twelve\n"           // 4: not a number
      "good_total{x=\"2\"} 2\n"               // 5
      "unterminated{a=\"oops} 3\n"            // 6: no closing quote
      "missing_value{a=\"b\"}\n"              // 7
      "<html><body>502 Bad Gateway</body>\n"  // 8: garbage
      "bad_escape{a=\"\\t\"} 1\n"             // 9: \t is not an escape
      "bad_ts 1 1.5e12\n"                     // 10
      "dup{a=\"1\",a=\"2\"} 1\n"              // 11
      "too_many 1 2 3\n"                      // 12
      "open{a=\"1\" 1\n"                      // 13: no '}'
      "# TYPE good_total gauge\n"             // 14: second TYPE (a redeclaration)
      "# TYPE weird info\n"                   // 15: not a 0.0.4 type
      "# HELP bad_help C:\\path\n"            // 16: \p is not an escape
      "# TYPE 9lives counter\n"               // 17: invalid name
      "noeq{a\"1\"} 1\n"                      // 18
      "good_total{x=\"3\"} 3 1000\n";         // 19
  const Exposition e = Parse(text);
  CHECK(ErrorLines(e) == std::vector<int>{4, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18});
  REQUIRE(e.redeclarations.size() == 1);
  CHECK(e.redeclarations[0].line == 14);
  CHECK(e.redeclarations[0].name == "good_total");
  REQUIRE(e.samples.size() == 3);
  CHECK(Sum(e, {{"good_total"}, {}}) == 6);
  CHECK(e.families.at("good_total").type == MetricType::kCounter);  // the first TYPE stays
  CHECK(e.families.count("weird") == 0);
  for (const ParseError& error : e.errors) {
    INFO("line " << error.line << ": " << error.message);
    CHECK_THAT(error.message, Catch::Contains("column"));  // syntax errors
  }
  CHECK_THAT(e.errors[0].message, Catch::Contains("invalid value \"twelve\" at column 18"));
  CHECK_THAT(e.errors[1].message, Catch::Contains("unterminated label value"));
  CHECK_THAT(e.errors[2].message, Catch::Contains("missing value"));
  CHECK_THAT(e.errors[3].message, Catch::Contains("expected a metric name at column 1"));
  CHECK_THAT(e.errors[4].message, Catch::Contains("invalid escape sequence"));
  CHECK_THAT(e.errors[5].message, Catch::Contains("invalid timestamp"));
  CHECK_THAT(e.errors[6].message, Catch::Contains("duplicate label \"a\""));
  CHECK_THAT(e.errors[7].message, Catch::Contains("after the timestamp"));
  CHECK_THAT(e.errors[9].message, Catch::Contains("unknown metric type \"info\""));
}

TEST_CASE("Prometheus text: a gauge and a histogram of one name (LMCache) parse without errors") {
  // lmcache_mp_l1_usage_ratio: L1Manager's gauge, then L1EvictionLoopSubscriber's histogram
  // (LMCache/LMCache:lmcache/v1/mp_observability/subscribers/metrics/l1_eviction_loop.py@6e0ccd69).
  const std::string text =
      "# HELP lmcache_mp_l1_usage_ratio L1 usage\n"
      "# TYPE lmcache_mp_l1_usage_ratio gauge\n"
      "lmcache_mp_l1_usage_ratio 0.25\n"
      "# HELP lmcache_mp_l1_usage_ratio L1 usage per tick\n"
      "# TYPE lmcache_mp_l1_usage_ratio histogram\n"
      "lmcache_mp_l1_usage_ratio_bucket{le=\"0.5\"} 3\n"
      "lmcache_mp_l1_usage_ratio_bucket{le=\"+Inf\"} 4\n"
      "lmcache_mp_l1_usage_ratio_sum 2.5\n"
      "lmcache_mp_l1_usage_ratio_count 4\n";
  const Exposition e = Parse(text);
  CHECK(e.errors.empty());
  CHECK(e.redeclarations.size() == 2);  // its HELP and its TYPE
  CHECK(e.families.at("lmcache_mp_l1_usage_ratio").type == MetricType::kGauge);
  CHECK(Sum(e, {{"lmcache_mp_l1_usage_ratio"}, {}}) == 0.25);  // the gauge's value
  const std::optional<Histogram> histogram = SumHistogram(e, {{"lmcache_mp_l1_usage_ratio"}, {}});
  REQUIRE(histogram.has_value());
  CHECK(histogram->count == 4);
}

TEST_CASE("Prometheus text: errors quote at most a short, escaped excerpt of the line") {
  const Exposition e = Parse("m " + std::string(1000, 'x') + "\n" + "n \x01\xff\n");
  REQUIRE(e.errors.size() == 2);
  CHECK(e.errors[0].message.size() < 120);
  CHECK_THAT(e.errors[1].message, Catch::Contains("\\x01\\xff"));
}

TEST_CASE("Prometheus text: FindFamily resolves sample names to their declaration") {
  const Exposition e = ParseClean(
      "# TYPE py_counter counter\n"         // prometheus_client before the `_total` munging
      "# TYPE cpp_counter_total counter\n"  // prometheus-cpp declares the sample name
      "# TYPE lat histogram\n"
      "# TYPE hist_total histogram\n");  // vllm:iteration_tokens_total's shape
  auto type_of = [&](const char* sample) -> std::string {
    const Family* family = FindFamily(e, sample);
    return family == nullptr ? "none" : std::string(MetricTypeName(family->type));
  };
  CHECK(type_of("py_counter_total") == "counter");
  CHECK(type_of("py_counter_created") == "counter");
  CHECK(type_of("cpp_counter_total") == "counter");
  CHECK(type_of("lat_bucket") == "histogram");
  CHECK(type_of("lat_sum") == "histogram");
  CHECK(type_of("lat_count") == "histogram");
  CHECK(type_of("hist_total_bucket") == "histogram");
  CHECK(type_of("lat_total_bucket") == "none");  // one suffix only
  CHECK(type_of("undeclared") == "none");
}

TEST_CASE("SumOfSamples (tests/support) reads values, not timestamps, across label sets") {
  const std::string text =
      "# HELP x_total X.\n"
      "x_total{a=\"1\"} 2 1712345678901\n"
      "x_total{a=\"2\",b=\"with } and \\\" \"} 3\n"
      "x_total_created 99\n";
  CHECK(kvbench::testing::SumOfSamples(text, "x_total") == 5);
  CHECK(kvbench::testing::SumOfSamples(text, "absent") == 0);
}

}  // namespace
}  // namespace kvbench::prometheus_text
