#include "tests/component/agent/datasets/registry/dataset_file_server.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kvbench::testing {

absl::StatusOr<std::unique_ptr<DatasetFileServer>> DatasetFileServer::Create(std::string name,
                                                                             std::string content) {
  std::unique_ptr<DatasetFileServer> server(
      new DatasetFileServer(std::move(name), std::move(content)));
  absl::StatusOr<std::unique_ptr<TestHttpServer>> http = TestHttpServer::Create();
  if (!http.ok()) return http.status();
  server->server_ = *std::move(http);
  DatasetFileServer* self = server.get();
  server->server_->HandleStream(
      absl::StrCat("/", server->name_),
      [self](const TestHttpServer::Request& request, TestHttpServer::StreamWriter& writer) {
        self->Serve(request, writer);
      });
  return server;
}

void DatasetFileServer::SetEtag(std::string etag) {
  std::lock_guard<std::mutex> lock(mu_);
  etag_ = std::move(etag);
}

std::vector<std::string> DatasetFileServer::if_ranges() const {
  std::lock_guard<std::mutex> lock(mu_);
  return if_ranges_;
}

std::vector<std::string> DatasetFileServer::ranges() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ranges_;
}

void DatasetFileServer::Serve(const TestHttpServer::Request& request,
                              TestHttpServer::StreamWriter& writer) {
  const std::string range = request.Header("Range").value_or("");
  const std::optional<std::string> if_range = request.Header("If-Range");
  std::string etag;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ranges_.push_back(range);
    if_ranges_.push_back(if_range.value_or(""));
    etag = etag_;
  }
  std::string body = content_;
  if (long flip = flip_at_.load(); flip >= 0 && flip < static_cast<long>(body.size())) {
    body[flip] = static_cast<char>(body[flip] ^ 0x01);
  }
  size_t start = 0;
  int status = 200;
  TestHttpServer::Headers headers{{"ETag", etag}, {"Accept-Ranges", "bytes"}};
  const bool range_applies = !if_range || *if_range == etag;
  if (range_applies && absl::StartsWith(range, "bytes=") && absl::EndsWith(range, "-") &&
      absl::SimpleAtoi(range.substr(6, range.size() - 7), &start) && start < body.size()) {
    status = 206;
    headers.emplace_back("Content-Range",
                         absl::StrCat("bytes ", start, "-", body.size() - 1, "/", body.size()));
  } else {
    start = 0;
  }
  writer.SetHead(status, headers);
  const long cut = cut_after_.exchange(-1);
  absl::string_view rest = absl::string_view(body).substr(start);
  if (cut >= 0) {
    writer.Write(rest.substr(0, static_cast<size_t>(cut)));
    writer.Abort();
    return;
  }
  constexpr size_t kPiece = 64 * 1024;
  for (size_t at = 0; at < rest.size(); at += kPiece) {
    if (!writer.Write(rest.substr(at, kPiece))) return;
  }
}

}  // namespace kvbench::testing
