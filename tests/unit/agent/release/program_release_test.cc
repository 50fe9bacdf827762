#include "agent/release/program_release.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_join.h"
#include "agent/release/release_cache.h"

namespace kvbench::agent::release {
namespace {

v1::Profile CacheProfile(bool simulated) {
  v1::Profile profile;
  profile.set_name(simulated ? "sim-lmcache" : "lmcache-cpu");
  profile.set_role(v1::CACHE_SERVER);
  profile.add_command(simulated ? "kvsim-lmcache" : "lmcache");
  profile.add_command("server");
  profile.add_extra_args("--chunk-size=256");
  if (simulated) {
    profile.set_simulated(true);
    profile.add_extra_args("--sim-flag-set=prometheus-config");
  }
  (*profile.mutable_env())["LMCACHE_TRACK_USAGE"] = "false";
  return profile;
}

v1::Profile EngineProfile() {
  v1::Profile profile;
  profile.set_name("vllm-nvidia");
  profile.set_role(v1::ENGINE);
  profile.add_command("vllm");
  profile.add_command("serve");
  profile.add_extra_args("--enable-prompt-tokens-details");
  return profile;
}

// Shaped like LMCache's banner (lmcache/banner.py) and argparse's help.
constexpr char kBanner[] =
    "\n _     __  __    ____           _              LMCache v0.5.6 (1a2b3c4d5)\n"
    "| |   |  \\/  |  / ___|__ _  ___| |__   ___      Website:  https://lmcache.ai/\n";
constexpr char kHelp[] =
    "usage: lmcache server [-h] [--host HOST] [--port PORT] [--chunk-size CHUNK_SIZE]\n"
    "\noptions:\n  -h, --help            show this help message and exit\n"
    "  --host HOST           ZMQ bind host\n  --l1-size-gb L1_SIZE_GB\n"
    "  --metrics-sample-rate METRICS_SAMPLE_RATE\n                        fraction of chunks\n";

struct Call {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
};

TEST_CASE("A cache server's probe reads the flags from its help and the version from the banner") {
  std::vector<Call> calls;
  const ProbeRunner run = [&](const std::vector<std::string>& argv,
                              const std::map<std::string, std::string>& env, absl::Duration) {
    calls.push_back({argv, env});
    return absl::StatusOr<ProbeOutput>(ProbeOutput{kHelp, kBanner});
  };
  const ProgramRelease release =
      ProbeProgramRelease(CacheProfile(false), "/opt/lmc/bin/lmcache", run);
  REQUIRE(calls.size() == 1);
  CHECK(absl::StrJoin(calls[0].argv, " ") == "/opt/lmc/bin/lmcache server --help");
  CHECK(calls[0].env.at("LMCACHE_TRACK_USAGE") == "false");
  CHECK(release.component == kLmcacheComponent);
  CHECK(release.version == "0.5.6");
  CHECK(release.flags_known);
  CHECK(release.MayHaveFlag("--metrics-sample-rate"));
  CHECK(release.MayHaveFlag("--l1-size-gb"));
  CHECK(release.MayHaveFlag("--chunk-size"));
  CHECK_FALSE(release.MayHaveFlag("--l2-adapter"));
  CHECK_FALSE(release.MayHaveFlag("--help-me"));
  CHECK(release.error.empty());
  CHECK(release.probe == "lmcache server --help");
  const v1::ComponentVersion proto = release.ToProto();
  CHECK(proto.component() == "lmcache");
  CHECK(proto.version() == "0.5.6");
  CHECK(proto.source() == "lmcache server --help");
  CHECK_FALSE(proto.simulated());
}

TEST_CASE(
    "A simulator's probe carries its --sim- flags, so it answers as the release it imitates") {
  std::vector<std::string> argv_seen;
  const ProbeRunner run = [&](const std::vector<std::string>& argv,
                              const std::map<std::string, std::string>&, absl::Duration) {
    argv_seen = argv;
    return absl::StatusOr<ProbeOutput>(ProbeOutput{kHelp, kBanner});
  };
  const ProgramRelease release = ProbeProgramRelease(CacheProfile(true), "/bin/kvsim-lmcache", run);
  CHECK(absl::StrJoin(argv_seen, " ") ==
        "/bin/kvsim-lmcache server --sim-flag-set=prometheus-config --help");
  CHECK(release.simulated);
  CHECK(release.ToProto().simulated());
}

TEST_CASE("An engine's probe is its top-level --version, the last line the version") {
  std::vector<std::string> argv_seen;
  const ProbeRunner run = [&](const std::vector<std::string>& argv,
                              const std::map<std::string, std::string>&, absl::Duration) {
    argv_seen = argv;
    return absl::StatusOr<ProbeOutput>(
        ProbeOutput{"WARNING: something about torch\n0.33.0\n\n", "INFO banner"});
  };
  const ProgramRelease release = ProbeProgramRelease(EngineProfile(), "/usr/bin/vllm", run);
  CHECK(absl::StrJoin(argv_seen, " ") == "/usr/bin/vllm --version");
  CHECK(release.component == kVllmComponent);
  CHECK(release.version == "0.33.0");
  CHECK_FALSE(release.flags_known);
  CHECK(release.MayHaveFlag("--anything"));  // unread flags are the release's to refuse
}

TEST_CASE("A probe runs no longer than the profile may take to start") {
  absl::Duration seen;
  const ProbeRunner run = [&](const std::vector<std::string>&,
                              const std::map<std::string, std::string>&, absl::Duration timeout) {
    seen = timeout;
    return absl::StatusOr<ProbeOutput>(ProbeOutput{"0.33.0\n", ""});
  };
  v1::Profile engine = EngineProfile();
  ProbeProgramRelease(engine, "/usr/bin/vllm", run);
  CHECK(seen == kDefaultProbeTimeout);
  engine.set_ready_timeout_s(1.5);  // e.g. a wrapper that starts the server whatever its flags
  ProbeProgramRelease(engine, "/usr/bin/vllm", run);
  CHECK(seen == absl::Milliseconds(1500));
  engine.set_ready_timeout_s(900);
  ProbeProgramRelease(engine, "/usr/bin/vllm", run);
  CHECK(seen == kDefaultProbeTimeout);
}

TEST_CASE("A probe that fails leaves the version unknown and says why") {
  const ProbeRunner run = [](const std::vector<std::string>&,
                             const std::map<std::string, std::string>&, absl::Duration) {
    return absl::StatusOr<ProbeOutput>(absl::UnavailableError("exited with code 2: no module"));
  };
  const ProgramRelease release = ProbeProgramRelease(CacheProfile(false), "/x/lmcache", run);
  CHECK(release.version.empty());
  CHECK_FALSE(release.flags_known);
  CHECK(release.error == "exited with code 2: no module");
  CHECK(release.ToProto().version() == "unknown");
  CHECK(release.ToProto().source() == "lmcache server --help: exited with code 2: no module");
}

TEST_CASE("A help without the banner still gives the flags, and says the version is missing") {
  const ProbeRunner run = [](const std::vector<std::string>&,
                             const std::map<std::string, std::string>&, absl::Duration) {
    return absl::StatusOr<ProbeOutput>(ProbeOutput{kHelp, ""});
  };
  const ProgramRelease release = ProbeProgramRelease(CacheProfile(false), "/x/lmcache", run);
  CHECK(release.version.empty());
  CHECK(release.flags_known);
  CHECK(release.error == "no \"LMCache v<version>\" banner");
}

TEST_CASE("The release cache probes each profile's program once") {
  int probes = 0;
  ReleaseCache cache([&](const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>&, absl::Duration) {
    ++probes;
    if (argv.back() == "version")
      return absl::StatusOr<ProbeOutput>(ProbeOutput{"v2.6.2 h1:abc\n", ""});
    return absl::StatusOr<ProbeOutput>(ProbeOutput{"0.33.0\n", ""});
  });
  CHECK(cache.Get(EngineProfile(), "/usr/bin/vllm").version == "0.33.0");
  CHECK(cache.Get(EngineProfile(), "/usr/bin/vllm").version == "0.33.0");
  CHECK(probes == 1);
  CHECK(cache.Get(EngineProfile(), "/other/vllm").version == "0.33.0");
  CHECK(probes == 2);
  CHECK(cache.CaddyVersion("/usr/bin/caddy") == "v2.6.2");
  CHECK(cache.CaddyVersion("/usr/bin/caddy") == "v2.6.2");
  CHECK(probes == 3);
}

}  // namespace
}  // namespace kvbench::agent::release
