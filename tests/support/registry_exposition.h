#pragma once

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <string>

namespace kvbench::testing {

// What a scrape of `registry` would read: its metrics in the Prometheus text format.
inline std::string Exposition(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

}  // namespace kvbench::testing
