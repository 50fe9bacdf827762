// DatasetFetcher with the real CurlFileDownloader against a loopback mirror serving the real
// tau2 file from deploy/examples/datasets: verified installs, resume with Range, corruption, cache
// hits.

#include "agent/datasets/registry/dataset_fetcher.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "agent/datasets/registry/curl_file_downloader.h"
#include "agent/datasets/registry/dataset_registry.h"
#include "agent/datasets/registry/file_digest.h"
#include "tests/component/agent/datasets/registry/dataset_file_server.h"
#include "tests/support/demo_dataset_file.h"
#include "tests/support/temp_dir.h"

namespace kvbench::datasets {
namespace {

using testing::DatasetFileServer;
using testing::TempDir;

using ::kvbench::testing::kTau2File;
using ::kvbench::testing::kTau2Sha256;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const DatasetSpec& Tau2() {
  const DatasetSpec* spec = FindDataset("tau2-bench-v1");
  REQUIRE(spec != nullptr);
  return *spec;
}

std::unique_ptr<DatasetFileServer> Tau2Server() {
  const std::string content = ReadAll(std::string(KV_DEMO_DATASETS) + "/" + kTau2File);
  auto server = DatasetFileServer::Create(kTau2File, content);
  REQUIRE(server.ok());
  return *std::move(server);
}

TEST_CASE("the registry pins tau2 to the shared file's digest and names the sammshen shards") {
  const DatasetSpec& tau2 = Tau2();
  REQUIRE(tau2.files.size() == 1);
  CHECK(tau2.files[0].name == kTau2File);
  CHECK(tau2.files[0].sha256 == kTau2Sha256);
  CHECK(*tau2.files[0].size == 796333);
  CHECK(tau2.files[0].url.find("59d0fb96f4292815e1f6463fb2f139ffef47dc7f") != std::string::npos);
  auto digest = Sha256OfFile(std::string(KV_DEMO_DATASETS) + "/" + kTau2File);
  REQUIRE(digest.ok());
  CHECK(*digest == kTau2Sha256);

  const DatasetSpec* sammshen = FindDataset("sammshen");
  REQUIRE(sammshen != nullptr);
  REQUIRE(sammshen->files.size() == 5);
  CHECK(sammshen->files[4].url ==
        "https://huggingface.co/datasets/sammshen/lmcache-agentic-traces/resolve/main/"
        "data/train-00004-of-00005.parquet");
  CHECK(sammshen->files[0].sha256.empty());
  CHECK(FindDataset("nope") == nullptr);
  CHECK(KnownDatasetCodes() == "sammshen, tau2-bench-v1");
}

TEST_CASE("a cut download resumes with a Range request and ends verified") {
  auto server = Tau2Server();
  server->CutFirstResponseAfter(100'000);
  TempDir cache;
  CurlFileDownloader downloader;
  std::vector<FetchProgress> progress;
  FetchOptions options;
  options.mirror = server->base_url();
  options.on_progress = [&](const FetchProgress& p) { progress.push_back(p); };
  DatasetFetcher fetcher(DatasetCache(cache.path()), &downloader, options);

  auto fetched = fetcher.Fetch(Tau2().files[0]);
  REQUIRE(fetched.ok());
  CHECK(fetched->outcome == FetchOutcome::kResumed);
  CHECK(fetched->downloads == 2);
  CHECK(fetched->sha256 == kTau2Sha256);
  CHECK(fetched->size == 796333);
  CHECK(server->ranges() == std::vector<std::string>{"", "bytes=100000-"});
  CHECK(server->if_ranges() == std::vector<std::string>{"", "\"tau2-v1\""});
  CHECK(*Sha256OfFile(cache.File(kTau2File)) == kTau2Sha256);
  CHECK(!FileSize(cache.File(std::string(kTau2File) + ".part")));
  CHECK(!FileSize(cache.File(std::string(kTau2File) + ".part.etag")));
  REQUIRE(!progress.empty());
  CHECK(progress.back().bytes_done == 796333);
}

TEST_CASE("a file changed upstream since the cut is fetched whole again (If-Range), not spliced") {
  auto server = Tau2Server();
  server->CutFirstResponseAfter(100'000);
  TempDir cache;
  CurlFileDownloader downloader;
  FetchOptions options;
  options.mirror = server->base_url();
  options.max_attempts = 1;
  DatasetFetcher fetcher(DatasetCache(cache.path()), &downloader, options);

  auto cut = fetcher.Fetch(Tau2().files[0]);
  REQUIRE(!cut.ok());
  CHECK(cut.status().code() == absl::StatusCode::kUnavailable);
  CHECK(*FileSize(cache.File(std::string(kTau2File) + ".part")) == 100'000);
  CHECK(cache.ReadFile(std::string(kTau2File) + ".part.etag") == "\"tau2-v1\"\n");

  server->SetEtag("\"tau2-v2\"");  // a new version (same bytes here, so the pin still holds)
  auto whole = fetcher.Fetch(Tau2().files[0]);
  REQUIRE(whole.ok());
  CHECK(whole->outcome == FetchOutcome::kDownloaded);
  CHECK(server->if_ranges() == std::vector<std::string>{"", "\"tau2-v1\""});
  CHECK(*Sha256OfFile(cache.File(kTau2File)) == kTau2Sha256);
  CHECK(DatasetCache(cache.path()).ReadMeta(Tau2().files[0])->etag == "tau2-v2");
}

TEST_CASE("a .part left by an earlier run is resumed, a 200 answer restarts it from zero") {
  auto server = Tau2Server();
  TempDir cache;
  const std::string content = ReadAll(std::string(KV_DEMO_DATASETS) + "/" + kTau2File);
  CurlFileDownloader downloader;
  FetchOptions options;
  options.mirror = server->base_url() + "/";

  SECTION("resumed") {
    cache.WriteFile(std::string(kTau2File) + ".part", content.substr(0, 5000));
    DatasetFetcher fetcher(DatasetCache(cache.path()), &downloader, options);
    auto fetched = fetcher.Fetch(Tau2().files[0]);
    REQUIRE(fetched.ok());
    CHECK(server->ranges() == std::vector<std::string>{"bytes=5000-"});
    CHECK(fetched->outcome == FetchOutcome::kResumed);
  }
  SECTION("a .part longer than the file gets a 200 and is rewritten from zero") {
    // Garbage longer than the file: the server ignores the unsatisfiable range and sends it all.
    cache.WriteFile(std::string(kTau2File) + ".part", std::string(900'000, 'x'));
    DatasetFetcher fetcher(DatasetCache(cache.path()), &downloader, options);
    auto fetched = fetcher.Fetch(Tau2().files[0]);
    REQUIRE(fetched.ok());
    CHECK(fetched->outcome == FetchOutcome::kDownloaded);
    CHECK(fetched->sha256 == kTau2Sha256);
  }
}

TEST_CASE("a corrupted file is rejected with both digests and nothing lands in the cache") {
  auto server = Tau2Server();
  server->FlipByteAt(1234);
  TempDir cache;
  CurlFileDownloader downloader;
  FetchOptions options;
  options.mirror = server->base_url();
  DatasetFetcher fetcher(DatasetCache(cache.path()), &downloader, options);

  auto fetched = fetcher.Fetch(Tau2().files[0]);
  REQUIRE(!fetched.ok());
  CHECK(fetched.status().code() == absl::StatusCode::kDataLoss);
  const std::string message(fetched.status().message());
  CHECK(message.find(kTau2File) != std::string::npos);
  CHECK(message.find(std::string("expected sha256 ") + kTau2Sha256) != std::string::npos);
  CHECK(message.find(", got ") != std::string::npos);
  CHECK(!FileSize(cache.File(kTau2File)));
  CHECK(!FileSize(cache.File(std::string(kTau2File) + ".part")));
  CHECK(!FileSize(cache.File(std::string(kTau2File) + ".meta")));
}

// Two agents on one host sharing a dataset cache pulled the same file at once: both wrote one
// .part and both failed their checksum (found running the README's loopback fleet).
TEST_CASE("fetchers of one file in one cache take turns and both end verified") {
  TempDir cache;
  std::vector<absl::StatusOr<FetchedFile>> results(4, absl::UnknownError("not run"));
  std::vector<std::thread> fetchers;
  for (size_t i = 0; i < results.size(); ++i) {
    fetchers.emplace_back([&results, &cache, i] {
      FetchOptions options;
      options.mirror = KV_DEMO_DATASETS;  // a folder: the copy is slow enough to overlap
      CurlFileDownloader downloader;
      DatasetFetcher fetcher(DatasetCache(cache.path()), &downloader, options);
      results[i] = fetcher.Fetch(Tau2().files[0]);
    });
  }
  for (std::thread& fetcher : fetchers) fetcher.join();
  int copied = 0;
  for (const absl::StatusOr<FetchedFile>& result : results) {
    INFO(result.status().ToString());
    REQUIRE(result.ok());
    CHECK(result->sha256 == kTau2Sha256);
    if (result->outcome == FetchOutcome::kCopied) ++copied;
  }
  CHECK(copied == 1);  // the others found it cached
  CHECK(DatasetCache(cache.path()).StateOf(Tau2().files[0]) == CachedState::kVerified);
}

TEST_CASE("an unpinned file is checked against the ETag and digest of its first download") {
  auto server = Tau2Server();
  TempDir cache;
  CurlFileDownloader downloader;
  FetchOptions options;
  options.mirror = server->base_url();
  DatasetFileSpec unpinned = Tau2().files[0];
  unpinned.sha256.clear();
  unpinned.size.reset();
  DatasetFetcher fetcher(DatasetCache(cache.path()), &downloader, options);

  auto first = fetcher.Fetch(unpinned);
  REQUIRE(first.ok());
  auto meta = DatasetCache(cache.path()).ReadMeta(unpinned);
  REQUIRE(meta.ok());
  CHECK(meta->etag == "tau2-v1");
  CHECK(meta->sha256 == kTau2Sha256);
  CHECK(DatasetCache(cache.path()).StateOf(unpinned) == CachedState::kVerified);

  // The cached copy rots; the re-download (same ETag) must match the recorded digest.
  cache.WriteFile(kTau2File, "rotten");
  server->FlipByteAt(7);
  auto again = fetcher.Fetch(unpinned);
  REQUIRE(!again.ok());
  CHECK(again.status().code() == absl::StatusCode::kDataLoss);
  CHECK(std::string(again.status().message()).find(kTau2Sha256) != std::string::npos);
}

TEST_CASE("a verified cached file is a no-op, a missing upstream file is NOT_FOUND") {
  auto server = Tau2Server();
  TempDir cache;
  CurlFileDownloader downloader;
  FetchOptions options;
  options.mirror = server->base_url();
  DatasetFetcher fetcher(DatasetCache(cache.path()), &downloader, options);
  REQUIRE(fetcher.Fetch(Tau2().files[0]).ok());
  const int requests = server->requests();

  auto again = fetcher.Fetch(Tau2().files[0]);
  REQUIRE(again.ok());
  CHECK(again->outcome == FetchOutcome::kAlreadyCached);
  CHECK(server->requests() == requests);

  DatasetFileSpec missing = Tau2().files[0];
  missing.name = "absent.json";
  auto absent = fetcher.Fetch(missing);
  REQUIRE(!absent.ok());
  CHECK(absent.status().code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kvbench::datasets
