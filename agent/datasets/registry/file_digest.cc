#include "agent/datasets/registry/file_digest.h"

#include <openssl/evp.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/escaping.h"

namespace kvbench::datasets {
namespace {

constexpr size_t kReadBlockBytes = 1 << 20;

}  // namespace

absl::StatusOr<std::string> Sha256OfFile(const std::string& path) {
  std::unique_ptr<FILE, decltype(&std::fclose)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  &EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    return absl::InternalError("SHA-256 init failed");
  }
  std::vector<unsigned char> block(kReadBlockBytes);
  size_t read = 0;
  while ((read = std::fread(block.data(), 1, block.size(), file.get())) > 0) {
    if (EVP_DigestUpdate(context.get(), block.data(), read) != 1) {
      return absl::InternalError("SHA-256 update failed");
    }
  }
  if (std::ferror(file.get())) return absl::InternalError(absl::StrCat("cannot read ", path));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1) {
    return absl::InternalError("SHA-256 final failed");
  }
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace kvbench::datasets
