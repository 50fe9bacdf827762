#include "agent/sim/lmcache/startup_banner.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace kvbench::sim::lmcache {
namespace {

// "LM" and "Cache" in figlet's standard font, one row of each per line.
constexpr std::array<const char*, 5> kBannerLmRows = {
    R"( _     __  __ )",  //
    R"(| |   |  \/  |)",  //
    R"(| |   | |\/| |)",  //
    R"(| |___| |  | |)",  //
    R"(|_____|_|  |_|)",
};
constexpr std::array<const char*, 5> kBannerCacheRows = {
    R"(  ____           _          )",  //
    R"( / ___|__ _  ___| |__   ___ )",  //
    R"(| |   / _` |/ __| '_ \ / _ \)",  //
    R"(| |__| (_| | (__| | | |  __/)",  //
    R"( \____\__,_|\___|_| |_|\___|)",
};
constexpr char kBannerTextGap[] = "     ";

// 24-bit ANSI colours (Solarized orange and cyan), only on a terminal.
constexpr char kBannerLmColour[] = "\x1b[1;3;38;2;203;75;22m";
constexpr char kBannerCacheColour[] = "\x1b[38;2;42;161;152m";
constexpr char kBannerDim[] = "\x1b[2m";
constexpr char kBannerReset[] = "\x1b[0m";

}  // namespace

bool BannerDisabledBy(const char* value) {
  if (value == nullptr) return false;
  const std::string normalized = absl::AsciiStrToLower(absl::StripAsciiWhitespace(value));
  return normalized == "1" || normalized == "true" || normalized == "yes";
}

std::string RenderStartupBanner(absl::string_view version, bool colored) {
  const char* lm = colored ? kBannerLmColour : "";
  const char* cache = colored ? kBannerCacheColour : "";
  const char* dim = colored ? kBannerDim : "";
  const char* reset = colored ? kBannerReset : "";
  // The text right of the logo, by row; the first row has none.
  const std::array<std::string, 5> right = {
      "",
      absl::StrCat("LMCache v", version),
      "Website:  https://lmcache.ai/",
      "Recipes:  https://docs.lmcache.ai/recipes",
      "LinkedIn: https://www.linkedin.com/company/lmcache-lab",
  };
  std::string text = "\n";
  for (size_t row = 0; row < kBannerLmRows.size(); ++row) {
    absl::StrAppend(&text, lm, kBannerLmRows[row], reset, " ", cache, kBannerCacheRows[row], reset);
    if (!right[row].empty()) absl::StrAppend(&text, kBannerTextGap, right[row]);
    text += "\n";
  }
  absl::StrAppend(&text, dim, "Set ", kDisableBannerEnv, "=1 to hide this banner.", reset, "\n\n");
  return text;
}

}  // namespace kvbench::sim::lmcache
