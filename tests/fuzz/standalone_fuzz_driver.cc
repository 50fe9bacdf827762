// A main() for libFuzzer targets built without libFuzzer (any compiler): runs every corpus input
// once, then seeded random mutations of them (bit flips, inserted format tokens, deleted,
// duplicated and spliced ranges) until a run count or a time budget is reached. Deterministic
// for a seed, apart from how many mutations fit in the time. A target reports a bug by crashing
// (abort, sanitizer), so any exit other than 0 fails the ctest test.
//
//   kv_fuzz_<target> [--seconds=2] [--runs=N] [--seed=1] [--max_len=65536] CORPUS_DIR_OR_FILE...

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

struct Options {
  double seconds = 2;
  uint64_t runs = UINT64_MAX;  // mutations; the time budget usually ends the run first
  uint64_t seed = 1;
  size_t max_len = 65536;
  std::vector<std::string> paths;
};

// Pieces of the Prometheus text format that a byte-level mutation rarely produces by itself.
// clang-format off
const char* const kTokens[] = {
    "{", "}", "\"", "\\", "\\\\", "\\\"", "\\n", "\n", "\r\n", "=", ",", " ", "\t", "#",
    "# HELP ", "# TYPE ", " counter", " gauge", " histogram", " summary", " untyped",
    "NaN", "+Inf", "-Inf", "1e-3", "1e400", "-0", "0x1p3", "9223372036854775808",
    "_bucket", "_sum", "_count", "_total", "_created", "le=\"", "+Inf\"", ":", "vllm:",
    "engine=\"0\"", " 1712345678901",
};
// clang-format on

bool ParseFlag(const std::string& arg, const char* name, std::string* value) {
  const std::string prefix = std::string("--") + name + "=";
  if (arg.compare(0, prefix.size(), prefix) != 0) return false;
  *value = arg.substr(prefix.size());
  return true;
}

bool ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (ParseFlag(arg, "seconds", &value)) {
      options->seconds = std::stod(value);
    } else if (ParseFlag(arg, "runs", &value)) {
      options->runs = std::stoull(value);
    } else if (ParseFlag(arg, "seed", &value)) {
      options->seed = std::stoull(value);
    } else if (ParseFlag(arg, "max_len", &value)) {
      options->max_len = std::stoull(value);
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "unknown flag %s\n", arg.c_str());
      return false;
    } else {
      options->paths.push_back(arg);
    }
  }
  return !options->paths.empty();
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// Every regular file under the given paths (directories are walked recursively), sorted so the
// order does not depend on the file system.
std::vector<std::string> LoadCorpus(const std::vector<std::string>& paths) {
  std::vector<std::filesystem::path> files;
  for (const std::string& path : paths) {
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else {
      files.emplace_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> inputs;
  for (const auto& file : files) inputs.push_back(ReadFile(file));
  return inputs;
}

void RunOne(const std::string& input) {
  // A copy in its own allocation, so a sanitizer sees reads past the end.
  std::vector<uint8_t> bytes(input.begin(), input.end());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

class Mutator {
 public:
  Mutator(uint64_t seed, const std::vector<std::string>* corpus, size_t max_len)
      : rng_(seed), corpus_(corpus), max_len_(max_len) {}

  std::string Next() {
    std::string input = Pick();
    const int steps = 1 + static_cast<int>(Below(4));
    for (int i = 0; i < steps; ++i) MutateOnce(&input);
    if (input.size() > max_len_) input.resize(max_len_);
    return input;
  }

 private:
  uint64_t Below(uint64_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_);
  }
  const std::string& Pick() { return (*corpus_)[Below(corpus_->size())]; }

  void MutateOnce(std::string* s) {
    const size_t at = Below(s->size() + 1);
    switch (Below(7)) {
      case 0:  // flip a bit
        if (!s->empty()) (*s)[Below(s->size())] ^= static_cast<char>(1u << Below(8));
        break;
      case 1:  // insert a random byte
        s->insert(at, 1, static_cast<char>(Below(256)));
        break;
      case 2:  // insert a format token
        s->insert(at, kTokens[Below(std::size(kTokens))]);
        break;
      case 3:  // delete a range
        s->erase(at, Below(16) + 1);
        break;
      case 4: {  // duplicate a range somewhere else
        const std::string piece = s->substr(Below(s->size() + 1), Below(64) + 1);
        s->insert(Below(s->size() + 1), piece);
        break;
      }
      case 5: {  // splice in the tail of another input
        const std::string& other = Pick();
        s->resize(at);
        s->append(other, Below(other.size() + 1), std::string::npos);
        break;
      }
      default:  // truncate
        s->resize(at);
        break;
    }
  }

  std::mt19937_64 rng_;
  const std::vector<std::string>* corpus_;
  size_t max_len_;
};

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr, "usage: %s [--seconds=S] [--runs=N] [--seed=K] [--max_len=B] CORPUS...\n",
                 argv[0]);
    return 2;
  }
  const std::vector<std::string> corpus = LoadCorpus(options.paths);
  if (corpus.empty()) {
    std::fprintf(stderr, "no corpus inputs found\n");
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(options.seconds));
  for (const std::string& input : corpus) RunOne(input);
  RunOne("");
  Mutator mutator(options.seed, &corpus, options.max_len);
  uint64_t mutations = 0;
  while (mutations < options.runs && Clock::now() < deadline) {
    RunOne(mutator.Next());
    ++mutations;
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("%zu corpus inputs and %llu mutations (seed %llu) in %.2f s: no crash\n",
              corpus.size(), static_cast<unsigned long long>(mutations),
              static_cast<unsigned long long>(options.seed), elapsed);
  return 0;
}
