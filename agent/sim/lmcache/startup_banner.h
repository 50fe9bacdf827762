#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace kvbench::sim::lmcache {

// LMCache's startup banner, as `lmcache` prints it once per process to stderr before it parses
// its command line (LMCache/LMCache:lmcache/banner.py@0469c805 print_banner_once, called first
// thing in lmcache/cli/main.py@5177ed50): a blank line, the "LM Cache" logo in figlet's standard
// font with "LMCache v<version>", the website, recipes and LinkedIn links on its right, a line
// naming the opt-out variable, and a blank line. kvbench's agent reads the version from it.

// The variable that turns the banner off.
inline constexpr char kDisableBannerEnv[] = "LMCACHE_DISABLE_BANNER";

// True when `value` (the variable's value; null when unset) turns the banner off: "1", "true" or
// "yes", trimmed and in any case, as upstream's _banner_disabled.
bool BannerDisabledBy(const char* value);

// The banner's text, ending in a newline. `colored` wraps "LM" and "Cache" and the last line in
// ANSI colours, as upstream does when the stream is a TTY.
std::string RenderStartupBanner(absl::string_view version, bool colored);

}  // namespace kvbench::sim::lmcache
