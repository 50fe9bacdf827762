#pragma once

// A raw HTTP connection for the HttpServer tests, where the bytes on the wire are the point.

#include <optional>
#include <string>

#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
// GCC 12 with -fsanitize=address sees a boost::optional in Beast's parser as maybe-uninitialized
// (a false positive, fatal under -Werror); the warning is located in these headers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/beast/http.hpp>
#pragma GCC diagnostic pop
#include <catch2/catch.hpp>

#include "absl/time/time.h"

namespace kvbench::http_test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

// Bounds every exchange, so a broken server fails a test instead of hanging it.
inline constexpr absl::Duration kTestTimeout = absl::Seconds(10);

// One TCP connection speaking raw HTTP, every read bounded by kTestTimeout.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    beast::error_code error;
    socket_.connect(tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"),
                                  static_cast<uint16_t>(port)),
                    error);
    REQUIRE_FALSE(error);
  }

  void Write(const std::string& data) {
    beast::error_code error;
    asio::write(socket_, asio::buffer(data), error);
    REQUIRE_FALSE(error);
  }

  // The next response, or nullopt if the connection closed or nothing came in time.
  std::optional<http::response<http::string_body>> ReadResponse() {
    http::response<http::string_body> response;
    std::optional<beast::error_code> result;
    http::async_read(socket_, buffer_, response,
                     [&](beast::error_code error, size_t) { result = error; });
    if (!Run(result) || *result) return std::nullopt;
    return response;
  }

  // True if the server closes the connection (with nothing more to read) in time.
  bool ReadsEof() {
    char byte = 0;
    std::optional<beast::error_code> result;
    socket_.async_read_some(asio::buffer(&byte, 1),
                            [&](beast::error_code error, size_t) { result = error; });
    const bool done = Run(result);
    UNSCOPED_INFO("read after the response: " << (done ? result->message() : "timed out"));
    return done && *result == asio::error::eof;
  }

 private:
  bool Run(std::optional<beast::error_code>& result) {
    io_.restart();
    io_.run_for(absl::ToChronoMilliseconds(kTestTimeout));
    if (result.has_value()) return true;
    socket_.cancel();
    io_.restart();
    io_.run();
    return false;
  }

  asio::io_context io_;
  tcp::socket socket_{io_};
  beast::flat_buffer buffer_;
};

}  // namespace kvbench::http_test
