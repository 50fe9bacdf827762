// Fuzz target for the agent's event spool (spool/events.log, read back at every agent start after
// a crash, a full disk or a bad sector): any log in, no crash, and the spool the agent then runs
// with is sound. The input is either the log's bytes as they are (first byte even) or, since
// random bytes rarely carry a valid CRC, a script of well-framed records (first byte odd):
//   op % 4 == 0  an event: seq (8 bytes little-endian), attempt (1 byte), job id (1 length byte,
//                then as many bytes, mapped to letters)
//   op % 4 == 1  an ack record (8 bytes), 2: a high-water record (8 bytes)
//   op % 4 == 3  raw bytes (1 length byte, then the bytes): torn or foreign data
// Invariants: the unacknowledged events come in strictly increasing seq order, all above the
// acked seq and at most last_seq; an Append after the load takes a seq above every one loaded;
// an ack of it leaves nothing unacknowledged, and the log reopens to the same seqs.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "agent/link/event_spool.h"
#include "common/checksum/crc32.h"
#include "common/log/logging.h"
#include "tests/fuzz/fuzz_temp_dir.h"

namespace {

using kvbench::agent::EventSpool;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "event_spool_fuzz: %s\n", what.c_str());
  std::abort();
}

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return at_ >= size_; }
  uint8_t Byte() { return at_ < size_ ? data_[at_++] : 0; }
  uint64_t U64() {
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= static_cast<uint64_t>(Byte()) << (8 * i);
    return value;
  }
  std::string Bytes(size_t n) {
    std::string out;
    while (n-- > 0 && !done()) out.push_back(static_cast<char>(Byte()));
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

std::string Le(uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  return out;
}

std::string Framed(char type, const std::string& body) {
  const std::string payload = std::string(1, type) + body;
  return Le(payload.size(), 4) + Le(kvbench::Crc32(payload), 4) + payload;
}

std::string LogFromScript(Reader* in) {
  std::string log;
  while (!in->done()) {
    switch (in->Byte() % 4) {
      case 0: {
        kvbench::v1::Event event;
        event.set_seq(static_cast<int64_t>(in->U64()));
        event.set_attempt(in->Byte());
        std::string job_id = in->Bytes(in->Byte() % 16);
        for (char& c : job_id) c = static_cast<char>('a' + static_cast<uint8_t>(c) % 26);
        event.set_job_id(job_id);
        log += Framed('E', event.SerializeAsString());
        break;
      }
      case 1:
        log += Framed('A', Le(in->U64(), 8));
        break;
      case 2:
        log += Framed('H', Le(in->U64(), 8));
        break;
      default:
        log += in->Bytes(in->Byte());
        break;
    }
  }
  return log;
}

void CheckSound(const EventSpool& spool, const std::string& when) {
  int64_t previous = spool.acked_seq();
  for (const kvbench::v1::Event& event : spool.Unacknowledged()) {
    if (event.seq() <= previous || event.seq() > spool.last_seq()) {
      Fail(absl::StrCat(when, ": unacknowledged seq ", event.seq(), " after ", previous, " (acked ",
                        spool.acked_seq(), ", last ", spool.last_seq(), ")"));
    }
    previous = event.seq();
  }
  if (spool.acked_seq() < 0 || spool.last_seq() < spool.acked_seq()) {
    Fail(absl::StrCat(when, ": acked ", spool.acked_seq(), " last ", spool.last_seq()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Warnings about bad input are the expected outcome, millions of times over.
  static const bool quiet = (kvbench::SetMinLogLevel(kvbench::LogLevel::kFatal), true);
  (void)quiet;
  if (size == 0) return 0;
  Reader in(data + 1, size - 1);
  const std::string log = data[0] % 2 == 0
                              ? std::string(reinterpret_cast<const char*>(data) + 1, size - 1)
                              : LogFromScript(&in);
  const std::string dir = kvbench::fuzz::FuzzTempDir::Get().path() + "/spool";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  kvbench::fuzz::FuzzTempDir::Get().Write(std::string("spool/") + EventSpool::kLogFileName, log);

  int64_t appended = 0;
  {
    absl::StatusOr<std::unique_ptr<EventSpool>> spool = EventSpool::Open(dir);
    if (!spool.ok()) return 0;  // a spool it refuses is reported; nothing to check
    CheckSound(**spool, "loaded");
    const int64_t last = (*spool)->last_seq();
    kvbench::v1::Event event;
    event.set_job_id("after-load");
    absl::StatusOr<int64_t> seq = (*spool)->Append(&event);
    if (seq.ok()) {
      if (*seq <= last) Fail(absl::StrCat("appended seq ", *seq, " not above last ", last));
      appended = *seq;
      CheckSound(**spool, "appended");
      if (!(*spool)->Acknowledge(appended).ok()) Fail("acknowledging the appended event failed");
      if (!(*spool)->Unacknowledged().empty()) Fail("events left after acknowledging all");
    }
  }
  absl::StatusOr<std::unique_ptr<EventSpool>> reopened = EventSpool::Open(dir);
  if (!reopened.ok()) Fail("a spool it wrote does not reopen: " + reopened.status().ToString());
  CheckSound(**reopened, "reopened");
  if (appended > 0 && (*reopened)->acked_seq() != appended) {
    Fail(absl::StrCat("reopened acked ", (*reopened)->acked_seq(), ", expected ", appended));
  }
  return 0;
}
